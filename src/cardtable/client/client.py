"""The asyncio bot client: connect, say hello, join a lobby, play games, report results.

::

    async with Client("ws://127.0.0.1:8000/ws", agent, name="mybot", token=TOKEN) as client:
        for report in await client.play("ranked", "kuhhandel", games=10):
            print(report.summary())

What a caller can rely on:

- every request is answered within its deadline (minus a safety margin): by the agent if it
  answers in time; else the client reports the fault to the server at once (stored there as a
  fault of its kind: ``raised`` with the bot's file and line, ``invalid_action``, ``late``) and
  a fallback answers (the server's in the ranked lobby and tournaments, by default; the
  client's own, the first legal choice or the game's random bot, elsewhere); the fault is also
  logged and listed in the game's report;
- the agent's hooks run on one worker thread, in the order the server sent them, never on the
  event loop (so a slow agent never stalls the connection);
- a dropped connection is reopened with exponential backoff (jittered) and the seat resumed
  with the same token (also when the server asks, ``reconnect``: after a random part of the
  time it names); events the agent already saw are not delivered twice; a seat the server no
  longer holds (its table died in a restart) ends for the agent, is not counted, and the client
  joins its lobby again; :class:`ConnectionLost` is raised at most ``Backoff.give_up_after``
  seconds after the connection dropped;
- an ``error`` that cannot get better by retrying (bad token, unsupported protocol, bad request)
  raises :class:`~cardtable.client.messages.ServerError`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import sysconfig
import time
import traceback
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from cardtable.client import messages
from cardtable.client.messages import ProtocolError, ServerError
from cardtable.client.runner import AgentLate, AgentRunner
from cardtable.client.seat import (
    DecodeError,
    GameCodec,
    GameReport,
    SeatState,
    event_from_json,
)
from cardtable.core.contract import (
    JSON,
    ActionError,
    Agent,
    GameInfo,
    Request,
    Result,
    Termination,
)
from cardtable.core.registry import game_spec

log = logging.getLogger("cardtable.client")

#: An agent, or a factory called at the start of every game with what the seat is told.
AgentSource = Agent | Callable[[GameInfo], Agent]

#: Lobbies whose tables answer a failed decision with the server's fallback only.
SERVER_ANSWERS = frozenset({"ranked", "tournament"})

#: ``error`` codes after which retrying cannot help: the client stops with :class:`ServerError`.
FATAL_ERRORS = frozenset(
    {"bad_token", "unsupported_protocol", "too_large", "flood", "suspended", "replaced"}
)
#: ``error`` codes that refuse a ``join``: fatal while we wait for a table.
JOIN_ERRORS = frozenset(
    {
        "unknown_game",
        "bad_join",
        "unknown_invite",
        "bad_message",
        "tournament_over",
        "challenge_declined",
    }
)

#: ``unknown_game`` refusals of a ``join`` in a row answered by joining again (issue #36: in a
#: cluster a join of a bot for which another process holds a seat is served as a resume of it,
#: refused when that table ended or never started meanwhile); the next one is raised.
JOIN_AGAIN = 3

#: Close codes after which reconnecting would only be refused again.
_FINAL_CLOSE_CODES = frozenset({1002, 1003, 1007, 1008, 1009, 1010})


#: Failures to open a connection that are worth another try.
_RETRYABLE = (OSError, TimeoutError, InvalidHandshake, ConnectionClosed, ProtocolError)


def bot_frame(exc: BaseException) -> dict[str, Any] | None:
    """Where the bot raised: the innermost frame of ``exc`` outside cardtable and the standard
    library (``file``, ``line``, ``function``), ``None`` when every frame is ours. Paths under
    the working directory are relative."""
    ours = (str(Path(__file__).resolve().parents[1]), sysconfig.get_paths()["stdlib"])
    mine = [
        f
        for f in traceback.extract_tb(exc.__traceback__)
        if not str(Path(f.filename).resolve()).startswith(ours)
    ]
    if not mine:
        return None
    frame = mine[-1]
    path = Path(frame.filename)
    with contextlib.suppress(ValueError):
        path = path.resolve().relative_to(Path.cwd())
    return {"file": str(path)[:500], "line": frame.lineno or 0, "function": frame.name[:200]}


class ConnectionLost(ConnectionError):
    """The server stayed unreachable for longer than the backoff allows."""


def fetch_game(server: str, game_id: str, timeout: float = 5.0) -> dict[str, Any] | None:
    """The server's ``GET /api/games/{game_id}`` (blocking); ``None`` if it cannot be read."""
    url = f"{messages.http_base(server)}/api/games/{game_id}"
    try:
        with urllib.request.urlopen(url, timeout=timeout) as reply:
            data = json.loads(reply.read())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


@dataclass(frozen=True)
class Backoff:
    """How to retry a dropped connection: ``first`` s, times ``factor`` up to ``most`` s.

    The client gives up (:class:`ConnectionLost`) ``give_up_after`` seconds after the
    connection dropped (no wait or attempt runs past that moment), or after ``attempts``
    reconnects in a row that led to nothing.
    """

    first: float = 0.1
    factor: float = 2.0
    most: float = 5.0
    give_up_after: float = 60.0
    attempts: int = 20

    def delays(self) -> Any:
        delay = self.first
        while True:
            # Jitter so that many bots dropped together do not knock on the door together.
            yield delay * random.uniform(0.5, 1.0)
            delay = min(delay * self.factor, self.most)


class Probe(Protocol):
    """Receives timing points (``time.perf_counter()``) for latency measurements."""

    def action_sent(self, game_id: str, at: float) -> None: ...

    def request_received(self, game_id: str, at: float) -> None: ...


@dataclass
class ClientStats:
    """Counters over the client's lifetime."""

    games: int = 0
    decisions: int = 0
    late: int = 0
    agent_errors: int = 0
    #: Answers that were no action of the game (``"banana"``).
    invalid: int = 0
    fallbacks: int = 0
    rejected: int = 0
    server_errors: int = 0
    reconnects: int = 0
    #: Games whose table died (a server restart) while we were seated: not counted in ``games``.
    lost_games: int = 0
    errors: list[str] = field(default_factory=list)


class Client:
    """A bot (or guest) connection to a cardtable server speaking the native protocol.

    ``server`` is the WebSocket URL (``ws://HOST:PORT/ws``). ``agent`` answers requests: an
    agent object, reused for every game (its ``start`` hook is called per game), or a factory
    ``agent(info) -> Agent`` called at each game start.

    ``events_in_request`` (default on) has the server send our events inside our next request
    instead of one frame each: the agent sees the same events in the same order, before it is
    asked, at a fraction of the frames.

    ``margin_ms`` is kept back from every deadline for the network. When the agent fails a
    decision (raises, answers with no action, is late) the client reports it to the server at
    once (a ``fault`` message: the server stores it as a fault of its kind) and who answers
    depends on ``fallback``: ``True``, the client's own fallback (first choice or the game's
    random bot); ``False``, the server's fallback, at once; ``None`` (default), the server's in
    the ranked lobby and in tournaments (the same fallback for every bot of a competition: these
    tables refuse a client's own fallback answer) and the client's elsewhere.
    ``version`` (a bot's version string, e.g. a commit or a file hash) goes in the ``hello``:
    the server records it with every game this client plays.
    ``accept_challenges`` answers another bot's ``challenge`` (docs/protocol.md): ``True``
    accepts every one (the game is played as one of ``play``'s games), ``False`` declines, a
    function of the challenge message decides; ``None`` (default) accepts while playing in the
    ``challenge`` lobby without an opponent (waiting for challenges) and declines elsewhere.
    ``threaded=False`` calls the agent on the event loop: only for agents that answer in
    microseconds (load tests). ``think_ms`` holds every answer back that long (never past the
    deadline): a load test's stand-in for thinking time.
    """

    def __init__(
        self,
        server: str,
        agent: AgentSource,
        *,
        name: str | None = None,
        token: str | None = None,
        guest: str | None = None,
        margin_ms: float = 200.0,
        fallback: bool | None = None,
        threaded: bool = True,
        backoff: Backoff | None = None,
        probe: Probe | None = None,
        open_timeout: float = 10.0,
        compression: str | None = None,
        think_ms: float = 0.0,
        events_in_request: bool = True,
        version: str | None = None,
        accept_challenges: bool | Callable[[Mapping[str, Any]], bool] | None = None,
    ) -> None:
        self.server = server
        self.hello = messages.hello(
            bot=name,
            token=token,
            guest=guest,
            events_in_request=events_in_request,
            version=version,
        )
        self.name = guest if guest is not None else name
        self.accept_challenges = accept_challenges
        self.margin_s = margin_ms / 1000.0
        self.fallback = fallback
        #: Whether our own fallback answers in the current ``play()`` (see ``fallback``).
        self._own_fallback = fallback is not False
        self.threaded = threaded
        self.backoff = backoff or Backoff()
        self.probe = probe
        self.open_timeout = open_timeout
        self.compression = compression
        self.think_s = think_ms / 1000.0
        self.stats = ClientStats()
        #: The server's ``welcome`` message (``server_version``, ``you``...).
        self.welcome: dict[str, Any] = {}

        self._agent_source = agent
        self._runner: AgentRunner | None = None
        self._ws: ClientConnection | None = None
        self._seat: SeatState | None = None
        self._queued = False
        self._join: dict[str, Any] | None = None
        #: games whose game_end we took (a late copy of one is never a new game given up)
        self._ended: set[str] = set()
        self._decisions: dict[Any, asyncio.Task[None]] = {}
        self._random_bots: dict[str, Agent] = {}
        self._closed = False
        self._stopping = False
        #: Reports of games that ended while we were away (see :meth:`_lose_seat`).
        self._settled: list[GameReport] = []
        self._stop: asyncio.Event | None = None
        #: The game we asked to ``resume`` and have not had ``game_start`` for yet.
        self._resuming: str | None = None
        #: The server asked us to reconnect (``reconnect``): at most this long before trying.
        self._asked_wait = 0.0
        #: ``unknown_game`` refusals of our join since our last game started (:data:`JOIN_AGAIN`)
        self._refused_joins = 0

    @property
    def game_id(self) -> str | None:
        """The game this client is seated in, ``None`` between games."""
        return self._seat.game_id if self._seat is not None else None

    # -- connection ------------------------------------------------------------------------

    async def __aenter__(self) -> Client:
        await self.connect()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def connect(self) -> dict[str, Any]:
        """Open the connection and say hello; returns the server's ``welcome``.

        Raises :class:`ServerError` if the server refuses the hello, :class:`ConnectionLost`
        (an ``OSError``) if it cannot be reached or drops the connection before its welcome.
        The first connection is tried once: a wrong address fails at once.
        """
        await self._first_open()
        return self.welcome

    async def _first_open(self) -> None:
        try:
            await self._open()
        except _RETRYABLE as exc:
            raise ConnectionLost(f"cannot connect to {self.server}: {exc!r}") from exc

    async def close(self) -> None:
        """Leave politely and close; safe to call twice."""
        if self._closed:
            return
        self._closed = True
        for task in self._decisions.values():
            task.cancel()
        self._decisions.clear()
        if self._ws is not None:
            with contextlib.suppress(ConnectionClosed, OSError):
                if self._queued or self._seat is not None:
                    await self._ws.send(messages.encode(messages.leave()))
            with contextlib.suppress(Exception):
                await self._ws.close()
        if self._runner is not None:
            # Let the agent see the last events and its end() before we return.
            await self._runner.drain()
            self._runner.close()

    async def _open(self, timeout: float | None = None) -> None:
        timeout = self.open_timeout if timeout is None else timeout
        ws = await connect(
            self.server,
            open_timeout=timeout,
            compression=self.compression,
            max_size=2**22,
            proxy=None,
        )
        try:
            await ws.send(messages.encode(self.hello))
            reply = messages.decode(await asyncio.wait_for(ws.recv(), timeout))
        except BaseException:
            await ws.close()
            raise
        if reply["type"] == "error":
            await ws.close()
            raise ServerError(str(reply.get("code", "error")), str(reply.get("reason", "")))
        if reply["type"] != "welcome":
            await ws.close()
            raise ProtocolError(f"expected welcome, got {reply['type']!r}")
        self.welcome = reply
        self._ws = ws

    async def _reconnect(self, why: str) -> None:
        """Reopen the connection (with backoff) and ask for our seat back.

        Raises :class:`ConnectionLost` once ``backoff.give_up_after`` seconds have passed since
        the connection dropped (no wait or connection attempt runs past that moment) or after
        ``backoff.attempts`` failed attempts. When the server no longer holds our seat (it
        restarted, or the game ended while we were away), the game is settled
        (:meth:`_lose_seat`) and we join our lobby again.
        """
        log.warning("%s: connection lost (%s); reconnecting", self.name, why)
        self._ws = None
        started = time.monotonic()
        give_up_at = started + self.backoff.give_up_after
        delays = self.backoff.delays()
        attempt = 0
        # the server asked us to go (it holds more than its share of a cluster's connections):
        # a random part of the time it named, so that those it asked do not come back together
        asked, self._asked_wait = self._asked_wait, 0.0
        while True:
            attempt += 1
            left = give_up_at - time.monotonic()
            wait = next(delays) if attempt > 1 or not asked else asked * random.uniform(0.5, 1)
            await asyncio.sleep(max(0.0, min(wait, left)))
            left = give_up_at - time.monotonic()
            try:
                if left <= 0:
                    raise TimeoutError("no time left to try")
                await self._open(timeout=min(self.open_timeout, left))
                break
            except _RETRYABLE as exc:
                waited = time.monotonic() - started
                if time.monotonic() >= give_up_at or attempt >= self.backoff.attempts:
                    raise ConnectionLost(
                        f"{self.server} unreachable for {waited:.1f} s ({attempt} attempts): {exc}"
                    ) from exc
                log.info("%s: reconnect attempt %d failed: %s", self.name, attempt, exc)
        self.stats.reconnects += 1
        log.info("%s: reconnected after %d attempt(s)", self.name, attempt)
        running = [str(g) for g in self.welcome.get("games") or ()]
        seat = self._seat
        lost = False
        if seat is not None and seat.game_id not in running:
            # The server holds no seat for us there: it restarted (the table died with it) or
            # the game ended while we were away.
            await self._lose_seat(seat, "the server no longer holds this seat")
            seat = None
            lost = True  # _lose_seat joined the lobby again if a game was wanted
        if seat is not None:
            self._resuming = seat.game_id
            await self._send(messages.resume(seat.game_id, seat.next_event))
        elif running:
            # The matchmaker seated us while we were away.
            self._resuming = running[0]
            await self._send(messages.resume(running[0]))
        elif self._queued and self._join is not None and not lost:
            await self._send(self._join)

    async def _lose_seat(self, seat: SeatState, why: str) -> None:
        """Our seat is gone with its table: stop deciding for it, settle the game and join the
        lobby again (when playing games).

        The game counts as played (a :class:`GameReport` for the play loop) only if the server
        finished it (the fallback played our seat to the end while we were away); a game that
        died with its table (a server restart) does not. Either way the agent's ``end`` hook
        is called, with the aborted result for a game that died, so every ``start`` has its
        ``end``.
        """
        log.warning("%s: game %s: %s", self.name, seat.game_id, why)
        for task in self._decisions.values():
            task.cancel()
        self._decisions.clear()
        self._seat = None
        detail = await asyncio.to_thread(fetch_game, self.server, seat.game_id)
        result: Result | None = None
        if detail is not None and detail.get("status") == "finished":
            with contextlib.suppress(KeyError, TypeError, ValueError):
                result = Result.from_json(detail["result"])
        if result is not None:
            self.stats.games += 1
            faults = [*seat.faults, "away at the end: the server's fallback finished the game"]
            self._settled.append(self._report(seat, result, faults, {}))
            log.warning("%s: game %s had ended while we were away", self.name, seat.game_id)
        else:
            self.stats.lost_games += 1
            n = seat.info.seats
            why = "the table died (the server restarted or lost the game); not counted"
            result = Result(Termination.ABORTED, (0.0,) * n, (0,) * n, why)
            log.warning("%s: game %s: %s", self.name, seat.game_id, why)
        self._runner_for(seat).end(result)
        stopping = self._stop is not None and self._stop.is_set()
        if not self._settled and self._join is not None and not self._queued and not stopping:
            await self._send(self._join)  # the game to replace the one that died
            self._queued = True

    async def _send(self, message: Mapping[str, Any]) -> bool:
        """Send if connected; a message lost to a dropped connection is re-sent on resume."""
        ws = self._ws
        if ws is None:
            return False
        try:
            await ws.send(messages.encode(message))
            return True
        except ConnectionClosed:
            return False

    async def _receive(self) -> dict[str, Any]:
        """The next message, reconnecting (and resuming) as often as the backoff allows."""
        failures = 0
        while True:
            if self._ws is None:
                raise ConnectionLost("not connected")
            try:
                frame = await self._ws.recv()
            except ConnectionClosed as exc:
                code = exc.rcvd.code if exc.rcvd is not None else None
                if self._closed or code in _FINAL_CLOSE_CODES:
                    reason = (exc.rcvd.reason if exc.rcvd is not None else "") or "closed"
                    raise ServerError(f"closed_{code}", reason) from exc
                failures += 1
                if failures > self.backoff.attempts:
                    raise ConnectionLost(f"connection keeps dropping ({failures} times)") from exc
                await self._reconnect(f"close code {code}")
                if self._settled:
                    # a game that ended while we were away was settled: the play loop takes
                    # it now (nothing else may arrive: we are neither seated nor queued)
                    return {"type": "welcome"}
                continue
            try:
                return messages.decode(frame)
            except ProtocolError as exc:
                self._note_error(f"unreadable frame from server: {exc}")

    # -- playing ---------------------------------------------------------------------------

    async def play(
        self,
        lobby: str = "ranked",
        game: str = "kuhhandel",
        *,
        rules: str | None = None,
        games: int = 1,
        seats: int | None = None,
        opponents: str | None = None,
        invite: str | None = None,
        on_result: Callable[[GameReport], None] | None = None,
        stop: asyncio.Event | None = None,
        tournament: str | None = None,
        leave_queue_on_stop: bool = True,
        opponent: str | None = None,
        rated: bool = False,
    ) -> list[GameReport]:
        """Join ``lobby`` for ``game`` and play ``games`` games; returns one report per game.

        ``on_result`` is called as each game ends. Setting ``stop`` ends the loop after the
        current game (or at once while waiting for a table). With ``leave_queue_on_stop=False``
        a client waiting for a table keeps waiting when ``stop`` is set and plays the game it is
        then seated at (the caller cancels it when no table can form any more): leaving the
        queue at the moment the server seats it would leave a game it never saw start.
        """
        if self._ws is None:
            await self._first_open()
        game_spec(game)  # an unknown game fails here, before the server is asked
        join = messages.join(
            lobby,
            game,
            rules=rules,
            seats=seats,
            opponents=opponents,
            invite=invite,
            tournament=tournament,
            opponent=opponent,
            rated=rated,
        )
        self._join = join
        self._stop = stop
        # ranked and tournament tables answer with the server's fallback whatever we send
        # (the same fallback for every bot of a competition): ours would only be refused
        self._own_fallback = (
            self.fallback if self.fallback is not None else lobby not in SERVER_ANSWERS
        )
        reports: list[GameReport] = []
        task = asyncio.current_task()
        watcher = None
        if stop is not None and task is not None and leave_queue_on_stop:
            watcher = asyncio.ensure_future(self._stop_when_queued(stop, task))
        try:
            while len(reports) < games and not (stop is not None and stop.is_set()):
                if self._seat is None and not self._queued:
                    await self._send(join)
                    self._queued = True
                report = await self._play_one(stop, task)
                if report is None:
                    break
                reports.append(report)
                if on_result is not None:
                    on_result(report)
        finally:
            if watcher is not None:
                watcher.cancel()
        if self._queued and self._seat is None:
            await self._send(messages.leave())
            self._queued = False
        return reports

    async def _stop_when_queued(self, stop: asyncio.Event, task: asyncio.Task[Any]) -> None:
        """When ``stop`` is set while we wait for a table, interrupt the wait."""
        await stop.wait()
        if self._seat is None:
            # No game to finish: the play loop is waiting for a table; wake it. (A watcher,
            # not a race per message: racing every receive against ``stop`` costs two tasks.)
            self._stopping = True
            task.cancel()

    async def _play_one(
        self, stop: asyncio.Event | None, task: asyncio.Task[Any] | None
    ) -> GameReport | None:
        """Handle messages until our game ends; ``None`` if ``stop`` was set while queued."""
        try:
            while True:
                if stop is not None and stop.is_set() and self._seat is None:
                    return None
                if self._settled:
                    return self._settled.pop(0)
                report = await self._handle(await self._receive())
                if report is not None:
                    return report
        except asyncio.CancelledError:
            if not self._stopping or task is None:
                raise
            self._stopping = False
            task.uncancel()
            return None

    async def _handle(self, message: dict[str, Any]) -> GameReport | None:
        kind = message["type"]
        seat = self._seat
        if kind == "request":
            if self.probe is not None:
                self.probe.request_received(str(message.get("game_id")), time.perf_counter())
            held = message.get("events")
            if isinstance(held, list) and seat is not None:
                for event in held:  # events_in_request: they precede the request
                    if isinstance(event, Mapping):
                        self._on_event(seat, event)
            await self._on_request(message)
        elif kind == "event":
            if seat is not None:
                self._on_event(seat, message)
        elif kind == "game_start":
            self._on_game_start(message)
        elif kind == "game_end":
            given_up = (message.get("result") or {}).get("termination") == "aborted"
            if (
                seat is None
                and self._queued
                and self._join is not None
                and (given_up or message.get("game_id") == self._resuming)
                and message.get("game_id") not in self._ended
            ):
                # The server seated us and gave the game up (in a cluster, the process running
                # it died) before its game_start reached us, or a seat the welcome named ended
                # before our resume: the seat took us out of the lobby, so we join again.
                log.warning(
                    "%s: game %s was given up before it started", self.name, message.get("game_id")
                )
                self._ended.add(str(message.get("game_id")))
                if self._resuming == message.get("game_id"):
                    self._resuming = None  # a seat the welcome named, ended before our resume
                await self._send(self._join)
                return None
            return self._on_game_end(message)
        elif kind == "cancel":
            task = self._decisions.pop(message.get("request_id"), None)
            if task is not None:
                task.cancel()
        elif kind == "rejected":
            code = message.get("code")
            fault = f"action rejected ({code}): {message.get('reason')}"
            if code == "not_your_turn":
                # A race with a cancel (the game moved on): nothing was applied, no fault.
                log.info("%s: %s", self.name, fault)
            else:
                self.stats.rejected += 1
                request_id = message.get("request_id")
                if seat is None:
                    log.warning("%s: %s", self.name, fault)
                elif request_id in seat.faulted:
                    # Already counted (the agent was late or failed): one decision, one fault.
                    log.info("%s: %s", self.name, fault)
                else:
                    self._fault(seat, fault, request_id)
        elif kind == "error":
            code = str(message.get("code", "error"))
            reason = str(message.get("reason", ""))
            if code == "unknown_game" and self._resuming is not None:
                # Our resume was refused: the game is gone (the server restarted, another
                # process held it, or it just ended). Settle it and join the lobby again.
                gone, self._resuming = self._resuming, None
                if seat is not None and seat.game_id == gone:
                    await self._lose_seat(seat, f"resume refused: {reason}")
                elif seat is None and self._join is not None:
                    # a game the welcome named (the matchmaker seated us while we were away):
                    # that seat took us out of the queue, so we join again even if we were
                    # queued before (issue #36)
                    await self._send(self._join)
                    self._queued = True
                return None
            if code == "unknown_game" and self._queued and seat is None and self._join is not None:
                # a join the server served as a resume of a seat gone meanwhile (issue #36): a
                # race of the server's, not our mistake; join again, a few times in a row at most
                self._refused_joins += 1
                if self._refused_joins <= JOIN_AGAIN:
                    log.warning("%s: join refused (%s); joining again", self.name, reason)
                    await self._send(self._join)
                    return None
            if code in FATAL_ERRORS or (code in JOIN_ERRORS and self._queued and seat is None):
                raise ServerError(code, reason)
            self.stats.server_errors += 1
            self._note_error(f"server error {code}: {reason}")
            if seat is not None:
                seat.faults.append(f"server error {code}: {reason}")
        elif kind == "reconnect":  # the close (1013) follows: _receive reconnects
            log.info("%s: the server asks us to reconnect: %s", self.name, message.get("reason"))
            with contextlib.suppress(KeyError, TypeError, ValueError):
                self._asked_wait = min(60.0, max(0.0, float(message["after_ms"]) / 1000.0))
        elif kind == "challenge":
            await self._send(
                messages.answer_challenge(str(message["challenge_id"]), self._accepts(message))
            )
        elif kind in ("waiting", "table", "welcome"):
            log.debug("%s: %s %s", self.name, kind, message)
        else:
            log.debug("%s: ignoring unknown message type %r", self.name, kind)
        return None

    def _accepts(self, challenge: Mapping[str, Any]) -> bool:
        """Whether to accept ``challenge`` (see ``accept_challenges``)."""
        rule = self.accept_challenges
        if callable(rule):
            return bool(rule(challenge))
        if rule is not None:
            return rule
        join = self._join or {}
        accept = join.get("lobby") == "challenge" and "opponent" not in join
        log.info(
            "%s: %s challenge from %s",
            self.name,
            "accept" if accept else "decline",
            challenge.get("from"),
        )
        return accept

    def _on_event(self, seat: SeatState, message: Mapping[str, Any]) -> None:
        if message.get("game_id") == seat.game_id:
            index = message.get("index")
            if seat.take_event(index if isinstance(index, int) else None):
                self._runner_for(seat).event(event_from_json(message["event"]))

    def _on_game_start(self, message: dict[str, Any]) -> None:
        game_id = str(message["game_id"])
        self._refused_joins = 0
        if self._resuming == game_id:
            self._resuming = None
        if self._seat is not None and self._seat.game_id == game_id:
            return  # our seat, sent again after a resume: the agent already knows the game
        if self._seat is not None:
            old = self._seat.game_id
            log.warning("%s: game %s started before %s ended", self.name, game_id, old)
        names = tuple(str(n) for n in message.get("names", ()))
        rules = dict(message["rules"])
        game = str(message["game"])
        info = GameInfo(game, rules, len(names), int(message["seat"]), names)
        self._seat = SeatState(game_id, info, GameCodec(game, rules, len(names)))
        seed = message.get("bot_seed")
        self._seat.bot_seed = seed if isinstance(seed, int) else None
        self._queued = False
        runner = self._runner_for(self._seat, new_game=True)
        runner.start(info)

    def _on_game_end(self, message: dict[str, Any]) -> GameReport | None:
        seat = self._seat
        if seat is None or message.get("game_id") != seat.game_id:
            return None
        for task in self._decisions.values():
            task.cancel()
        self._decisions.clear()
        result = Result.from_json(message["result"])
        self._runner_for(seat).end(result)
        faults = list(seat.faults)
        for fault in message.get("faults") or ():
            # The server's own record of our faults (when it sends them) completes ours.
            if isinstance(fault, Mapping) and fault.get("seat", seat.info.seat) == seat.info.seat:
                faults.append(f"server: {fault.get('reason', fault)}")
        self._seat = None
        self._ended.add(seat.game_id)
        self.stats.games += 1
        return self._report(seat, result, faults, message)

    def _report(
        self, seat: SeatState, result: Result, faults: list[str], message: Mapping[str, Any]
    ) -> GameReport:
        url = message.get("record_url") or f"/api/games/{seat.game_id}/record"
        return GameReport(
            game_id=seat.game_id,
            game=seat.info.game,
            rules=seat.info.rules,
            seat=seat.info.seat,
            names=seat.info.names,
            result=result,
            faults=tuple(faults),
            decisions=seat.decisions,
            record_url=str(url),
        )

    def _runner_for(self, seat: SeatState, *, new_game: bool = False) -> AgentRunner:
        source = self._agent_source
        if self._runner is None or (new_game and not isinstance(source, Agent)):
            if self._runner is not None:
                self._runner.close()
            seeded = getattr(source, "seeded", None)
            if seat.bot_seed is not None and callable(seeded):
                agent = seeded(seat.info, seat.bot_seed)
            else:
                agent = source if isinstance(source, Agent) else source(seat.info)
            self._runner = AgentRunner(agent, threaded=self.threaded)
        return self._runner

    # -- deciding --------------------------------------------------------------------------

    async def _on_request(self, message: dict[str, Any]) -> None:
        seat = self._seat
        request_id = message.get("request_id")
        if seat is None or message.get("game_id") != seat.game_id:
            self._note_error(f"request {request_id!r} for a game we are not seated in")
            return
        if request_id in seat.answers:
            # Asked again after a resume: our answer was lost with the old connection.
            reply = messages.action(seat.game_id, request_id, seat.answers[request_id])
            await self._send(reply)
            return
        if request_id in self._decisions:
            return  # still thinking; the answer goes out on the new connection
        received = time.perf_counter()
        task = asyncio.ensure_future(self._decide(seat, message, received))
        self._decisions[request_id] = task
        task.add_done_callback(lambda _t: self._forget(request_id, task))

    def _forget(self, request_id: Any, task: asyncio.Task[None]) -> None:
        if self._decisions.get(request_id) is task:
            del self._decisions[request_id]
        if not task.cancelled() and task.exception() is not None:
            self._note_error(f"decision {request_id!r} crashed: {task.exception()!r}")

    def _budget(self, message: Mapping[str, Any], received: float) -> float:
        deadline = float(message.get("deadline_ms") or 2000) / 1000.0
        margin = min(self.margin_s, deadline / 2)
        return deadline - margin - (time.perf_counter() - received)

    async def _decide(self, seat: SeatState, message: dict[str, Any], received: float) -> None:
        request_id = message.get("request_id")
        raw_request = message.get("request") or {}
        seat.decisions += 1
        self.stats.decisions += 1
        runner = self._runner_for(seat)
        action: JSON = None
        request: Request | None = None
        observation: Any = None
        report: dict[str, Any] | None = None
        try:
            request = seat.codec.request(raw_request)
            if getattr(runner.agent, "wants_observation", True):
                observation = seat.codec.observation(message.get("observation"))
        except DecodeError as exc:
            text = f"cannot decode request {request_id!r}: {exc}"
            self._fault(seat, text, request_id)
            report = messages.fault(seat.game_id, request_id, "client_error", text)
        if request is not None and report is None:
            answer: Any = None
            try:
                answer = await runner.act(observation, request, self._budget(message, received))
            except AgentLate as exc:
                self.stats.late += 1
                if message.get("optional"):
                    # An open auction's request may go unanswered: silence, not a fault.
                    log.info("%s: no answer in time to optional %s", self.name, request.kind)
                    return
                text = f"late on {request.kind}: {exc}"
                self._fault(seat, f"agent {text}", request_id)
                report = messages.fault(seat.game_id, request_id, "late", text)
            except asyncio.CancelledError:
                raise
            except ActionError as exc:  # the agent checked its own answer (a program's, stdio)
                self.stats.invalid += 1
                text = f"not an action for {request.kind}: {exc.reason}"
                self._fault(seat, f"agent answered {text}", request_id)
                report = messages.fault(seat.game_id, request_id, "invalid_action", text)
            except Exception as exc:
                self.stats.agent_errors += 1
                where = bot_frame(exc)
                text = f"{type(exc).__name__}: {exc}"
                if where is not None:
                    text += f" (at {where['file']}:{where['line']} in {where['function']})"
                self._fault(seat, f"agent failed on {request.kind}: {text}", request_id)
                exception = {"type": type(exc).__name__, "message": str(exc)[:1000]}
                exception.update(where or {})
                report = messages.fault(seat.game_id, request_id, "raised", text, exception)
            else:
                try:
                    action = seat.codec.action_to_json(answer)
                except Exception as exc:
                    self.stats.invalid += 1
                    text = f"not an action for {request.kind}: {exc}"
                    self._fault(seat, f"agent answered {text}", request_id)
                    report = messages.fault(seat.game_id, request_id, "invalid_action", text)
        if report is not None:
            action = self._fallback_action(seat, message, request)
            # Every fallback is reported: the server stores the fault of its kind, and answers
            # at once with its own fallback when ours does not (``answered: false``).
            report["answered"] = action is not None
            await self._send(report)
        if action is None:
            return
        seat.answers[request_id] = action
        if len(seat.answers) > 8:
            seat.answers.pop(next(iter(seat.answers)))
        if self.think_s > 0:
            # A paced answer (load tests): as if the agent had thought this long, without a thread.
            await asyncio.sleep(max(0.0, min(self.think_s, self._budget(message, received))))
        sent = await self._send(messages.action(seat.game_id, request_id, action))
        if sent and self.probe is not None:
            self.probe.action_sent(seat.game_id, time.perf_counter())

    def _fallback_action(
        self, seat: SeatState, message: Mapping[str, Any], request: Request | None
    ) -> JSON:
        """A safe legal answer: the first listed choice, else the game's random bot.

        ``None`` (send nothing) when fallbacks are off or the request is optional (an open
        auction may be left unanswered without a fault).
        """
        if not self._own_fallback or message.get("optional"):
            return None
        self.stats.fallbacks += 1
        choices = (message.get("request") or {}).get("choices")
        if choices:
            return choices[0]
        if request is None:
            return None
        try:
            bot = self._random_bots.get(seat.info.game)
            if bot is None:
                bot = game_spec(seat.info.game).bots["random"](seed=0)
                self._random_bots[seat.info.game] = bot
            observation = seat.codec.observation(message.get("observation"))
            return seat.codec.action_to_json(bot.act(observation, request))
        except Exception as exc:
            self._fault(seat, f"fallback failed too, sending nothing: {exc!r}")
            return None

    def _fault(self, seat: SeatState, text: str, request_id: Any = None) -> None:
        log.warning("%s: game %s: %s", self.name, seat.game_id, text)
        if request_id is not None:
            if request_id in seat.faulted:
                return
            seat.faulted.add(request_id)
        seat.faults.append(text)

    def _note_error(self, text: str) -> None:
        log.warning("%s: %s", self.name, text)
        if len(self.stats.errors) < 100:
            self.stats.errors.append(text)
