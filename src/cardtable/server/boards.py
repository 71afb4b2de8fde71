"""Rating boards: which rule sets may be rated, and the one name of the board a rated game lands on.

A rated game is rated on the board of its rule set, named by the rule set's label
(:meth:`GameSpec.rules_label`, ``store.db.rules_label`` for a stored game): a preset by its
preset name (``short``), any other rule set by the preset it was made from and what differs
(``standard (1 round)``). The games list, the replays, a profile's ratings and the leaderboard
use that same name, and the leaderboard offers every board that holds ratings
(``GET /api/leaderboard`` ``boards``), so no rated game lands on a board nobody can open.

A label names a rule set exactly when it lists every difference; one with more than three
(``…, 2 more changes``) or longer than a board's stored name could name two rule sets, so such
a rule set is played unrated only.
"""

from __future__ import annotations

from typing import Any

from cardtable.core import GameSpec

#: The longest board name the store keeps (``ratings.rules``).
BOARD_NAME_MAX = 64


def board_name(spec: GameSpec, rules: Any) -> str:
    """The board a game of ``spec`` with ``rules`` is rated on."""
    return spec.rules_label(rules)


def rated_refusal(player_id: int | None, spec: GameSpec, rules: Any) -> str | None:
    """Why a table with ``rules`` cannot be rated for this creator, or ``None`` when it can."""
    if player_id is None:
        return "a rated game needs an account: sign in (guests play unrated games)"
    name = board_name(spec, rules)
    if len(name) > BOARD_NAME_MAX or "more changes" in name:
        return (
            f"a rated game plays a preset or a rule set with at most three changes "
            f"(this one is {name!r}): play it unrated"
        )
    return None
