"""The HTTP and WebSocket routes under ``/kuh-handel/`` (spec §1.2).

=========================================  ===================================================
``POST /kuh-handel/register?player_id&token``  201 registered, 409 taken or reserved, 400 bad
                                           parameters; no body needed
``GET /kuh-handel/{lobby}?player_id&token``  WebSocket: ``pvp_games``, ``server_bot_game``,
``&raise_faulty_action_warning``           ``interactive_game``; 401 bad credentials, 409 the
                                           name is connected to this lobby already, 400 bad
                                           parameters, all before the upgrade
``GET /kuh-handel/get_results``            pvp places per name, JSON as text/plain
``GET /kuh-handel/games_per_second``       pvp throughput of the last 10 games, a Rust float
=========================================  ===================================================
"""

from __future__ import annotations

from fastapi import APIRouter, Request, WebSocket
from fastapi.responses import HTMLResponse, PlainTextResponse, Response

from cardtable.server.compat.lobby import KuhHandel

router = APIRouter(prefix="/kuh-handel", tags=["kuh-handel"])


def _service(app: object) -> KuhHandel | None:
    return getattr(getattr(app, "state", None), "kuh_handel", None)


@router.post("/register", summary="Register a Kuh-Handel bot name (reference protocol)")
async def register(request: Request) -> Response:
    service = _service(request.app)
    if service is None:
        return PlainTextResponse("the Kuh-Handel endpoint is off", status_code=503)
    query = request.query_params
    for key in ("player_id", "token"):
        if key not in query:
            return PlainTextResponse(
                f"Failed to deserialize query string: missing field `{key}`", status_code=400
            )
    status, reason = await service.register(query["player_id"], query["token"])
    # 201 with no body, as the reference; a refusal says why (its client prints only the code)
    return PlainTextResponse(reason, status_code=status) if reason else Response(status_code=status)


@router.get("/get_results", summary="Places per bot in finished pvp games (reference protocol)")
async def get_results(request: Request) -> Response:
    service = _service(request.app)
    return PlainTextResponse(service.results_text() if service else "{}")


@router.get("/games_per_second", summary="pvp games per second over the last 10 games")
async def games_per_second(request: Request) -> Response:
    service = _service(request.app)
    return HTMLResponse(service.games_per_second() if service else "NaN")


@router.websocket("/{lobby}")
async def lobby(websocket: WebSocket, lobby: str) -> None:
    service = _service(websocket.app)
    if service is None:
        await websocket.close(code=1013)
        return
    await service.serve(websocket, lobby)
