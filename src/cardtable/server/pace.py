"""The pace of a table: the server, not the page, sets the tempo of the moves a person did not
make (:meth:`cardtable.server.table.Table.pace_factor` applies it). The delays here run on the
table's :class:`~cardtable.clock.Clock` (``tests/server/test_table_clock.py`` moves it by hand).
"""

from __future__ import annotations

#: The paces a table may play at, as the share of the normal delays (``instant``: none).
PACES: dict[str, float] = {"normal": 1.0, "fast": 1 / 3, "instant": 0.0}
#: Seat kinds of people: a guest, or a person signed in to an account (people's deadlines,
#: pace and grace apply to both).
PEOPLE = frozenset({"guest", "person"})
#: At the normal pace a bot's move is emitted this long (drawn) after it was asked ...
MOVE_S = (0.6, 1.0)
#: ... two bots' moves are at least this far apart (simultaneous requests, such as passing) ...
GAP_S = 0.4
#: ... after a finished trick, a card going to a herd, a trade's or the rat's outcome, nothing
#: moves and nobody is asked for this long (the trick stays on the table) ...
HOLD_S = 1.2
HOLD_KINDS = frozenset(
    {
        "trick",
        "round_end",
        "card",
        "trade",
        "tie",
        "payout",
        "no_bid",
        "no_claim",
        "rat_taken",
        "divided",
        "skip",
    }
)
#: ... and in an open auction a house bot's bid comes this long (drawn) after it was asked (its
#: answer is computed at once), so people can bid against it and the knock matters.
OPEN_BID_S = (0.8, 3.0)


def pace_factor(pace: str) -> float:
    """The share of the normal delays of ``pace`` (unknown names play at the normal pace)."""
    return PACES.get(pace, 1.0)
