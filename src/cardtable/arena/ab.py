"""A/B: two versions of a bot on the same deals and seatings, compared pair by pair.

``cardtable arena GAME --ab old.py:Bot,new.py:Bot --bots heuristic`` plays one tournament with
version A at position 1 of the line-up and one with version B there, everything else equal: the
same tournament seed, hence the same decks, seatings, opponents' seeds and fallback seeds. Each
game of B has a twin in A that differs only by the version, so the difference is measured per
deal (the mean over its rotations of B's figure minus A's) and a Student-t 95% interval is taken
over deals: the luck of the deck cancels, as in the ``vs field`` column.

With ``--journal FILE`` each side keeps a journal of its own (:func:`ab_journals`: ``FILE`` with
``.a`` resp. ``.b`` before its suffix), so a long comparison stopped halfway goes on where it
stopped, and a larger ``--games`` adds deals to both sides.
"""

from __future__ import annotations

import dataclasses
import json
import math
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .plan import TournamentPlan
from .play import GameOutcome
from .progress import Progress
from .report import DECISION_FAULTS
from .stats import Estimate, mean_interval, wilson_interval, win_credit
from .tournament import play_outcomes


@dataclass
class Side:
    """One version's figures over its tournament (position 1 of the line-up)."""

    ref: str
    label: str
    games: int
    wins: float
    win_low: float
    win_high: float
    score: Estimate
    faults: Counter[str]

    @property
    def win_share(self) -> float:
        return self.wins / self.games if self.games else math.nan

    def to_json(self) -> dict[str, Any]:
        return {
            "bot": self.label,
            "ref": self.ref,
            "games": self.games,
            "wins": self.wins,
            "win_share": _num(self.win_share),
            "win_share_low": self.win_low,
            "win_share_high": self.win_high,
            "score": self.score.to_json(),
            "faults": dict(sorted(self.faults.items())),
        }


@dataclass
class ABReport:
    plan_a: TournamentPlan
    plan_b: TournamentPlan
    a: Side
    b: Side
    #: B's win credit minus A's, paired per deal (a share: 0.03 is 3 points).
    win_diff: Estimate
    #: B's score minus A's, paired per deal.
    score_diff: Estimate
    #: Games in which the tested bot's score and place were the same with both versions.
    same: int
    elapsed: float = 0.0
    jobs: int = 1

    @staticmethod
    def verdict(est: Estimate, what: str) -> str:
        """Which version ``what`` with 95% confidence, or that neither was shown to."""
        if est.low is not None and est.low > 0:
            return f"B {what} (95%: the interval lies above 0)"
        if est.high is not None and est.high < 0:
            return f"A {what} (95%: the interval lies below 0)"
        verb = what.replace("wins", "win").replace("scores", "score")
        return f"neither version shown to {verb} (the 95% interval holds 0)"

    def to_json(self) -> dict[str, Any]:
        plan = self.plan_a
        return {
            **plan.table_json(),
            "games": plan.games,
            "opponents": [e.ref for e in plan.entries[1:]],
            "a": self.a.to_json(),
            "b": self.b.to_json(),
            "difference": {
                "win_share": self.win_diff.to_json(),
                "score": self.score_diff.to_json(),
                "paired_over": "deals",
            },
            "same_outcome_games": self.same,
            "timing": {"elapsed_s": self.elapsed, "jobs": self.jobs},
        }

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=2, allow_nan=False) + "\n"

    def to_text(self) -> str:
        plan = self.plan_a
        rules = plan.rules if isinstance(plan.rules, str) else "custom rules"
        opponents = ", ".join(e.label for e in plan.entries[1:])
        lines = [
            f"A/B {plan.game} {rules}, {plan.seats} seats: each version plays {plan.deals} deals "
            f"x {plan.rotations} rotations = {plan.games} games against {opponents}, seed "
            f"{plan.seed}; the same decks, seats and opponents' seeds for both",
        ]
        table = [("", "bot", "games", "win share [95% CI]", "mean score [95% CI]")]
        for name, side in (("A", self.a), ("B", self.b)):
            table.append(
                (
                    name,
                    side.label,
                    str(side.games),
                    f"{_pct(side.win_share)} [{_pct(side.win_low)}, {_pct(side.win_high)}]",
                    _estimate(side.score),
                )
            )
        table.append(
            (
                "B-A",
                f"paired over {self.win_diff.n} deals",
                "",
                _points(self.win_diff),
                _estimate(self.score_diff, signed=True),
            )
        )
        widths = [max(len(r[i]) for r in table) for i in range(5)]
        for r in table:
            cells = [
                c.ljust(w) if i < 2 else c.rjust(w)
                for i, (c, w) in enumerate(zip(r, widths, strict=True))
            ]
            lines.append("  ".join(cells).rstrip())
        lines.append(f"win share: {self.verdict(self.win_diff, 'wins more often')}")
        lines.append(f"mean score: {self.verdict(self.score_diff, 'scores more')}")
        lines.append(
            f"{self.same} of {plan.games} games ended with the same score and place for both "
            "versions"
        )
        for name, side in (("A", self.a), ("B", self.b)):
            bad = {k: v for k, v in side.faults.items() if k in DECISION_FAULTS}
            if bad:
                counts = ", ".join(f"{k} {v}" for k, v in sorted(bad.items()))
                lines.append(f"faults of {name} ({side.label}): {counts}")
        lines.append(f"{self.elapsed:.1f} s on {self.jobs} job(s)")
        return "\n".join(lines) + "\n"


def ab_plans(plan: TournamentPlan, ref_a: str, ref_b: str) -> tuple[TournamentPlan, TournamentPlan]:
    """Two copies of ``plan`` whose first entry is version A, resp. B (the rest unchanged)."""
    from .plan import make_entries

    first_a = make_entries([ref_a])[0]
    first_b = make_entries([ref_b])[0]
    label_a, label_b = first_a.label, first_b.label
    if label_a == label_b:
        label_a, label_b = f"{label_a} (A)", f"{label_b} (B)"
    entries = plan.entries[1:]
    a = dataclasses.replace(plan, entries=(dataclasses.replace(first_a, label=label_a), *entries))
    b = dataclasses.replace(plan, entries=(dataclasses.replace(first_b, label=label_b), *entries))
    return a, b


def ab_journals(journal: str | Path) -> tuple[Path, Path]:
    """The journals of sides A and B for ``--journal FILE``: ``ab.jsonl`` -> ``ab.a.jsonl``,
    ``ab.b.jsonl`` (each side is a tournament of its own, so each has a journal of its own)."""
    path = Path(journal)
    return (path.with_name(f"{path.stem}.a{path.suffix}"),
            path.with_name(f"{path.stem}.b{path.suffix}"))  # fmt: skip


def run_ab(
    plan_a: TournamentPlan,
    plan_b: TournamentPlan,
    *,
    jobs: int = 1,
    backend: str = "process",
    address: str | None = None,
    progress: tuple[Progress, Progress] | None = None,
    journal: str | Path | None = None,
) -> ABReport:
    """Play both tournaments and compare entry 0 of each, game by game (with ``journal``, each
    side's games are kept in :func:`ab_journals` and those already there are not played again)."""
    if dataclasses.replace(plan_b, entries=plan_a.entries) != plan_a:
        raise ValueError("an A/B comparison needs two plans that differ only by the first entry")
    if plan_a.entries[1:] != plan_b.entries[1:]:
        raise ValueError("an A/B comparison needs the same opponents in both plans")
    started = time.monotonic()
    bars = progress or (None, None)
    books = ab_journals(journal) if journal is not None else (None, None)
    a_games, _ = play_outcomes(plan_a, jobs=jobs, backend=backend, address=address,
                               progress=bars[0], journal=books[0])  # fmt: skip
    b_games, _ = play_outcomes(plan_b, jobs=jobs, backend=backend, address=address,
                               progress=bars[1], journal=books[1])  # fmt: skip
    return compare(plan_a, plan_b, a_games, b_games, time.monotonic() - started, jobs)


def _side(plan: TournamentPlan, games: list[GameOutcome]) -> Side:
    entry = plan.entries[0]
    wins = 0.0
    scores: list[float] = []
    faults: Counter[str] = Counter()
    for game in games:
        seat = game.seating.index(0)
        faults.update(f.category for f in game.faults if f.seat == seat)
        if game.termination == "aborted":
            continue
        wins += win_credit(game.places, seat)
        scores.append(game.scores[seat])
    low, high = wilson_interval(wins, len(scores))
    return Side(entry.ref, entry.label, len(scores), wins, low, high, mean_interval(scores), faults)


def compare(
    plan_a: TournamentPlan,
    plan_b: TournamentPlan,
    a_games: list[GameOutcome],
    b_games: list[GameOutcome],
    elapsed: float = 0.0,
    jobs: int = 1,
) -> ABReport:
    """The paired comparison of entry 0 between two tournaments of twin games."""
    win_deals: dict[int, list[float]] = {}
    score_deals: dict[int, list[float]] = {}
    same = 0
    for ga, gb in zip(a_games, b_games, strict=True):
        if (ga.deal, ga.rotation) != (gb.deal, gb.rotation) or ga.seating != gb.seating:
            raise ValueError("the two tournaments' games are not twins")
        if "aborted" in (ga.termination, gb.termination):
            continue
        seat = ga.seating.index(0)
        credit = win_credit(gb.places, seat) - win_credit(ga.places, seat)
        win_deals.setdefault(ga.deal, []).append(credit)
        score_deals.setdefault(ga.deal, []).append(gb.scores[seat] - ga.scores[seat])
        if ga.scores[seat] == gb.scores[seat] and ga.places[seat] == gb.places[seat]:
            same += 1
    return ABReport(
        plan_a=plan_a,
        plan_b=plan_b,
        a=_side(plan_a, a_games),
        b=_side(plan_b, b_games),
        win_diff=mean_interval([math.fsum(v) / len(v) for v in win_deals.values()]),
        score_diff=mean_interval([math.fsum(v) / len(v) for v in score_deals.values()]),
        same=same,
        elapsed=elapsed,
        jobs=jobs,
    )


def _num(value: float) -> float | None:
    return None if math.isnan(value) else value


def _pct(value: float) -> str:
    return "-" if math.isnan(value) else f"{value:.1%}"


def _points(est: Estimate) -> str:
    """A difference of shares in percentage points, with its interval."""
    if est.n == 0:
        return "-"
    mean = f"{100 * est.mean:+.1f} pts"
    if est.low is None or est.high is None:
        return mean
    return f"{mean} [{100 * est.low:+.1f}, {100 * est.high:+.1f}]"


def _estimate(est: Estimate, signed: bool = False) -> str:
    if est.n == 0 or math.isnan(est.mean):
        return "-"
    sign = "+" if signed else ""
    mean = f"{est.mean:{sign}.1f}"
    if est.low is None or est.high is None:
        return mean
    return f"{mean} [{est.low:{sign}.1f}, {est.high:{sign}.1f}]"
