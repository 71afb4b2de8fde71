"""The Cunegonda engine (spec: cunegonda-rules.md).

One :class:`CunegondaGame` is a whole match: ``rules.rounds`` rounds of deal, pass and 13 tricks.
Cards are ints (:mod:`.cards`); a *pass* action is a tuple of 3 cards, a *play* action one card.

Requests (see :meth:`CunegondaGame.pending`):

- ``"pass"``: one per seat that has not chosen yet, all open at once; ``choices`` is ``None`` (the
  seat picks any 3 cards of its hand) and ``info`` is ``{"count": 3, "to": <receiving seat>}``.
  No card moves until all four have chosen.
- ``"play"``: the seat on turn; ``choices`` are the legal cards, ascending.

Events (``Event.kind``; ``data`` uses card names; rounds and tricks count from 0):

- ``round_start`` {round, rounds, leader}; ``deal`` {round, seat, cards}, only to that seat;
- ``pass_chosen`` {round, seat}: public, says only that the seat has chosen;
- ``pass`` {round, seat, to, cards}: only to the passer and the receiver, after all four chose;
- ``play`` {round, seat, card}; ``trick`` {round, trick, leader, cards, winner, card, value,
  hearts, queen}: ``card`` is the winning card, ``value`` what the trick is worth to its winner;
- ``moon`` {round, seat}; ``round_end`` {round, points, scores, moon, totals}: ``points`` are the
  trick values, ``scores`` what counts (after a moon), ``moon`` the shooter or ``null``;
- ``match_end`` {rounds, totals, places}; ``aborted`` {reason}.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from cardtable.core.contract import (
    JSON,
    Event,
    Game,
    IllegalAction,
    InvalidAction,
    Request,
    Result,
    Termination,
    places_from_keys,
)
from cardtable.games.cunegonda.cards import (
    DECK_SIZE,
    NAMES,
    QUEEN_OF_SPADES,
    SUIT_WORDS,
    SUITS,
    card,
)
from cardtable.games.cunegonda.observe import Observation, Trick
from cardtable.games.cunegonda.rules import STANDARD, STANDARD_ROUNDS, CunegondaRules
from cardtable.games.cunegonda.scoring import PENALTY, TRICK_POINTS, round_scores

SEATS = 4
HAND_SIZE = 13
PASS_COUNT = 3
PASS, PLAY, OVER = "pass", "play", "over"

#: The pass request of each seat never changes: build it once.
_PASS_REQUESTS = tuple(
    Request(s, "pass", None, {"count": PASS_COUNT, "to": (s - 1) % SEATS}) for s in range(SEATS)
)
_ACTION_SHAPES = 'an action is {"play": "QS"} or {"pass": ["QS", "KS", "AH"]}'


def _not_an_action(value: Any) -> InvalidAction:
    """The one refusal of a value that is no Cunegonda action at all (locally and remotely)."""
    return InvalidAction(
        f"not a Cunegonda action: {value!r} (a play is one card, an int from "
        "cardtable.games.cunegonda.cards; a pass is a tuple of 3 cards)",
        "cunegonda.not_an_action",
        value=repr(value),
    )


def _card(name: str) -> int:
    """The card named ``name``; an :class:`InvalidAction` for a name that is no card."""
    try:
        return card(name)
    except ValueError as exc:
        raise InvalidAction(str(exc), "cunegonda.unknown_card", value=repr(name)) from None


def _no_shape(data: Any) -> InvalidAction:
    return InvalidAction(f"{_ACTION_SHAPES}, not {data!r}", "cunegonda.shape", value=repr(data))


def _not_in_hand(card: int, seat: int) -> IllegalAction:
    name = NAMES[card]
    return IllegalAction(
        f"{name} is not in seat {seat}'s hand",
        "cunegonda.not_in_hand",
        rank=name[:-1],
        suit=name[-1],
        seat=seat,
    )


def pass_target(seat: int) -> int:
    """The seat that receives ``seat``'s pass: the seat on its right, ``seat - 1 mod 4``."""
    return (seat - 1) % SEATS


def round_leader(round_index: int) -> int:
    """The seat that leads the first trick of round ``round_index`` (counting from 0)."""
    return round_index % SEATS


class CunegondaGame(Game):
    """A Cunegonda match in progress (4 seats). Pure: the seed drives every deal."""

    name = "cunegonda"
    record_version = 1

    def __init__(self, rules: CunegondaRules = STANDARD, seats: int = SEATS, seed: int = 0) -> None:
        if seats != SEATS:
            raise ValueError(f"Cunegonda is played by exactly {SEATS} seats, not {seats}")
        if not isinstance(rules, CunegondaRules):
            raise ValueError(f"not a Cunegonda rule set: {rules!r}")
        self._rules = rules
        self.seats = SEATS
        self.seed = seed
        self._rng = random.Random(seed)
        self._round = 0
        self._phase = PASS
        self._hands: list[list[int]] = [[] for _ in range(SEATS)]
        self._passes: list[tuple[int, ...] | None] = [None] * SEATS
        self._received: list[tuple[int, ...] | None] = [None] * SEATS
        self._leader = 0
        self._turn = -1
        self._trick: list[int] = []
        self._tricks: list[Trick] = []
        self._taken: list[list[int]] = [[] for _ in range(SEATS)]
        self._points = [0] * SEATS
        self._round_scores: list[tuple[int, ...]] = []
        self._moons: list[tuple[int, int]] = []
        self._totals = [0] * SEATS
        self._history: list[tuple[int, Any]] = []
        self._events: list[Event] = []
        self._pending: tuple[Request, ...] | None = None
        self._aborted: str | None = None
        self._start_round()

    # -- the contract -------------------------------------------------------------------------

    @property
    def rules(self) -> CunegondaRules:
        return self._rules

    def rules_json(self) -> dict[str, Any]:
        return self._rules.to_json()

    def pending(self) -> Sequence[Request]:
        if self._pending is None:
            if self._phase == PASS:
                self._pending = tuple(
                    _PASS_REQUESTS[s] for s in range(SEATS) if self._passes[s] is None
                )
            elif self._phase == PLAY:
                self._pending = (Request(self._turn, "play", self._legal(self._turn), None),)
            else:
                self._pending = ()
        return self._pending

    def is_over(self) -> bool:
        return self._phase == OVER

    def legal_cards(self, seat: int) -> tuple[int, ...]:
        """The cards ``seat`` may play now (empty when it is not that seat's turn)."""
        if self._phase != PLAY or seat != self._turn:
            return ()
        return self._legal(seat)

    def observe(self, seat: int | None) -> Observation:
        if seat is not None and (isinstance(seat, bool) or seat not in range(SEATS)):
            raise ValueError(f"no seat {seat!r} in a {SEATS}-seat game")
        passing = self._phase == PASS
        if seat is None:
            hand: tuple[int, ...] = ()
            passed = received = None
            pass_to = received_from = None
        else:
            hand = tuple(self._hands[seat])
            passed = self._passes[seat]
            received = None if passing else self._received[seat]
            pass_to, received_from = pass_target(seat), (seat + 1) % SEATS
        return Observation(
            seat=seat,
            round=self._round,
            rounds=self._rules.rounds,
            phase=self._phase,
            hand=hand,
            passed=passed,
            pass_to=pass_to,
            received=received,
            received_from=received_from,
            passes_chosen=tuple(p is not None for p in self._passes)
            if passing
            else (True,) * SEATS,
            leader=self._leader,
            trick=tuple(self._trick),
            tricks=tuple(self._tricks),
            round_points=tuple(self._points),
            round_scores=tuple(self._round_scores),
            totals=tuple(self._totals),
            turn=self._turn if self._phase == PLAY else None,
        )

    def apply(self, seat: object, action: Any) -> None:
        # ``seat: object``: the compiled build (mypyc) would raise TypeError at a typed boundary
        # for a seat "x" and take True for seat 1; checked here, both builds refuse alike
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < SEATS:
            raise InvalidAction(
                f"no seat {seat!r} in a {SEATS}-seat game",
                "cunegonda.no_seat",
                seat=repr(seat),
                seats=SEATS,
            )
        if self._phase == OVER:
            raise IllegalAction("the match is over", "cunegonda.match_over")
        if self._phase == PASS:
            self._apply_pass(seat, action)
        else:
            self._apply_play(seat, action)
        self._pending = None

    def result(self) -> Result:
        if self._aborted is not None:
            return Result(
                Termination.ABORTED,
                tuple(self._totals),
                (0,) * SEATS,
                self._aborted,
                self._details(),
            )
        if self._phase != OVER:
            raise RuntimeError("the match is not over")
        played = len(self._round_scores)
        reason = f"{played} rounds played"
        if played < STANDARD_ROUNDS:
            reason += f" (a shortened match; the standard is {STANDARD_ROUNDS})"
        return Result(
            Termination.NORMAL,
            tuple(self._totals),
            places_from_keys([(t,) for t in self._totals]),
            reason,
            self._details(),
        )

    def events(self, since: int = 0) -> Sequence[Event]:
        return self._events[since:]

    def history(self) -> Sequence[tuple[int, Any]]:
        return self._history

    def action_to_json(self, action: Any) -> JSON:
        if isinstance(action, int) and not isinstance(action, bool) and 0 <= action < DECK_SIZE:
            return {"play": NAMES[action]}
        if isinstance(action, tuple | list | set | frozenset) and all(
            isinstance(c, int) and not isinstance(c, bool) and 0 <= c < DECK_SIZE for c in action
        ):
            return {"pass": [NAMES[c] for c in sorted(action)]}
        raise _not_an_action(action)

    def action_from_json(self, data: JSON) -> Any:
        if not isinstance(data, dict) or len(data) != 1:
            raise _no_shape(data)
        if "play" in data:
            name = data["play"]
            if not isinstance(name, str):
                raise InvalidAction(
                    f"a card is named by a string like 'QS', not {name!r}",
                    "cunegonda.card_name",
                    value=repr(name),
                )
            return _card(name)
        if "pass" in data:
            names = data["pass"]
            if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
                raise InvalidAction(
                    f"a pass is a list of card names, not {names!r}",
                    "cunegonda.pass_names",
                    value=repr(names),
                )
            return tuple(_card(n) for n in names)
        raise _no_shape(data)

    def abort(self, reason: str) -> None:
        """Stop the match from outside; its result is then ``ABORTED`` (no-op once over)."""
        if self._phase == OVER:
            return
        self._phase = OVER
        self._aborted = reason
        self._pending = None
        self._events.append(Event("aborted", {"reason": reason}))

    # -- the rules ----------------------------------------------------------------------------

    def _start_round(self) -> None:
        """Spec "Round" 1: deal 13 cards to each seat from a freshly shuffled deck."""
        deck = list(range(DECK_SIZE))
        self._rng.shuffle(deck)
        r = self._round
        self._hands = [sorted(deck[s * HAND_SIZE : (s + 1) * HAND_SIZE]) for s in range(SEATS)]
        self._passes = [None] * SEATS
        self._received = [None] * SEATS
        self._trick = []
        self._tricks = []
        self._taken = [[] for _ in range(SEATS)]
        self._points = [0] * SEATS
        self._leader = round_leader(r)
        self._turn = -1
        self._phase = PASS
        ev = self._events
        ev.append(
            Event("round_start", {"round": r, "rounds": self._rules.rounds, "leader": self._leader})
        )
        for s in range(SEATS):
            cards = [NAMES[c] for c in self._hands[s]]
            ev.append(Event("deal", {"round": r, "seat": s, "cards": cards}, (s,)))

    def _apply_pass(self, seat: int, action: Any) -> None:
        """Spec "Round" 2: each seat chooses 3 of its cards; nothing moves until all chose."""
        if isinstance(action, int) and not isinstance(action, bool):
            raise IllegalAction(
                "the seats are passing cards now: choose 3 cards, not one to play",
                "cunegonda.passing_now",
                count=PASS_COUNT,
            )
        if not isinstance(action, tuple | list | set | frozenset):
            raise _not_an_action(action)
        cards = list(action)
        for c in cards:
            if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < DECK_SIZE:
                raise InvalidAction(f"not a card: {c!r}", "cunegonda.not_a_card", value=repr(c))
        if len(set(cards)) != len(cards):
            raise InvalidAction(
                "a pass names 3 different cards", "cunegonda.pass_twice", count=PASS_COUNT
            )
        if len(cards) != PASS_COUNT:
            raise InvalidAction(
                f"a pass is exactly {PASS_COUNT} cards, not {len(cards)}",
                "cunegonda.pass_count",
                count=PASS_COUNT,
                given=len(cards),
            )
        if self._passes[seat] is not None:
            raise IllegalAction(
                f"seat {seat} has already chosen its pass", "cunegonda.passed_already", seat=seat
            )
        hand = self._hands[seat]
        for c in cards:
            if c not in hand:
                raise _not_in_hand(c, seat)
        chosen = tuple(sorted(cards))
        self._passes[seat] = chosen
        self._history.append((seat, chosen))
        self._events.append(Event("pass_chosen", {"round": self._round, "seat": seat}))
        if all(p is not None for p in self._passes):
            self._exchange()

    def _exchange(self) -> None:
        """All four have chosen: each seat's 3 cards go to seat - 1 mod 4; play starts."""
        passes = self._passes
        hands = self._hands
        r = self._round
        for s in range(SEATS):
            chosen = passes[s]
            assert chosen is not None
            for c in chosen:
                hands[s].remove(c)
        for s in range(SEATS):
            chosen = passes[s]
            assert chosen is not None
            to = pass_target(s)
            hands[to].extend(chosen)
            self._received[to] = chosen
            self._events.append(
                Event(
                    "pass",
                    {"round": r, "seat": s, "to": to, "cards": [NAMES[c] for c in chosen]},
                    (s, to),
                )
            )
        for hand in hands:
            hand.sort()
        self._phase = PLAY
        self._turn = self._leader

    def _legal(self, seat: int) -> tuple[int, ...]:
        """Spec "Round" 3: follow the led suit if you can, else any card."""
        hand = self._hands[seat]
        if self._trick:
            led = self._trick[0] // 13
            follow = tuple(c for c in hand if c // 13 == led)
            if follow:
                return follow
        return tuple(hand)

    def _apply_play(self, seat: int, action: Any) -> None:
        if isinstance(action, bool) or not isinstance(action, int):
            if isinstance(action, tuple | list | set | frozenset):
                raise IllegalAction("the pass is over: play one card", "cunegonda.pass_over")
            raise _not_an_action(action)
        if not 0 <= action < DECK_SIZE:
            raise InvalidAction(
                f"not a card: {action!r}", "cunegonda.not_a_card", value=repr(action)
            )
        if seat != self._turn:
            raise IllegalAction(
                f"it is seat {self._turn}'s turn to play, not seat {seat}'s",
                "cunegonda.not_your_turn",
                expected=self._turn,
                seat=seat,
            )
        hand = self._hands[seat]
        if action not in hand:
            raise _not_in_hand(action, seat)
        trick = self._trick
        if trick:
            led = trick[0] // 13
            if action // 13 != led and any(c // 13 == led for c in hand):
                raise IllegalAction(
                    f"seat {seat} must follow suit: play one of its {SUIT_WORDS[led]}",
                    "cunegonda.follow_suit",
                    seat=seat,
                    suit=SUITS[led],
                )
        hand.remove(action)
        trick.append(action)
        self._history.append((seat, action))
        self._events.append(
            Event("play", {"round": self._round, "seat": seat, "card": NAMES[action]})
        )
        if len(trick) < SEATS:
            self._turn = (seat + 1) % SEATS
        else:
            self._close_trick()

    def _close_trick(self) -> None:
        """The highest card of the led suit wins; its seat scores the trick and leads next."""
        trick = self._trick
        led = trick[0] // 13
        best_i, best = 0, trick[0]
        for i in range(1, SEATS):
            c = trick[i]
            if c // 13 == led and c > best:
                best_i, best = i, c
        winner = (self._leader + best_i) % SEATS
        hearts = [c for c in trick if c != QUEEN_OF_SPADES and PENALTY[c]]
        value = TRICK_POINTS - sum(PENALTY[c] for c in trick)
        done = Trick(self._leader, tuple(trick), winner, value)
        self._tricks.append(done)
        self._points[winner] += value
        self._taken[winner].extend(trick)
        self._events.append(
            Event(
                "trick",
                {
                    "round": self._round,
                    "trick": len(self._tricks) - 1,
                    "leader": self._leader,
                    "cards": [NAMES[c] for c in trick],
                    "winner": winner,
                    "card": NAMES[best],
                    "value": value,
                    "hearts": [NAMES[c] for c in hearts],
                    "queen": QUEEN_OF_SPADES in trick,
                },
            )
        )
        self._trick = []
        self._leader = winner
        self._turn = winner
        if len(self._tricks) == HAND_SIZE:
            self._end_round()

    def _end_round(self) -> None:
        """Spec "Scoring": sum the tricks, or +60/-20 for a moon; then the next round or the end."""
        r = self._round
        scores, moon = round_scores(self._points, self._taken)
        self._round_scores.append(tuple(scores))
        for s in range(SEATS):
            self._totals[s] += scores[s]
        if moon >= 0:
            self._moons.append((r, moon))
            self._events.append(Event("moon", {"round": r, "seat": moon}))
        self._events.append(
            Event(
                "round_end",
                {
                    "round": r,
                    "points": list(self._points),
                    "scores": scores,
                    "moon": moon if moon >= 0 else None,
                    "totals": list(self._totals),
                },
            )
        )
        if r + 1 < self._rules.rounds:
            self._round = r + 1
            self._start_round()
            return
        self._phase = OVER
        self._turn = -1
        self._events.append(
            Event(
                "match_end",
                {
                    "rounds": r + 1,
                    "totals": list(self._totals),
                    "places": list(places_from_keys([(t,) for t in self._totals])),
                },
            )
        )

    def _details(self) -> dict[str, Any]:
        # Lists, not tuples: a result must compare equal after a JSON round trip.
        return {
            "round_scores": [list(r) for r in self._round_scores],
            "moons": [list(m) for m in self._moons],
        }


def new_game(rules: CunegondaRules = STANDARD, seats: int = SEATS, seed: int = 0) -> CunegondaGame:
    """A new match; the same rules and seed always give the same deals."""
    return CunegondaGame(rules, seats, seed)
