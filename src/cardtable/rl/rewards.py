"""End-of-game rewards from a :class:`~cardtable.core.Result` (every other step rewards 0).

=========  ===================================================================================
scheme     reward of a seat
=========  ===================================================================================
``rank``   ``1 - 2·position / (seats - 1)``: +1 for first place, -1 for last, evenly between;
           seats that tie share the average of the positions they take (Cunegonda places
           ``[1, 0, 2, 2]`` give ``+1/3, +1, -2/3, -2/3``), so the rewards always add up to 0;
           places come from the game's own ranking, so Kuhhandel's money tie-break counts
``score``  ``(score - mean score of the table) / reward_scale``: the game's own score
           (Kuhhandel: points of the quartets; Cunegonda: match totals), zero-sum
``win``    1 for (shared) first place, 0 otherwise
=========  ===================================================================================

``reward_scale`` defaults to :data:`DEFAULT_SCALE` per game.
"""

from __future__ import annotations

from cardtable.core.contract import Result

SCHEMES = ("rank", "score", "win")
DEFAULT_SCALE = {"kuhhandel": 1000.0, "cunegonda": 100.0}


def final_rewards(result: Result, scheme: str = "rank", scale: float = 1.0) -> list[float]:
    """One reward per seat for a finished game."""
    places = result.places
    n = len(places)
    if scheme == "rank":
        if n < 2:
            return [0.0] * n
        order = sorted(places)  # the positions 0 … n-1 the places take
        first = {p: order.index(p) for p in set(places)}
        shared = {p: order.count(p) for p in set(places)}
        position = [first[p] + (shared[p] - 1) / 2 for p in places]
        return [1.0 - 2.0 * q / (n - 1) for q in position]
    if scheme == "score":
        mean = sum(result.scores) / n
        return [(s - mean) / scale for s in result.scores]
    if scheme == "win":
        return [1.0 if p == 0 else 0.0 for p in places]
    raise ValueError(f"unknown reward scheme {scheme!r} (known: {', '.join(SCHEMES)})")
