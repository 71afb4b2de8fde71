"""Chat lines and reports in the database (synchronous: call from the database executor)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.exc import IntegrityError

from cardtable.server.store.db import Store, iso, now
from cardtable.server.store.models import chat_lines, chat_reports


@dataclass(frozen=True)
class ChatLine:
    """One line said at a table: ``text`` or ``preset`` is set."""

    game_id: str
    id: int
    seat: int
    name: str
    text: str | None
    preset: str | None
    at_ms: int

    def message(self) -> dict[str, Any]:
        """The ``chat`` protocol message of this line."""
        msg: dict[str, Any] = {
            "type": "chat",
            "game_id": self.game_id,
            "id": self.id,
            "seat": self.seat,
            "from": self.name,
            "at": self.at_ms,
        }
        if self.text is not None:
            msg["text"] = self.text
        else:
            msg["preset"] = self.preset
        return msg

    @property
    def said_at(self) -> datetime:
        return datetime.fromtimestamp(self.at_ms / 1000.0, UTC)


def _line_json(row: Any) -> dict[str, Any]:
    return {
        "id": row.id,
        "seat": row.seat,
        "from": row.name,
        "text": row.text,
        "preset": row.preset,
        "at": iso(row.said_at),
    }


def _report_json(row: Any) -> dict[str, Any]:
    return {
        "id": row.id,
        "game_id": row.game_id,
        "reporter": row.reporter,
        "reporter_seat": row.reporter_seat,
        "reason": row.reason,
        "reported_at": iso(row.reported_at),
        "message": {
            "id": row.line_id,
            "seat": row.seat,
            "from": row.name,
            "text": row.text,
            "preset": row.preset,
            "at": iso(row.said_at),
        },
    }


class ChatStore:
    """Every read and write of chat lines and reports."""

    def __init__(self, store: Store) -> None:
        self.engine = store.engine

    def add_line(self, line: ChatLine) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                insert(chat_lines).values(
                    game_id=line.game_id,
                    id=line.id,
                    seat=line.seat,
                    name=line.name,
                    text=line.text,
                    preset=line.preset,
                    said_at=line.said_at,
                )
            )

    def add_report(
        self, line: ChatLine, reporter: str, reporter_seat: int, reason: str | None
    ) -> int:
        """Store a report (once per line and reporting seat); returns its id."""
        try:
            with self.engine.begin() as conn:
                result = conn.execute(
                    insert(chat_reports).values(
                        game_id=line.game_id,
                        line_id=line.id,
                        reporter=reporter,
                        reporter_seat=reporter_seat,
                        seat=line.seat,
                        name=line.name,
                        text=line.text,
                        preset=line.preset,
                        reason=reason,
                        said_at=line.said_at,
                        reported_at=now(),
                    )
                )
                key = result.inserted_primary_key
                assert key is not None
                return int(key[0])
        except IntegrityError:  # reported before by the same seat: the same report
            with self.engine.connect() as conn:
                row = conn.execute(
                    select(chat_reports.c.id).where(
                        chat_reports.c.game_id == line.game_id,
                        chat_reports.c.line_id == line.id,
                        chat_reports.c.reporter_seat == reporter_seat,
                    )
                ).first()
            if row is None:
                raise
            return int(row.id)

    def reports(self, limit: int = 100, before: int | None = None) -> list[dict[str, Any]]:
        """The newest reports first (``before``: ids below it, to page on)."""
        query = select(chat_reports).order_by(chat_reports.c.id.desc()).limit(limit)
        if before is not None:
            query = query.where(chat_reports.c.id < before)
        with self.engine.connect() as conn:
            return [_report_json(r) for r in conn.execute(query)]

    def report(self, report_id: int) -> dict[str, Any] | None:
        """One report with the game's chat (every line, for context)."""
        with self.engine.connect() as conn:
            row = conn.execute(select(chat_reports).where(chat_reports.c.id == report_id)).first()
        if row is None:
            return None
        return {**_report_json(row), "chat": self.lines(row.game_id)}

    def lines(self, game_id: str) -> list[dict[str, Any]]:
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(chat_lines).where(chat_lines.c.game_id == game_id).order_by(chat_lines.c.id)
            )
            return [_line_json(r) for r in rows]
