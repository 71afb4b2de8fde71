"""Statistics of a tournament: win shares, means with 95% intervals, paired differences, ratings.

All figures are computed from the outcomes in the canonical schedule order (deal, rotation), so the
same outcomes always give bit-identical numbers, whatever order the workers finished in.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from .plan import Entry
from .play import GameOutcome

#: Two-sided 95% quantile of the standard normal distribution.
Z95 = 1.959963984540054

#: Two-sided 95% quantiles of Student's t for 1..30 degrees of freedom.
_T95 = (
    12.706204736, 4.302652730, 3.182446305, 2.776445105, 2.570581836,
    2.446911851, 2.364624252, 2.306004135, 2.262157163, 2.228138852,
    2.200985160, 2.178812830, 2.160368656, 2.144786688, 2.131449546,
    2.119905299, 2.109815578, 2.100922040, 2.093024054, 2.085963447,
    2.079613845, 2.073873068, 2.068657610, 2.063898562, 2.059538553,
    2.055529439, 2.051830516, 2.048407142, 2.045229642, 2.042272456,
)  # fmt: skip


def wilson_interval(wins: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a share ``wins / n`` (``wins`` may be fractional).

    Returns ``(low, high)`` within [0, 1]; ``(0.0, 1.0)`` when ``n`` is 0. Unlike the normal
    approximation it stays inside [0, 1] and behaves well near 0% and 100%.
    """
    if n <= 0:
        return 0.0, 1.0
    if not 0 <= wins <= n:
        raise ValueError(f"{wins} wins out of {n} games")
    p = wins / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def t95(df: int) -> float:
    """Two-sided 95% quantile of Student's t with ``df`` degrees of freedom (``df >= 1``)."""
    if df < 1:
        raise ValueError("t needs at least one degree of freedom")
    if df <= len(_T95):
        return _T95[df - 1]
    # Cornish-Fisher expansion around the normal quantile: error below 1e-5 for df > 30.
    z = Z95
    return (
        z
        + (z**3 + z) / (4 * df)
        + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * df**3)
    )


@dataclass(frozen=True)
class Estimate:
    """A mean with its 95% interval (Student's t); ``low``/``high`` are ``None`` below 2 values."""

    mean: float
    low: float | None
    high: float | None
    n: int

    def to_json(self) -> dict[str, float | int | None]:
        return {"mean": self.mean, "low": self.low, "high": self.high, "n": self.n}


def mean_interval(values: Sequence[float]) -> Estimate:
    """Mean of ``values`` with a 95% t interval (sample standard deviation, ``n - 1``)."""
    n = len(values)
    if n == 0:
        return Estimate(math.nan, None, None, 0)
    mean = math.fsum(values) / n
    if n < 2:
        return Estimate(mean, None, None, n)
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    half = t95(n - 1) * math.sqrt(var / n)
    return Estimate(mean, mean - half, mean + half, n)


def win_credit(places: Sequence[int], seat: int) -> float:
    """1 for a sole first place, ``1/k`` when ``k`` seats share it, else 0."""
    if places[seat] != 0:
        return 0.0
    return 1.0 / sum(1 for p in places if p == 0)


@dataclass
class Standing:
    """The figures of one entry over a tournament."""

    entry: Entry
    games: int = 0
    wins: float = 0.0
    win_low: float = 0.0
    win_high: float = 1.0
    score: Estimate = field(default_factory=lambda: Estimate(math.nan, None, None, 0))
    vs_field: Estimate = field(default_factory=lambda: Estimate(math.nan, None, None, 0))
    mean_place: float = math.nan
    rating: float | None = None
    rating_mu: float | None = None
    rating_sigma: float | None = None
    faults: Counter[str] = field(default_factory=Counter)
    reasons: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    decisions: int = 0
    think_time: float = 0.0
    think_max: float = 0.0
    cpu_time: float = 0.0
    cpu_max: float = 0.0
    wall_hist: Counter[int] = field(default_factory=Counter)
    cpu_hist: Counter[int] = field(default_factory=Counter)
    #: Searches of a bot that reports them, and how many its time cap ended early.
    searches: int = 0
    capped: int = 0
    #: Time the deciding thread waited for a core (total, longest), and the longest decision's
    #: wall time without that wait; ``queued`` tells whether any game measured them.
    queue_time: float = 0.0
    queue_max: float = 0.0
    own_max: float = 0.0
    queued: bool = False

    @property
    def win_share(self) -> float:
        return self.wins / self.games if self.games else math.nan


def standings(entries: Sequence[Entry], outcomes: Sequence[GameOutcome]) -> list[Standing]:
    """Per-entry figures from outcomes given in canonical order.

    ``vs_field`` is the paired comparison of duplicate deals: in each game, the entry's score minus
    the mean score of the other seats; averaged over the rotations of a deal to one value per deal
    (the deck's luck cancels out), then a mean with a t interval over deals. Aborted games count
    nowhere.
    """
    rows = [Standing(e) for e in entries]
    scores: list[list[float]] = [[] for _ in entries]
    places: list[list[int]] = [[] for _ in entries]
    per_deal: list[dict[int, list[float]]] = [{} for _ in entries]
    for game in outcomes:
        seats = len(game.seating)
        for seat, e in enumerate(game.seating):
            row = rows[e]
            row.decisions += game.decisions[seat]
            row.think_time += game.think_time[seat]
            row.think_max = max(row.think_max, game.think_max[seat])
            if game.cpu_time:
                row.cpu_time += game.cpu_time[seat]
                row.cpu_max = max(row.cpu_max, game.cpu_max[seat])
                row.wall_hist.update(game.wall_hist[seat])
                row.cpu_hist.update(game.cpu_hist[seat])
            if game.searches:
                row.searches += game.searches[seat]
                row.capped += game.capped[seat]
            if game.own_max:
                row.queued = True
                row.queue_time += game.queue_time[seat]
                row.queue_max = max(row.queue_max, game.queue_max[seat])
                row.own_max = max(row.own_max, game.own_max[seat])
            if game.termination == "aborted":
                continue
            row.games += 1
            row.wins += win_credit(game.places, seat)
            scores[e].append(game.scores[seat])
            places[e].append(game.places[seat])
            others = math.fsum(game.scores) - game.scores[seat]
            diff = game.scores[seat] - others / (seats - 1) if seats > 1 else 0.0
            per_deal[e].setdefault(game.deal, []).append(diff)
        for note in game.faults:
            e = game.seating[note.seat]
            rows[e].faults[note.category] += 1
            rows[e].reasons[(note.category, note.request, note.reason)] += 1
    for e, row in enumerate(rows):
        row.win_low, row.win_high = wilson_interval(row.wins, row.games)
        row.score = mean_interval(scores[e])
        row.vs_field = mean_interval([math.fsum(d) / len(d) for d in per_deal[e].values()])
        row.mean_place = 1 + math.fsum(places[e]) / len(places[e]) if places[e] else math.nan
    return rows


def openskill_ratings(
    entries: Sequence[Entry], outcomes: Sequence[GameOutcome]
) -> list[tuple[float, float, float]]:
    """``(μ − 3σ, μ, σ)`` per entry: openskill Plackett-Luce, one rating update per game in order.

    Raises ``ImportError`` with an explanation when ``openskill`` is not installed.
    """
    try:
        from openskill.models import PlackettLuce
    except ImportError as exc:
        raise ImportError(
            "ratings need the openskill package: pip install 'cardtable[server]'"
        ) from exc
    model = PlackettLuce()
    ratings = [model.rating(name=e.label) for e in entries]
    for game in outcomes:
        if game.termination == "aborted":
            continue
        teams = [[ratings[e]] for e in game.seating]
        rated = model.rate(teams, ranks=[float(p) for p in game.places])
        for seat, e in enumerate(game.seating):
            ratings[e] = rated[seat][0]
    return [(r.ordinal(), r.mu, r.sigma) for r in ratings]
