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
DECISION_FAULTS = ("raised", "invalid", "illegal", "timeout")


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
            "game": plan.game,
            "rules": plan.rules if isinstance(plan.rules, str) else dict(plan.rules),
            "seats": plan.seats,
            "seed": plan.seed,
            "deals": plan.deals,
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
        plan = self.plan
        rules = plan.rules if isinstance(plan.rules, str) else "custom rules"
        lines = [
            f"{plan.game} {rules}, {plan.seats} seats: {plan.deals} deals x {plan.rotations} "
            f"rotations = {plan.games} games, seed {plan.seed} "
            f"(equal win share {1 / plan.seats:.1%})"
        ]
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
        table = [header]
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
        widths = [max(len(r[i]) for r in table) for i in range(len(header))]
        left = {1}
        for r in table:
            cells = [
                c.ljust(w) if i in left else c.rjust(w)
                for i, (c, w) in enumerate(zip(r, widths, strict=True))
            ]
            lines.append("  ".join(cells).rstrip())
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
        timing = ", ".join(
            f"{row.entry.label} {1000 * row.think_time / row.decisions:.2f} ms"
            f" (max {1000 * row.think_max:.0f})"
            for row in self.rows
            if row.decisions
        )
        rate = self.played / self.elapsed if self.elapsed > 0 else 0.0
        where = f"{self.jobs} job(s), {self.backend} backend"
        resumed = f" ({self.resumed} games from the journal)" if self.resumed else ""
        lines.append(f"{self.elapsed:.1f} s, {rate:.1f} games/s on {where}{resumed}")
        if timing:
            lines.append(f"mean time per decision: {timing}")
        return "\n".join(lines) + "\n"


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
