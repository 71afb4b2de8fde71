"""Cunegonda's observation encoding written plainly, one feature after the other (a test oracle).

The straightforward list-building encoder the environment started with; the codec fills one
``float32`` buffer and, in the environments, follows each seat's events
(:meth:`~cardtable.rl.cunegonda.CunegondaCodec.follow`); ``test_encoding.py`` checks that all give
the same vector. (Kuhhandel's encoder is itself written plainly now; its vectors are checked
against frozen ones, ``test_kuhhandel_vectors.py``.)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cardtable.core.contract import Request
from cardtable.rl.codec import Draft
from cardtable.rl.cunegonda import OBS_SIZE, SEATS, CunegondaCodec

DECK = 52


def cunegonda_vector(
    codec: CunegondaCodec, obs: Any, request: Request | None, draft: Draft | None
) -> np.ndarray:
    me = obs.seat if obs.seat is not None else 0
    kind = [0.0, 0.0]
    if request is not None:
        kind[0 if request.kind == "pass" else 1] = 1.0

    def cards(cs: Any) -> list[float]:
        out = [0.0] * DECK
        for c in cs or ():
            out[c] = 1.0
        return out

    chosen = [c for c, x in enumerate(draft.chosen) if x] if draft is not None else []
    played = [[0.0] * DECK for _ in range(SEATS)]
    for t in obs.tricks:
        for i, c in enumerate(t.cards):
            played[(t.leader + i - me) % SEATS][c] = 1.0
    for i, c in enumerate(obs.trick):
        played[(obs.leader + i - me) % SEATS][c] = 1.0
    leader = [0.0] * SEATS
    leader[(obs.leader - me) % SEATS] = 1.0
    led = [0.0] * 4
    if obs.trick:
        led[obs.trick[0] // 13] = 1.0
    passes = [0.0] * SEATS
    if obs.phase == "pass":
        for s in range(SEATS):
            if obs.passes_chosen[s]:
                passes[(s - me) % SEATS] = 1.0
    out = kind + cards(obs.hand) + cards(chosen) + cards(obs.passed) + cards(obs.received)
    for block in played:
        out += block
    out += cards(obs.trick) + leader + led + passes
    out += [len(obs.trick) / SEATS, obs.round / obs.rounds, len(obs.tricks) / 13]
    out += [obs.round_points[(me + r) % SEATS] / 26 for r in range(SEATS)]
    out += [obs.totals[(me + r) % SEATS] / 100 for r in range(SEATS)]
    assert len(out) == OBS_SIZE
    return np.array(out, dtype=np.float32)
