"""One decision of a recorded game, rebuilt: what the seat saw, and asking a bot again.

Decisions are counted per seat, from 1: decision ``K`` of seat ``N`` is the ``K``-th action of
seat ``N`` in the record (a request left unanswered, such as a silent bidder in an open auction,
is not a decision). :attr:`Decision.upto` is where it sits in the whole record: the game just
before it is ``core.replay(record, upto=decision.upto)``.
"""

from __future__ import annotations

import contextlib
import io
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardtable.core.contract import JSON, ActionError, Agent, Event, Game, GameInfo, Request
from cardtable.core.record import Record, RecordError, replay


@dataclass(frozen=True)
class Decision:
    """Decision ``number`` of ``seat`` in a record, with the game just before it."""

    seat: int
    #: The seat's decision number, from 1.
    number: int
    #: How many of the seat's decisions the record holds.
    of: int
    #: Actions of the record applied before this one (0-based index of this action).
    upto: int
    #: The game just before the decision (``replay(record, upto=upto)``).
    game: Game
    #: The request the seat answered, as the engine gave it.
    request: Request
    #: The recorded answer (the action's JSON form).
    recorded: JSON

    def observation(self) -> Any:
        """The seat's observation at this decision (the engine's own value)."""
        return self.game.observe(self.seat)

    def to_json(self) -> dict[str, Any]:
        """The decision as JSON: the seat's observation and request exactly as the wire has them."""
        return {
            "seat": self.seat,
            "decision": self.number,
            "decisions": self.of,
            "upto": self.upto,
            "request": self.game.request_to_json(self.request),
            "observation": self.game.observe_json(self.seat),
            "recorded": self.recorded,
        }


#: What :func:`decision_at`, :func:`ask_again` and :func:`decision_indices` take as a record.
RecordLike = Record | Mapping[str, Any] | str | Path


def as_record(record: RecordLike) -> Record:
    """``record`` as a :class:`Record`: a record, a record's JSON as a dict (what ``json.load`` of
    a ``game-ID.json`` or ``GET /api/games/{id}/record`` gives), or the path of a record file.
    Anything else is a :class:`TypeError` naming these calls."""
    if isinstance(record, Record):
        return record
    if isinstance(record, Mapping):
        return Record.from_json(record)
    if isinstance(record, str | Path):
        return Record.load(record)
    raise TypeError(
        f"a record is needed, not {type(record).__name__}: pass Record.load(path), "
        "Record.from_json(json.load(file)), the JSON dict itself or the file's path"
    )


def decision_indices(record: RecordLike, seat: int) -> list[int]:
    """The index in ``record.actions`` of every decision of ``seat``, in order."""
    record = as_record(record)
    if not 0 <= seat < record.seats:
        raise ValueError(f"no seat {seat} in a {record.seats}-seat game (seats count from 0)")
    return [i for i, (s, _a) in enumerate(record.actions) if s == seat]


def _index_of(record: Record, seat: int, number: int) -> tuple[int, int]:
    indices = decision_indices(record, seat)
    if not 1 <= number <= len(indices):
        raise ValueError(
            f"seat {seat} made {len(indices)} decisions in this record; "
            f"--at counts them from 1 to {len(indices)}, not {number}"
        )
    return indices[number - 1], len(indices)


def open_request(game: Game, seat: int) -> Request:
    """The request of ``seat`` open in ``game`` (the first one when it has several)."""
    for request in game.pending():
        if request.seat == seat:
            return request
    raise RecordError(f"seat {seat} has no open request at this point of the record")


def decision_at(record: RecordLike, seat: int, number: int) -> Decision:
    """Decision ``number`` (from 1) of ``seat``: the game before it, the request, the answer.

    ``record`` is a :class:`Record`, its JSON dict or a record file's path (:func:`as_record`)."""
    record = as_record(record)
    index, total = _index_of(record, seat, number)
    game = replay(record, upto=index)
    return Decision(
        seat=seat,
        number=number,
        of=total,
        upto=index,
        game=game,
        request=open_request(game, seat),
        recorded=record.actions[index][1],
    )


@dataclass(frozen=True)
class Answer:
    """What a bot answered when asked again at a decision."""

    decision: Decision
    #: The bot's answer as JSON, or ``None`` when it raised or answered something that is not an
    #: action (then ``problem`` says what).
    action: JSON
    #: ``""`` when the engine accepts the answer, else why not (the engine's reason, or the
    #: exception the bot raised).
    problem: str
    #: What the bot printed or logged while answering this decision.
    output: str
    #: The engine's refusal of the answer (its rule words it in a person's language), if any.
    refused: ActionError | None = None

    @property
    def same(self) -> bool:
        """Whether the bot gave the recorded answer."""
        return not self.problem and self.action == self.decision.recorded


def ask_again(
    record: RecordLike,
    seat: int,
    number: int,
    agent: Agent,
    *,
    warm: bool = True,
) -> Answer:
    """Replay ``record`` with ``agent`` in ``seat`` and ask it decision ``number`` again.

    The agent lives through the game as it did: ``start`` is called, every event its seat may see
    is delivered, and (with ``warm``) it is asked each of its earlier decisions, whose answers are
    ignored: the recorded actions are applied. A bot seeded as in the recorded game therefore
    reaches the same state, random generator included. Its prints and log lines while answering
    the decision asked are returned in :attr:`Answer.output` (earlier ones are dropped).
    ``record`` is a :class:`Record`, its JSON dict or a record file's path (:func:`as_record`).
    """
    record = as_record(record)
    target, _total = _index_of(record, seat, number)
    game = replay(record, upto=0)
    start = getattr(agent, "start", None)
    if start is not None:
        names = record.names or tuple(f"seat-{i}" for i in range(record.seats))
        start(seat, GameInfo(game.name, game.rules_json(), game.seats, seat, tuple(names)))
    hook = getattr(agent, "event", None)
    seen = _deliver(game, 0, seat, hook)
    wants = getattr(agent, "wants_observation", True)
    for i, (s, data) in enumerate(record.actions[:target]):
        if s == seat and warm:
            request = open_request(game, seat)
            # an earlier answer is ignored, and so is its failure
            with _quiet(), contextlib.suppress(Exception):
                agent.act(game.observe(seat) if wants else None, request)
        try:
            game.apply(s, game.action_from_json(data))
        except ValueError as exc:
            raise RecordError(f"action {i} ({data!r} by seat {s}) does not replay: {exc}") from exc
        seen = _deliver(game, seen, seat, hook)
    request = open_request(game, seat)
    decision = Decision(
        seat,
        number,
        _total,
        target,
        replay(record, upto=target),
        request,
        record.actions[target][1],
    )
    output = io.StringIO()
    with _captured(output):
        try:
            answer = agent.act(game.observe(seat) if wants else None, request)
        except Exception as exc:
            why = f"the bot raised {type(exc).__name__}: {exc}"
            return Answer(decision, None, why, output.getvalue())
    try:
        game.apply(seat, answer)
    except ActionError as exc:
        return Answer(decision, _encode(game, answer), exc.reason, output.getvalue(), exc)
    return Answer(decision, game.action_to_json(game.history()[-1][1]), "", output.getvalue())


def _encode(game: Game, answer: Any) -> JSON:
    """The JSON form of an answer the engine refused (its ``repr`` when it is no action at all)."""
    try:
        return game.action_to_json(answer)
    except (TypeError, ValueError):
        pass
    try:
        return game.action_to_json(game.action_from_json(answer))
    except (TypeError, ValueError):
        return repr(answer)


def _deliver(game: Game, since: int, seat: int, hook: Any) -> int:
    events: list[Event] = list(game.events(since))
    if hook is not None:
        for event in events:
            if event.visible_to(seat):
                with _quiet():
                    hook(event)
    return since + len(events)


@contextlib.contextmanager
def _quiet() -> Any:
    sink = io.StringIO()
    with _captured(sink):
        yield


@contextlib.contextmanager
def _captured(out: io.StringIO) -> Any:
    """Send prints (stdout and stderr) and every log record to ``out``."""
    handler = logging.StreamHandler(out)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            yield
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
