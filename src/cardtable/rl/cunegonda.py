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
seat; which seats have chosen their pass; round and trick progress. :meth:`CunegondaCodec.encode`
reads only the seat's :class:`~cardtable.games.cunegonda.observe.Observation` and its request;
in the environments :meth:`CunegondaCodec.follow` gives the same vector from the events the seat
sees (deal, pass, play, trick, round end), each read once for all seats, without building an
observation per step.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cardtable.core.contract import Request
from cardtable.games.cunegonda.cards import DECK_SIZE, NAMES
from cardtable.games.cunegonda.observe import Observation
from cardtable.games.cunegonda.rules import CunegondaRules
from cardtable.rl.codec import Build, Codec, Draft, Step

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

#: The options of a pass: a card added to it, or the third card, which hands it over.
_PASS_WITH = [Build("pass", c) for c in range(DECK_SIZE)]
_CARD_STEPS = [Step("card", c) for c in range(DECK_SIZE)]


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

    def new_draft(self, request: Request | None) -> Draft:
        # Only a pass is built in steps; a play needs no per-card counts.
        return Draft(request, DECK_SIZE if request is None or request.kind == "pass" else 0)

    def options(
        self, obs: Any, request: Request, draft: Draft, *, wait: bool = False
    ) -> dict[int, Any]:
        if request.kind == "play":
            return {c: c for c in request.choices or ()}
        chosen = draft.chosen
        # The third card hands the pass over; the tuple is built in build(), only when chosen.
        steps = _PASS_WITH if draft.count == PASS_COUNT - 1 else _CARD_STEPS
        return {c: steps[c] for c in obs.hand if not chosen[c]}

    def build(self, obs: Any, request: Request, draft: Draft, token: Build) -> Any:
        chosen = draft.chosen  # the third card: the pass, as the engine takes it
        return tuple(sorted([*(c for c in obs.hand if chosen[c]), token.value]))

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
        me = obs.seat if obs.seat is not None else 0  # (a spectator sees from seat 0)
        v = np.zeros(OBS_SIZE, dtype=np.float32)
        if request is not None:
            v[_KIND if request.kind == "pass" else _KIND + 1] = 1.0
        for c in obs.hand:
            v[_HAND + c] = 1.0
        if draft is not None:
            for c, chosen in enumerate(draft.chosen):
                if chosen:
                    v[_DRAFT + c] = 1.0
        for c in obs.passed or ():
            v[_PASSED + c] = 1.0
        for c in obs.received or ():
            v[_RECEIVED + c] = 1.0
        for trick in obs.tricks:  # every card played this round, in the block of its seat
            for i, c in enumerate(trick.cards):
                v[_PLAYED + (trick.leader + i - me) % SEATS * DECK_SIZE + c] = 1.0
        for i, c in enumerate(obs.trick):
            v[_PLAYED + (obs.leader + i - me) % SEATS * DECK_SIZE + c] = 1.0
            v[_TRICK + c] = 1.0
        v[_LEADER + (obs.leader - me) % SEATS] = 1.0
        if obs.trick:
            v[_LED + obs.trick[0] // 13] = 1.0
        if obs.phase == "pass":
            for s in range(SEATS):
                if obs.passes_chosen[s]:
                    v[_CHOSEN + (s - me) % SEATS] = 1.0
        v[_SCALARS] = len(obs.trick) / SEATS
        v[_SCALARS + 1] = obs.round / obs.rounds
        v[_SCALARS + 2] = len(obs.tricks) / 13
        for r in range(SEATS):
            v[_POINTS + r] = obs.round_points[(me + r) % SEATS] / 26
            v[_TOTALS + r] = obs.totals[(me + r) % SEATS] / 100
        return v
