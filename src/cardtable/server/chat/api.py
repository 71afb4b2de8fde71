"""The operator's chat API: reports of chat lines, and a game's chat.

Everything here needs the organiser's token (``admin_token``, ``Authorization: Bearer TOKEN``),
checked and throttled as for tournaments: chat is kept for the operator only, never in the
public record of a game.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Query, Request

from cardtable.server.chat.store import ChatStore
from cardtable.server.tournament_api import require_organiser

router = APIRouter()


def _chat(request: Request) -> ChatStore:
    return ChatStore(request.app.state.store)


@router.get("/api/chat/reports", summary="Reported chat lines, newest first (operator)")
def list_reports(
    request: Request,
    limit: int = Query(100, ge=1, le=500),
    before: int | None = Query(None, ge=1, description="only reports with a smaller id"),
) -> dict[str, Any]:
    require_organiser(request)
    return {"reports": _chat(request).reports(limit, before)}


@router.get("/api/chat/reports/{report_id}", summary="One chat report and its game's chat")
def read_report(report_id: int, request: Request) -> dict[str, Any]:
    require_organiser(request)
    report = _chat(request).report(report_id)
    if report is None:
        raise HTTPException(404, f"no chat report {report_id}")
    return report


@router.get("/api/games/{game_id}/chat", summary="Every chat line of a game (operator)")
def game_chat(game_id: str, request: Request) -> dict[str, Any]:
    require_organiser(request)
    return {"game_id": game_id, "lines": _chat(request).lines(game_id)}
