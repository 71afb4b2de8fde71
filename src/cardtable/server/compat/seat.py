"""A Kuh-Handel bot at a native table: one seat of a tournament table that mixes both kinds.

The native :class:`~cardtable.server.table.Table` plays the game: clocks (deadline and time
bank), faults, bans, the fallback bot, spectators, the record. To it a Kuh-Handel bot is one more
remote seat whose client is a :class:`KhSeat`. What the table sends that seat (``game_start``,
the events the seat may see, ``request``, ``taken_over``, ``game_end``) becomes the reference's
exchange on the bot's connection, and the bot's replies become the table's answers, corrected as
the Kuh-Handel endpoint corrects them (:class:`~cardtable.server.compat.match.KhWords`, the same
translation :class:`~cardtable.server.compat.match.KhMatch` speaks):

- ``game_start`` → ``Start``; each event → the ``GameUpdate`` the reference sends this seat
  (``Inflation``, ``NoBiddings``, ``NormalAuction`` public or private, ``ExposePlayer`` after
  the exposed payer's ``SendMoney``, ``Trade`` public or private), each acknowledged in turn;
- ``request`` → the reference's question (``DrawOrTrade``, ``ProvideBidding``, …); the corrected
  reply is the seat's action. The engine's ``offer`` after an ``InitialTrade`` is answered with
  that trade's notes without a message; a request the reference never asks (an ``offer`` after a
  tie) goes to the table's fallback bot without a fault, as at the endpoint;
- ``game_end`` → ``End`` with the ranking (and the corrections, for a bot that asked for them),
  then the connection closes, as after every Kuh-Handel game.

The reference's exchange is strict request/reply, so the messages go one at a time, in the
order the table sent them. The seat sees only what the table sends it (the events visible to it,
its own requests); corrections read the game's state while the request they answer is open.

Faults are the table's: a question not answered within the deadline and time bank is the
table's ``timeout`` (its fallback answers); an acknowledgement not sent within the deadline is a
``timeout`` too; a reply that is not the asked message is ``bad_reply`` (the fallback answers
that decision), text that is not JSON ``not_json`` and the connection closes; a connection gone
is ``disconnected`` and the fallback plays the rest of the game; a correction is a ``rectified``
fault that never leads to a ban (the endpoint's rules); a relayed connection that went with the
server process holding it is ``disconnected`` too, excused (no strike, no ban). A ban
(``taken_over``) closes the connection with 1008, as the endpoint does after its timeouts.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from cardtable.core import Termination
from cardtable.server.compat import wire
from cardtable.server.compat.connection import GONE, OK, TIMEOUT, BotConnection
from cardtable.server.compat.match import END_LINGER_S, KhWords, ranking
from cardtable.server.metrics import Stamp

if TYPE_CHECKING:
    from cardtable.games.kuhhandel import KuhhandelGame
    from cardtable.server.table import Table

log = logging.getLogger("cardtable.server.compat")


class KhSeat:
    """The client of one native table's seat, speaking to a Kuh-Handel bot's connection.

    Make it before the table, :meth:`bind` it to its table and seat before the table runs;
    :attr:`done` is set once the bot got ``End`` (or its connection is gone) and the table ended.
    """

    events_in_request = False
    push_observations = False

    def __init__(self, conn: BotConnection) -> None:
        self.conn = conn
        self.table: Table | None = None
        self.seat = -1
        self.words: KhWords | None = None
        #: Corrections reported in ``End.illegal_moves_made`` (``raise_faulty_action_warning``).
        self.illegal: list[str] = []
        self.deadline_s = 2.0
        self._queue: asyncio.Queue[tuple[Any, ...]] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._gone = False
        #: The table handed the seat to its fallback (a ban): the connection closes next.
        self._banned = False
        self.done = asyncio.Event()

    def bind(self, table: Table, seat: int) -> None:
        self.table = table
        self.seat = seat
        self.deadline_s = table.seats[seat].deadline_ms / 1000
        game: KuhhandelGame = table.game  # type: ignore[assignment]
        self.words = KhWords(game, table.names, self._rectified)
        self._task = asyncio.get_running_loop().create_task(
            self._run(), name=f"kh-seat-{self.conn.name}"
        )

    # -- what the table sends (synchronous: translated at once, sent in order by _run) --------

    def send(self, message: Mapping[str, Any]) -> None:
        try:
            self._take(message)
        except Exception:  # a translation bug must not break the table's loop
            log.exception("kuh-handel seat %s: %s not translated", self.conn.name, message)

    def send_text(self, text: str, stamp: Stamp | None = None) -> None:
        self.send(json.loads(text))

    def _take(self, message: Mapping[str, Any]) -> None:
        table, words = self.table, self.words
        assert table is not None and words is not None
        kind = message.get("type")
        if kind == "game_start":
            self._queue.put_nowait(("tell", words.start(words.wallet(self.seat))))
        elif kind == "event":
            ev = table.game.events(int(message["index"]))[0]
            for seats, msg, expected in words.words(ev):
                if self.seat in seats:
                    self._queue.put_nowait(("bluff" if expected == "SendMoney" else "tell", msg))
        elif kind == "request":
            request_id = str(message["request_id"])
            request = table.is_open(self, request_id)
            if request is None:
                return
            planned = words.planned.pop(self.seat, None)
            if request.kind == "offer" and planned is not None:
                action = table.game.action_to_json(_offer(planned))
                self._queue.put_nowait(("answer", request_id, action))
                return
            question = words.question(request)
            if question is None:
                self._queue.put_nowait(("delegate", request_id))
                return
            budget = (int(message["deadline_ms"]) + int(message["time_bank_ms"])) / 1000
            self._queue.put_nowait(
                ("ask", request_id, question[0], question[1], time.monotonic() + budget)
            )
        elif kind == "error" and message.get("code") == "taken_over":
            self._banned = True  # before anything still queued: nothing more is asked
            self._queue.put_nowait(("close", 1008))
        elif kind == "game_end":
            self._queue.put_nowait(("end", dict(message.get("result") or {})))
        # rejected (the table counted the fault, its fallback answers), cancel (the request is
        # checked again before it is asked), observation: nothing goes on the wire

    # -- the wire ----------------------------------------------------------------------------

    async def _run(self) -> None:
        try:
            while True:
                item = await self._queue.get()
                if item[0] == "end":
                    await self._end(item[1])
                    return
                await self._do(item)
                if self._gone:  # the table plays on without this connection
                    await self.conn.close(1000)
                    return
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("kuh-handel seat %s failed; its connection closes", self.conn.name)
            self._lost("disconnected", "the server's seat adapter failed")
            await self.conn.close(1011)
        finally:
            self.conn.released.set()
            self.done.set()

    async def _do(self, item: tuple[Any, ...]) -> None:
        table, words = self.table, self.words
        assert table is not None and words is not None
        what = item[0]
        if self._banned:  # banned from this game: the endpoint closes the connection too
            await self.conn.close(1008)
            self._lost("disconnected", "closed by the server (1008): banned from this game")
            return
        if what == "answer":
            if table.is_open(self, item[1]) is not None:
                table.on_action(self, item[1], item[2])
            return
        if what == "delegate":
            table.delegate(self, item[1])
            return
        if not self.conn.alive:
            self._lost("disconnected", self.conn.why_gone or "connection lost")
            return
        if what in ("tell", "bluff"):
            expected = "NoAction" if what == "tell" else "SendMoney"
            reply = await self._ask(item[1], expected, self.deadline_s, None)
            if what == "bluff" and reply is not None:
                words.bluffed(self.seat, reply)
            return
        assert what == "ask"
        _, request_id, message, expected, due = item
        request = table.is_open(self, request_id)
        left = due - time.monotonic()
        if request is None or left <= 0:
            return  # answered meanwhile (the table's clock ran out): nothing to ask
        # a little past the table's own clock, so the table counts the timeout (once)
        reply = await self._ask(message, expected, left + 0.05, request_id)
        if reply is None or table.is_open(self, request_id) is None:
            return
        try:
            action = words.correct(self.seat, request, reply)
        except Exception as exc:  # a correction bug must not end the game
            log.exception("kuh-handel: correcting %r failed", reply)
            self._report(request_id, "bad_reply", f"uncorrectable: {exc!r}")
            return
        table.on_action(self, request_id, table.game.action_to_json(action))

    async def _ask(
        self, message: dict[str, Any], expected: str, timeout: float, request_id: str | None
    ) -> Any:
        """One exchange: the parsed reply, or ``None`` (a fault is noted, or the table's clock
        counts it)."""
        assert self.table is not None
        status, text = await self.conn.ask(message, timeout)
        kind = str(message["type"])
        if status == OK:
            assert text is not None
            try:
                return wire.parse_reply(text, expected)
            except wire.BadReply as exc:
                self._fault(request_id, "bad_reply", str(exc)[:500])
                return None
            except ValueError as exc:  # not JSON: the reference closes the connection
                self._fault(request_id, "not_json", str(exc)[:500])
                await self.conn.close(1003)
                self._lost("disconnected", "the client sent text that is not JSON")
                return None
        if status == TIMEOUT:
            if request_id is None:  # a question's clock is the table's (it counts the fault)
                self.table.note_fault(
                    self, "timeout", f"no reply to {kind} within {timeout * 1000:.0f} ms"
                )
            return None
        assert status == GONE
        self._lost("disconnected", self.conn.why_gone or "connection lost")
        return None

    def _fault(self, request_id: str | None, code: str, reason: str) -> None:
        assert self.table is not None
        if request_id is not None and self.table.is_open(self, request_id) is not None:
            self._report(request_id, code, reason)
        else:
            self.table.note_fault(self, code, reason)

    def _report(self, request_id: str, code: str, reason: str) -> None:
        """A fault on an open request: the table's fallback answers it."""
        assert self.table is not None
        self.table.on_fault_report(self, {"request_id": request_id, "kind": code, "reason": reason})

    def _rectified(self, seat: int, kind: str, text: str) -> None:
        assert self.table is not None
        request = next(
            (a.request for a in self.table.asks.values() if a.seat == seat and a.open), None
        )
        self.table.note_fault(self, "rectified", text, request, ban=False)
        if self.conn.warnings:
            self.illegal.append(text)

    def _lost(self, code: str, reason: str) -> None:
        """The connection is gone for good: the fallback plays the rest of the game (no ban
        when it went with the server process that held it, a relayed connection). When this
        process is stopping, nothing: the game is aborted and the bot did nothing wrong
        (server/departure.py)."""
        if not self._gone:
            self._gone = True
            if self.table is not None and not self.conn.server_leaving():
                # (a stopping process aborts the game: its closing sockets are no fault at all)
                excused = bool(getattr(self.conn, "host_gone", False))
                self.table.leave(self, code, reason, excused=excused)

    async def _end(self, result: Mapping[str, Any]) -> None:
        table = self.table
        assert table is not None
        if self.conn.alive:
            names = list(table.names)
            scores = result.get("scores") or []
            places = result.get("places") or []
            aborted = result.get("termination") == Termination.ABORTED.value
            if aborted or len(scores) != len(names) or len(places) != len(names):
                game = table.game
                scores = [game.score(s) for s in range(len(names))]  # type: ignore[attr-defined]
                places = [sorted(scores, reverse=True).index(x) for x in scores]
            end = wire.end(ranking(names, [int(x) for x in scores], places), self.illegal)
            await self.conn.finish(end, END_LINGER_S)
        await self.conn.close(1000)


def _offer(notes: tuple[int, ...]) -> Any:
    from cardtable.games.kuhhandel import actions as A

    return A.Offer(notes)
