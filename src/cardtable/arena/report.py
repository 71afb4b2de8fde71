"""The tournament report: a table for people, JSON and CSV for machines.

Everything in a report except the ``timing`` section (JSON) is a pure function of the plan, so two
runs of the same plan give byte-identical JSON once ``timing`` is removed, and identical CSV.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from .plan import TournamentPlan
from .stats import Estimate, Standing

#: Fault categories that are decisions the bot itself got wrong (``replaced`` and ``hook`` aren't).
#: Categories of a decision the bot itself got wrong (a program's own: crashed, not_a_message,
#: flood; docs/stdio-bots.md); ``replaced`` and ``hook`` are not counted.
DECISION_FAULTS = ("raised", "invalid", "illegal", "timeout", "crashed", "not_a_message", "flood")


@dataclass
class Report:
    plan: TournamentPlan
    rows: list[Standing]
    terminations: Counter[str]
    rating_note: str = ""
    elapsed: float = 0.0
    jobs: int = 1
    backend: str = "process"
    #: Games taken from a journal (played by an earlier run): not in this run's rate.
    resumed: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def played(self) -> int:
        """Games played by this run."""
        return self.plan.games - self.resumed

    # -- machines --------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        plan = self.plan
        return {
            **plan.table_json(),
            "rotations": plan.rotations,
            "games": plan.games,
            "decision_timeout": plan.decision_timeout,
            "fallback": plan.fallback,
            "equal_share": 1 / plan.seats,
            "terminations": dict(sorted(self.terminations.items())),
            "entries": [_entry_json(row) for row in self.rows],
            "rating_note": self.rating_note or None,
            "timing": {
                "elapsed_s": self.elapsed,
                "games_per_s": self.played / self.elapsed if self.elapsed > 0 else None,
                "games_from_journal": self.resumed,
                "jobs": self.jobs,
                "backend": self.backend,
                "entries": [
                    {
                        "bot": row.entry.label,
                        "decisions": row.decisions,
                        "mean_ms": 1000 * row.think_time / row.decisions if row.decisions else None,
                        "max_ms": 1000 * row.think_max,
                        "p99_ms": _p99_ms(row.wall_hist),
                        "cpu_mean_ms": (
                            1000 * row.cpu_time / row.decisions
                            if row.decisions and row.cpu_hist
                            else None
                        ),
                        "cpu_p99_ms": _p99_ms(row.cpu_hist),
                        "cpu_max_ms": 1000 * row.cpu_max if row.cpu_hist else None,
                        "queue_mean_ms": (
                            1000 * row.queue_time / row.decisions
                            if row.decisions and row.queued
                            else None
                        ),
                        "queue_max_ms": 1000 * row.queue_max if row.queued else None,
                        "wall_minus_queue_max_ms": 1000 * row.own_max if row.queued else None,
                        "searches": row.searches,
                        "capped_searches": row.capped,
                    }
                    for row in self.rows
                ],
            },
        }

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=2, sort_keys=False, allow_nan=False) + "\n"

    def to_csv(self) -> str:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(
            [
                "position", "bot", "ref", "games", "wins", "win_share", "win_low", "win_high",
                "score_mean", "score_low", "score_high", "vs_field_mean", "vs_field_low",
                "vs_field_high", "mean_place", "rating", "rating_mu", "rating_sigma", "faults",
            ]
        )  # fmt: skip
        for row in self.rows:
            writer.writerow(
                [
                    row.entry.index + 1, row.entry.label, row.entry.ref, row.games,
                    _num(row.wins), _num(row.win_share), _num(row.win_low), _num(row.win_high),
                    _num(row.score.mean), _num(row.score.low), _num(row.score.high),
                    _num(row.vs_field.mean), _num(row.vs_field.low), _num(row.vs_field.high),
                    _num(row.mean_place), _num(row.rating), _num(row.rating_mu),
                    _num(row.rating_sigma), _fault_total(row),
                ]
            )  # fmt: skip
        return out.getvalue()

    # -- people ----------------------------------------------------------------------------------

    def to_text(self) -> str:
        lines = [self.title()]
        table = self.table()
        header = table[0]
        widths = [max(len(r[i]) for r in table) for i in range(len(header))]
        left = {1}
        for r in table:
            cells = [
                c.ljust(w) if i in left else c.rjust(w)
                for i, (c, w) in enumerate(zip(r, widths, strict=True))
            ]
            lines.append("  ".join(cells).rstrip())
        return "\n".join([*lines, *self.notes()]) + "\n"

    def title(self) -> str:
        plan = self.plan
        rules = plan.rules if isinstance(plan.rules, str) else "custom rules"
        return (
            f"{plan.game} {rules}, {plan.seats} seats: {plan.deals} deals x {plan.rotations} "
            f"rotations = {plan.games} games, seed {plan.seed} "
            f"(equal win share {1 / plan.seats:.1%})"
        )

    def table(self) -> list[tuple[str, ...]]:
        """The standings as text cells, the header first (column 1, the bot, reads left)."""
        header = (
            "#",
            "bot",
            "games",
            "wins",
            "win share [95% CI]",
            "mean score [95% CI]",
            "vs field [95% CI]",
            "place",
            "rating",
        )
        table: list[tuple[str, ...]] = [header]
        for row in self.rows:
            table.append(
                (
                    str(row.entry.index + 1),
                    row.entry.label,
                    str(row.games),
                    _fmt_wins(row.wins),
                    f"{_pct(row.win_share)} [{_pct(row.win_low)}, {_pct(row.win_high)}]",
                    _fmt_estimate(row.score),
                    _fmt_estimate(row.vs_field, signed=True),
                    "-" if math.isnan(row.mean_place) else f"{row.mean_place:.2f}",
                    "-" if row.rating is None else f"{row.rating:.1f}",
                )
            )
        return table

    def notes(self) -> list[str]:
        """The lines under the standings: terminations, rating, faults, timing."""
        lines: list[str] = []
        other = {k: v for k, v in self.terminations.items() if k != "normal"}
        if other:
            lines.append(
                "terminations: "
                + ", ".join(f"{k} {v}" for k, v in sorted(self.terminations.items()))
            )
        if self.rating_note:
            lines.append(f"rating: {self.rating_note}")
        faulty = [row for row in self.rows if row.faults]
        if faulty:
            lines.append("faults (the fallback answered these decisions):")
            for row in faulty:
                counts = ", ".join(
                    f"{k} {v}" for k, v in sorted(row.faults.items()) if k != "replaced"
                )
                if row.faults["replaced"]:
                    counts += (
                        f"; abandoned after a hang, the fallback then answered "
                        f"{row.faults['replaced']} more decisions"
                    )
                lines.append(f"  {row.entry.label}: {counts.lstrip('; ')}")
                shown = [(key, n) for key, n in row.reasons.most_common() if key[0] != "replaced"]
                for (category, request, reason), n in shown[:3]:
                    lines.append(f"    {n} x {category} on {request}: {reason}")
        rate = self.played / self.elapsed if self.elapsed > 0 else 0.0
        where = f"{self.jobs} job(s), {self.backend} backend"
        resumed = f" ({self.resumed} games from the journal)" if self.resumed else ""
        lines.append(f"{self.elapsed:.1f} s, {rate:.1f} games/s on {where}{resumed}")
        timed = [row for row in self.rows if row.decisions]
        if timed:
            lines.append(
                "time per decision, ms (wall: what the table waits; cpu: the deciding thread's "
                "CPU time, one core):"
            )
            width = max(len(row.entry.label) for row in timed)
            for row in timed:
                mean = 1000 * row.think_time / row.decisions
                text = (
                    f"  {row.entry.label:<{width}}  wall mean {mean:.2f}"
                    f" p99 {_fmt_ms(_p99_ms(row.wall_hist))} max {1000 * row.think_max:.1f}"
                )
                if row.cpu_hist:
                    text += (
                        f"  cpu mean {1000 * row.cpu_time / row.decisions:.2f}"
                        f" p99 {_fmt_ms(_p99_ms(row.cpu_hist))} max {1000 * row.cpu_max:.1f}"
                    )
                lines.append(text + f"  ({row.decisions} decisions)")
            queued = [row for row in timed if row.queued]
            if queued:
                lines.append(
                    "waiting for a core (ready to run, the machine busy elsewhere; Linux "
                    "schedstat), ms per decision, and the longest decision without that wait:"
                )
                for row in queued:
                    lines.append(
                        f"  {row.entry.label:<{width}}  wait mean "
                        f"{1000 * row.queue_time / row.decisions:.2f} max "
                        f"{1000 * row.queue_max:.1f}  wall minus wait max "
                        f"{1000 * row.own_max:.1f}"
                    )
            capped = [row for row in timed if row.searches]
            if capped:
                lines.append(
                    "time cap (searches the bot's own wall-time cap ended early; on a loaded "
                    "machine the answer then depends on timing):"
                )
                for row in capped:
                    lines.append(
                        f"  {row.entry.label:<{width}}  {row.capped} of {row.searches} searches"
                        f" ({100 * row.capped / row.searches:.2f}%)"
                    )
        return lines


def _entry_json(row: Standing) -> dict[str, Any]:
    return {
        "position": row.entry.index + 1,
        "bot": row.entry.label,
        "ref": row.entry.ref,
        "games": row.games,
        "wins": row.wins,
        "win_share": _num(row.win_share),
        "win_share_low": row.win_low,
        "win_share_high": row.win_high,
        "score": _estimate_json(row.score),
        "vs_field": _estimate_json(row.vs_field),
        "mean_place": _num(row.mean_place),
        "rating": None
        if row.rating is None
        else {"ordinal": row.rating, "mu": row.rating_mu, "sigma": row.rating_sigma},
        "faults": {
            "decisions": _fault_total(row),
            "by_category": dict(sorted(row.faults.items())),
            "reasons": [
                {"category": c, "request": q, "reason": r, "count": n}
                for (c, q, r), n in sorted(row.reasons.items(), key=lambda kv: (-kv[1], kv[0]))
            ][:20],
        },
    }


def _fault_total(row: Standing) -> int:
    return sum(row.faults[c] for c in DECISION_FAULTS)


def _estimate_json(est: Estimate) -> dict[str, Any]:
    return {"mean": _num(est.mean), "low": est.low, "high": est.high, "n": est.n}


def _p99_ms(hist: Counter[int]) -> float | None:
    """The 99th percentile of a histogram of 0.1 ms buckets, in ms (the bucket's upper end)."""
    total = sum(hist.values())
    if not total:
        return None
    rank = math.ceil(0.99 * total)
    seen = 0
    for bucket in sorted(hist):
        seen += hist[bucket]
        if seen >= rank:
            return (bucket + 1) / 10
    return None  # pragma: no cover - the loop always reaches the rank


def _fmt_ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _num(value: float | None) -> float | None:
    if value is None or math.isnan(value):
        return None
    return value


def _pct(value: float) -> str:
    return "-" if math.isnan(value) else f"{value:.1%}"


def _fmt_wins(wins: float) -> str:
    return f"{wins:.0f}" if wins == int(wins) else f"{wins:.1f}"


def _fmt_estimate(est: Estimate, signed: bool = False) -> str:
    if est.n == 0 or math.isnan(est.mean):
        return "-"
    sign = "+" if signed else ""
    mean = f"{est.mean:{sign}.1f}"
    if est.low is None or est.high is None:
        return mean
    return f"{mean} [{est.low:{sign}.1f}, {est.high:{sign}.1f}]"
