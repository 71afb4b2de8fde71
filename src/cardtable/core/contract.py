"""The game-neutral contract every game engine and every agent follows.

A game is a value built from a rule set, a seat count and a seed, plus the actions taken so far.
At every point it names its open *requests* (which seat must decide what, with what makes answering
easy); it gives each seat its *observation* (only what that seat may know); it applies an *action*
or raises :class:`InvalidAction` (malformed) or :class:`IllegalAction` (well formed, not allowed)
and then has changed nothing; when it is over it reports a :class:`Result` with a
:class:`Termination` reason; and it writes a :class:`~cardtable.core.record.Record` from which the
same game re-simulates exactly.

Nothing in this module knows a particular game.
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple, Protocol, runtime_checkable

if TYPE_CHECKING:
    from cardtable.core.record import Record

#: A value that survives ``json.dumps``/``json.loads`` (lists come back for tuples).
JSON = Any


class ActionError(ValueError):
    """Base class of the two ways an action can be refused.

    ``reason`` is the English text (for bots, logs and the protocol's ``reason``). ``rule`` names
    the refusal in no language: the catalog key ``refusal.{rule}`` (``kuhhandel.bid_too_low``),
    with ``details`` its arguments (numbers and strings; ``animal`` is a species' English name),
    which ``cardtable.i18n.refusal`` says in a person's language and the server sends beside the
    reason (``rejected``'s ``rule`` and ``args``). A refusal without ``rule`` is shown in English.
    """

    def __init__(self, reason: str, rule: str = "", **details: int | str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.rule = rule
        self.details = details


class InvalidAction(ActionError):
    """The action is malformed: wrong type or shape, not an action of this kind at all."""


class IllegalAction(ActionError):
    """The action is well formed but the rules do not allow it now (wrong seat, low bid...)."""


class Termination(enum.Enum):
    """Why a game ended (python-chess style: the result says *why*)."""

    NORMAL = "normal"
    """The game ran to its natural end."""
    CAP = "cap"
    """A rule-set cap (turns, rounds) ended the game early."""
    FORFEIT = "forfeit"
    """A seat forfeited (for example after repeated faults); the server decides when."""
    ABORTED = "aborted"
    """The game was stopped from outside (server shutdown, crash); it has no ranking."""


class Request(NamedTuple):
    """One open decision: ``seat`` must answer a request of ``kind``.

    ``choices`` lists every legal action when they are few (then any of them is a valid answer);
    it is ``None`` when the legal actions are many (money multisets, bids), and ``info`` then holds
    what bounds them (game-specific, documented by each game, JSON-compatible).
    """

    seat: int
    kind: str
    choices: tuple[Any, ...] | None = None
    info: Mapping[str, Any] | None = None


class Event(NamedTuple):
    """Something that happened. ``to`` is ``None`` for a public event, else the seats that see it.

    ``data`` is JSON-compatible; ``kind`` is a game word (``"bid"``, ``"trick"``...).
    """

    kind: str
    data: Mapping[str, Any]
    to: tuple[int, ...] | None = None

    def visible_to(self, seat: int | None) -> bool:
        """Whether ``seat`` may see this event (``None`` = a spectator: public events only)."""
        return self.to is None or (seat is not None and seat in self.to)


@dataclass(frozen=True)
class Result:
    """How a finished game ended.

    ``scores`` and ``places`` are per seat; ``places`` are 0-based and equal for seats that share a
    place. ``money`` or other tie-break figures go in ``details``.
    """

    termination: Termination
    scores: tuple[float, ...]
    places: tuple[int, ...]
    reason: str = ""
    details: Mapping[str, Any] = field(default_factory=dict)

    @property
    def winners(self) -> tuple[int, ...]:
        """Seats in first place (empty for an aborted game)."""
        if self.termination is Termination.ABORTED:
            return ()
        return tuple(s for s, p in enumerate(self.places) if p == 0)

    def to_json(self) -> dict[str, Any]:
        return {
            "termination": self.termination.value,
            "scores": list(self.scores),
            "places": list(self.places),
            "reason": self.reason,
            "details": dict(self.details),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Result:
        return cls(
            termination=Termination(data["termination"]),
            scores=tuple(data["scores"]),
            places=tuple(data["places"]),
            reason=str(data.get("reason", "")),
            details=dict(data.get("details", {})),
        )


def places_from_keys(keys: Sequence[tuple[float, ...]]) -> tuple[int, ...]:
    """Competition ranking ("1224") from per-seat sort keys, larger is better.

    Seats with equal keys share a place; the next place skips the shared ones.
    """
    order = sorted(range(len(keys)), key=lambda s: keys[s], reverse=True)
    places = [0] * len(keys)
    for i, seat in enumerate(order):
        if i and keys[seat] == keys[order[i - 1]]:
            places[seat] = places[order[i - 1]]
        else:
            places[seat] = i
    return tuple(places)


class Game(ABC):
    """A game in progress. Subclasses are pure: no I/O, no clock, no global random state."""

    #: Registry name of the game (``"kuhhandel"``, ``"cunegonda"``).
    name: ClassVar[str]
    #: Version of the record schema this engine writes.
    record_version: ClassVar[int] = 1

    seats: int
    seed: int

    @property
    @abstractmethod
    def rules(self) -> Any:
        """The frozen rule set this game was created from."""

    @abstractmethod
    def rules_json(self) -> dict[str, Any]:
        """The full rule set as JSON (every record carries it)."""

    @abstractmethod
    def pending(self) -> Sequence[Request]:
        """Every open request, in the order a sequential runner should ask them.

        Most of the time there is exactly one; simultaneous decisions (passing cards, an open
        auction) give several. Empty once the game is over.
        """

    def next_request(self) -> Request | None:
        """The first open request, or ``None`` when the game is over."""
        pending = self.pending()
        return pending[0] if pending else None

    @abstractmethod
    def is_over(self) -> bool:
        """Whether the game has ended."""

    @abstractmethod
    def observe(self, seat: int | None) -> Any:
        """What ``seat`` may know now (``None``: a spectator, public information only)."""

    @abstractmethod
    def apply(self, seat: int, action: Any) -> None:
        """Apply ``seat``'s answer to its open request.

        Raises :class:`InvalidAction` or :class:`IllegalAction`; the game is then unchanged.
        """

    @abstractmethod
    def result(self) -> Result:
        """The result of a finished game (raises ``RuntimeError`` before the end)."""

    @abstractmethod
    def events(self, since: int = 0) -> Sequence[Event]:
        """Every event from index ``since`` on, unfiltered (use :meth:`events_for` for a seat)."""

    def events_for(self, seat: int | None, since: int = 0) -> list[Event]:
        """The events from ``since`` that ``seat`` may see (``None`` = spectator)."""
        return [e for e in self.events(since) if e.visible_to(seat)]

    @abstractmethod
    def history(self) -> Sequence[tuple[int, Any]]:
        """Every applied action as ``(seat, action)``, in order."""

    @abstractmethod
    def action_to_json(self, action: Any) -> JSON:
        """Encode an action of this game for records and the wire."""

    @abstractmethod
    def action_from_json(self, data: JSON) -> Any:
        """Decode an action; raises :class:`InvalidAction` when ``data`` is not one."""

    def observe_json(self, seat: int | None) -> dict[str, Any]:
        """The observation of ``seat`` as JSON (what goes over the wire)."""
        obs = self.observe(seat)
        to_json = getattr(obs, "to_json", None)
        if to_json is None:
            raise TypeError(f"{type(obs).__name__} has no to_json()")
        data = to_json()
        assert isinstance(data, dict)
        return data

    def request_to_json(self, request: Request) -> dict[str, Any]:
        """A request as JSON: seat, kind, encoded choices (or ``null``) and info."""
        return {
            "seat": request.seat,
            "kind": request.kind,
            "choices": None
            if request.choices is None
            else [self.action_to_json(a) for a in request.choices],
            "info": dict(request.info) if request.info else {},
        }

    def abort(self, reason: str) -> None:
        """Stop the game from outside; :meth:`result` then reports ``ABORTED``."""
        raise NotImplementedError

    def record(self) -> Record:
        """Everything needed to re-simulate this game exactly."""
        from cardtable.core.record import Record

        return Record(
            game=self.name,
            version=self.record_version,
            rules=self.rules_json(),
            seats=self.seats,
            seed=self.seed,
            actions=tuple((s, self.action_to_json(a)) for s, a in self.history()),
            result=self.result() if self.is_over() else None,
        )


@runtime_checkable
class Agent(Protocol):
    """Anything that answers requests: a bot, a remote client, a person, a policy.

    Optional hooks, called when present: ``start(seat, game)`` before the first request with a
    :class:`GameInfo`, ``event(event)`` for every event the seat may see, ``end(result)`` at the
    end.
    An agent that never reads its observation may set ``wants_observation = False`` and then gets
    ``None``; the match loop skips building it.
    """

    def act(self, observation: Any, request: Request) -> Any: ...


@dataclass(frozen=True)
class GameInfo:
    """What an agent is told when its game starts."""

    game: str
    rules: Mapping[str, Any]
    seats: int
    seat: int
    names: tuple[str, ...] = ()
