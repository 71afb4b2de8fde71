"""What the Kuh-Handel endpoint keeps in the server's :class:`~cardtable.server.store.Store`.

Registered Kuh-Handel names live in the same ``players`` table as every other player, with
``kind = "kh"``: one namespace for the whole server (a name taken by a native bot cannot be
registered here and the other way round), and ratings, game seats and ``/api/bots/NAME`` work for
them unchanged. The reference lets a client choose its own token; only a salted hash of it is stored
(:func:`~cardtable.server.store.db.hash_token`). A
``kh`` player cannot log in on the native ``/ws`` (that checks ``kind = "bot"``), and a native
bot cannot connect to ``/kuh-handel/``.

Games are stored like every other game (``game = "kuhhandel"``, ``rules_name = "competition"``,
lobby ``kh-pvp`` / ``kh-server-bot`` / ``kh-interactive``), with their record, result and
faults; pvp games are rated, so the bots get a leaderboard of their own at
``/api/leaderboard?game=kuhhandel&rules=competition``. ``get_results`` is rebuilt from the
stored pvp games on start.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from cardtable.server import names
from cardtable.server.store.db import Store, hash_token, name_keys, now, verify_token
from cardtable.server.store.models import games, players

KIND = "kh"
#: Longest registrable name (the ``players.name`` column holds 32 characters).
MAX_NAME = 32


def register(store: Store, name: str, token: str) -> int:
    """Register ``name`` with ``token``; returns the HTTP status (201, 409 or 400)."""
    return register_saying_why(store, name, token)[0]


def register_saying_why(store: Store, name: str, token: str) -> tuple[int, str]:
    """Register ``name`` with ``token``: the HTTP status (201, 409 or 400) and why (empty for
    201, which the reference answers with no body)."""
    if not name or len(name) > MAX_NAME:
        return 400, f"player_id must have 1 to {MAX_NAME} characters"
    try:
        if names.normalise(name) != name:
            # the name it connects with must be the name it shows
            return 400, "player_id must be in Unicode NFKC form"
    except names.NameRefused as exc:
        return 400, exc.reason  # control, invisible or direction characters
    if not token:
        return 400, "token must not be empty: anyone could connect as this name"
    if "server_bot" in names.skeleton(name):
        # the reference refuses server_bot too
        return 409, "names containing 'server_bot' are reserved for the server's bots"
    reserved = names.reserved_reason(name)
    if reserved is not None:
        return 409, reserved
    try:
        with store.engine.begin() as conn:
            if store.name_taken(name, conn) is not None:
                return 409, f"the name {name!r} (or one looking like it) is taken"
            conn.execute(
                players.insert().values(
                    name=name,
                    kind=KIND,
                    token_hash=hash_token(token),
                    created_at=now(),
                    **name_keys(name),
                )
            )
    except IntegrityError:
        return 409, f"the name {name!r} was registered at the same moment by someone else"
    return 201, ""


def authenticate(store: Store, name: str, token: str) -> int | None:
    """The player id of Kuh-Handel bot ``name`` if ``token`` is its token."""
    with store.engine.connect() as conn:
        row = conn.execute(
            select(players.c.id, players.c.token_hash).where(
                players.c.name == name, players.c.kind == KIND
            )
        ).first()
    ok = verify_token(token, row.token_hash if row is not None else None)
    return int(row.id) if row is not None and ok else None


def end_places(names: Sequence[str], result: Mapping[str, Any]) -> dict[str, int]:
    """Each name's index in the ``End`` ranking (ties ordered by seat, so places differ)."""
    places = list(result.get("places") or [])
    if len(places) != len(names):
        return {}
    order = sorted(range(len(names)), key=lambda s: (places[s], s))
    return {names[s]: i for i, s in enumerate(order)}


def load_results(store: Store, lobby: str) -> dict[str, list[int]]:
    """``{name: [place, …]}`` over the finished games of ``lobby``, in the order they ended."""
    results: dict[str, list[int]] = {}
    with store.engine.connect() as conn:
        rows = conn.execute(
            select(games.c.names_json, games.c.result_json)
            .where(games.c.lobby == lobby, games.c.status == "finished")
            .order_by(games.c.ended_at, games.c.id)
        ).all()
    for row in rows:
        if not row.result_json:
            continue
        for name, place in end_places(
            json.loads(row.names_json), json.loads(row.result_json)
        ).items():
            results.setdefault(name, []).append(place)
    return results
