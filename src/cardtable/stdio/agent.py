""":class:`ProgramAgent`: a seat played by a program over the stdio protocol.

The agent is what the match loop, the arena and the client library call (``start``, ``event``,
``act``, ``end``); it turns each call into protocol lines. It only ever writes what it is given:
the observation the caller built for its seat (``game.observe(seat)`` in-process, the server's
``observation`` remotely) and the events the caller delivers to its seat (already filtered to
what the seat may see), so a program learns no more than a Python bot in the same seat.

Faults are the program's and say so. ``act`` raises:

- :class:`ProgramCrashed`: it exited (exit code and its last stderr lines) or could not start;
- :class:`NotAMessage`: it wrote a line that is not the expected message (the line is shown);
- :class:`ProgramLate`: no answer within the deadline (named); its late answer is skipped;
- :class:`ProgramFlooded`: it was cut off for writing too much;
- :class:`~cardtable.core.InvalidAction` / :class:`~cardtable.core.IllegalAction`: the action is
  not one of this game / not one of the request's choices (the legal choices are listed).

Every fault is one decision answered by the caller's fallback. A program that is gone (crashed,
cut off, or late twice running and then killed) forfeits the rest of its game with
:class:`ProgramGone` (as the arena's guard replaces a hung Python bot), and the next game
starts a new one. Hooks never raise: a program that fails in ``start`` faults on its first
decision.
"""

from __future__ import annotations

import atexit
import json
import threading
import time
from collections.abc import Mapping
from typing import Any

from cardtable.client.runner import AgentLate
from cardtable.client.seat import GameCodec
from cardtable.core.contract import Event, GameInfo, IllegalAction, InvalidAction, Request, Result
from cardtable.stdio.messages import PROTOCOL, VERSION, MessageError, dumps, parse_program_line
from cardtable.stdio.program import Exited, Flooded, Program
from cardtable.stdio.spec import ProgramSpec, parse_program_ref


class ProgramCrashed(Exception):
    """The program exited (or could not start); the reason has its exit code and last stderr."""


class NotAMessage(Exception):
    """The program wrote a line that is not the message the protocol expects."""


class ProgramLate(AgentLate):
    """The program did not answer within the deadline (a client reports it as ``late``)."""

    def __init__(self, text: str, budget_s: float) -> None:
        TimeoutError.__init__(self, text)
        self.budget_s = budget_s


class ProgramStuck(ProgramLate):
    """The program stopped reading its input (the pipe to it stayed full past the deadline)."""


class ProgramFlooded(Exception):
    """The program wrote too much (a huge line, unasked lines, endless stderr) and was cut off."""


class ProgramGone(Exception):
    """The program plays no more of this game (it crashed or hung earlier); a new one is started
    for the next game."""


#: Kept programs (``keep: match``) waiting for their next game, by spec.
_KEPT: dict[ProgramSpec, list[Program]] = {}
_KEPT_LOCK = threading.Lock()
#: Late answers in a row after which the program is killed (it is presumed stuck).
LATE_LIMIT = 2


def close_kept_programs() -> None:
    """Say bye to every program kept for a match (called at exit)."""
    with _KEPT_LOCK:
        programs = [p for kept in _KEPT.values() for p in kept]
        _KEPT.clear()
    for program in programs:
        program.close()


atexit.register(close_kept_programs)


def program_agent(game: str, ref: str, seed: int = 0, **options: Any) -> ProgramAgent:
    """The agent of ``cmd:...`` (what :func:`cardtable.core.load_bot` returns for one).

    ``deadline`` (seconds) overrides the reference's; the seed is not the program's business
    (it gets the game's, none): ``seed`` is accepted and ignored.
    """
    spec = parse_program_ref(ref)
    deadline = options.pop("deadline", None)
    if options:
        raise ValueError(f"bot {ref!r}: unknown options {sorted(options)} (see docs/stdio-bots.md)")
    if deadline:
        from dataclasses import replace

        spec = replace(spec, deadline_s=float(deadline))
    return ProgramAgent(spec)


class ProgramAgent:
    """One seat played by the program of ``spec`` (one process per seat)."""

    def __init__(self, spec: ProgramSpec) -> None:
        self.spec = spec
        #: Seconds for the next decision; the client library sets it from the server's deadline.
        self.budget_s: float | None = None
        self.name = spec.label
        self.keep = "game"
        self.program: Program | None = None
        self.codec: GameCodec | None = None
        self.gone: str | None = None  # why the program plays no more of this game
        self.gone_told = False  # whether a fault has said why
        self.gone_kind: type[Exception] = ProgramCrashed  # the fault that says it
        self.late_in_a_row = 0
        self.owed = 0  # answers to late requests still to come (skipped when they do)
        self.request_id = 0  # the id of the last request sent (an answer may echo it)

    def __repr__(self) -> str:
        return f"ProgramAgent({self.spec.describe()})"

    # -- the hooks -------------------------------------------------------------------------

    def start(self, seat: int, info: GameInfo) -> None:
        self.gone = None
        self.gone_told = False
        self.late_in_a_row = 0
        self.owed = 0
        try:
            self.codec = GameCodec(info.game, info.rules, info.seats)
        except ValueError as exc:
            self.gone = f"cannot play {info.game}: {exc}"
            return
        program = self._take_kept()
        try:
            if program is None:
                program = Program(self.spec)
        except OSError as exc:
            self.gone = f"program {self.spec.describe()} could not start: {exc}"
            return
        self.program = program
        hello = {
            "type": "hello",
            "protocol": PROTOCOL,
            "version": VERSION,
            "game": info.game,
            "rules": dict(info.rules),
            "seat": seat,
            "seats": info.seats,
            "names": list(info.names),
        }
        try:
            program.expect(1)
            self._send(hello)
            ready = self._receive("ready", self.spec.startup_s, "hello")
        except Exception as exc:  # a hook never raises: the first decision reports it
            self._drop_for(exc)
            return
        self.name = str(ready["name"])
        self.keep = self.spec.keep or str(ready.get("keep", "game"))

    def event(self, event: Event) -> None:
        if self.gone is None and self.program is not None:
            try:
                self._send({"type": "event", "event": {"kind": event.kind, "data": event.data}})
            except Exception as exc:
                self._drop_for(exc)

    def end(self, result: Result) -> None:
        program, self.program = self.program, None
        if program is None:
            return
        if self.gone is None:
            try:
                self._send_to(program, {"type": "game_end", "result": result.to_json()})
            except OSError:
                self.gone = "exited"
        if self.gone is None and self.keep == "match" and program.alive() and not self.owed:
            with _KEPT_LOCK:
                _KEPT.setdefault(self.spec, []).append(program)
        else:
            program.close()

    def close(self) -> None:
        """Stop the program now (a game abandoned before its end)."""
        program, self.program = self.program, None
        if program is not None:
            program.close()

    # -- deciding --------------------------------------------------------------------------

    def act(self, observation: Any, request: Request) -> Any:
        if self.gone is not None or self.program is None or self.codec is None:
            if not self.gone_told:  # it failed in a hook: this is the fault that says how
                self.gone_told = True
                raise self.gone_kind(str(self.gone))
            raise ProgramGone(f"{self.spec.label} plays no more of this game: {self.gone}")
        codec = self.codec
        deadline = self.budget_s if self.budget_s is not None else self.spec.deadline_s
        to_json = getattr(observation, "to_json", None)
        self.program.last_id += 1  # ids count per process (a kept one goes on counting)
        self.request_id = self.program.last_id
        message = {
            "type": "request",
            "id": self.request_id,
            "observation": to_json() if to_json is not None else (observation or {}),
            "request": {
                "seat": request.seat,
                "kind": request.kind,
                "choices": None
                if request.choices is None
                else [codec.action_to_json(c) for c in request.choices],
                "info": dict(request.info) if request.info else {},
            },
            "deadline_ms": max(0, int(deadline * 1000)),
        }
        try:
            self._unasked()
            self.program.expect(1)
            self._send(message)
            answer = self._receive("action", deadline, request.kind)
        except ProgramStuck as exc:  # the request never reached it: no late answer will come
            self._drop(str(exc), told=True)
            raise
        except ProgramLate:
            self.owed += 1
            self.late_in_a_row += 1
            if self.late_in_a_row >= LATE_LIMIT:
                self._drop(f"late {LATE_LIMIT} times running; killed", told=True)
            raise
        except (ProgramCrashed, ProgramFlooded) as exc:
            self._drop(str(exc), told=True)
            raise
        self.late_in_a_row = 0
        return self._action(answer["action"], request)

    def _action(self, data: Any, request: Request) -> Any:
        assert self.codec is not None
        try:
            action = self.codec.action_from_json(data)
        except (InvalidAction, ValueError, TypeError, KeyError) as exc:
            raise InvalidAction(
                f"{dumps(data)} is no action of this game for {request.kind}: {exc}"
            ) from None
        if request.choices is not None and action not in request.choices:
            legal = ", ".join(
                dumps({"a": self.codec.action_to_json(c)})[5:-1] for c in request.choices
            )
            raise IllegalAction(f"{dumps(data)} is not a legal {request.kind}; legal: {legal}")
        return action

    # -- lines -----------------------------------------------------------------------------

    def _send(self, message: Mapping[str, Any]) -> None:
        assert self.program is not None
        self._send_to(self.program, message)

    def _send_to(self, program: Program, message: Mapping[str, Any]) -> None:
        try:
            program.send(dumps(dict(message)), max(self.spec.deadline_s, 1.0))
        except TimeoutError as exc:  # it stopped reading its input: stuck, as good as gone
            raise ProgramStuck(f"{self.spec.label} is stuck: {exc}", self.spec.deadline_s) from None
        except OSError:
            raise self._crashed(program, "exited") from None

    def _receive(self, expected: str, timeout: float, what: str) -> dict[str, Any]:
        """The next ``expected`` message, skipping answers owed to late requests."""
        program = self.program
        assert program is not None
        until = time.monotonic() + timeout
        while True:
            line = program.receive(until - time.monotonic())
            if line is None:
                raise ProgramLate(
                    f"{self.spec.label} did not answer {what} within its deadline of "
                    f"{timeout * 1000:.0f} ms",
                    timeout,
                )
            if isinstance(line, Exited):
                raise self._crashed(program, "exited")
            if isinstance(line, Flooded):
                raise ProgramFlooded(f"{self.spec.label} was cut off: it {line.why}")
            text = line.decode("utf-8", "replace").rstrip("\r\n")
            if expected == "action" and self._stale(text):
                continue
            try:
                message = parse_program_line(text, expected)
            except MessageError as exc:
                raise NotAMessage(f"{self.spec.label} answered {what} with {exc}") from None
            if expected == "action" and message.get("id", self.request_id) != self.request_id:
                error = MessageError(text, f"not the id of the request, {self.request_id}")
                raise NotAMessage(f"{self.spec.label} answered {what} with {error}")
            return message

    def _stale(self, text: str) -> bool:
        """Whether ``text`` answers an earlier request: its ``id`` is an earlier one, or it has
        none and a late answer is still owed (then it is taken as that one, in order)."""
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        if isinstance(data, dict) and "id" in data:
            if data["id"] == self.request_id:
                self.owed = 0  # in step again
                return False
            if self.owed:
                self.owed -= 1
            return isinstance(data["id"], int) and data["id"] < self.request_id
        if self.owed:
            self.owed -= 1  # the answer to a request it was late for
            return True
        return False

    def _unasked(self) -> None:
        """Before a request: lines the program wrote that answer nothing asked (late answers are
        skipped) are a fault, so that they are never taken for the answer to this request."""
        program = self.program
        assert program is not None
        while (line := program.receive(0)) is not None:
            if isinstance(line, Exited):
                raise self._crashed(program, "exited")
            if isinstance(line, Flooded):
                raise ProgramFlooded(f"{self.spec.label} was cut off: it {line.why}")
            text = line.decode("utf-8", "replace").rstrip("\r\n")
            if self._stale(text):
                continue
            error = MessageError(text, "a line nobody asked for")
            raise NotAMessage(f"{self.spec.label} wrote {error}")

    def _crashed(self, program: Program, how: str) -> ProgramCrashed | ProgramFlooded:
        code = program.exit_code()
        if program.flood:
            return ProgramFlooded(f"{self.spec.label} was cut off: it {program.flood}")
        stderr = program.stderr_text()
        return ProgramCrashed(
            f"{self.spec.label} {how} (exit code {code})"
            + (f"; last stderr: {stderr}" if stderr else "; nothing on stderr")
        )

    def _drop_for(self, exc: Exception) -> None:
        """A hook failed with ``exc``: the program plays no more of this game."""
        if isinstance(exc, ProgramCrashed | ProgramFlooded | ProgramLate | NotAMessage):
            self._drop(str(exc), kind=type(exc))
        else:
            self._drop(f"{type(exc).__name__}: {exc}")

    def _drop(
        self, why: str, *, told: bool = False, kind: type[Exception] = ProgramCrashed
    ) -> None:
        """The program plays no more of this game: stop it."""
        self.gone = why
        self.gone_told = told
        self.gone_kind = kind
        program, self.program = self.program, None
        if program is not None:
            program.kill()
            program.close(grace=0)

    def _take_kept(self) -> Program | None:
        with _KEPT_LOCK:
            kept = _KEPT.get(self.spec, [])
            while kept:
                program = kept.pop()
                if program.alive():
                    return program
                program.close(grace=0)
        return None
