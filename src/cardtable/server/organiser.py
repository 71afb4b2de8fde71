"""An organiser's sanctions on a tournament entrant: ban, suspend, disqualify, reinstate.

This module owns what each sanction means and its storage (``tournament_entrants.sanction``,
``sanction_until``, ``sanction_reason``, migration 0008); the HTTP route is in
``tournament_api.py``, the command in ``cli/tournament.py``, the seating in
``tournament_lobby.py`` (which asks :func:`stands_in`). docs/competitions.md §6 says it for
organisers:

- ``ban``: the entrant is out of the tournament for good. The games it already played count as
  played; every game of its that starts after the ban is played by the house bot, and those
  count for the ``house stand-in`` row, never for the entrant. It cannot join again.
- ``suspend`` (``minutes``): the same for the games that start before the suspension ends;
  then it plays its own games again.
- ``disqualify``: as a ban, and its row leaves the ranking (listed under ``disqualified`` in the
  standings). The games it played are kept: the other seats' results in them stand.
- ``reinstate``: lifts the organiser's sanction and the automatic suspension
  (``suspend_after_faults``); the faults counted so far stay, and a new automatic suspension
  needs the count to cross the threshold again.

Tournaments use only their own sanctions: a bot's ladder suspension (``players``) is never read
at a tournament's seating, and a suspended bot connects; only its joins of other lobbies are
refused (:func:`ladder_suspension`).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select, update

from cardtable.server.store.db import Store, now
from cardtable.server.store.models import tournament_entrants, tournaments
from cardtable.server.tournaments import TournamentError

ACTIONS = ("ban", "suspend", "disqualify", "reinstate")
#: The sanction each action leaves on the entrant (``None``: lifted).
SANCTION = {"ban": "banned", "suspend": "suspended", "disqualify": "disqualified"}
#: Sanctions that end the entrant's tournament (it may not join again).
FOR_GOOD = ("banned", "disqualified")


class SanctionRequest(BaseModel):
    """The body of ``POST /api/tournaments/ID/entrants/NAME/ACTION`` (all optional)."""

    model_config = ConfigDict(extra="forbid")

    minutes: float | None = Field(
        default=None, gt=0, le=525_600, description="suspend: for how long (required)"
    )
    reason: str = Field(default="", max_length=200, description="shown with the sanction")


def ladder_suspension(peer: Any, at: datetime | None = None) -> str | None:
    """Why the bot of connection ``peer`` may not join a lobby other than a tournament's: its
    ladder suspension (read at its ``hello``) while it lasts, else ``None``."""
    suspension = getattr(peer, "suspension", None)
    if suspension is None or _aware(suspension[0]) <= (at or now()):
        return None
    return str(suspension[1])


def active(sanction: str | None, until: datetime | None, at: datetime | None = None) -> str | None:
    """The sanction in force at ``at`` (now): a suspension whose time is over is none."""
    if sanction == "suspended" and until is not None and _aware(until) <= (at or now()):
        return None
    return sanction


def stands_in(entrant: dict[str, Any]) -> bool:
    """Whether the house bot plays the games of ``entrant`` (a row of ``TournamentStore.get``)
    that start now: suspended automatically, or sanctioned by the organiser."""
    return bool(entrant.get("suspended")) or entrant.get("sanction_active") is not None


def entrant_json(e: Any, at: datetime | None = None) -> dict[str, Any]:
    """The organiser's fields of an entrant row, for the API."""
    until = e.sanction_until
    return {
        "sanction": e.sanction,
        "sanction_active": active(e.sanction, until, at),
        "sanction_until": None if until is None else _aware(until).isoformat(),
        "sanction_reason": e.sanction_reason,
    }


def apply(store: Store, tid: str, name: str, action: str, req: SanctionRequest) -> dict[str, Any]:
    """Apply ``action`` to the entrant ``name`` of ``tid``; returns the entrant's new organiser
    fields. Raises :class:`TournamentError` (nothing changed) for a bad request."""
    if action not in ACTIONS:
        raise TournamentError(422, f"unknown action {action!r} (one of {', '.join(ACTIONS)})")
    if action == "suspend" and req.minutes is None:
        raise TournamentError(422, "suspend needs minutes (how long)")
    if action != "suspend" and req.minutes is not None:
        raise TournamentError(422, f"{action} takes no minutes")
    with store.engine.begin() as conn:
        status = conn.execute(
            select(tournaments.c.status).where(tournaments.c.id == tid)
        ).scalar_one_or_none()
        if status is None:
            raise TournamentError(404, f"no tournament {tid!r}")
        if status in ("finished", "cancelled"):
            raise TournamentError(409, f"tournament {tid} is {status}: its standings are final")
        where = (
            tournament_entrants.c.tournament_id == tid,
            tournament_entrants.c.name == name,
        )
        row = conn.execute(select(tournament_entrants).where(*where)).first()
        if row is None:
            raise TournamentError(404, f"{name!r} is not an entrant of tournament {tid}")
        current = active(row.sanction, row.sanction_until)
        values: dict[str, Any]
        if action == "reinstate":
            if current is None and not row.suspended:
                raise TournamentError(409, f"{name} is neither sanctioned nor suspended")
            values = {
                "sanction": None,
                "sanction_until": None,
                "sanction_reason": None,
                "suspended": False,
                "suspended_reason": None,
            }
        else:
            if current == "disqualified" or (current == "banned" and action != "disqualify"):
                raise TournamentError(409, f"{name} is {current} already: reinstate it first")
            until = None
            if action == "suspend":
                assert req.minutes is not None
                until = now() + timedelta(minutes=req.minutes)
            values = {
                "sanction": SANCTION[action],
                "sanction_until": until,
                "sanction_reason": req.reason or f"{SANCTION[action]} by the organiser",
            }
        conn.execute(update(tournament_entrants).where(*where).values(**values))
        row = conn.execute(select(tournament_entrants).where(*where)).one()
        return {"name": name, "position": row.position, "suspended": bool(row.suspended)} | (
            entrant_json(row)
        )


def _aware(value: datetime) -> datetime:
    from datetime import UTC

    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)
