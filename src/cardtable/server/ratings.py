"""openskill (Plackett-Luce) ratings: one rating per player, game and rule set.

The leaderboard shows the conservative estimate mu - 3 sigma. Updates are a pure function of the
ratings before a game and its places, so replaying stored results in order rebuilds them exactly
(``cardtable ratings recompute``).
"""

from __future__ import annotations

from collections.abc import Sequence

from openskill.models import PlackettLuce

MODEL = PlackettLuce()
#: A new player's rating.
INITIAL: tuple[float, float] = (MODEL.mu, MODEL.sigma)


def conservative(mu: float, sigma: float) -> float:
    """The rating shown on the leaderboard: mu - 3 sigma (starts at 0 for a new player)."""
    return mu - 3.0 * sigma


def rate(before: Sequence[tuple[float, float]], places: Sequence[int]) -> list[tuple[float, float]]:
    """New ``(mu, sigma)`` per seat after a game with these 0-based ``places`` (ties share one).

    Each seat is its own team; a seat with a lower place did better.
    """
    if len(before) != len(places):
        raise ValueError("one rating per place")
    if len(before) < 2:
        return list(before)
    teams = [[MODEL.rating(mu=mu, sigma=sigma)] for mu, sigma in before]
    after = MODEL.rate(teams, ranks=[float(p) for p in places])
    return [(team[0].mu, team[0].sigma) for team in after]
