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

from typing import Any, NamedTuple

import numpy as np

from cardtable.core.contract import Request
from cardtable.games.cunegonda.cards import DECK_SIZE, NAMES
from cardtable.games.cunegonda.observe import Observation
from cardtable.games.cunegonda.rules import CunegondaRules
from cardtable.rl.codec import Build, Codec, Draft, Step, read_only_mask, set_flags

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
#: ``_PLAYED_AT[r]``: where the block of relative seat ``r % 4`` starts (``r`` up to 7).
_PLAYED_AT = [_PLAYED + (r % SEATS) * DECK_SIZE for r in range(2 * SEATS)]


class CunegondaCodec(Codec):
    """The action space and observation encoding of Cunegonda (any number of rounds)."""

    game = "cunegonda"
    blind_kinds = frozenset({"play"})  # a play allows the request's choices
    follows = True

    def __init__(self, rules: CunegondaRules | None = None, seats: int = SEATS) -> None:
        if seats != SEATS:
            raise ValueError(f"Cunegonda is for {SEATS} seats")
        super().__init__()
        self.rules = rules
        self.seats = SEATS
        self.n_actions = DECK_SIZE
        self.obs_size = OBS_SIZE
        self.action_names = [f"card:{n}" for n in NAMES]
        # The last view of each observing seat (``None``: a spectator), see :class:`_SeatView`.
        self._views: dict[int | None, _SeatView] = {}
        self._plays: dict[Any, dict[int, Any]] = {}
        self._play_masks: dict[Any, np.ndarray] = {}
        self._follower: _Follower | None = None

    def new_draft(self, request: Request | None) -> Draft:
        # Only a pass is built in steps; a play needs no per-card counts.
        return Draft(request, DECK_SIZE if request is None or request.kind == "pass" else 0)

    def options(
        self, obs: Any, request: Request, draft: Draft, *, wait: bool = False
    ) -> dict[int, Any]:
        if request.kind == "play":
            choices = request.choices or ()
            opts = self._plays.get(choices)  # shared, read-only (few distinct sets of cards)
            if opts is None:
                if len(self._plays) > 4096:
                    self._plays.clear()
                opts = self._plays[choices] = {c: c for c in choices}
            return opts
        chosen = draft.chosen
        # The third card hands the pass over; the tuple is built in choose, only when chosen.
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

    def mask(
        self, obs: Any, request: Request | None, draft: Draft | None, *, wait: bool = False
    ) -> np.ndarray:
        if request is None or draft is None:
            return np.zeros(DECK_SIZE, dtype=np.int8)
        m = self.shared_mask(obs, request, draft, wait)
        return m.copy()  # (shared_mask's are read-only: a play's is kept)

    def shared_mask(self, obs: Any, request: Request, draft: Draft, wait: bool) -> np.ndarray:
        # The keys of :meth:`options`, without building them: a play allows its choices (one
        # read-only mask per set of cards), a pass the cards of the hand not chosen yet (a new
        # mask, read-only as well).
        if request.kind == "play":
            choices = request.choices or ()
            m = self._play_masks.get(choices)
            if m is None:
                if len(self._play_masks) > 4096:
                    self._play_masks.clear()
                m = self._play_masks[choices] = read_only_mask(DECK_SIZE, choices)
            return m
        m = np.zeros(DECK_SIZE, dtype=np.int8)
        w: Any = m.data
        chosen = draft.chosen
        for c in obs.hand:
            if not chosen[c]:
                w[c] = 1
        set_flags(m, False)  # as every mask the environments hand out
        return m

    def encode(self, obs: Observation, request: Request | None, draft: Draft | None) -> np.ndarray:
        # One buffer per call, copied from the seat's view (what changes only trick by trick:
        # pass, received cards, finished tricks, hand, points, totals), then the few features of
        # this moment, written through a memoryview (cheaper per value than numpy's indexing).
        # ``tests/rl/reference.py`` writes the same layout plainly.
        seat = obs.seat
        me = seat if seat is not None else 0
        trick = obs.trick
        lead = obs.leader
        at = (me - lead) % SEATS  # my place in the current trick
        mine = trick[at] if at < len(trick) else -1  # played already: out of the hand
        view = self._views.get(seat)
        if view is None or not view.current(obs, mine):
            view = self._views[seat] = _SeatView(obs, me, mine)
        out = view.vector.copy()
        w: Any = out.data
        if mine >= 0:
            w[_HAND + mine] = 0.0
        if request is not None:
            w[_KIND if request.kind == "pass" else _KIND + 1] = 1.0
        if draft is not None and draft.count:
            chosen = draft.chosen
            for c in obs.hand:  # the pass is chosen from the hand
                if chosen[c]:
                    w[_DRAFT + c] = 1.0
        r = (lead - me) % SEATS  # the leader, relative to me
        if trick:
            for c in trick:
                w[_PLAYED_AT[r] + c] = 1.0  # in the block of the seat that played it
                w[_TRICK + c] = 1.0
                r += 1
            r -= len(trick)
            w[_LED + trick[0] // 13] = 1.0
            w[_SCALARS] = len(trick) / SEATS
        w[_LEADER + r] = 1.0
        if obs.phase == "pass":
            passes = obs.passes_chosen
            for s in range(SEATS):
                if passes[s]:
                    w[_CHOSEN + (s - me) % SEATS] = 1.0
        return out

    def follow(
        self, game: Any, seat: int, request: Request | None, draft: Draft | None
    ) -> np.ndarray | None:
        # Every seat's vector is kept up to date from the events, each event read once for all
        # seats (see :class:`_Follower`); then the features of the moment go on a copy.
        f = self._follower
        if f is None or f.game is not game:
            f = self._follower = _Follower(game)
        f.catch_up()
        if not f.ready[seat]:
            return None
        out = f.vectors[seat].copy()
        w: Any = out.data
        if request is not None:
            w[_KIND if request.kind == "pass" else _KIND + 1] = 1.0
        trick = f.trick
        if trick:
            for c in trick:
                w[_TRICK + c] = 1.0
            w[_LED + trick[0] // 13] = 1.0
            w[_SCALARS] = len(trick) / SEATS
        w[_LEADER + (f.leader - seat) % SEATS] = 1.0
        if f.passing:
            if draft is not None and draft.count:
                chosen = draft.chosen
                for c in f.dealt[seat]:
                    if chosen[c]:
                        w[_DRAFT + c] = 1.0
            passes = f.chosen
            for q in range(SEATS):
                if passes[q]:
                    w[_CHOSEN + (q - seat) % SEATS] = 1.0
        set_flags(out, False)  # as every environment's observation vector
        return out

    def stand_in(self, game: Any, seat: int) -> Any | None:
        # while passing, the options read only the hand: the follower's dealt cards
        f = self._follower
        if f is None or f.game is not game:
            return None
        f.catch_up()
        return f.hands[seat] if f.passing and f.ready[seat] else None


class _Hand(NamedTuple):
    """A seat's dealt hand, all the options of a pass read of its observation."""

    hand: tuple[int, ...]


#: The card of each name, as the engine writes them in its events.
_CARD = {name: c for c, name in enumerate(NAMES)}
#: ``_PLAYED_BY[p][s]``: where the block of seat ``p`` starts in the vector of seat ``s``.
_PLAYED_BY = [[_PLAYED + ((p - s) % SEATS) * DECK_SIZE for s in range(SEATS)] for p in range(SEATS)]
_ZERO = np.zeros(OBS_SIZE, dtype=np.float32)


class _Follower:
    """Every seat's vector of one game, moved on by the game's events (each seat's vector only
    by the events that seat sees), without the features of the moment (kind, draft, current
    trick, leader, chosen passes): :meth:`CunegondaCodec.follow` writes those on a copy.

    ``ready[s]`` is ``False`` where the events do not say what the observation shows: between
    a seat's own choice of its pass and the exchange (the ``pass_chosen`` event names no cards),
    and for good after an event it does not know (an abort): the seat's observation is then
    encoded instead.
    """

    __slots__ = (
        "chosen",
        "cursor",
        "dealt",
        "game",
        "hands",
        "k",
        "leader",
        "passing",
        "points",
        "ready",
        "totals",
        "trick",
        "vectors",
        "writers",
    )

    def __init__(self, game: Any) -> None:
        self.game = game
        self.cursor = 0
        self.vectors = [_ZERO.copy() for _ in range(SEATS)]
        self.writers: list[Any] = [v.data for v in self.vectors]
        self.ready = [False] * SEATS  # until the first round starts
        self.dealt: list[tuple[int, ...]] = [()] * SEATS
        self.hands = [_Hand(())] * SEATS
        self.chosen = [False] * SEATS
        self.passing = True
        self.trick: list[int] = []
        self.leader = 0
        self.points = [0] * SEATS
        self.totals = [0] * SEATS
        self.k = 0

    def catch_up(self) -> None:
        """Fold the game's events since the last call."""
        events = self.game.events(self.cursor)
        if events:
            self.cursor += len(events)
            self.fold(events)

    def _write_totals(self) -> None:
        """The match totals, each seat's vector seen from that seat."""
        totals = self.totals
        for s, w in enumerate(self.writers):
            for r in range(SEATS):
                w[_TOTALS + r] = totals[(s + r) % SEATS] / 100

    def fold(self, events: Any) -> None:
        ws = self.writers
        for ev in events:
            kind = ev.kind
            data = ev.data
            if kind == "play":
                p = data["seat"]
                c = _CARD[data["card"]]
                at = _PLAYED_BY[p]
                ws[0][at[0] + c] = 1.0
                ws[1][at[1] + c] = 1.0
                ws[2][at[2] + c] = 1.0
                ws[3][at[3] + c] = 1.0
                ws[p][_HAND + c] = 0.0
                self.trick.append(c)
            elif kind == "trick":
                winner = data["winner"]
                points = self.points
                points[winner] += data["value"]
                value = points[winner] / 26
                self.k += 1
                progress = self.k / 13
                for s in range(SEATS):
                    w = ws[s]
                    w[_POINTS + (winner - s) % SEATS] = value
                    w[_SCALARS + 2] = progress
                self.trick = []
                self.leader = winner
            elif kind == "pass_chosen":
                q = data["seat"]
                self.chosen[q] = True
                self.ready[q] = False  # its pass shows in its observation, not in an event
                if all(self.chosen):
                    self.passing = False  # the exchange follows at once
            elif kind == "pass":
                q, to = data["seat"], data["to"]
                w, r = ws[q], ws[to]
                for c in [_CARD[n] for n in data["cards"]]:
                    w[_HAND + c] = 0.0
                    w[_PASSED + c] = 1.0
                    r[_RECEIVED + c] = 1.0
                    r[_HAND + c] = 1.0
                self.ready[q] = True
            elif kind == "deal":
                q = data["seat"]
                dealt = self.dealt[q] = tuple(_CARD[n] for n in data["cards"])
                self.hands[q] = _Hand(dealt)
                w = ws[q]
                for c in dealt:
                    w[_HAND + c] = 1.0
            elif kind == "round_start":
                self._start(data["round"], data["rounds"], data["leader"])
                ws = self.writers
            elif kind == "round_end":
                self.totals = list(data["totals"])
                self._write_totals()
            elif kind in ("moon", "match_end"):
                pass  # nothing of the vector changes
            else:  # an abort (or an event this follower does not know)
                self.ready = [False] * SEATS
                self.cursor = 1 << 62  # and never again: the observations take over

    def _start(self, round_index: int, rounds: int, leader: int) -> None:
        self.vectors = [_ZERO.copy() for _ in range(SEATS)]
        self.writers = [v.data for v in self.vectors]
        progress = round_index / rounds
        for w in self.writers:
            w[_SCALARS + 1] = progress
        self._write_totals()
        self.ready = [True] * SEATS
        self.dealt = [()] * SEATS
        self.hands = [_Hand(())] * SEATS
        self.chosen = [False] * SEATS
        self.passing = True
        self.trick = []
        self.leader = leader
        self.points = [0] * SEATS
        self.k = 0


#: The options of a pass: a card added to it, or the third card, which hands it over.
_PASS_WITH = [Build("pass", c) for c in range(DECK_SIZE)]
_CARD_STEPS = [Step("card", c) for c in range(DECK_SIZE)]


class _SeatView:
    """One seat's vector as of its last finished trick (without the features of the moment).

    It stays valid while the round and the totals are the same and the finished tricks only
    grew (the engine's own trick objects, compared by identity): new tricks are folded in, the
    pass and the received cards written in when they appear, the hand brought up to date by
    exact comparison. Anything else (another round or game, an older state) builds it anew, so
    the view always equals the plain encoding of the observation it is asked for.
    """

    __slots__ = (
        "hand",
        "k",
        "last",
        "me",
        "passed",
        "received",
        "round",
        "rounds",
        "totals",
        "vector",
        "w",
    )

    def __init__(self, obs: Observation, me: int, mine: int) -> None:
        self.me = me
        self.round, self.rounds = obs.round, obs.rounds
        self.passed, self.received, self.totals = obs.passed, obs.received, obs.totals
        hand = obs.hand if mine < 0 else tuple(sorted((*obs.hand, mine)))
        self.hand = hand
        self.vector = np.zeros(OBS_SIZE, dtype=np.float32)
        out: Any = self.vector.data  # writes through a memoryview cost less
        self.w = out
        for c in hand:
            out[_HAND + c] = 1.0
        for c in obs.passed or ():
            out[_PASSED + c] = 1.0
        for c in obs.received or ():
            out[_RECEIVED + c] = 1.0
        out[_SCALARS + 1] = obs.round / obs.rounds
        for r in range(SEATS):
            out[_TOTALS + r] = obs.totals[(me + r) % SEATS] / 100
        for r in range(SEATS):
            out[_POINTS + r] = obs.round_points[(me + r) % SEATS] / 26
        self.k = 0
        self.last: Any = None
        self._fold(obs)

    def current(self, obs: Observation, mine: int) -> bool:
        """Whether this view still describes ``obs`` (folding in the tricks finished since)."""
        tricks = obs.tricks
        k = self.k
        if (
            self.round != obs.round
            or self.totals != obs.totals
            or self.rounds != obs.rounds
            or k > len(tricks)
            or (k and tricks[k - 1] is not self.last)
        ):
            return False
        if obs.passed is not self.passed or obs.received is not self.received:
            # within a round the pass is chosen, then the cards arrive: write them in
            if (self.passed is not None and obs.passed is not self.passed) or (
                self.received is not None and obs.received is not self.received
            ):
                return False
            out = self.w
            for c in obs.passed or ():
                out[_PASSED + c] = 1.0
            for c in obs.received or ():
                out[_RECEIVED + c] = 1.0
            self.passed, self.received = obs.passed, obs.received
        if k < len(tricks):
            self._fold(obs)
        hand = obs.hand if mine < 0 else tuple(sorted((*obs.hand, mine)))
        if hand != self.hand:  # the exchange of the pass (or an observation from elsewhere)
            out = self.w
            keep = set(hand)
            for c in self.hand:
                if c not in keep:
                    out[_HAND + c] = 0.0
            for c in hand:
                out[_HAND + c] = 1.0
            self.hand = hand
        return True

    def _fold(self, obs: Observation) -> None:
        tricks = obs.tricks
        out = self.w
        me = self.me
        points = obs.round_points
        for t in tricks[self.k :]:
            lead = t.leader
            for i, c in enumerate(t.cards):
                r = (lead + i - me) % SEATS
                out[_PLAYED + r * DECK_SIZE + c] = 1.0
                if r == 0 and c in self.hand:
                    hand = self.hand
                    at = hand.index(c)
                    self.hand = hand[:at] + hand[at + 1 :]
                    out[_HAND + c] = 0.0
            # only the winner's trick points change (the engine adds the trick's value to them)
            w = t.winner
            out[_POINTS + (w - me) % SEATS] = points[w] / 26
        self.k = len(tricks)
        self.last = tricks[-1] if tricks else None
        out[_SCALARS + 2] = len(tricks) / 13
