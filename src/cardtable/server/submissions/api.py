"""The hosted bots' HTTP API.

An author is a bot's owner, known by the bot's token (``Authorization: Bearer TOKEN`` on
``/api/bots/NAME/...``); the organiser by ``admin_token``. Wrong tokens are throttled per address
as the organiser's are. Versions, archives and logs are the author's and the organiser's only:
another bot's token gets 403, whatever it asks.

| method, path | who | what |
|---|---|---|
| ``POST /api/bots/NAME/versions`` (body: the archive) | author | a new version (201) |
| ``GET /api/bots/NAME/versions`` | author, organiser | every version, its validation |
| ``GET /api/bots/NAME/versions/N/archive`` | author, organiser | the archive uploaded |
| ``PUT /api/bots/NAME/hosted`` ``{"version": N}`` / ``DELETE`` | author | which version plays |
| ``GET /api/bots/NAME/logs``, ``.../logs/GAME`` | author, organiser | each game's stderr |
| ``GET /api/hosted/work`` | organiser (workers) | every chosen version |
| ``POST /api/hosted/NAME/versions/N/validation`` | organiser (workers) | a validation outcome |
| ``POST /api/hosted/NAME/versions/N/logs/GAME`` | organiser (workers) | a game's stderr |
"""

from __future__ import annotations

import hmac
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import PlainTextResponse, Response
from pydantic import BaseModel, Field

from cardtable.server.limits import TokenThrottle
from cardtable.server.proxies import client_address
from cardtable.server.store.db import Store
from cardtable.server.submissions.archive import ArchiveError, ArchiveLimits, read_archive
from cardtable.server.submissions.store import SubmissionError, SubmissionStore
from cardtable.server.tournament_api import require_organiser

router = APIRouter()


class Choice(BaseModel):
    version: int = Field(ge=1, description="the version that plays from now on")


class Validation(BaseModel):
    ok: bool
    outcome: dict[str, Any] = Field(default_factory=dict)


def _db(request: Request) -> SubmissionStore:
    store: Store = request.app.state.store
    return SubmissionStore(store)


def _bearer(request: Request) -> str:
    given = request.headers.get("authorization", "")
    return given[7:] if given.lower().startswith("bearer ") else ""


def _throttle(request: Request) -> TokenThrottle:
    throttle: TokenThrottle | None = getattr(request.app.state, "author_throttle", None)
    if throttle is None:
        settings = request.app.state.settings
        throttle = TokenThrottle(settings.bad_token_limit, settings.bad_token_window_s, "author")
        request.app.state.author_throttle = throttle
    return throttle


def is_organiser(request: Request) -> bool:
    expected = request.app.state.settings.admin_token
    return bool(expected) and hmac.compare_digest(_bearer(request).encode(), expected.encode())


def require_author(request: Request, name: str, organiser_too: bool = True) -> int:
    """The bot's player id when the request carries its token (or, with ``organiser_too``,
    the organiser's); else 401/403, wrong tokens throttled per address."""
    if organiser_too and is_organiser(request):
        pid = _db(request).player_id(name)
        if pid is None:
            raise HTTPException(404, f"no bot {name!r}")
        return pid
    throttle = _throttle(request)
    address = client_address(request)
    wait = throttle.retry_after(address)
    if wait > 0:
        seconds = int(wait + 0.999)
        raise HTTPException(
            429, f"too many wrong tokens: try again in {seconds} s", {"Retry-After": str(seconds)}
        )
    token = _bearer(request)
    if not token:
        raise HTTPException(401, f"send {name}'s token as Authorization: Bearer TOKEN")
    store: Store = request.app.state.store
    identity = store.authenticate(name, token)
    if identity is None:
        throttle.failed(address)
        raise HTTPException(403, f"this is not {name}'s token: only its author may do this")
    return identity.id


def _fail(exc: SubmissionError | ArchiveError) -> HTTPException:
    return HTTPException(exc.status, exc.reason)


@router.post("/api/bots/{name}/versions", status_code=201, summary="Upload a hosted version")
async def upload(name: str, request: Request) -> dict[str, Any]:
    body = await request.body()  # BodyLimit has bounded it (hosted_archive_bytes)
    reply: dict[str, Any] = await _in_thread(request, _upload, name, body)
    return reply


async def _in_thread(request: Request, fn: Any, *args: Any) -> Any:
    from starlette.concurrency import run_in_threadpool

    return await run_in_threadpool(fn, request, *args)


def _upload(request: Request, name: str, body: bytes) -> dict[str, Any]:
    pid = require_author(request, name, organiser_too=False)
    settings = request.app.state.settings
    limits = ArchiveLimits(
        settings.hosted_archive_bytes, settings.hosted_unpacked_bytes, settings.hosted_files
    )
    try:
        unpacked = read_archive(body, limits)
        return _db(request).add(pid, body, unpacked, settings.hosted_versions)
    except (ArchiveError, SubmissionError) as exc:
        raise _fail(exc) from None


@router.get("/api/bots/{name}/versions", summary="A hosted bot's versions (author, organiser)")
def versions(name: str, request: Request) -> dict[str, Any]:
    pid = require_author(request, name)
    return {"bot": name, "versions": _db(request).versions(pid)}


@router.get("/api/bots/{name}/versions/{number}/archive", summary="A version's archive")
def archive(name: str, number: int, request: Request) -> Response:
    pid = require_author(request, name)
    data = _db(request).archive(pid, number)
    if data is None:
        raise HTTPException(404, f"{name} has no version {number}")
    kind = "application/zip" if data[:2] == b"PK" else "application/gzip"
    ext = "zip" if data[:2] == b"PK" else "tar.gz"
    return Response(
        data,
        media_type=kind,
        headers={"Content-Disposition": f'attachment; filename="{name}-v{number}.{ext}"'},
    )


@router.put("/api/bots/{name}/hosted", summary="Choose the version that plays (author)")
def choose(name: str, body: Choice, request: Request) -> dict[str, Any]:
    pid = require_author(request, name, organiser_too=False)
    db = _db(request)
    try:
        db.choose(pid, body.version)
    except SubmissionError as exc:
        raise _fail(exc) from None
    return {"bot": name, "version": db.version(pid, body.version)}


@router.delete("/api/bots/{name}/hosted", summary="Stop playing hosted (author)")
def stop(name: str, request: Request) -> dict[str, Any]:
    pid = require_author(request, name, organiser_too=False)
    _db(request).stop(pid)
    return {"bot": name, "hosted": False}


@router.get("/api/bots/{name}/logs", summary="The games with a stderr log (author, organiser)")
def logs(name: str, request: Request) -> dict[str, Any]:
    pid = require_author(request, name)
    return {"bot": name, "logs": _db(request).logs(pid)}


@router.get("/api/bots/{name}/logs/{game_id}", summary="A game's stderr (author, organiser)")
def log(name: str, game_id: str, request: Request) -> PlainTextResponse:
    pid = require_author(request, name)
    text = _db(request).log(pid, game_id)
    if text is None:
        raise HTTPException(404, f"no stderr of {name} in game {game_id!r}")
    return PlainTextResponse(text)


@router.get("/api/hosted/work", summary="Every chosen hosted version (organiser: workers)")
def work(request: Request) -> dict[str, Any]:
    require_organiser(request)
    return {"work": _db(request).work()}


@router.post("/api/hosted/{name}/versions/{number}/validation", summary="Validation outcome")
def validation(name: str, number: int, body: Validation, request: Request) -> dict[str, Any]:
    require_organiser(request)
    db = _db(request)
    pid = db.player_id(name)
    if pid is None:
        raise HTTPException(404, f"no bot {name!r}")
    try:
        db.record_validation(pid, number, body.ok, body.outcome)
    except SubmissionError as exc:
        raise _fail(exc) from None
    return {"bot": name, "version": db.version(pid, number)}


@router.post("/api/hosted/{name}/versions/{number}/logs/{game_id}", summary="A game's stderr")
async def add_log(name: str, number: int, game_id: str, request: Request) -> dict[str, Any]:
    body = await request.body()
    reply: dict[str, Any] = await _in_thread(request, _add_log, name, number, game_id, body)
    return reply


def _add_log(request: Request, name: str, number: int, game_id: str, body: bytes) -> dict[str, Any]:
    require_organiser(request)
    db = _db(request)
    pid = db.player_id(name)
    if pid is None:
        raise HTTPException(404, f"no bot {name!r}")
    limit = request.app.state.settings.hosted_log_bytes
    try:  # the worker may have cut it already: it says how long it was
        written = int(request.headers.get("x-stderr-bytes", "0"))
    except ValueError:
        written = 0
    text = body.decode("utf-8", "replace")
    try:
        return db.add_log(pid, number, game_id[:32], text, limit, written)
    except SubmissionError as exc:
        raise _fail(exc) from None
