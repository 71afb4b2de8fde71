"""Cunegonda as a discrete action space (52 cards) and a fixed-size observation vector.

Actions: index ``c`` is the card ``c`` of :mod:`cardtable.games.cunegonda.cards` (``suit * 13 +
rank``; clubs, diamonds, hearts, spades; 2 … ace). In a ``play`` request it plays that card; in a
``pass`` request it adds that card to the pass, and the third card hands the pass over (any three
cards of the hand, in any order, so every pass is reachable). The mask allows exactly the legal
cards (following suit) and, while passing, the cards of the hand not chosen yet.

Observation vector (``float32``, 493 values for 4 seats; seats in relative order, 0 = the
observing seat): request kind (pass, play); own hand; cards chosen for the pass so far; cards
passed and received; for each seat, the cards it played this round; the current trick (its
cards, leader, led suit, how many played); this round's trick points and the match totals per
seat; which seats have chosen their pass; round and trick progress. Only the seat's
:class:`~cardtable.games.cunegonda.observe.Observation` and its request are read.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cardtable.core.contract import Request
from cardtable.games.cunegonda.cards import DECK_SIZE, NAMES
from cardtable.games.cunegonda.observe import Observation
from cardtable.games.cunegonda.rules import CunegondaRules
from cardtable.rl.codec import Codec, Draft, Step

SEATS = 4
PASS_COUNT = 3

# Offsets of the blocks in the observation vector.
_KIND = 0
_HAND = 2
_DRAFT = _HAND + DECK_SIZE
_PASSED = _DRAFT + DECK_SIZE
_RECEIVED = _PASSED + DECK_SIZE
_PLAYED = _RECEIVED + DECK_SIZE  # 4 blocks of 52, by relative seat
_TRICK = _PLAYED + SEATS * DECK_SIZE
_LEADER = _TRICK + DECK_SIZE
_LED = _LEADER + SEATS
_CHOSEN = _LED + 4
_SCALARS = _CHOSEN + SEATS  # trick length, round progress, trick progress
_POINTS = _SCALARS + 3
_TOTALS = _POINTS + SEATS
OBS_SIZE = _TOTALS + SEATS


class CunegondaCodec(Codec):
    """The action space and observation encoding of Cunegonda (any number of rounds)."""

    game = "cunegonda"

    def __init__(self, rules: CunegondaRules | None = None, seats: int = SEATS) -> None:
        if seats != SEATS:
            raise ValueError(f"Cunegonda is for {SEATS} seats")
        self.rules = rules
        self.seats = SEATS
        self.n_actions = DECK_SIZE
        self.obs_size = OBS_SIZE
        self.action_names = [f"card:{n}" for n in NAMES]
        # (seat, finished tricks) -> indices of the "played by" block (the tricks are the
        # engine's own values, so comparing keys is mostly comparing identities).
        self._played: dict[tuple[int, tuple[Any, ...]], list[int]] = {}

    def new_draft(self, request: Request | None) -> Draft:
        return Draft(request, DECK_SIZE)

    def options(
        self, obs: Any, request: Request, draft: Draft, *, wait: bool = False
    ) -> dict[int, Any]:
        if request.kind == "play":
            return {c: c for c in request.choices or ()}
        chosen = draft.chosen
        last = draft.count == PASS_COUNT - 1
        opts: dict[int, Any] = {}
        for c in obs.hand:
            if not chosen[c]:
                if last:
                    opts[c] = tuple(sorted([*(x for x in range(DECK_SIZE) if chosen[x]), c]))
                else:
                    opts[c] = Step("card", c)
        return opts

    def advance(self, draft: Draft, step: Step, request: Request) -> None:
        draft.chosen[step.value] = 1
        draft.count += 1

    def indices(self, obs: Any, request: Request, action: Any) -> list[int]:
        path = sorted(action) if request.kind == "pass" else [action]
        draft = self.new_draft(request)
        result = None
        for i in path:
            result = self.choose(obs, request, draft, i)
        if result is None or list(np.atleast_1d(result)) != list(np.atleast_1d(action)):
            raise ValueError(f"{action!r} is not reachable (the path gives {result!r})")
        return path

    def encode(self, obs: Observation, request: Request | None, draft: Draft | None) -> np.ndarray:
        me = obs.seat if obs.seat is not None else 0
        out = np.zeros(OBS_SIZE, dtype=np.float32)
        ones: list[int] = []
        if request is not None:
            ones.append(_KIND + (0 if request.kind == "pass" else 1))
        ones += [_HAND + c for c in obs.hand]
        if draft is not None and draft.count:
            ones += [_DRAFT + c for c in range(DECK_SIZE) if draft.chosen[c]]
        if obs.passed is not None:
            ones += [_PASSED + c for c in obs.passed]
        if obs.received is not None:
            ones += [_RECEIVED + c for c in obs.received]
        ones += self._played_indices(obs, me)
        trick = obs.trick
        if trick:
            lead = obs.leader
            for i, c in enumerate(trick):
                ones.append(_PLAYED + ((lead + i - me) % SEATS) * DECK_SIZE + c)
                ones.append(_TRICK + c)
            ones.append(_LED + trick[0] // 13)
        ones.append(_LEADER + (obs.leader - me) % SEATS)
        if obs.phase == "pass":
            ones += [_CHOSEN + (s - me) % SEATS for s in range(SEATS) if obs.passes_chosen[s]]
        out[ones] = 1.0
        out[_SCALARS] = len(trick) / SEATS
        out[_SCALARS + 1] = obs.round / obs.rounds
        out[_SCALARS + 2] = len(obs.tricks) / 13
        for r in range(SEATS):
            s = (me + r) % SEATS
            out[_POINTS + r] = obs.round_points[s] / 26
            out[_TOTALS + r] = obs.totals[s] / 100
        return out

    def _played_indices(self, obs: Observation, me: int) -> list[int]:
        """Cards each seat played in the finished tricks of this round (cached per trick)."""
        key = (me, obs.tricks)
        hit = self._played.get(key)
        if hit is None:
            if len(self._played) > 64:
                self._played.clear()
            hit = []
            for t in obs.tricks:
                for i, c in enumerate(t.cards):
                    hit.append(_PLAYED + ((t.leader + i - me) % SEATS) * DECK_SIZE + c)
            self._played[key] = hit
        return hit
