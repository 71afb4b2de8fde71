"""A reaped process's seats, as this process's clients see them (the host side of a reap).

A client connected here reaches a seat another process holds through a route
(``Cluster.routes``: identity -> {game: owner run}), taken from ``P:seats`` at its hello or
join. When the owner is reaped, every route to it ends with ``game_end`` (the stored result, or
aborted): the games the reaper aborted or found in ``P:tables``, and also a game the owner never
started (issue #36: the leader noted the seat, the owner died before it started the table, so
the game is neither stored nor in ``P:tables``). Before, such a route stayed: the client's
``resume`` (or its ``join``, which a seat elsewhere turns into a resume) went to the dead
process's channel and nothing ever answered it. The aborted ``game_end`` of a game it never saw
start sends the client back to the queue (docs/client.md), and the stale ``P:seats`` entry is
deleted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from cardtable.server.cluster_ends import game_end

if TYPE_CHECKING:
    from cardtable.server.cluster import Cluster


def end_reaped_routes(cluster: Cluster, m: Mapping[str, Any]) -> None:
    """Process ``m['run']`` was reaped (a ``reaped`` message ``m``): the clients connected here
    whose route or spectated game it held get ``game_end`` and lose the route."""
    games, ended, run = set(m["games"]), m.get("ended") or {}, m["run"]
    for cid, session in list(cluster.sessions.items()):
        member = session.member
        if member is not None:
            for game, owner in list(cluster.routes.get(member.key, {}).items()):
                if game in games or owner == run:
                    session.send(game_end(game, ended))
                    drop_route(cluster, session, game)
                if game not in games and owner == run:  # a table the owner never started
                    cluster.later("hdel", f"{cluster.p}:seats:{member.key}", game)
        watched = cluster.watching.get(cid)
        if watched is not None and watched[0] in games:
            session.send(game_end(watched[0], ended))
            del cluster.watching[cid]


def drop_route(cluster: Cluster, session: Any, game: str) -> None:
    """``session`` no longer reaches ``game`` on another process (as a seat or a spectator)."""
    if session.member is not None:
        routes = cluster.routes.get(session.member.key)
        if routes is not None:
            routes.pop(game, None)
            if not routes:
                del cluster.routes[session.member.key]
    watched = cluster.watching.get(session.cid)
    if watched is not None and watched[0] == game:
        del cluster.watching[session.cid]
