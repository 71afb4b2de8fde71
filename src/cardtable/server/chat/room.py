"""The chat of one table: who may say what, how often, and who hears it.

A :class:`ChatRoom` belongs to a :class:`~cardtable.server.table.Table` (``table.chat``). It
checks a seat's ``chat`` message (:func:`clean_text`, the limits of :mod:`cardtable.protocol`),
numbers the line, sends it to every seat that hears chat, keeps it for a seat that resumes and
writes it behind the game (:class:`~cardtable.server.chat.store.ChatStore`, in the database
executor). Spectators hear nothing: chat never passes the spectator delay because it never
reaches a spectator at all.
"""

from __future__ import annotations

import asyncio
import logging
import time
import unicodedata
from collections import deque
from collections.abc import Mapping, Sequence
from concurrent.futures import Executor
from typing import Any, Protocol

from cardtable.protocol import CHAT_MAX_CHARS, CHAT_RATE, CHAT_WINDOW_S, dumps
from cardtable.server.chat.store import ChatLine, ChatStore
from cardtable.server.store.db import Store

log = logging.getLogger("cardtable.server.chat")

#: The lobbies whose tables have chat (when a person is seated). Ranked and tournament tables
#: are bots' competitions: no chat.
CHAT_LOBBIES = frozenset({"practice", "private"})
#: Format characters allowed in a line: the zero-width joiner of emoji sequences. Every other
#: control, format (bidirectional overrides, zero-width spaces), private-use, surrogate or
#: unassigned character is refused.
_ALLOWED_FORMAT = frozenset({"\u200d"})
#: A seat that resumes gets this many of the newest lines again (the page shows as many).
REPLAYED = 200


class ChatError(Exception):
    """A chat message refused: ``code`` (an error code of the protocol) and a reason."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(f"{code}: {reason}")
        self.code = code
        self.reason = reason


def clean_text(text: str, limit: int = CHAT_MAX_CHARS) -> str:
    """A chat line as it is sent on: NFKC, every run of white space (line breaks too) one
    space, no leading or trailing space. Raises :class:`ChatError` for an empty line, a control
    or invisible character (``bad_chat``) or more than ``limit`` characters
    (``chat_too_long``)."""
    text = " ".join(unicodedata.normalize("NFKC", text).split())
    if not text:
        raise ChatError("bad_chat", "an empty chat line")
    for ch in text:
        if unicodedata.category(ch).startswith("C") and ch not in _ALLOWED_FORMAT:
            raise ChatError(
                "bad_chat",
                f"a chat line may not hold control or invisible characters (U+{ord(ch):04X})",
            )
    if len(text) > limit:
        raise ChatError(
            "chat_too_long", f"a chat line is at most {limit} characters (this one has {len(text)})"
        )
    return text


class ChatSeat(Protocol):
    index: int
    name: str
    conn: Any

    @property
    def person(self) -> bool: ...


class ChatTable(Protocol):
    """What a chat room needs of its table."""

    id: str
    store: Store
    db_executor: Executor

    seats: Sequence[Any]  # SeatState: index, name, conn, person
    setup: Any  # TableSetup: lobby

    def seat_of(self, conn: Any) -> int | None: ...


def wants_chat(conn: Any) -> bool:
    """A bot's connection hears chat only when its hello said ``chat: true``."""
    return getattr(conn, "wants_chat", False) is True


class ChatRoom:
    """The chat of one table (see the module docstring)."""

    def __init__(self, table: ChatTable) -> None:
        self.table = table
        seats = table.seats
        #: chat is on: a practice or private table with two people or more (a person alone
        #: with bots has nobody to talk to; ranked and tournament tables never)
        self.on = table.setup.lobby in CHAT_LOBBIES and sum(1 for s in seats if s.person) >= 2
        self.lines: list[ChatLine] = []
        self._said: dict[int, deque[float]] = {}
        self._writes: set[asyncio.Future[Any]] = set()

    # -- who hears ----------------------------------------------------------------------------

    def hears(self, seat: ChatSeat) -> bool:
        return self.on and seat.conn is not None and (seat.person or wants_chat(seat.conn))

    def open_to(self, seat_index: int | None) -> bool:
        """``game_start``'s ``chat``: this seat hears chat (spectators: never)."""
        return seat_index is not None and self.hears(self.table.seats[seat_index])

    def replay(self, seat_index: int) -> None:
        """A seat (re)attached: the lines so far (the last :data:`REPLAYED`), in order."""
        seat = self.table.seats[seat_index]
        if self.hears(seat):
            for line in self.lines[-REPLAYED:]:
                seat.conn.send_text(dumps(line.message()))

    # -- saying -------------------------------------------------------------------------------

    def _speaker(self, conn: Any) -> ChatSeat:
        index = self.table.seat_of(conn)
        if index is None:
            raise ChatError("chat_off", f"you hold no seat in game {self.table.id}")
        seat: ChatSeat = self.table.seats[index]
        if not self.on:
            raise ChatError(
                "chat_off",
                "this table has no chat (only tables of two people or more do)",
            )
        if not self.hears(seat):
            raise ChatError("chat_off", "a bot chats only after saying chat: true in its hello")
        return seat

    def say(self, conn: Any, message: Mapping[str, Any]) -> ChatLine:
        """A seat's ``chat`` message: checked, numbered, sent to every seat that hears chat and
        stored behind the game. Raises :class:`ChatError` (nothing sent, nothing counted)."""
        seat = self._speaker(conn)
        preset = message.get("preset")
        text = None if "text" not in message else clean_text(str(message["text"]))
        if text is None and not isinstance(preset, str):
            raise ChatError("bad_chat", "a chat message has a text or a preset")
        said = self._said.setdefault(seat.index, deque())
        moment = time.monotonic()
        while said and said[0] <= moment - CHAT_WINDOW_S:
            said.popleft()
        if len(said) >= CHAT_RATE:
            wait = said[0] + CHAT_WINDOW_S - moment
            raise ChatError(
                "chat_rate",
                f"at most {CHAT_RATE} chat lines per {CHAT_WINDOW_S:g} s: "
                f"wait {max(1, round(wait))} s",
            )
        said.append(moment)
        line = ChatLine(
            game_id=self.table.id,
            id=len(self.lines) + 1,
            seat=seat.index,
            name=seat.name,
            text=text,
            preset=None if text is not None else preset,
            at_ms=int(time.time() * 1000),
        )
        self.lines.append(line)
        frame = dumps(line.message())
        for other in self.table.seats:
            if self.hears(other):
                other.conn.send_text(frame)
        self._write(ChatStore(self.table.store).add_line, line)
        return line

    # -- reporting ----------------------------------------------------------------------------

    async def report(self, conn: Any, line_id: int, reason: str | None = None) -> int:
        """A seat reports line ``line_id`` of another seat to the operator: stored (once per
        line and seat), answered with ``chat_reported``; returns the report's id."""
        seat = self._speaker(conn)
        if not 1 <= line_id <= len(self.lines):
            raise ChatError("bad_chat", f"no chat line {line_id} at this table")
        line = self.lines[line_id - 1]
        if line.seat == seat.index:
            raise ChatError("bad_chat", "you cannot report your own line")
        why = None
        if reason:
            why = "".join(
                ch
                for ch in unicodedata.normalize("NFKC", reason)
                if not unicodedata.category(ch).startswith("C")
            )[:500]
        loop = asyncio.get_running_loop()
        report_id = await loop.run_in_executor(
            self.table.db_executor,
            ChatStore(self.table.store).add_report,
            line,
            seat.name,
            seat.index,
            why,
        )
        conn.send({"type": "chat_reported", "game_id": self.table.id, "id": line_id})
        log.info("game %s: chat line %d reported (report %d)", self.table.id, line_id, report_id)
        return int(report_id)

    def _write(self, job: Any, *args: Any) -> None:
        """Write behind the game (a database away loses the line from storage, not the chat)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        future = loop.run_in_executor(self.table.db_executor, job, *args)
        self._writes.add(future)

        def done(f: asyncio.Future[Any]) -> None:
            self._writes.discard(f)
            if not f.cancelled() and f.exception() is not None:
                log.warning("game %s: chat line not stored: %s", self.table.id, f.exception())

        future.add_done_callback(done)
