"""The tournaments' HTTP API (``/api/tournaments``) and standings page (``/tournaments/ID``).

Reading is open to everyone; creating, pausing, resuming or cancelling, and sanctioning an
entrant (ban, suspend, disqualify, reinstate: server/organiser.py) need the organiser's token
(``admin_token`` in the server's config) as ``Authorization: Bearer TOKEN``.
"""

from __future__ import annotations

import asyncio
import hmac
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import FileResponse, Response

from cardtable.server import organiser
from cardtable.server.limits import TokenThrottle
from cardtable.server.organiser import SanctionRequest
from cardtable.server.proxies import client_address
from cardtable.server.refusals import Refused
from cardtable.server.store.db import Store
from cardtable.server.tournaments import (
    TournamentError,
    TournamentSpec,
    TournamentStore,
    interval_warnings,
)
from cardtable.server.web import STATIC

router = APIRouter()


def _db(request: Request) -> TournamentStore:
    store: Store = request.app.state.store
    return TournamentStore(store)


def require_organiser(request: Request) -> None:
    """The organiser's token or an HTTP error; wrong tokens are throttled per address (429
    with Retry-After past ``bad_token_limit`` within ``bad_token_window_s``, the right token
    included, like the bots' tokens)."""
    expected = request.app.state.settings.admin_token
    given = request.headers.get("authorization", "")
    token = given[7:] if given.lower().startswith("bearer ") else ""
    if not expected:
        raise HTTPException(403, "this server has no admin_token: no one can organise")
    throttle: TokenThrottle = request.app.state.admin_throttle
    address = client_address(request)
    wait = throttle.retry_after(address)
    if wait > 0:
        seconds = int(wait + 0.999)
        raise HTTPException(
            429,
            f"{throttle.limit} wrong organiser tokens from your address within "
            f"{throttle.window_s:g} s: try again in {seconds} s",
            headers={"Retry-After": str(seconds)},
        )
    if not hmac.compare_digest(token.encode(), expected.encode()):
        throttle.failed(address)
        raise HTTPException(401, "the organiser's token is missing or wrong")


def _fail(exc: TournamentError) -> HTTPException:
    return HTTPException(exc.status, exc.reason)


@router.post("/api/tournaments", status_code=201, summary="Create a tournament (organiser)")
def create(spec: TournamentSpec, request: Request) -> dict[str, Any]:
    require_organiser(request)
    db = _db(request)
    try:
        tid = db.create(spec)
    except TournamentError as exc:
        raise _fail(exc) from None
    info = db.get(tid)
    assert info is not None
    return {**info, "url": f"/tournaments/{tid}", "warnings": interval_warnings(spec)}


@router.get("/api/tournaments/{tid}", summary="A tournament: settings, field, schedule counts")
async def status(tid: str, request: Request) -> dict[str, Any]:
    hub = request.app.state.hub
    loop = asyncio.get_running_loop()
    info = await loop.run_in_executor(hub.db_executor, _db(request).get, tid)
    if info is None:
        raise Refused(404, "unknown_tournament", f"no tournament {tid!r}", id=tid)
    # who is connected (waiting for a game, playing one) or not: read on the event loop
    presence = hub.tournaments.presence(tid, [e["name"] for e in info["entrants"]])
    for e in info["entrants"]:
        e["presence"] = presence[e["position"]]
    return info


@router.post(
    "/api/tournaments/{tid}/entrants/{name}/{action}",
    summary="ban, suspend, disqualify or reinstate an entrant (organiser)",
)
async def sanction(
    tid: str, name: str, action: str, request: Request, body: SanctionRequest | None = None
) -> dict[str, Any]:
    require_organiser(request)
    hub = request.app.state.hub
    loop = asyncio.get_running_loop()
    try:
        entrant = await loop.run_in_executor(
            hub.db_executor,
            organiser.apply,
            request.app.state.store,
            tid,
            name,
            action,
            body or SanctionRequest(),
        )
    except TournamentError as exc:
        raise _fail(exc) from None
    await hub.tournaments.changed(tid)
    return {"id": tid, "action": action, "entrant": entrant}


@router.post(
    "/api/tournaments/{tid}/{action}", summary="start (end the sign-up), pause, resume or cancel"
)
async def act(tid: str, action: str, request: Request) -> dict[str, Any]:
    require_organiser(request)
    db = _db(request)
    try:
        new = db.set_status(tid, action)
    except TournamentError as exc:
        raise _fail(exc) from None
    await request.app.state.hub.tournaments.changed(tid)
    return {"id": tid, "status": new}


@router.get("/api/tournaments/{tid}/standings", summary="Live (or final) standings")
def standings(tid: str, request: Request) -> dict[str, Any]:
    try:
        return _db(request).standings(tid)
    except TournamentError as exc:
        raise _fail(exc) from None


@router.get("/api/tournaments/{tid}/games", summary="Every planned game and its state")
def games(tid: str, request: Request) -> dict[str, Any]:
    db = _db(request)
    if db.get(tid) is None:
        raise Refused(404, "unknown_tournament", f"no tournament {tid!r}", id=tid)
    return {"games": db.games_list(tid)}


@router.get("/api/tournaments/{tid}/archive", summary="Records, standings (JSON, CSV) as a zip")
def archive(tid: str, request: Request) -> Response:
    try:
        data = _db(request).archive(tid)
    except TournamentError as exc:
        raise _fail(exc) from None
    return Response(
        data,
        media_type="application/zip",
        headers={"Content-Disposition": f'attachment; filename="tournament-{tid}.zip"'},
    )


@router.get("/tournaments/{tid}", include_in_schema=False)
def page(tid: str) -> FileResponse:
    return FileResponse(STATIC / "tournament.html", headers={"Cache-Control": "no-cache"})
