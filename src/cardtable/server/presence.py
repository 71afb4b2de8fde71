"""Who is at a table: each seat's presence, and a person's own leave.

A seat held by a person is ``here`` (connected, playing), ``away`` (the connection dropped: its
decisions wait for the grace period), ``left`` (the person pressed "Leave the table": the house
bot plays until they take the seat back) or ``taken over`` (the fallback plays after faults). A
house bot's seat is ``house``; a bot client's is ``here`` or ``away`` like a person's.

Leaving is the person's choice, not a fault (docs/protocol.md, "Faults": a fault is what a
client did wrong). At an unrated table it is no row of the stored faults that others see; the
seat says ``left`` while it lasts and the server logs it. At a rated table it stays a ``left``
fault: the house bot must not earn a rating for a person who walked away (failing never pays,
``server/fair_play.py``: a seat with a fault of its own is placed last). The connection stays
bound to the seat as its watcher: the page keeps receiving the seat's own events and views, at
the table's pace (the away pace once no person plays), so "Take my seat back" lands on a board
that is up to date. A bot client's ``leave`` stays a ``left`` fault: a program that gives up its
seat did not play it.
"""

from __future__ import annotations

from typing import Any

#: What a seat's ``presence`` may say (``GET /api/tables``, ``.../public``).
PRESENCES = ("here", "away", "left", "taken over", "house")


def leaves_by_choice(seat: Any, code: str) -> bool:
    """A person's own ``leave`` (code ``left``): no fault, and the connection keeps watching."""
    return bool(seat.person) and code == "left"


def leave_is_fault(seat: Any, code: str, rated: bool) -> bool:
    """Whether a ``leave`` is stored as a fault: a bot's always, a person's at a rated table."""
    return rated or not leaves_by_choice(seat, code)


def presence(seat: Any) -> str:
    """One of :data:`PRESENCES` for a table's seat (``table.SeatState``)."""
    if seat.kind == "house":
        return "house"
    if seat.left:
        return "left"
    if seat.taken_over:
        return "taken over"
    return "away" if seat.conn is None else "here"
