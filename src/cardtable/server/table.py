"""A table: one running game, its seats, and the loop that asks them.

The table is driven by callbacks on the event loop thread: a client's answer, a house bot's
answer (computed in a worker thread), a deadline, the quiet clock of an open auction, a
disconnect. Each callback changes the game synchronously and then :meth:`Table._advance` sends
the new events, re-reads ``pending()``, cancels the requests that vanished and asks the new ones.
Nothing here blocks: engine steps are small, and bots think in ``bot_executor``.

Seats can be held by a remote client (a bot or a person), by a house bot, or by the fallback bot
(after repeated faults, a disconnect, or ``leave``). Every fault is kept with its reason and
written with the game's result.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import random
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from cardtable.clock import SYSTEM, Clock, Timer
from cardtable.core import (
    ActionError,
    Agent,
    Event,
    Game,
    GameInfo,
    GameSpec,
    IllegalAction,
    Request,
    Result,
    Termination,
    load_bot,
)
from cardtable.protocol import ERROR_CODES, dumps
from cardtable.server.chat import ChatRoom
from cardtable.server.config import Settings
from cardtable.server.fair_play import SERVER_ANSWERS
from cardtable.server.fault_log import FaultLog
from cardtable.server.metrics import ServerMetrics, Stamp
from cardtable.server.pace import GAP_S, HOLD_KINDS, HOLD_S, MOVE_S, OPEN_BID_S, pace_factor
from cardtable.server.pace import PACES as PACES  # lobby.py reads these two here too
from cardtable.server.pace import PEOPLE as PEOPLE
from cardtable.server.presence import leave_is_fault, leaves_by_choice
from cardtable.server.refusals import engine_rule
from cardtable.server.spectators import Peer as Peer  # lobby.py reads it here too
from cardtable.server.spectators import SpectatorFeed, holds, pushes
from cardtable.server.store.db import SEAT_DECISION, AlreadyEnded, FaultRow, SeatOutcome, Store

log = logging.getLogger("cardtable.server.table")

#: A house bot or fallback searches for at most this share of the time it has for a decision
#: (the expert bots stop between sampled worlds, so one world may run past it) ...
SEARCH_SHARE = 0.5
#: ... and the quick bot answers instead once this share has passed without an answer.
RESCUE_AT = 0.9
#: With less time than this for a decision, the quick bot answers at once.
MIN_SEARCH_S = 0.1
#: The quick bots, first available per game: they answer in well under a millisecond.
RESCUE_BOTS = ("heuristic", "simple", "random")


class AgentBox:
    """A bot agent plus what it has been told; used from one worker thread at a time."""

    def __init__(self, agent: Agent, info: GameInfo) -> None:
        self.agent = agent
        self.info = info
        self.started = False
        self.cursor = 0  # events up to here were handed to the agent
        self.lock = threading.Lock()
        self.wants_observation = bool(getattr(agent, "wants_observation", True))

    def think(
        self,
        events: Sequence[Event],
        observation: Any,
        request: Request,
        budget_s: float | None = None,
    ) -> Any:
        """The agent's answer, after handing it the events. ``budget_s`` lowers the search
        time of an agent with a ``time_cap`` attribute (the expert bots) for this decision."""
        with self.lock:
            cap = getattr(self.agent, "time_cap", None) if budget_s is not None else None
            if cap is not None and budget_s is not None and budget_s < cap:
                self.agent.time_cap = budget_s  # type: ignore[attr-defined]
                try:
                    return self._think(events, observation, request)
                finally:
                    self.agent.time_cap = cap  # type: ignore[attr-defined]
            return self._think(events, observation, request)

    def _think(self, events: Sequence[Event], observation: Any, request: Request) -> Any:
        if not self.started:
            self.started = True
            start = getattr(self.agent, "start", None)
            if start is not None:
                start(self.info.seat, self.info)
        hook = getattr(self.agent, "event", None)
        if hook is not None:
            for ev in events:
                hook(ev)
        return self.agent.act(observation, request)


@dataclass
class SeatState:
    """Who holds a seat and how it is doing in this game."""

    index: int
    name: str
    kind: str  # "bot" | "guest" | "person" | "house"
    player_id: int | None = None
    #: Identity key of a remote seat (``bot:NAME`` or ``guest:TOKEN``) for resume.
    key: str | None = None
    house: str | None = None  # house bot name for kind == "house"
    conn: Peer | None = None
    deadline_ms: int = 2000
    bank_ms: int = 10000
    faults: int = 0
    #: Of those, the faults that never lead to a ban (a Kuh-Handel reply the reference corrects).
    excused: int = 0
    taken_over: bool = False
    #: The person left by choice (:mod:`.presence`): their connection watches, the bot plays.
    left: bool = False
    #: The fallback plays the rest of the game because the seat's connection went for good
    #: through no fault of the bot (a relayed Kuh-Handel connection whose server process
    #: died, ``compat/relay.py``): no ban, the game's seat is not stored as taken over.
    lost: bool = False
    #: A disconnect was already counted as a fault (one fault per disconnection).
    disconnect_counted: bool = False
    #: When the client of a remote seat went away (``None`` while connected): for one
    #: deadline after that, new requests wait for it to come back before the fallback answers.
    away_since: float | None = None
    house_box: AgentBox | None = None
    fallback_box: AgentBox | None = None
    #: The quick bot (heuristic) that answers on the event loop when the house bot or the
    #: fallback would miss the decision's deadline.
    rescue_box: AgentBox | None = None
    #: Encoded event frames held for a client that takes its events inside its next request.
    held: list[str] = field(default_factory=list)
    #: The observation a ``push_observations`` client saw last (``None``: nothing yet).
    shown: Any = None
    #: A person who went away keeps its open decision until this timer fires (``grace_ms``).
    grace_timer: Timer | None = None

    @property
    def remote(self) -> bool:
        return self.kind != "house"

    @property
    def person(self) -> bool:
        return self.kind in PEOPLE


@dataclass
class Ask:
    """One open request and how it is being answered."""

    request_id: str
    seat: int
    request: Request
    mode: str  # "remote" | "bot" | "clock"
    optional: bool = False
    sent_at: float = 0.0
    deadline_ms: int = 0
    timer: Timer | None = None
    open: bool = True
    faulted: bool = False
    #: The client reported a fault on this request (its own fallback answers it).
    reported: bool = False
    #: When it was asked, and when its answer may be emitted at the table's pace.
    created: float = 0.0
    due: float = 0.0
    #: The request went to the client (a resume sends it again with its clock running on).
    sent: bool = False
    #: Waiting for the seat's client to come back (sent at once when it does).
    away: bool = False
    #: A bot's answer is in and waits for its time (later answers are dropped).
    answered: bool = False


@dataclass
class TableSetup:
    """Everything needed to start a table (built by the lobby)."""

    game_id: str
    spec: GameSpec
    rules: Any
    rules_name: str | None
    seed: int
    lobby: str
    rated: bool
    seats: list[SeatState]
    extra_meta: dict[str, Any] = field(default_factory=dict)
    #: ``normal`` / ``fast`` / ``instant`` (see :data:`PACES`).
    pace: str = "instant"
    #: Spectators get everything this much later.
    spectator_delay_ms: int = 0


class Table:
    """One game in progress and everyone attached to it."""

    def __init__(
        self,
        setup: TableSetup,
        *,
        settings: Settings,
        store: Store,
        db_executor: Executor,
        bot_executor: Executor,
        instance: str,
        fallback_name: str,
        on_end: Callable[[Table], None] | None = None,
        metrics: ServerMetrics | None = None,
        clock: Clock = SYSTEM,
    ) -> None:
        self.id = setup.game_id
        self.clock = clock  # deadlines, grace, pace, spectator delay (not a bot's rescue)
        self.spec = setup.spec
        self.setup = setup
        self.settings = settings
        self.store = store
        self.db_executor = db_executor
        self.bot_executor = bot_executor
        self.instance = instance
        self.fallback_name = fallback_name
        self.on_end = on_end
        self.metrics = metrics or ServerMetrics(size=1024)
        #: While a remote reply is being handled: its arrival, carried by the requests it causes.
        self._stamp: Stamp | None = None
        #: The public observation last pushed to spectators that asked for pushes.
        self._public_shown: Any = None
        self._pushing = False
        #: Decisions the quick bot answered because the slow one would have been late.
        self.rescues = 0
        self.game: Game = setup.spec.new_game(setup.rules, len(setup.seats), setup.seed)
        self.rules_json = self.game.rules_json()
        self.seats = setup.seats
        self.names = tuple(s.name for s in self.seats)
        self.spectators: set[Peer] = set()
        self.asks: dict[str, Ask] = {}
        #: the game's faults, written to the database as they happen (``fault_log.py``)
        self.fault_log = FaultLog(store, db_executor, self.id)
        self.faults: list[FaultRow] = self.fault_log.rows
        self.seen = 0  # events sent so far
        self.result: Result | None = None
        self.started_at = self.clock.wall()
        self._seq = 0
        self._quiet_kinds = frozenset(settings.quiet_close_kinds)
        self._quiet_timer: Timer | None = None
        self._quiet_gen = 0
        self._done: asyncio.Future[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._running = False
        people = any(s.kind in PEOPLE for s in self.seats)
        self.quiet_s = (settings.quiet_ms if people else settings.bot_quiet_ms) / 1000.0
        self.pace = setup.pace if setup.pace in PACES else "normal"
        self.spectator_delay_ms = max(0, int(setup.spectator_delay_ms))
        self.grace_s = max(0, settings.grace_ms) / 1000.0
        self._feed = SpectatorFeed(self.spectators, self.spectator_delay_ms / 1000.0, clock)
        self._rng = random.Random(setup.seed ^ 0x5EED)
        #: Pace: nothing moves before this (a finished trick stays), and when a bot last moved.
        self._hold_until = 0.0
        self._last_bot_move = 0.0
        self.chat = ChatRoom(self)  # table chat (server/chat/)
        for seat in self.seats:
            if seat.kind == "house":
                agent = load_bot(self.spec.name, seat.house or "random", seed=self._seat_seed(seat))
                seat.house_box = AgentBox(agent, self._info(seat.index))

    # -- life cycle -------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._running

    async def run(self) -> Result:
        """Store the start, play to the end, store the end; returns the result.

        Cancelling the task aborts the game (server shutdown); the abort is stored too.
        """
        loop = asyncio.get_running_loop()
        self._loop = loop
        self._done = loop.create_future()
        # per seat, the version its bot's client sent in hello (None: none, or no bot), as the
        # game starts: stored with the seats and in the record's meta (bot_versions)
        versions = [getattr(s.conn, "bot_version", None) for s in self.seats]
        if any(versions):
            self.setup.extra_meta["bot_versions"] = versions
        await loop.run_in_executor(
            self.db_executor,
            lambda: self.store.start_game(
                game_id=self.id,
                game=self.spec.name,
                rules_name=self.setup.rules_name,
                rules=self.rules_json,
                seed=self.setup.seed,
                lobby=self.setup.lobby,
                rated=self.setup.rated,
                instance=self.instance,
                seats=[(s.player_id, s.name, s.kind, s.key) for s in self.seats],
                versions=versions,
            ),
        )
        self._running = True
        self.fault_log.open()
        self._feed.started = True
        self._feed.public = self.game.observe_json(None)
        try:
            for seat in self.seats:
                if seat.conn is not None:
                    seat.conn.send(self.game_start(seat.index))
            for spectator in self.spectators:
                spectator.send(self.game_start(None))
            self._refresh_pushing()
            self._advance()
            await asyncio.shield(self._done)
        except asyncio.CancelledError:
            self._abort("the server is shutting down")
            await self._finish()
            raise
        except Exception as exc:  # an engine or bot bug: abort this game, keep the server up
            log.exception("table %s failed", self.id)
            self._abort(f"server error: {type(exc).__name__}: {exc}")
        assert self.result is not None
        await self._finish()
        return self.result

    def _abort(self, reason: str) -> None:
        self._cancel_all()
        if not self.game.is_over():
            with contextlib.suppress(NotImplementedError):
                self.game.abort(reason)
        if self.game.is_over():
            self.result = self.game.result()
        else:
            n = len(self.seats)
            self.result = Result(Termination.ABORTED, (0.0,) * n, (0,) * n, reason)
        if self._done is not None and not self._done.done():
            self._done.set_result(None)

    async def _finish(self) -> None:
        assert self.result is not None and self._loop is not None
        self._running = False
        result = self.result
        record = self.game.record()
        record = dataclasses.replace(
            record,
            result=result,
            names=self.names,
            meta={
                "game_id": self.id,
                "lobby": self.setup.lobby,
                "rated": self.setup.rated,
                "rules_name": self.setup.rules_name,
                "faults": [
                    {
                        "seat": f.seat,
                        "decision": f.decision,
                        "request_kind": f.request_kind,
                        "code": f.code,
                        "reason": f.reason,
                        **({"detail": f.detail} if f.detail else {}),
                    }
                    for f in self.faults
                ],
                **self.setup.extra_meta,
            },
        )
        outcomes = [
            SeatOutcome(s.index, s.player_id, s.faults, s.taken_over and not s.lost)
            for s in self.seats
        ]
        unstored = await self.fault_log.close()  # the rest were stored as they happened
        settings = self.settings
        record_json = record.to_json()
        result_json: dict[str, Any] = result.to_json()
        # Nothing finished is lost: the end is kept here until a commit succeeds, and clients
        # get game_end only after it (the store already retries deadlocks and serialization
        # failures; this outer loop rides out a database that is away for a while).
        attempt = 0
        while True:
            attempt += 1
            try:
                suspended = await self._loop.run_in_executor(
                    self.db_executor,
                    lambda: self.store.finish_game(
                        self.id,
                        record=record_json,
                        result=result.to_json(),
                        seats=outcomes,
                        fault_rows=unstored,
                        suspend_after=settings.suspend_after_games,
                        suspend_window=settings.suspend_window_games,
                        suspend_minutes=settings.suspend_minutes,
                    ),
                )
                if suspended:
                    log.warning("suspended after game %s: %s", self.id, ", ".join(suspended))
                break
            except AlreadyEnded as exc:
                if exc.status == "finished" and attempt > 1:
                    break  # an earlier try committed before its answer was lost
                # the cluster took this process for dead and aborted the game: say so
                log.error("game %s: %s; its end is not stored", self.id, exc)
                result_json = {
                    "termination": "aborted",
                    "scores": [],
                    "places": [],
                    "reason": "the game was aborted while its server process was unreachable",
                    "details": {},
                }
                break
            except Exception:
                log.exception("game %s: end not stored (try %d); trying again", self.id, attempt)
                await asyncio.sleep(min(5.0, 0.1 * 2 ** min(attempt, 6)))
        for seat in self.seats:
            self._release_held(seat)
        message = {
            "type": "game_end",
            "game_id": self.id,
            "result": result_json,
            "record_url": f"/api/games/{self.id}/record",
            "rated": self.setup.rated,
        }
        # each seat's final view rides in its game_end (spectators: the public view), so a
        # client that shows the board has the board of the result
        for seat in self.seats:
            if seat.conn is not None:
                seat.conn.send({**message, "observation": self._final_view(seat.index)})
        self._feed.emit(dumps({**message, "observation": self._final_view(None)}))
        for box in self._boxes():
            end = getattr(box.agent, "end", None)
            if end is not None:
                try:
                    end(result)
                except Exception:
                    log.exception("a bot's end() failed in %s", self.id)
        if self.on_end is not None:
            self.on_end(self)

    def _final_view(self, seat: int | None) -> Any:
        try:
            return self.game.observe_json(seat)
        except Exception:  # an aborted game that cannot be observed any more
            log.exception("no final view of %s for seat %s", self.id, seat)
            return None

    # -- what clients get -------------------------------------------------------------------

    def game_start(self, seat: int | None) -> dict[str, Any]:
        return {
            "type": "game_start",
            "game_id": self.id,
            "game": self.spec.name,
            "rules": self.rules_json,
            "rules_name": self.setup.rules_name,
            "seat": seat,
            "seats": len(self.seats),
            "names": list(self.names),
            "pages": [self._page(s) for s in self.seats],
            "lobby": self.setup.lobby,
            "rated": self.setup.rated,
            "pace": self.pace,
            "spectator_delay_ms": self.spectator_delay_ms,
            "chat": self.chat.open_to(seat),
            **self._bot_seed(seat),
        }

    @staticmethod
    def _page(seat: SeatState) -> str | None:
        """The page of the seat's name: a person's with an account (``/players/NAME``), a
        stored bot's (``/bots/NAME``: a registered bot, a house bot of rated games); a guest
        has none (``None``), like ``seats[].page`` of ``GET /api/tables``."""
        if seat.player_id is None:
            return None
        where = "players" if seat.kind == "person" else "bots"
        return f"/{where}/{quote(seat.name, safe='')}"

    def _bot_seed(self, seat: int | None) -> dict[str, int]:
        """A tournament's seed for the seat's bot (the arena's), when it gives one."""
        seeds = self.setup.extra_meta.get("bot_seeds")
        return {} if seat is None or not seeds else {"bot_seed": int(seeds[seat])}

    def spectator_view(self) -> tuple[Any, int]:
        """The public view and the number of events a spectator has now (a delayed table:
        as they were ``spectator_delay_ms`` ago)."""
        if self._feed.delayed:
            return self._feed.public, self._feed.seen
        return self.game.observe_json(None), self.seen

    def public_view(self) -> dict[str, Any]:
        """What anyone may know about the running game (spectators' view)."""
        observation, seen = self.spectator_view()
        return {
            "observation": observation,
            "events": [
                {"index": i, "kind": e.kind, "data": dict(e.data)}
                for i, e in enumerate(self.game.events(0))
                if e.to is None and i < seen
            ],
        }

    def pace_factor(self) -> float:
        """The share of the normal delays this table plays at now: its pace at a table with a
        person or a spectator (none otherwise); while none of its people is present, at least
        the server's ``away_pace`` (so "take my seat back" works until the end)."""
        if self.result is not None:
            return 0.0
        people = [s for s in self.seats if s.person]
        if not people and not self.spectators:
            return 0.0
        factor = pace_factor(self.pace)
        if people and all(s.conn is None or s.taken_over for s in people):
            factor = max(factor, pace_factor(self.settings.away_pace))
        return factor * max(0.0, self.settings.pace_scale)

    def attach(self, seat_index: int, conn: Peer, since: int = 0) -> None:
        """Bind a (re)connected client to its seat: it gets game_start, the events it may see
        from ``since``, and its open requests again."""
        seat = self.seats[seat_index]
        if seat.conn is conn:  # the same socket (a seat taken back): it has every event sent
            self._release_held(seat)  # up to ``seen`` on its way already, in order
            since = max(since, self.seen)
        seat.conn = conn
        seat.left = False
        seat.away_since = None
        seat.disconnect_counted = False
        if seat.grace_timer is not None:
            seat.grace_timer.cancel()
            seat.grace_timer = None
        seat.held.clear()  # the events from ``since`` are sent again below
        seat.shown = None
        self._refresh_pushing()
        if not self._running:
            return
        conn.send(self.game_start(seat_index))
        for i, ev in enumerate(self.game.events(since), since):
            if i >= self.seen:
                break
            if ev.visible_to(seat_index):
                conn.send(self._event_message(i, ev))
        self.chat.replay(seat_index)
        for ask in list(self.asks.values()):
            # the same open requests again (a paced one not sent yet goes out on its time)
            mine = ask.seat == seat_index and ask.mode == "remote" and ask.open
            if mine and (ask.sent or ask.away):
                self._send_request(ask, seat)
        if not seat.taken_over:
            self._advance()  # a seat played by the fallback while away is asked again

    def detach(self, conn: Peer, *, excused: bool = False) -> None:
        """A client disconnected. A bot's open requests go to the fallback (one fault). A
        person's stay open for the grace period (``grace_ms``): no fault, no answer for it;
        a reconnect (resume) gets the same requests; after the grace the fallback answers
        them (one ``disconnect`` fault). ``excused``: the server ended the connection (its
        process stops or died, or it asked the client to reconnect, ``server/rebalance.py``):
        the same, with no fault (none until the client is back)."""
        for seat in self.seats:
            if seat.conn is conn:
                seat.conn = None
                seat.away_since = self.clock.monotonic()
                seat.held.clear()  # a resume sends the events from its ``since`` again
                seat.disconnect_counted = excused  # one fault per disconnection, none excused
                grace = seat.person and not seat.taken_over and self.grace_s > 0 and not excused
                for ask in list(self.asks.values()):
                    if ask.seat == seat.index and ask.mode == "remote" and ask.open and ask.sent:
                        if ask.optional:
                            self._close(ask)
                        elif excused:
                            self._wait_for_return(ask, seat)  # no fault; a resume gets it
                        elif not grace:
                            seat.disconnect_counted = True
                            self._fault(ask, "disconnect", "the client disconnected")
                if grace and self._loop is not None:
                    if seat.grace_timer is not None:
                        seat.grace_timer.cancel()
                    seat.grace_timer = self.clock.call_later(
                        self.grace_s, self._on_grace_over, seat
                    )
                if self._running:
                    self._advance()
        self.spectators.discard(conn)

    def _on_grace_over(self, seat: SeatState) -> None:
        """A person did not come back within the grace period: the fallback answers the
        decisions it left open (one ``disconnect`` fault) and, from now on, at once."""
        seat.grace_timer = None
        if seat.conn is not None or self.result is not None or not self._running:
            return
        seat.away_since = None
        for ask in list(self.asks.values()):
            mine = ask.seat == seat.index and ask.open and ask.mode == "remote"
            if mine and ask.sent and not ask.faulted:
                seat.disconnect_counted = True
                self._fault(
                    ask, "disconnect", f"the person did not come back within {self.grace_s:g} s"
                )
        self._advance()

    def leave(
        self,
        conn: Peer,
        code: str = "left",
        reason: str = "the client left the game",
        *,
        excused: bool = False,
    ) -> None:
        """The client gives up its seat (or its connection is gone for good, ``code``
        ``disconnected``): the fallback plays the rest of the game. ``excused``: the server
        lost the connection (a relayed one whose process died): the fault is recorded but is
        no strike and the seat is not banned (:attr:`SeatState.lost`)."""
        for seat in self.seats:
            if seat.conn is conn:
                seat.left = leaves_by_choice(seat, code)
                if not seat.left:
                    seat.conn = None
                    self._refresh_pushing()
                if not seat.taken_over:
                    seat.taken_over = True
                    seat.lost = excused
                    if leave_is_fault(seat, code, self.setup.rated):
                        self._record_fault(seat, None, code, reason, ban=not excused)
                    else:
                        log.info("%s left seat %s of %s", seat.name, seat.index, self.id)
                for ask in list(self.asks.values()):
                    if ask.seat == seat.index and ask.mode == "remote" and ask.open:
                        self._close(ask)
                if self._running:
                    self._advance()

    def spectate(self, conn: Peer) -> None:
        """A spectator arrives: game_start, the public events so far and (when it asked for
        pushes) the public view; at a delayed table, as far as the spectators are."""
        self.spectators.add(conn)
        if not self._running:
            return
        conn.send(self.game_start(None))
        public, seen = self.spectator_view()
        for i, ev in enumerate(self.game.events(0)):
            if i >= seen:
                break
            if ev.to is None:
                conn.send(self._event_message(i, ev))
        if pushes(conn):
            conn.send(
                {
                    "type": "observation",
                    "game_id": self.id,
                    "seat": None,
                    "events_seen": seen,
                    "observation": public,
                }
            )
            self._pushing = True

    # -- answers ----------------------------------------------------------------------------

    def on_action(
        self, conn: Peer, request_id: str, data: Any, arrived: float | None = None
    ) -> bool:
        """A client's ``action`` message for this table; ``True`` if it answered an open
        request (applied or faulted), ``False`` if it was rejected as not the client's turn.

        ``arrived`` (``time.perf_counter()`` when the frame was read) makes the requests this
        answer causes at once a decision-latency sample (:mod:`cardtable.server.metrics`)."""
        ask = self.asks.get(request_id)
        if (
            ask is None
            or not ask.open
            or ask.mode != "remote"
            or not ask.sent
            or self.seats[ask.seat].conn is not conn
        ):
            conn.send(
                {
                    "type": "rejected",
                    "game_id": self.id,
                    "request_id": request_id,
                    "code": "not_your_turn",
                    "reason": f"request {request_id!r} is not open for you (it may have been "
                    "cancelled or answered already)",
                }
            )
            return False
        seat = self.seats[ask.seat]
        elapsed_ms = (self.clock.monotonic() - ask.sent_at) * 1000.0
        over = elapsed_ms - ask.deadline_ms
        if over > 0 and not ask.optional:
            seat.bank_ms = max(0, int(seat.bank_ms - over))
        try:
            action = self.game.action_from_json(data)
        except ActionError as exc:
            self._fault(ask, "invalid_action", exc.reason, refused=exc)
            return True
        except Exception as exc:  # a decoder that raises something else is still a bad action
            self._fault(ask, "invalid_action", f"{type(exc).__name__}: {exc}")
            return True
        try:
            self.game.apply(ask.seat, action)
        except ActionError as exc:
            code = "illegal_action" if isinstance(exc, IllegalAction) else "invalid_action"
            self._fault(ask, code, exc.reason, refused=exc)
            return True
        self._close(ask)
        self._stamp = None if arrived is None else self.metrics.stamp(arrived)
        try:
            self._advance()
        finally:
            self._stamp = None
        return True

    def on_fault_report(self, conn: Peer, message: Mapping[str, Any]) -> bool:
        """A client's ``fault`` report (its bot raised, answered with no action, was late):
        stored as a fault of that kind at once. Unless the report says its own fallback answers
        (``answered``), the server's fallback answers the request now instead of waiting for
        the deadline. ``False`` (and ``not_your_turn``) for a request not open for the client."""
        request_id = str(message["request_id"])
        ask = self.asks.get(request_id)
        if (
            ask is None
            or not ask.open
            or ask.mode != "remote"
            or not ask.sent
            or ask.faulted
            or ask.reported
            or self.seats[ask.seat].conn is not conn
        ):
            conn.send(
                {
                    "type": "rejected",
                    "game_id": self.id,
                    "request_id": request_id,
                    "code": "not_your_turn",
                    "reason": f"request {request_id!r} is not open for you (it may have been "
                    "cancelled, answered or reported already): the report changes nothing",
                }
            )
            return False
        code = str(message["kind"])
        # ranked and tournament tables: the server's fallback answers, never the client's own
        # (which could be any bot); its action that follows is refused as ``not_your_turn``
        answered = message.get("answered") is True and self.setup.lobby not in SERVER_ANSWERS
        reason = str(message.get("reason") or ERROR_CODES.get(code, code))
        detail: dict[str, Any] = {
            "reported_by": "client",
            "after_ms": round((self.clock.monotonic() - ask.sent_at) * 1000.0, 1),
            "answered_by": "client" if answered else "server",
        }
        exception = message.get("exception")
        if isinstance(exception, Mapping):
            detail["exception"] = dict(exception)
        if answered or ask.optional:
            # its own fallback's action follows (an open auction may stay silent)
            ask.reported = True
            self._record_fault(self.seats[ask.seat], ask.request, code, reason, detail)
        else:
            self._fault(ask, code, reason, detail)
        return True

    def delegate(self, conn: Peer, request_id: str) -> bool:
        """The seat's client hands request ``request_id`` to the server's fallback bot without
        a fault (a Kuh-Handel seat: a request the reference never asks, :mod:`.compat.seat`).
        ``False`` if the request is not open for the client."""
        ask = self.asks.get(request_id)
        if ask is None or not ask.open or ask.mode != "remote" or ask.faulted:
            return False
        seat = self.seats[ask.seat]
        if seat.conn is not conn:
            return False
        left_ms = ask.deadline_ms - (self.clock.monotonic() - ask.sent_at) * 1000.0
        self._think(ask, self._fallback_box(seat), max(MIN_SEARCH_S, left_ms / 1000.0))
        return True

    def is_open(self, conn: Peer, request_id: str) -> Request | None:
        """The request ``request_id`` while it waits for ``conn``'s answer, else ``None``."""
        ask = self.asks.get(request_id)
        if ask is None or not ask.open or ask.mode != "remote" or ask.faulted:
            return None
        return ask.request if self.seats[ask.seat].conn is conn else None

    def note_fault(
        self,
        conn: Peer,
        code: str,
        reason: str,
        request: Request | None = None,
        *,
        ban: bool = True,
    ) -> None:
        """A fault of ``conn``'s seat that no request of the table's own clocks saw (a Kuh-Handel
        seat's late acknowledgement, a reply the reference corrects: ``ban=False``, it counts
        but never hands the seat to the fallback)."""
        for seat in self.seats:
            if seat.conn is conn:
                self._record_fault(seat, request, code, reason, ban=ban)

    def on_malformed(self, conn: Peer, code: str, reason: str) -> None:
        """A frame from this seat's client could not be read: its oldest open request is a
        fault (the fallback answers it)."""
        for ask in sorted(self.asks.values(), key=lambda a: a.sent_at):
            if ask.open and ask.mode == "remote" and self.seats[ask.seat].conn is conn:
                if not ask.optional:
                    self._fault(ask, code, reason)
                return

    def seat_of(self, conn: Peer) -> int | None:
        for seat in self.seats:
            if seat.conn is conn:
                return seat.index
        return None

    # -- the loop ---------------------------------------------------------------------------

    def _advance(self) -> None:
        """After any change: send new events, end the game or (re)sync the open requests."""
        if not self._running or self.result is not None:
            return
        self._flush_events()
        if self.game.is_over():
            self._cancel_all()
            self.result = self.game.result()
            # The final board: every client that follows the table's view gets the view after
            # the last action before game_end (the result must never contradict the board).
            for seat in self.seats:
                self._release_held(seat)
            if self._pushing:
                self._push_observations(set())
            if self._done is not None and not self._done.done():
                self._done.set_result(None)
            return
        pending = list(self.game.pending())
        # cancel the asks whose request vanished (or changed), keep the others
        for ask in list(self.asks.values()):
            if not ask.open:
                continue
            for i, req in enumerate(pending):
                # a faulted request stays with the fallback that is answering it
                if req == ask.request and (ask.faulted or self._mode_for(req) == ask.mode):
                    del pending[i]
                    break
            else:
                self._cancel(ask)
        quiet = any(r.kind in self._quiet_kinds for r in self.game.pending())
        asked: set[int] = set()
        for req in pending:
            # a request sent now carries the seat's view; one sent later (after a finished
            # trick has been shown) does not: the view is pushed now, with the outcome
            if self._ask(req, quiet).sent:
                asked.add(req.seat)
        if quiet:
            self._restart_quiet_clock()
        elif self._quiet_timer is not None:
            self._quiet_timer.cancel()
            self._quiet_timer = None
        if self._pushing:
            self._push_observations(asked)

    def _refresh_pushing(self) -> None:
        """Note whether any seat or spectator asked for pushed observations (after a client
        came or went), so the common case costs one attribute read per step."""
        self._pushing = (
            any(s.conn is not None and pushes(s.conn) for s in self.seats)
            or any(pushes(c) for c in self.spectators)
            or self._feed.delayed  # a delayed table keeps the spectators' view as it was
        )

    def _push_observations(self, asked: set[int]) -> None:
        """Send an ``observation`` to every client that asked for them and whose view changed
        (a seat just sent a request got its observation with it)."""
        for seat in self.seats:
            conn = seat.conn
            if conn is None or not pushes(conn) or seat.index in asked:
                continue
            observation = self.game.observe_json(seat.index)
            if observation != seat.shown:
                seat.shown = observation
                conn.send(self._observation_message(seat.index, observation))
        if self._feed.delayed or any(pushes(c) for c in self.spectators):
            public = self.game.observe_json(None)
            if public != self._public_shown:
                self._public_shown = public
                text = dumps(self._observation_message(None, public))
                self._feed.emit(text, pushers_only=True, public=public)

    def _observation_message(self, seat: int | None, observation: Any = None) -> dict[str, Any]:
        return {
            "type": "observation",
            "game_id": self.id,
            "seat": seat,
            "events_seen": self.seen,
            "observation": self.game.observe_json(seat) if observation is None else observation,
        }

    def _away_window_s(self, seat: SeatState) -> float:
        """How long a remote seat's requests wait for its client to come back: a person's
        grace period, a bot's decision deadline."""
        return self.grace_s if seat.person else seat.deadline_ms / 1000.0

    def _waiting_for(self, seat: SeatState) -> bool:
        """The seat's client went away a moment ago and its requests wait for it."""
        if seat.away_since is None:
            return False
        return self.clock.monotonic() - seat.away_since < self._away_window_s(seat)

    def _mode_for(self, req: Request) -> str:
        seat = self.seats[req.seat]
        machine = seat.kind == "house" or seat.taken_over
        away = seat.conn is None
        if req.kind in self._quiet_kinds and (machine or away):
            return "clock"
        if machine or (away and not self._waiting_for(seat)):
            return "bot"
        return "remote"

    def _ask(self, req: Request, quiet: bool) -> Ask:
        self._seq += 1
        ask = Ask(f"{self._seq}", req.seat, req, self._mode_for(req), optional=quiet)
        ask.created = self.clock.monotonic()
        seat = self.seats[req.seat]
        self.asks[ask.request_id] = ask
        if ask.mode == "clock":
            return ask  # the quiet clock answers it
        ask.due = self._due_for(ask, seat)
        if ask.mode == "remote":
            ask.deadline_ms = seat.deadline_ms
            wait = ask.due - self.clock.monotonic()
            if seat.conn is None:
                self._wait_for_return(ask, seat)
            elif wait > 0.005 and self._loop is not None:
                # at the table's pace: the client is asked (and its clock starts) on time
                ask.timer = self.clock.call_later(wait, self._send_due, ask)
            else:
                self._send_request(ask, seat)
            return ask
        self._answer_for_away_seat(ask)
        return ask

    def _due_for(self, ask: Ask, seat: SeatState) -> float:
        """When ``ask``'s answer may appear at the table's pace (0: at once). A person is asked
        once a finished trick or trade has been shown; a bot's move comes a drawn delay after
        it was asked (longer for an open auction's bids) and apart from the last bot move."""
        factor = self.pace_factor()
        if factor <= 0:
            return 0.0
        if seat.person and not seat.taken_over:
            return self._hold_until
        low, high = OPEN_BID_S if ask.optional else MOVE_S
        return max(
            self._hold_until,
            self._last_bot_move + GAP_S * factor,
            ask.created + self._rng.uniform(low, high) * factor,
        )

    def _send_due(self, ask: Ask) -> None:
        ask.timer = None
        if not ask.open or self.result is not None:
            return
        seat = self.seats[ask.seat]
        if seat.conn is None:
            self._wait_for_return(ask, seat)
        else:
            self._send_request(ask, seat)

    def _wait_for_return(self, ask: Ask, seat: SeatState) -> None:
        """The seat's client went away: the request waits for it (a reconnect resumes the seat
        and gets this request) until its away window ends, then the fallback answers."""
        assert self._loop is not None
        since = seat.away_since if seat.away_since is not None else self.clock.monotonic()
        left_s = self._away_window_s(seat) - (self.clock.monotonic() - since)
        ask.mode = "remote"
        ask.away = True
        ask.deadline_ms = seat.deadline_ms
        ask.sent_at = self.clock.monotonic()
        if ask.timer is not None:
            ask.timer.cancel()
        ask.timer = self.clock.call_later(max(0.0, left_s), self._on_away, ask)

    def _on_away(self, ask: Ask) -> None:
        """The client did not come back in time: the fallback answers."""
        if not ask.open or self.result is not None:
            return
        seat = self.seats[ask.seat]
        if seat.conn is not None:  # it came back: attach() sent it the request
            return
        ask.timer = None
        ask.mode = "bot"
        ask.away = False
        seat.away_since = None  # from now on the fallback answers at once until it returns
        self._answer_for_away_seat(ask)
        self._advance()

    def _answer_for_away_seat(self, ask: Ask) -> None:
        seat = self.seats[ask.seat]
        if seat.kind != "house" and not seat.taken_over and not seat.disconnect_counted:
            # a remote seat whose client is away: one fault per disconnection
            seat.disconnect_counted = True
            self._record_fault(seat, ask.request, "disconnect", "the client is not connected")
        box = seat.house_box if seat.kind == "house" else self._fallback_box(seat)
        self._think(ask, box, seat.deadline_ms / 1000.0)

    def _send_request(self, ask: Ask, seat: SeatState) -> None:
        """Send ``ask`` to the seat's client and start its clock; a request sent before (a
        resume) goes again with its clock running on: what is left of the deadline and bank."""
        assert seat.conn is not None and self._loop is not None
        deadline_ms, bank_ms = ask.deadline_ms, seat.bank_ms
        if ask.sent:
            over_ms = (self.clock.monotonic() - ask.sent_at) * 1000.0 - ask.deadline_ms
            deadline_ms = max(0, int(-over_ms))
            bank_ms = max(0, int(seat.bank_ms - max(0.0, over_ms)))
        message: dict[str, Any] = {
            "type": "request",
            "game_id": self.id,
            "request_id": ask.request_id,
            "request": self.game.request_to_json(ask.request),
            "observation": self.game.observe_json(ask.seat),
            "deadline_ms": int(self.quiet_s * 1000) if ask.optional else deadline_ms,
            "time_bank_ms": bank_ms,
        }
        if ask.optional:
            message["optional"] = True
        if pushes(seat.conn):
            seat.shown = message["observation"]
        text = dumps(message)
        if seat.held:
            # the events this seat has not been sent yet ride in the request: one frame
            text = f'{text[:-1]},"events":[{",".join(seat.held)}]}}'
            seat.held.clear()
        seat.conn.send_text(text, self._stamp)
        if ask.sent:
            return  # the clock started when it was first sent
        ask.sent = True
        ask.away = False
        ask.sent_at = self.clock.monotonic()
        if ask.timer is not None:
            ask.timer.cancel()
            ask.timer = None
        if not ask.optional:
            ask.timer = self.clock.call_later(
                (ask.deadline_ms + seat.bank_ms) / 1000.0, self._on_timeout, ask
            )

    def _think(self, ask: Ask, box: AgentBox | None, budget_s: float) -> None:
        """Let ``box`` answer ``ask`` in a worker thread within ``budget_s`` seconds.

        The bot's search is capped well inside the budget (see :meth:`AgentBox.think`); if its
        answer is still not back when the budget is spent (a slow machine, a queue of bots
        before it), the quick rescue bot answers on the event loop instead. Without enough
        budget for a search at all (:data:`MIN_SEARCH_S`) the rescue bot answers at once.
        """
        assert self._loop is not None
        if box is None:
            self._last_resort(ask, "no bot available")
            return
        ask.mode = "bot"
        if budget_s < MIN_SEARCH_S:
            self._rescue(ask)
            return
        if ask.timer is not None:
            ask.timer.cancel()
        ask.timer = self._loop.call_later(budget_s * RESCUE_AT, self._rescue, ask)
        observation = self.game.observe(ask.seat) if box.wants_observation else None
        events = self.game.events(box.cursor)
        box.cursor += len(events)
        visible = [e for e in events if e.visible_to(ask.seat)]
        started = time.perf_counter()
        future = self._loop.run_in_executor(
            self.bot_executor, box.think, visible, observation, ask.request, budget_s * SEARCH_SHARE
        )
        future.add_done_callback(lambda f: self._on_bot_done(ask, box, f, started))

    def _on_bot_done(
        self, ask: Ask, box: AgentBox, future: asyncio.Future[Any], started: float
    ) -> None:
        self.metrics.bot_think.add(time.perf_counter() - started)
        if not ask.open or ask.answered or self.result is not None:
            return
        try:
            action = future.result()
        except Exception as exc:
            # a house bot or fallback failed: note it, then answer with the simplest choice
            log.warning("bot of seat %s in %s failed: %r", ask.seat, self.id, exc)
            self._last_resort(ask, f"{type(exc).__name__}: {exc}")
            return
        self._play_bot(ask, action)

    def _play_bot(self, ask: Ask, action: Any) -> None:
        """A house bot's or the fallback's answer is in: play it now or, at a paced table,
        when it is due (a later answer to the same request is dropped)."""
        ask.answered = True
        if ask.timer is not None:  # the rescue clock: the answer is here
            ask.timer.cancel()
            ask.timer = None
        self._apply_bot(ask, action)

    def _apply_bot(self, ask: Ask, action: Any) -> None:
        ask.timer = None
        if not ask.open or self.result is not None:
            return
        factor = self.pace_factor()
        if factor > 0 and self._loop is not None:
            due = max(ask.due, self._hold_until, self._last_bot_move + GAP_S * factor)
            wait = due - self.clock.monotonic()
            if wait > 0.005:
                ask.timer = self.clock.call_later(wait, self._apply_bot, ask, action)
                return
        try:
            self.game.apply(ask.seat, action)
        except Exception as exc:
            log.warning("bot of seat %s in %s failed: %r", ask.seat, self.id, exc)
            self._last_resort(ask, f"{type(exc).__name__}: {exc}")
            return
        self._last_bot_move = self.clock.monotonic()
        self._close(ask)
        self._advance()

    def _rescue(self, ask: Ask) -> None:
        """Answer ``ask`` now, on the event loop, with the seat's quick bot (the slow bot's
        answer, if it comes later, is dropped)."""
        if not ask.open or ask.answered or self.result is not None:
            return
        seat = self.seats[ask.seat]
        box = self._rescue_box(seat)
        self.rescues += 1
        self.metrics.rescues += 1
        log.info(
            "table %s seat %s: the %s bot had no answer in time; the quick bot answers",
            self.id,
            ask.seat,
            seat.house if seat.kind == "house" else self.fallback_name,
        )
        if box is None:
            self._last_resort(ask, "no quick bot")
            return
        observation = self.game.observe(ask.seat) if box.wants_observation else None
        events = self.game.events(box.cursor)
        box.cursor += len(events)
        visible = [e for e in events if e.visible_to(ask.seat)]
        try:
            action = box.think(visible, observation, ask.request)
        except Exception as exc:
            log.warning("quick bot of seat %s in %s failed: %r", ask.seat, self.id, exc)
            self._last_resort(ask, f"{type(exc).__name__}: {exc}")
            return
        self._play_bot(ask, action)

    def _rescue_box(self, seat: SeatState) -> AgentBox | None:
        if seat.rescue_box is None:
            name = next((b for b in RESCUE_BOTS if b in self.spec.bots), None)
            if name is None:
                return None
            agent = load_bot(self.spec.name, name, seed=self._seat_seed(seat) + 2)
            seat.rescue_box = AgentBox(agent, self._info(seat.index))
        return seat.rescue_box

    def _last_resort(self, ask: Ask, reason: str) -> None:
        choices = ask.request.choices
        if not choices:
            self._abort(f"no answer for seat {ask.seat}'s {ask.request.kind}: {reason}")
            return
        self.game.apply(ask.seat, choices[0])
        self._close(ask)
        self._advance()

    def _on_timeout(self, ask: Ask) -> None:
        if not ask.open or self.result is not None:
            return
        seat = self.seats[ask.seat]
        spent = seat.bank_ms
        seat.bank_ms = 0
        self._fault(
            ask,
            "timeout",
            f"no answer within the {ask.deadline_ms} ms deadline and {spent} ms of time bank",
        )

    def _restart_quiet_clock(self) -> None:
        assert self._loop is not None
        if self._quiet_timer is not None:
            self._quiet_timer.cancel()
        self._quiet_gen += 1
        self._quiet_timer = self.clock.call_later(self.quiet_s, self._on_quiet, self._quiet_gen)

    def _on_quiet(self, gen: int) -> None:
        """Nobody acted for the quiet period: the server closes the open auction."""
        if gen != self._quiet_gen or self.result is not None:
            return
        self._quiet_timer = None
        for ask in list(self.asks.values()):
            if ask.open and ask.request.kind in self._quiet_kinds and ask.request.choices:
                self.game.apply(ask.seat, ask.request.choices[0])
                self._close(ask)
                self._advance()
                return

    # -- faults -----------------------------------------------------------------------------

    def _fault(
        self,
        ask: Ask,
        code: str,
        reason: str,
        detail: dict[str, Any] | None = None,
        refused: ActionError | None = None,
    ) -> None:
        """Record a fault on ``ask``, tell the client (with the engine's ``rule`` and ``args``
        when it ``refused`` the action: a person's page says them), let the fallback answer."""
        seat = self.seats[ask.seat]
        if ask.timer is not None:
            ask.timer.cancel()
            ask.timer = None
        ask.faulted = True
        if seat.conn is not None:
            seat.conn.send(
                {
                    "type": "rejected",
                    "game_id": self.id,
                    "request_id": ask.request_id,
                    "code": code,
                    "reason": reason + "; the fallback bot answered this decision",
                    **engine_rule(refused),
                }
            )
        self._record_fault(seat, ask.request, code, reason, detail)
        # what is left of this decision's deadline (nothing after a timeout)
        left_ms = ask.deadline_ms - (self.clock.monotonic() - ask.sent_at) * 1000.0
        self._think(ask, self._fallback_box(seat), max(0.0, left_ms) / 1000.0)

    def _record_fault(
        self,
        seat: SeatState,
        req: Request | None,
        code: str,
        reason: str,
        detail: dict[str, Any] | None = None,
        *,
        ban: bool = True,
    ) -> None:
        seat.faults += 1
        seat.excused += 0 if ban else 1
        history = self.game.history()
        # the seat's decision the fallback answers, counted as `cardtable replay --at` counts
        mine = sum(1 for s, _a in history if s == seat.index) + 1
        if not ban:  # stored as no fault of the seat's own (fair_play.own_fault)
            detail = {**(detail or {}), "excused": True}
        self.fault_log.add(
            FaultRow(
                seat=seat.index,
                player_id=seat.player_id,
                decision=len(history),
                request_kind=req.kind if req is not None else "-",
                code=code,
                reason=reason,
                detail={**(detail or {}), SEAT_DECISION: mine},
            )
        )
        self.metrics.faults[code] += 1
        log.info("fault in %s seat %s (%s): %s: %s", self.id, seat.index, seat.name, code, reason)
        strikes = seat.faults - seat.excused
        if ban and not seat.taken_over and strikes >= self.settings.max_faults_per_game:
            seat.taken_over = True
            if seat.conn is not None:
                seat.conn.send(
                    {
                        "type": "error",
                        "code": "taken_over",
                        "reason": f"{seat.faults} faults in game {self.id}: the fallback bot "
                        "plays the rest of this game for you",
                    }
                )

    def _fallback_box(self, seat: SeatState) -> AgentBox | None:
        if seat.fallback_box is None:
            try:
                agent = load_bot(self.spec.name, self.fallback_name, seed=self._seat_seed(seat) + 1)
            except ValueError:
                log.exception("no fallback bot %r for %s", self.fallback_name, self.spec.name)
                return None
            seat.fallback_box = AgentBox(agent, self._info(seat.index))
        return seat.fallback_box

    # -- helpers ----------------------------------------------------------------------------

    def _close(self, ask: Ask) -> None:
        ask.open = False
        if ask.timer is not None:
            ask.timer.cancel()
            ask.timer = None
        self.asks.pop(ask.request_id, None)

    def _cancel(self, ask: Ask) -> None:
        seat = self.seats[ask.seat]
        if ask.mode == "remote" and seat.conn is not None and not ask.faulted and ask.sent:
            seat.conn.send({"type": "cancel", "game_id": self.id, "request_id": ask.request_id})
        self._close(ask)

    def _cancel_all(self) -> None:
        for ask in list(self.asks.values()):
            self._cancel(ask)
        if self._quiet_timer is not None:
            self._quiet_timer.cancel()
            self._quiet_timer = None

    def _flush_events(self) -> None:
        """Send the new events to the seats that may see them (each encoded once): at once, or
        held for the seat's next request when its client asked for ``events_in_request``."""
        events = self.game.events(self.seen)
        if not events:
            return
        targets: list[tuple[int, Peer, list[str] | None]] = []
        for seat in self.seats:
            conn = seat.conn
            if conn is None:
                continue
            if holds(conn) and not seat.taken_over:
                targets.append((seat.index, conn, seat.held))
            else:
                self._release_held(seat)  # e.g. taken over: it gets no request to carry them
                targets.append((seat.index, conn, None))
        feed = self._feed
        for offset, ev in enumerate(events):
            text = dumps(self._event_message(self.seen + offset, ev))
            for index, conn, held in targets:
                if ev.to is None or index in ev.to:
                    if held is None:
                        conn.send_text(text)
                    else:
                        held.append(text)
            if ev.to is None:
                feed.emit(text, seen=self.seen + offset + 1)
        self.seen += len(events)
        if any(ev.kind in HOLD_KINDS for ev in events):
            factor = self.pace_factor()
            if factor > 0:  # a finished trick (or trade...) stays on the table a moment
                self._hold_until = self.clock.monotonic() + HOLD_S * factor

    def _release_held(self, seat: SeatState) -> None:
        """Send the events held for ``seat`` now, one frame each (the game ends, or the seat
        will get no request to carry them)."""
        if seat.held:
            if seat.conn is not None:
                for text in seat.held:
                    seat.conn.send_text(text)
            seat.held.clear()

    def _event_message(self, index: int, ev: Event) -> dict[str, Any]:
        return {
            "type": "event",
            "game_id": self.id,
            "index": index,
            "event": {"kind": ev.kind, "data": dict(ev.data)},
        }

    def _info(self, seat: int) -> GameInfo:
        return GameInfo(self.spec.name, self.rules_json, len(self.seats), seat, self.names)

    def _seat_seed(self, seat: SeatState) -> int:
        """The seed of the seat's house bot (its fallback: + 1, its quick bot: + 2): a
        tournament's seed for the seat (``bot_seeds``, the arena's), else one from the deal's."""
        seeds = self.setup.extra_meta.get("bot_seeds")
        if seeds and seat.index < len(seeds):
            return int(seeds[seat.index])
        return (self.setup.seed * 31 + seat.index * 7919) % (2**62)

    def _boxes(self) -> Iterable[AgentBox]:
        for seat in self.seats:
            for box in (seat.house_box, seat.fallback_box):
                if box is not None:
                    yield box
