"""One seat at a remote table, seen from the bot: the wire's JSON turned back into game values.

A local agent (a built-in bot or a bot file) was written against the engine's Python objects: the
seat's observation, a :class:`~cardtable.core.contract.Request` whose choices are actions, and it
returns an action. :class:`GameCodec` rebuilds those objects from the JSON the server sends, using
the game's own decoders, so the same agent plays in-process and remotely without a change.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from cardtable.core.contract import JSON, Event, GameInfo, Request, Result
from cardtable.core.registry import game_spec


class DecodeError(ValueError):
    """The server's JSON does not decode into this game's values (a version mismatch)."""


class GameCodec:
    """Decodes observations, requests and events of one game and rule set; encodes actions.

    Built from the ``game_start`` message: the game's name, its rule set as JSON and the number
    of seats. Actions are encoded and decoded by a local game of the same rules and seats (the
    seed does not matter for that); observations by the observation type's ``from_json``.
    """

    def __init__(self, game: str, rules: Mapping[str, Any], seats: int) -> None:
        spec = game_spec(game)
        self.game = game
        self.rules = spec.rules_from_json(rules)
        self.seats = seats
        self._local = spec.new_game(self.rules, seats, 0)
        self._observation_from_json = observation_decoder(game, type(self._local.observe(0)))

    def observation(self, data: JSON) -> Any:
        """The seat's observation as the engine's own value."""
        try:
            return self._observation_from_json(data)
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise DecodeError(f"observation does not decode: {exc!r}") from exc

    def request(self, data: Mapping[str, Any]) -> Request:
        """A request with its choices decoded into actions (``None`` stays ``None``)."""
        try:
            choices = data.get("choices")
            return Request(
                seat=int(data["seat"]),
                kind=str(data["kind"]),
                choices=None
                if choices is None
                else tuple(self._local.action_from_json(c) for c in choices),
                info=data.get("info") or {},
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise DecodeError(f"request does not decode: {exc!r}") from exc

    def action_to_json(self, action: Any) -> JSON:
        """The wire form of an action the agent returned (raises ``ValueError`` if it is none)."""
        return self._local.action_to_json(action)

    def action_from_json(self, data: JSON) -> Any:
        return self._local.action_from_json(data)


def observation_decoder(game: str, observation_type: type) -> Callable[[JSON], Any]:
    """How to turn ``game``'s observation JSON back into its observation value.

    The engine's own ``from_json`` on the observation type is used; a game without one cannot be
    played remotely by a local agent, and this says so plainly.
    """
    from_json = getattr(observation_type, "from_json", None)
    if callable(from_json):
        return from_json  # type: ignore[no-any-return]
    raise DecodeError(
        f"{game}: {observation_type.__name__} has no from_json(), so a local agent cannot "
        "receive remote observations"
    )


@dataclass
class SeatState:
    """What the client keeps about the game it is seated in."""

    game_id: str
    info: GameInfo
    codec: GameCodec
    #: Index of the next event the agent has not seen (events are numbered by the server).
    next_event: int = 0
    decisions: int = 0
    faults: list[str] = field(default_factory=list)
    #: Requests already counted as a fault (a late answer later rejected is one fault).
    faulted: set[Any] = field(default_factory=set)
    #: The last answers sent, by request id, to resend after a reconnect.
    answers: dict[Any, JSON] = field(default_factory=dict)
    #: A tournament's seed for this seat's bot (``game_start.bot_seed``): a named bot is built
    #: with it, as the arena seeds the same seat of the same deal (docs/competitions.md).
    bot_seed: int | None = None

    def take_event(self, index: int | None) -> bool:
        """Whether the event with ``index`` is new to the agent (a resumed seat may replay some)."""
        if index is None:
            return True
        if index < self.next_event:
            return False
        self.next_event = index + 1
        return True


def event_from_json(data: Mapping[str, Any]) -> Event:
    """An event as the engine made it (``to`` is not sent: the seat sees what it may)."""
    return Event(str(data["kind"]), dict(data.get("data") or {}))


@dataclass(frozen=True)
class GameReport:
    """How one game went for this client: the result plus our place, score and faults.

    ``faults`` are what went wrong on this side (the agent failed or was late, the server
    rejected an action) plus any the server reported in ``game_end``.
    """

    game_id: str
    game: str
    rules: Mapping[str, Any]
    seat: int
    names: tuple[str, ...]
    result: Result
    faults: tuple[str, ...] = ()
    decisions: int = 0
    record_url: str | None = None

    @property
    def place(self) -> int:
        """Our place, 1 for first (shared places are equal), as every page and command counts.

        ``result.places`` holds the wire's indices, 0 for first.
        """
        return self.result.places[self.seat] + 1

    @property
    def score(self) -> float:
        return self.result.scores[self.seat]

    def summary(self) -> str:
        """One line for people: ``game 12 kuhhandel seat 2: place 1/4, score 830, 0 faults``."""
        seats = len(self.result.places)
        if not seats:  # a game the server gave up (its process died): no places, no scores
            return (
                f"game {self.game_id} {self.game} seat {self.seat}: "
                f"{self.result.termination.value} without a result ({self.result.reason})"
            )
        score = f"{self.score:g}"
        return (
            f"game {self.game_id} {self.game} seat {self.seat}: place {self.place}/{seats}, "
            f"score {score}, {len(self.faults)} fault{'s' if len(self.faults) != 1 else ''}"
            f" ({self.result.termination.value})"
        )
