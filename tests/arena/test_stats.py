"""The arena's statistics: Wilson intervals, t intervals, win credit, paired differences."""

from __future__ import annotations

import math

import pytest

from cardtable.arena import (
    GameOutcome,
    make_entries,
    mean_interval,
    standings,
    t95,
    wilson_interval,
)
from cardtable.arena.stats import win_credit


@pytest.mark.parametrize(
    ("wins", "n", "low", "high"),
    [
        # Reference values of the Wilson score interval (z = 1.96), as in R's binom.confint.
        (0, 10, 0.0, 0.27753),
        (1, 10, 0.01788, 0.40415),
        (5, 10, 0.23659, 0.76341),
        (10, 10, 0.72247, 1.0),
        (50, 100, 0.40383, 0.59617),
    ],
)
def test_wilson_interval_matches_reference_values(
    wins: float, n: int, low: float, high: float
) -> None:
    got = wilson_interval(wins, n)
    assert got[0] == pytest.approx(low, abs=5e-5)
    assert got[1] == pytest.approx(high, abs=5e-5)


@pytest.mark.parametrize(("wins", "n"), [(3, 7), (81, 263), (412.5, 1000), (999, 1000)])
def test_wilson_bounds_solve_the_score_equation(wins: float, n: int) -> None:
    """The Wilson bounds are the p with (p_hat - p)^2 = z^2 p (1 - p) / n."""
    p_hat = wins / n
    for p in wilson_interval(wins, n):
        assert (p_hat - p) ** 2 == pytest.approx(1.959964**2 * p * (1 - p) / n, rel=1e-6)


def test_wilson_interval_takes_fractional_wins_and_stays_in_bounds() -> None:
    low, high = wilson_interval(2.5, 10)
    assert wilson_interval(2, 10)[0] < low < wilson_interval(3, 10)[0]
    assert 0 <= low < 0.25 < high <= 1
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(11, 10)


@pytest.mark.parametrize(
    ("df", "value"),
    [(1, 12.7062), (4, 2.7764), (30, 2.0423), (40, 2.0211), (60, 2.0003), (120, 1.9799)],
)
def test_t_quantiles(df: int, value: float) -> None:
    assert t95(df) == pytest.approx(value, abs=1e-4)


def test_mean_interval_is_a_t_interval() -> None:
    est = mean_interval([1.0, 2.0, 3.0, 4.0, 5.0])
    # sd = sqrt(2.5), se = sd / sqrt(5), t(4) = 2.776445
    half = 2.776445 * math.sqrt(2.5 / 5)
    assert est.mean == 3.0
    assert est.low == pytest.approx(3.0 - half)
    assert est.high == pytest.approx(3.0 + half)
    single = mean_interval([7.0])
    assert single.mean == 7.0 and single.low is None and single.high is None


def test_shared_first_place_is_a_fractional_win() -> None:
    assert win_credit((0, 0, 2, 3), 0) == 0.5
    assert win_credit((0, 0, 2, 3), 2) == 0.0
    assert win_credit((1, 0, 2, 3), 1) == 1.0
    assert win_credit((0, 0, 0, 0), 3) == 0.25


def _outcome(deal: int, rotation: int, seating: tuple[int, ...], scores: tuple[float, ...],
             places: tuple[int, ...]) -> GameOutcome:  # fmt: skip
    n = len(seating)
    return GameOutcome(
        deal, rotation, seating, "normal", scores, places, 10, (), (1,) * n, (0.0,) * n, (0.0,) * n
    )


def test_standings_by_entry_with_rotations_and_paired_differences() -> None:
    entries = make_entries(["a", "b"])
    outcomes = [
        # deal 0: entry 0 at seat 0 then at seat 1
        _outcome(0, 0, (0, 1), (10.0, 4.0), (0, 1)),
        _outcome(0, 1, (1, 0), (6.0, 6.0), (0, 0)),
        # deal 1
        _outcome(1, 0, (0, 1), (2.0, 8.0), (1, 0)),
        _outcome(1, 1, (1, 0), (5.0, 9.0), (1, 0)),
    ]
    a, b = standings(entries, outcomes)
    assert a.games == b.games == 4
    assert a.wins == 1 + 0.5 + 0 + 1
    assert b.wins == 0 + 0.5 + 1 + 0
    assert a.score.mean == pytest.approx((10 + 6 + 2 + 9) / 4)
    assert a.mean_place == pytest.approx(1 + (0 + 0 + 1 + 0) / 4)
    # paired: per deal, mean over rotations of (own score - mean of the others)
    deal0 = ((10 - 4) + (6 - 6)) / 2
    deal1 = ((2 - 8) + (9 - 5)) / 2
    assert a.vs_field.n == 2
    assert a.vs_field.mean == pytest.approx((deal0 + deal1) / 2)
    assert b.vs_field.mean == pytest.approx(-a.vs_field.mean)
