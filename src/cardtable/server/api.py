"""The HTTP API (``/api/...``); FastAPI publishes its OpenAPI description at ``/docs``.

Endpoints are plain functions: FastAPI runs them in its thread pool, so database reads never
block the event loop that drives the tables.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, HTTPException, Query, Request
from pydantic import BaseModel, Field

from cardtable import __version__
from cardtable.protocol import PROTOCOL_VERSION, schema_document
from cardtable.protocol.schema import selected_validator
from cardtable.server.lobby import Hub
from cardtable.server.refusals import refuse
from cardtable.server.store.db import NameError_, Store
from cardtable.server.submissions.store import SubmissionStore
from cardtable.server.validation import validated_games

router = APIRouter(prefix="/api")


class NewBot(BaseModel):
    name: str = Field(
        description="2-32 letters, digits, '_', '-' or '.', starting with a letter or digit",
        examples=["my-bot"],
    )


class NewBotReply(BaseModel):
    name: str
    token: str = Field(description="shown only this once; the server keeps only its hash")
    note: str


def _store(request: Request) -> Store:
    store: Store = request.app.state.store
    return store


def _hub(request: Request) -> Hub:
    hub: Hub = request.app.state.hub
    return hub


@router.get("/health", summary="Liveness, versions and counts")
def health(request: Request) -> dict[str, Any]:
    store = _store(request)
    hub = _hub(request)
    return {
        "status": "ok",
        "version": __version__,
        "protocol": PROTOCOL_VERSION,
        "database": "sqlite" if store.is_sqlite else store.engine.dialect.name,
        "schema_revision": store.revision(),
        "running_tables": len(hub.tables),
        "connections": len(hub.online),
        "cluster": None
        if hub.cluster is None
        else {**hub.cluster.snapshot, **hub.cluster.placement()},
        "games": store.counts(),
        "decision_latency": hub.metrics.decision.summary(
            max(0, hub.metrics.decision.count - 10000)
        ),
    }


@router.get("/metrics", summary="Decision latency and bot thinking time of this process")
def metrics(
    request: Request,
    since: int = Query(
        0, ge=0, description="only samples numbered from here (a `count` read earlier)"
    ),
    bot_since: int = Query(0, ge=0, description="the same for `bot_think`"),
) -> dict[str, Any]:
    """Decision latency: a client's action frame read -> the next request of that table handed
    to the socket (p50/p90/p99/max in ms over the newest samples). bot_think: a house bot's or
    the fallback's decision, from handing it to a thread to its answer back on the event loop."""
    hub = _hub(request)
    return {
        **hub.metrics.to_json(since, bot_since),
        "running_tables": len(hub.tables),
        "connections": len(hub.online),
        # which checks the frames: fast (fastjsonschema) or jsonschema (CARDTABLE_VALIDATOR)
        "validator": selected_validator(),
        # a cluster process: the tables started here and their seats, local or relayed
        "placement": None if hub.cluster is None else hub.cluster.placement(),
    }


@router.post(
    "/bots",
    status_code=201,
    response_model=NewBotReply,
    summary="Register a bot; the token is shown once",
    responses={409: {"description": "the name is taken"}, 422: {"description": "invalid name"}},
)
def create_bot(body: NewBot, request: Request) -> Any:
    try:
        identity, token = _store(request).create_bot(body.name)
    except NameError_ as exc:
        return refuse(exc.status, exc.code, exc.reason, **exc.args_)
    return {
        "name": identity.name,
        "token": token,
        "note": "keep this token: it is shown only once and cannot be recovered",
    }


@router.get("/bots/{name}", summary="A bot's games, ratings, rating history and faults")
def bot(name: str, request: Request) -> dict[str, Any]:
    store = _store(request)
    detail = store.bot_detail(name)
    if detail is None:
        raise HTTPException(404, f"no bot {name!r}")
    # the games it may play ranked: it finished a validation game of each (validation.py)
    detail["validated"] = validated_games(store.engine, name)
    # a hosted bot: the version that plays and its validation (server/submissions/)
    detail["hosted"] = SubmissionStore(store).public(name)
    return detail


@router.get(
    "/players/{name}",
    summary="A profile: a person's or a bot's games, ratings, rating history and win share",
)
def player(name: str, request: Request) -> dict[str, Any]:
    store = _store(request)
    detail = store.bot_detail(name)
    if detail is None:
        raise HTTPException(404, f"no bot {name!r} and no person of that name")
    detail["validated"] = validated_games(store.engine, name)  # as for /api/bots/{name}
    detail["hosted"] = SubmissionStore(store).public(name)
    return detail


@router.get("/leaderboard", summary="Ratings (mu - 3 sigma) for a game and rule set")
def leaderboard(
    request: Request,
    game: str = Query("kuhhandel"),
    rules: str | None = Query(
        None,
        max_length=200,
        description="the board: a preset name or another rated rule set's name as the games "
        "list shows it (`boards` lists them; default: the game's default preset)",
    ),
    limit: int = Query(100, ge=1, le=1000),
    kind: str = Query(
        "all",
        pattern="^(all|people|bots)$",
        description="people (accounts), bots (registered and house bots) or all; rank is the "
        "place in the whole board",
    ),
) -> dict[str, Any]:
    specs = _hub(request).available_games()
    if game not in specs:
        raise HTTPException(404, f"no game {game!r} (games: {', '.join(specs)})")
    rules_name = rules or specs[game].default_rules
    store = _store(request)
    ranked = _hub(request).ranked_rules(specs[game])
    return {
        "game": game,
        "rules": rules_name,
        "kind": kind,
        "entries": store.leaderboard(game, rules_name, limit, kind),
        # every board of the game a person can open: the ranked rule sets, then every other
        # rule set rated so far (a rated private or practice game), named as the games list does
        "boards": ranked + [b for b in store.rating_boards(game) if b not in ranked],
    }


@router.get(
    "/games",
    summary="Recent and running games, newest first (private games only with player=)",
)
def games(
    request: Request,
    status: str | None = Query(None, pattern="^(running|finished|aborted)$"),
    game: str | None = None,
    rules: str | None = None,
    player: str | None = Query(None, description="only games with a seat of this name"),
    limit: int = Query(50, ge=1, le=500),
    offset: int = Query(0, ge=0, description="games to skip (pages: follow `next`)"),
) -> dict[str, Any]:
    rows = _store(request).list_games(
        status=status,
        game=game,
        rules=rules,
        player=player,
        limit=limit + 1,  # one more: is there a next page?
        # private tables are not listed publicly; a player finds its own games by name
        exclude_lobbies=() if player else ("private",),
        offset=offset,
    )
    more = len(rows) > limit
    next_url = None
    if more:
        query = {
            key: value
            for key, value in (("status", status), ("game", game), ("rules", rules))
            + (("player", player),)
            if value is not None
        }
        query.update(limit=str(limit), offset=str(offset + limit))
        next_url = f"/api/games?{urlencode(query)}"
    return {"games": rows[:limit], "offset": offset, "limit": limit, "next": next_url}


@router.get("/games/{game_id}", summary="A game: full record once over, public view while running")
def game_detail(game_id: str, request: Request) -> dict[str, Any]:
    detail = _store(request).game_detail(game_id)
    if detail is None:
        raise HTTPException(404, f"no game {game_id!r}")
    table = _hub(request).tables.get(game_id)
    if detail["status"] == "running" and table is not None:
        # read on the API thread: observe_json(None) is public information only
        try:
            detail["live"] = table.public_view()
        except Exception:  # the table moved on while we read; the summary is still right
            detail["live"] = None
    return detail


@router.get("/games/{game_id}/record", summary="The replayable record of an ended game")
def game_record(game_id: str, request: Request) -> Any:
    record = _store(request).record(game_id)
    if record is None:
        raise HTTPException(404, f"no ended game {game_id!r}")
    return record


@router.get("/lobbies", summary="Games, rule sets, seat ranges and house bots on offer")
def lobbies(request: Request) -> dict[str, Any]:
    hub = _hub(request)
    out = {}
    for name, spec in hub.available_games().items():
        rules = spec.resolve_rules(None)
        out[name] = {
            "default_rules": spec.default_rules,
            "presets": list(spec.presets),
            "ranked_rules": hub.ranked_rules(spec),
            "seat_range": list(spec.seat_range(rules)),
            "ranked_table_size": hub.table_size(spec, rules),
            "house_bots": hub.house_bots(spec),
            "fallback_bot": hub.fallback_bot(spec),
        }
    return {"games": out, "lobbies": ["ranked", "practice", "private"]}


@router.get("/protocol/schema", summary="JSON schemas of every protocol message")
def protocol_schema() -> dict[str, Any]:
    return schema_document()
