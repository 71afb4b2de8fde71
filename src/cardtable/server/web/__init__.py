"""The browser table: the pages at ``/`` and the few HTTP reads they need.

The pages are static files (HTML, JavaScript modules, CSS) under ``static/``: no build step, no
CDN. Every page route serves the same shell; ``static/app.js`` renders the page its path names.
People play through the native WebSocket protocol (``/ws``) like bots do, so a page only ever
receives what its seat may see.

HTTP reads added here (all public information):

- ``GET /api/tables``: running tables and listed private tables with open seats (the lobby).
- ``GET /api/tables/{id}/public``: the public observation of a running table, who holds each
  seat (a person, a bot, or the house bot playing for someone away) and the quiet period; 410
  for a game that has ended (its replay is the next read), 404 for an id that never ran.
- ``GET /api/games/{id}/replay``: an ended game re-simulated step by step, with every seat's
  private view revealed (the game is over, nothing is secret any more).
- ``GET /api/games/{id}/decision?seat=N&at=K``: decision ``K`` (from 1) of seat ``N`` of an
  ended game: that seat's observation and request then, and its recorded answer.
- ``GET /api/docs-pages`` and ``/api/docs-pages/{name}``: the project's ``docs/*.md``.
"""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path
from typing import Any

from fastapi import APIRouter, FastAPI, HTTPException, Request
from fastapi.responses import FileResponse, PlainTextResponse
from starlette.staticfiles import StaticFiles

from cardtable.core import Record, RecordError, game_spec
from cardtable.core.decision import decision_at
from cardtable.server.lobby import Hub
from cardtable.server.presence import presence
from cardtable.server.store.db import Store
from cardtable.server.web import languages

STATIC = Path(__file__).parent / "static"
#: ``docs/`` of a source checkout (src layout); absent in an installed wheel.
DOCS = Path(__file__).resolve().parents[4] / "docs"
#: Page routes: each serves the shell, the script renders the page.
PAGES = (
    "/",
    "/table/{game_id}",
    "/watch/{game_id}",
    "/replay",
    "/replay/{game_id}",
    "/leaderboard",
    "/bots/{name}",
    "/players/{name}",
    "/signin",
    "/register",
    "/docs-pages",
    "/docs-pages/{name}",
)
_DOC_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")

router = APIRouter()


def install(app: FastAPI) -> None:
    """Add the pages, the static files and the web reads to ``app``."""
    app.include_router(router)
    languages.install(app)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")


def _hub(request: Request) -> Hub:
    hub: Hub = request.app.state.hub
    return hub


def _shell() -> FileResponse:
    # no-cache: a new server version must never run an old script against a new protocol
    return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})


for _path in PAGES:
    router.add_api_route(_path, _shell, methods=["GET"], include_in_schema=False)


# The reads that touch running tables are ``async``: they run on the event loop thread that
# drives the tables, so they never see a table half way through a change.


@router.get("/api/tables", summary="Running tables and listed private tables with open seats")
async def tables(request: Request) -> dict[str, Any]:
    hub = _hub(request)
    running: list[dict[str, Any]] = []
    for table in list(hub.tables.values()):
        if table.setup.lobby == "private" and not table.setup.extra_meta.get("listed"):
            continue  # an unlisted private table is seen by its players and invitees only
        running.append(
            {
                "id": table.id,
                "game": table.spec.name,
                "rules": table.setup.rules_name,
                "rules_label": table.spec.rules_label(table.setup.rules),
                "lobby": table.setup.lobby,
                "rated": table.setup.rated,
                "names": list(table.names),
                "seats": [_seat_json(s) for s in table.seats],
                "started_at": table.started_at,
                "running_s": round(time.time() - table.started_at, 1),
                "pace": table.pace,
                "spectator_delay_ms": table.spectator_delay_ms,
            }
        )
    running.sort(key=lambda t: -t["started_at"])
    waiting = [
        {
            "invite": p.invite,
            "game": p.spec.name,
            "rules": p.rules_name or "custom",
            "rules_label": p.spec.rules_label(p.rules),
            "seats": p.seats,
            "players": [m.name for m in p.members] + [f"house-{b}" for b in p.bots],
            # a page of the player (GET /api/players/{name}) per name above: members who are
            # stored players (a registered bot, a person with an account); not guests
            "pages": [m.player_id is not None for m in p.members] + [False for _ in p.bots],
            "open_seats": p.open_seats,
            "quiet_ms": p.quiet_ms,
            "pace": hub.pace_for(p.pace, p.members),
            "spectator_delay_ms": p.spectator_delay_ms,
            "rated": p.rated,
        }
        for p in list(hub.private.values())
        if p.listed and p.open_seats > 0
    ]
    return {"running": running, "waiting": waiting}


def _seat_json(seat: Any) -> dict[str, Any]:
    away = seat.kind != "house" and (seat.taken_over or seat.conn is None)
    return {
        "name": seat.name,
        "kind": seat.kind,
        "house": seat.house,
        "away": away,
        "taken_over": seat.taken_over,
        # here, away, left, taken over, house (server/presence.py)
        "presence": presence(seat),
        "faults": seat.faults,
        # the name has a page (GET /api/players/{name}): a stored player (a registered bot, a
        # person with an account, a house bot of rated games); a guest has none
        "page": seat.player_id is not None,
    }


@router.get("/api/tables/{game_id}/public", summary="The public view of a running table")
async def table_public(game_id: str, request: Request) -> dict[str, Any]:
    hub = _hub(request)
    table = hub.tables.get(game_id)
    if table is not None and table.running:
        return public_view(table)
    # a table another process of a cluster runs: its owner answers (server/cluster_people.py)
    view = None if hub.cluster is None else await hub.cluster.people.public_view(game_id)
    if view is not None:
        return view
    # a page may ask just after the end (its last look was on the way): 410, not 404, for a
    # game that ended, so that only an id that never was is "not found"
    store: Store = request.app.state.store
    ended = table is not None and table.result is not None
    if not ended:
        ended = await asyncio.to_thread(store.status_of, game_id) in ("finished", "aborted")
    if ended:
        raise HTTPException(410, f"table {game_id!r} has ended: /api/games/{game_id}/replay")
    raise HTTPException(404, f"no running table {game_id!r}")


def public_view(table: Any) -> dict[str, Any]:
    """``GET /api/tables/{id}/public`` of a running table of this process: who holds each seat
    (with their presence) and the spectator's view (public information only), as late as the
    table's spectator delay."""
    observation, seen = table.spectator_view()
    return {
        "id": table.id,
        "game": table.spec.name,
        "rules_name": table.setup.rules_name,
        "rules_label": table.spec.rules_label(table.setup.rules),
        "names": list(table.names),
        "seats": [_seat_json(s) for s in table.seats],
        "observation": observation,
        "events_seen": seen,
        "quiet_ms": int(table.quiet_s * 1000),
        "pace": table.pace,
        "spectator_delay_ms": table.spectator_delay_ms,
        "grace_ms": int(table.grace_s * 1000),
    }


@router.get("/api/games/{game_id}/replay", summary="An ended game step by step, all revealed")
def game_replay(game_id: str, request: Request) -> dict[str, Any]:
    store: Store = request.app.state.store
    data = store.record(game_id)
    if data is None:
        raise HTTPException(404, f"no ended game {game_id!r}")
    try:
        record = Record.from_json(data)
        return replay_frames(record)
    except (RecordError, ValueError) as exc:
        raise HTTPException(422, f"the record of {game_id} does not replay: {exc}") from None


@router.get(
    "/api/games/{game_id}/decision",
    summary="One seat's decision in an ended game: its observation, the request and its answer",
)
def game_decision(game_id: str, seat: int, at: int, request: Request) -> dict[str, Any]:
    """``at`` counts the seat's own decisions from 1 (as ``cardtable replay --seat N --at K``)."""
    store: Store = request.app.state.store
    data = store.record(game_id)
    if data is None:
        raise HTTPException(404, f"no ended game {game_id!r}")
    try:
        return decision_at(Record.from_json(data), seat, at).to_json()
    except RecordError as exc:
        raise HTTPException(422, f"the record of {game_id} does not replay: {exc}") from None
    except ValueError as exc:
        raise HTTPException(422, str(exc)) from None


def replay_frames(record: Record) -> dict[str, Any]:
    """Re-simulate ``record``: one frame before the first action and one after each action.

    A frame holds the events of that step (private ones too), the public observation and, per
    seat, the fields of its own observation that differ from the public one (its wallet or hand).
    Only for ended games: this reveals everything.
    """
    spec = game_spec(record.game)
    rules = spec.rules_from_json(record.rules)
    game = spec.new_game(rules, record.seats, record.seed)
    names = list(record.names) or [f"seat {i}" for i in range(record.seats)]
    frames = [_frame(game, record.seats, None, None, 0)]
    seen = len(game.events(0))
    for i, (seat, data) in enumerate(record.actions):
        try:
            game.apply(seat, game.action_from_json(data))
        except ValueError as exc:
            raise RecordError(f"action {i} ({data!r} by seat {seat}): {exc}") from exc
        frames.append(_frame(game, record.seats, seat, data, seen))
        seen = len(game.events(0))
    return {
        "game": record.game,
        "rules": dict(record.rules),
        "rules_label": spec.rules_label(rules),
        "seats": record.seats,
        "names": names,
        "result": record.result.to_json() if record.result else None,
        "meta": dict(record.meta or {}),
        "frames": frames,
    }


def _frame(game: Any, seats: int, seat: int | None, action: Any, since: int) -> dict[str, Any]:
    public = game.observe_json(None)
    private = []
    for s in range(seats):
        own = game.observe_json(s)
        private.append({k: v for k, v in own.items() if k != "seat" and public.get(k) != v})
    events = [
        {
            "index": since + i,
            "kind": e.kind,
            "data": dict(e.data),
            "to": None if e.to is None else list(e.to),
        }
        for i, e in enumerate(game.events(since))
    ]
    return {"seat": seat, "action": action, "events": events, "public": public, "private": private}


_SHOT_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}\.png$")


@router.get("/docs-pages/screenshots/{name}", include_in_schema=False)
def docs_screenshot(name: str) -> FileResponse:
    path = DOCS / "screenshots" / name
    if not _SHOT_NAME.match(name) or not path.is_file():
        raise HTTPException(404, f"no screenshot {name!r}")
    return FileResponse(path, media_type="image/png")


@router.get("/api/docs-pages", summary="The project's documentation pages")
def docs_pages() -> dict[str, Any]:
    if not DOCS.is_dir():
        return {"pages": []}
    pages = []
    for path in sorted(DOCS.glob("*.md")):
        title = path.stem
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("# "):
                title = line[2:].strip()
                break
        pages.append({"name": path.stem, "title": title})
    return {"pages": pages}


@router.get(
    "/api/docs-pages/{name}",
    summary="One documentation page as Markdown",
    response_class=PlainTextResponse,
)
def docs_page(name: str) -> PlainTextResponse:
    # a fixed name pattern and a directory listing: no path from a client reaches the disk
    if not _DOC_NAME.match(name) or not DOCS.is_dir():
        raise HTTPException(404, f"no page {name!r}")
    known = {p.stem: p for p in DOCS.glob("*.md")}
    if name not in known:
        raise HTTPException(404, f"no page {name!r}")
    return PlainTextResponse(
        known[name].read_text(encoding="utf-8"), media_type="text/markdown; charset=utf-8"
    )
