"""The observation encodings written plainly, one feature after the other (a test oracle).

These are the straightforward list-building encoders the environments started with; the codecs
now fill one preallocated ``float32`` buffer from cached blocks, and the tests check that both give
the same vector on random states of every environment. The order of features here *is* the
documented layout (``docs/rl.md``, the codec module docstrings).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cardtable.core.contract import Request
from cardtable.rl.codec import Draft
from cardtable.rl.cunegonda import OBS_SIZE, SEATS, CunegondaCodec
from cardtable.rl.kuhhandel import KINDS, KuhhandelCodec

DECK = 52


def kuhhandel_vector(
    codec: KuhhandelCodec, obs: Any, request: Request | None, draft: Draft | None
) -> np.ndarray:
    rules = codec.rules
    n, S, D = codec.seats, len(rules.species), len(rules.notes)
    ms = 1.0 / max(rules.start_money, 10)
    inv = [1.0 / s.cards for s in rules.species]
    deck = max(1, rules.animal_cards + (S if rules.pedigrees else 0) + rules.rats)
    cards = 2 * S + 1
    me = obs.seat if obs.seat is not None else 0

    def rel(seat: int | None) -> list[float]:
        out = [0.0] * n
        if seat is not None and seat >= 0:
            out[(seat - me) % n] = 1.0
        return out

    out = [0.0] * len(KINDS)
    if request is not None:
        out[KINDS.index(request.kind)] = 1.0
    out += [float(obs.end_phase), obs.deck_size / deck, obs.turns * 0.01]
    for r in range(n):
        s = (me + r) % n
        out += [h * f for h, f in zip(obs.herds[s], inv, strict=True)]
        out += [1.0 if k in obs.pedigrees[s] else 0.0 for k in range(S)]
        out.append(obs.rats[s] / max(rules.rats, 1))
    out += [d * f for d, f in zip(obs.drawn, inv, strict=True)]
    auction = obs.auction
    caps = auction.caps if auction is not None else {}
    for r in range(n):
        s = (me + r) % n
        cap = caps.get(s)
        out += [
            obs.note_counts[s] * 0.1,
            1.0 if s == obs.turn_seat else 0.0,
            0.0 if cap is None else 1.0,
            0.0 if cap is None else cap * ms,
        ]
    out += [0.2 * (obs.wallet or ()).count(v) for v in rules.notes]
    out.append(obs.money * ms)
    out += [0.1 * c for c in obs.bank] if obs.bank is not None else [0.0] * D
    out += [0.1 * c for c in obs.reserve] if obs.reserve is not None else [0.0] * D
    lot = [0.0] * cards
    if auction is None:
        out += [0.0, *lot, 0.0, 0.0, *rel(None)]
    else:
        for c in auction.lot:
            lot[c] += 1.0
        out += [1.0, *lot, auction.high * ms, auction.round * 0.1, *rel(auction.high_bidder)]
    trade = obs.trade
    species = [0.0] * (S + 1)
    if trade is None:
        out += [0.0] * 5 + rel(None) + rel(None)
    else:
        species[trade.species] = 1.0
        out += [
            1.0,
            trade.cards * 0.25,
            0.0 if trade.offer_count is None else 0.1 * (trade.offer_count + 1),
            1.0 if trade.again else 0.0,
            0.0 if trade.my_offer is None else sum(trade.my_offer) * ms,
        ]
        out += rel(trade.challenger) + rel(trade.opponent)
    out += species
    pay = obs.payment
    if pay is None:
        out += [0.0] * 4 + rel(None)
    else:
        pedigree = pay["for"] == "pedigree"
        out += [
            1.0,
            0.0 if pedigree else pay["amount"] * ms,
            pay["amount"] * 0.1 if pedigree else 0.0,
            1.0 if pay["payer"] == me else 0.0,
        ]
        out += rel(pay["payee"])
    cd = obs.countdown
    ped = [0.0] * S
    if cd is None:
        out += [0.0] * 4 + rel(None)
    else:
        ped[cd["card"] - S] = 1.0
        out += [
            1.0,
            len(cd["chosen"]) / n,
            0.1 * (cd["count"] or 0),
            0.1 * (cd["my_claim"] or 0),
        ]
        out += rel(cd["claimant"])
    out += ped
    out.append(0.0 if obs.rat_pile is None else 0.1 * (obs.rat_pile + 1))
    peek = [0.0] * cards
    if obs.peek is not None:
        peek[obs.peek] = 1.0
    out += peek
    if request is not None and request.kind == "bid":
        info = request.info or {}
        cap = info.get("max")
        out += [info["min"] * ms, (info["money"] if cap is None else cap) * ms]
    else:
        out += [0.0, 0.0]
    if draft is None or not draft.started:
        out += [0.0] * (D + 3)
    else:
        out += [0.2 * c for c in draft.chosen]
        out += [draft.total * ms, (draft.limit + 1) / D, max(draft.base, 0) * ms]
    return np.array(out, dtype=np.float32)


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
