"""The hosted bots' rows: versions, the version that plays, validation outcomes, stderr logs."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC
from typing import Any

from sqlalchemy import func, select

from cardtable.server.store.db import Identity, Store, now
from cardtable.server.store.models import bot_versions, hosted_bots, hosted_logs, players
from cardtable.server.submissions.archive import Unpacked


class SubmissionError(Exception):
    def __init__(self, reason: str, status: int = 422) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status


def _version_json(row: Any, active_id: int | None) -> dict[str, Any]:
    return {
        "version": row.number,
        "name": row.name,
        "language": row.language,
        "entry": row.entry,
        "sha256": row.sha256,
        "size": row.size,
        "files": row.files,
        "uploaded_at": row.uploaded_at.isoformat() if row.uploaded_at else None,
        "status": row.status,
        "validation": json.loads(row.validation_json) if row.validation_json else None,
        "active": row.id == active_id,
    }


class SubmissionStore:
    """Reads and writes of server/submissions (one short transaction each)."""

    def __init__(self, store: Store) -> None:
        self.engine = store.engine

    def player_id(self, name: str) -> int | None:
        with self.engine.connect() as conn:
            value = conn.execute(
                select(players.c.id).where(players.c.name == name, players.c.kind == "bot")
            ).scalar_one_or_none()
        return None if value is None else int(value)

    def identity(self, name: str) -> Identity | None:
        """The bot ``name`` as a login needs it (a worker's hosted token was checked)."""
        with self.engine.connect() as conn:
            row = conn.execute(
                select(players).where(players.c.name == name, players.c.kind == "bot")
            ).first()
        if row is None:
            return None
        until = row.suspended_until
        if until is not None and until.tzinfo is None:  # SQLite keeps no zone
            until = until.replace(tzinfo=UTC)
        return Identity(row.id, row.name, row.kind, until, row.suspended_reason)

    def add(self, player_id: int, raw: bytes, unpacked: Unpacked, keep: int) -> dict[str, Any]:
        """Store a new version; its JSON."""
        digest = hashlib.sha256(raw).hexdigest()
        with self.engine.begin() as conn:
            count, last = conn.execute(
                select(func.count(), func.max(bot_versions.c.number)).where(
                    bot_versions.c.player_id == player_id
                )
            ).one()
            if count >= keep:
                raise SubmissionError(f"this bot has {count} versions, the most kept", 409)
            number = int(last or 0) + 1
            m = unpacked.manifest
            conn.execute(
                bot_versions.insert().values(
                    player_id=player_id,
                    number=number,
                    name=m.name,
                    language=m.language,
                    entry=m.entry,
                    sha256=digest,
                    size=len(raw),
                    files=len(unpacked.files),
                    archive=raw,
                    uploaded_at=now(),
                    status="new",
                )
            )
        found = self.version(player_id, number)
        assert found is not None
        return found

    def versions(self, player_id: int) -> list[dict[str, Any]]:
        with self.engine.connect() as conn:
            active = self._active_id(conn, player_id)
            rows = conn.execute(
                select(bot_versions)
                .where(bot_versions.c.player_id == player_id)
                .order_by(bot_versions.c.number)
            ).all()
        return [_version_json(r, active) for r in rows]

    def version(self, player_id: int, number: int) -> dict[str, Any] | None:
        with self.engine.connect() as conn:
            active = self._active_id(conn, player_id)
            row = conn.execute(
                select(bot_versions).where(
                    bot_versions.c.player_id == player_id, bot_versions.c.number == number
                )
            ).first()
        return None if row is None else _version_json(row, active)

    def archive(self, player_id: int, number: int) -> bytes | None:
        with self.engine.connect() as conn:
            value = conn.execute(
                select(bot_versions.c.archive).where(
                    bot_versions.c.player_id == player_id, bot_versions.c.number == number
                )
            ).scalar_one_or_none()
        return None if value is None else bytes(value)

    @staticmethod
    def _active_id(conn: Any, player_id: int) -> int | None:
        value = conn.execute(
            select(hosted_bots.c.version_id).where(hosted_bots.c.player_id == player_id)
        ).scalar_one_or_none()
        return None if value is None else int(value)

    def choose(self, player_id: int, number: int) -> None:
        """Make version ``number`` the one that plays."""
        with self.engine.begin() as conn:
            vid = conn.execute(
                select(bot_versions.c.id).where(
                    bot_versions.c.player_id == player_id, bot_versions.c.number == number
                )
            ).scalar_one_or_none()
            if vid is None:
                raise SubmissionError(f"no version {number}", 404)
            if self._active_id(conn, player_id) is None:
                conn.execute(
                    hosted_bots.insert().values(
                        player_id=player_id, version_id=vid, chosen_at=now()
                    )
                )
            else:
                conn.execute(
                    hosted_bots.update()
                    .where(hosted_bots.c.player_id == player_id)
                    .values(version_id=vid, chosen_at=now())
                )

    def stop(self, player_id: int) -> None:
        """No version plays any more."""
        with self.engine.begin() as conn:
            conn.execute(hosted_bots.delete().where(hosted_bots.c.player_id == player_id))

    def is_hosted(self, name: str) -> bool:
        with self.engine.connect() as conn:
            return (
                conn.execute(
                    select(hosted_bots.c.player_id)
                    .select_from(hosted_bots.join(players, players.c.id == hosted_bots.c.player_id))
                    .where(players.c.name == name)
                ).first()
                is not None
            )

    def chosen(self, name: str) -> tuple[int, str] | None:
        """The number and status (``new``, ``valid``, ``invalid``) of the version ``name``
        plays, or ``None`` when it has chosen none."""
        with self.engine.connect() as conn:
            row = conn.execute(
                select(bot_versions.c.number, bot_versions.c.status)
                .select_from(
                    hosted_bots.join(
                        bot_versions, bot_versions.c.id == hosted_bots.c.version_id
                    ).join(players, players.c.id == hosted_bots.c.player_id)
                )
                .where(players.c.name == name)
            ).first()
        return None if row is None else (int(row.number), str(row.status))

    def public(self, name: str) -> dict[str, Any] | None:
        """What the bot page shows of a hosted bot to everyone: the version that plays, its
        language, the start of its SHA-256, whether it is validated and in which game (public
        like every game). Its code, faults' texts and logs stay its author's."""
        with self.engine.connect() as conn:
            row = conn.execute(
                select(bot_versions)
                .select_from(
                    hosted_bots.join(
                        bot_versions, bot_versions.c.id == hosted_bots.c.version_id
                    ).join(players, players.c.id == hosted_bots.c.player_id)
                )
                .where(players.c.name == name)
            ).first()
        if row is None:
            return None
        validation = json.loads(row.validation_json) if row.validation_json else {}
        return {
            "version": row.number,
            "language": row.language,
            "sha256": row.sha256[:12],
            "status": row.status,
            "validation_game": validation.get("game_id"),
        }

    def work(self) -> list[dict[str, Any]]:
        """Every chosen version: what a hosted-bot worker runs."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(
                    players.c.name.label("bot"),
                    bot_versions.c.number,
                    bot_versions.c.language,
                    bot_versions.c.entry,
                    bot_versions.c.sha256,
                    bot_versions.c.status,
                )
                .select_from(
                    hosted_bots.join(
                        bot_versions, bot_versions.c.id == hosted_bots.c.version_id
                    ).join(players, players.c.id == hosted_bots.c.player_id)
                )
                .order_by(players.c.name)
            ).all()
        return [
            {
                "bot": r.bot,
                "version": r.number,
                "language": r.language,
                "entry": r.entry,
                "sha256": r.sha256,
                "status": r.status,
                "archive_url": f"/api/bots/{r.bot}/versions/{r.number}/archive",
            }
            for r in rows
        ]

    def record_validation(
        self, player_id: int, number: int, ok: bool, outcome: dict[str, Any]
    ) -> None:
        with self.engine.begin() as conn:
            done = conn.execute(
                bot_versions.update()
                .where(bot_versions.c.player_id == player_id, bot_versions.c.number == number)
                .values(
                    status="valid" if ok else "invalid",
                    validation_json=json.dumps(outcome)[:64_000],
                    validated_at=now(),
                )
            )
            if done.rowcount == 0:
                raise SubmissionError(f"no version {number}", 404)

    def add_log(
        self, player_id: int, number: int, game_id: str, text: str, limit: int, written: int = 0
    ) -> dict[str, Any]:
        """Keep the last ``limit`` bytes of ``text``; ``written``: its length before the worker
        cut it, if it did."""
        data = text.encode("utf-8", "replace")
        truncated = len(data) > limit or written > len(data)
        kept = data[-limit:].decode("utf-8", "replace") if truncated else text
        with self.engine.begin() as conn:
            vid = conn.execute(
                select(bot_versions.c.id).where(
                    bot_versions.c.player_id == player_id, bot_versions.c.number == number
                )
            ).scalar_one_or_none()
            if vid is None:
                raise SubmissionError(f"no version {number}", 404)
            conn.execute(
                hosted_logs.delete().where(
                    hosted_logs.c.game_id == game_id, hosted_logs.c.player_id == player_id
                )
            )
            conn.execute(
                hosted_logs.insert().values(
                    game_id=game_id,
                    player_id=player_id,
                    version_id=vid,
                    stderr=kept,
                    bytes=max(len(data), written),
                    truncated=truncated,
                    at=now(),
                )
            )
        return {"game_id": game_id, "bytes": max(len(data), written), "truncated": truncated}

    def logs(self, player_id: int) -> list[dict[str, Any]]:
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(
                    hosted_logs.c.game_id,
                    hosted_logs.c.bytes,
                    hosted_logs.c.truncated,
                    hosted_logs.c.at,
                    bot_versions.c.number,
                )
                .select_from(
                    hosted_logs.join(bot_versions, bot_versions.c.id == hosted_logs.c.version_id)
                )
                .where(hosted_logs.c.player_id == player_id)
                .order_by(hosted_logs.c.at.desc())
            ).all()
        return [
            {
                "game_id": r.game_id,
                "version": r.number,
                "bytes": r.bytes,
                "truncated": r.truncated,
                "at": r.at.isoformat() if r.at else None,
            }
            for r in rows
        ]

    def log(self, player_id: int, game_id: str) -> str | None:
        with self.engine.connect() as conn:
            value = conn.execute(
                select(hosted_logs.c.stderr).where(
                    hosted_logs.c.player_id == player_id, hosted_logs.c.game_id == game_id
                )
            ).scalar_one_or_none()
        return None if value is None else str(value)
