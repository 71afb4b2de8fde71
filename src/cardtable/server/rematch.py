"""A rematch ("Play again") between the people of a game that just ended (issue 37, lichess).

The first player who presses "Play again" opens a private table reserved for the game's players
(``lobby.Hub._join_again``). This module owns what makes it an offer the others see and a game
in the same seats:

- :func:`offer` sends the waiting table (a ``table`` message with ``offer: true``) to every
  person of the ended game who is online and not at it yet: their page shows who offers and
  lets them accept (the same ``join`` with ``again``) or decline (``leave`` with ``again``);
- :func:`decline` tells the players at the table that one of them declined;
- :func:`seat_order` and :func:`arrange`: the new game seats everyone where they sat (house bots
  by their names), so a rematch is not reshuffled.

In a cluster the table waits on the process that ran the ended game: an offer reaches its
people wherever they are connected, and their answers go to that process
(:mod:`.cluster_people`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeVar

from cardtable.server.pace import PEOPLE

S = TypeVar("S")


def _mark(seat: Any) -> str:
    """A seat's place holder: the identity key of a client, ``house:NAME`` for a house bot
    (the same bots get the same names at the rematch: ``house-heuristic-2`` sits where it sat)."""
    return seat.key if seat.key is not None else f"house:{seat.name}"


def seat_order(seats: Iterable[Any]) -> tuple[str, ...]:
    """The order of an ended game's seats (``table.SeatState``), to seat a rematch the same."""
    return tuple(_mark(s) for s in seats)


def arrange(seats: Sequence[S], order: Sequence[str]) -> list[S]:
    """``seats`` in the places ``order`` gives them; a seat with no place keeps its turn after."""
    placed: list[S | None] = [None] * len(order)
    rest: list[S] = []
    for seat in seats:
        mark = _mark(seat)
        for i, wanted in enumerate(order):
            if wanted == mark and placed[i] is None:
                placed[i] = seat
                break
        else:
            rest.append(seat)
    return [s for s in placed if s is not None] + rest


def _people_away(online: Mapping[str, Any], table: Any) -> Iterable[Any]:
    here = {m.key for m in table.members}
    for key in sorted(set(table.reserved) - here):
        session = online.get(key)
        member = getattr(session, "member", None)
        if member is not None and member.kind in PEOPLE:
            yield session


def offer(hub: Any, table: Any, message: Mapping[str, Any]) -> None:
    """Show a rematch table still waiting (``message``, the ``table`` message its members got)
    to the people of the ended game who are not at it (in a cluster, wherever they are
    connected: :mod:`.cluster_people`)."""
    if table.again is None or table.open_seats <= 0:
        return
    told = set()
    for session in _people_away(hub.online, table):
        session.send({**message, "offer": True})
        told.add(session.member.key)
    if hub.cluster is not None:
        hub.cluster.people.offer(table, message, told)


def decline(hub: Any, member: Any, game_id: str) -> None:
    """``member`` declines the rematch of ``game_id`` (``leave`` with ``again``): the players
    waiting at its table are told (the table waits on: a person may still change their mind).
    Not a player of it, or no such table: nothing happens."""
    code = hub.again_of.get(game_id)
    table = hub.private.get(code) if code is not None else None
    if table is None and hub.cluster is not None and game_id not in hub.ended:
        hub.cluster.people.decline(member, game_id)  # the game ended on another process
        return
    if table is None or member.key not in table.reserved:
        return
    if any(m.key == member.key for m in table.members):
        return
    message = {"type": "declined", "again": game_id, "name": member.name}
    for m in table.members:
        m.peer.send(message)
