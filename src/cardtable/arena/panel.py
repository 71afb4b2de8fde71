"""A mixed-field panel: one bot against every seating of a fixed panel of playing styles.

``cardtable arena kuhhandel --panel`` (docs/arena.md, *Mixed-field panel*): the bot under test
(``--bots``, default ``expert``) meets every choice of ``seats - 1`` other panel bots; each such
*seating* is a tournament of its own (seat rotation, duplicate deals, the same seed). The report
shows each bot's win share per seating, whether the bot under test has the highest share in each,
and each panel bot's share over all seatings.

``cardtable arena kuhhandel --mirror`` is the other way round (issue #42): every *mirror* bot
(:func:`mirror_refs`: the panel and the value bidders of ``styles``) seated once against
``seats - 1`` copies of the bot under test, a tournament each; the report gives the single bot's
win share per seating (what a bot author's first bot can take from a table of house bots).
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .plan import TournamentPlan
from .report import Report
from .stats import wilson_interval


def panel_refs(game: str) -> list[str]:
    """The panel of ``game``: its built-in bots but ``random``, the simple styles, ``learned``."""
    from cardtable.core import game_spec

    bots = [name for name in game_spec(game).bots if name != "random"]
    if game == "kuhhandel":
        from cardtable.games.kuhhandel.bots import styles

        path = Path(styles.__file__)
        bots += [f"{path}:{cls}" for cls in ("ValueBidder", "PriceBlind", "Accepter")]
    return bots


#: The value bidders of the mirror panel (``styles``), beside the panel's own styles.
MIRROR_STYLES = ("TableBidder", "HerdBidder", "ShareBidder", "Pushover", "Newcomer")


def mirror_refs(game: str) -> list[str]:
    """The mirror panel of ``game``: the panel and, for Kuhhandel, the value bidders."""
    bots = panel_refs(game)
    if game == "kuhhandel":
        from cardtable.games.kuhhandel.bots import styles

        path = Path(styles.__file__)
        bots += [f"{path}:{cls}" for cls in MIRROR_STYLES]
    return bots


def same_bot(ref: str, tested: str) -> bool:
    """Whether panel bot ``ref`` is the tested bot, options aside: ``expert`` is not seated
    against (or as the mirror of) ``expert:time_cap=none``."""
    from cardtable.core import split_bot_ref

    return split_bot_ref(ref)[0] == split_bot_ref(tested)[0]


def mirror_lineups(tested: str, refs: list[str], seats: int) -> list[list[str]]:
    """One line-up per mirror bot other than the tested one: it, then ``seats - 1`` testeds."""
    return [[ref, *[tested] * (seats - 1)] for ref in refs if not same_bot(ref, tested)]


@dataclass
class MirrorReport:
    """Each mirror bot's share seated alone against copies of the tested bot."""

    tested: str
    reports: list[Report] = field(default_factory=list)

    def to_text(self) -> str:
        lines = [f"mirror panel: each bot seated once against copies of {self.tested}", ""]
        for report in self.reports:
            row = report.rows[0]
            lo, hi = wilson_interval(row.wins, row.games)
            testeds = " ".join(f"{100 * r.win_share:.1f}%" for r in report.rows[1:])
            lines.append(
                f"  {_short(row.entry.ref):<28} {100 * row.win_share:5.1f}% "
                f"[{100 * lo:.1f}%, {100 * hi:.1f}%] of {row.games} games "
                f"({self.tested}: {testeds})"
            )
        return "\n".join(lines) + "\n"

    def to_json(self) -> dict[str, Any]:
        seatings = []
        for report in self.reports:
            row = report.rows[0]
            lo, hi = wilson_interval(row.wins, row.games)
            seatings.append(
                {
                    **report.to_json(),
                    "single": _short(row.entry.ref),
                    "single_win_share": row.win_share,
                    "single_win_share_low": lo,
                    "single_win_share_high": hi,
                }
            )
        return {"tested": self.tested, "seatings": seatings}

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=2) + "\n"


def seatings(tested: str, panel: list[str], seats: int) -> list[list[str]]:
    """Every line-up of the tested bot and ``seats - 1`` other panel bots (panel order)."""
    others = [ref for ref in panel if not same_bot(ref, tested)]
    if len(others) < seats - 1:
        return [[tested, *others, *[others[-1]] * (seats - 1 - len(others))]]
    return [[tested, *combo] for combo in itertools.combinations(others, seats - 1)]


@dataclass
class PanelReport:
    tested: str
    reports: list[Report] = field(default_factory=list)

    def leads(self) -> list[bool]:
        """Per seating: whether the tested bot (position 1) has the highest win share."""
        return [
            report.rows[0].win_share >= max(row.win_share for row in report.rows)
            for report in self.reports
        ]

    def totals(self) -> list[tuple[str, float, int]]:
        """Each bot's (reference, wins, games) over all its seatings, highest share first (a
        win shared by a tie counts as a fraction, as in the tournament report)."""
        sums: dict[str, list[float]] = {}
        for report in self.reports:
            for row in report.rows:
                acc = sums.setdefault(row.entry.ref, [0, 0])
                acc[0] += row.wins
                acc[1] += row.games
        ranked = sorted(sums.items(), key=lambda kv: -kv[1][0] / max(1, kv[1][1]))
        return [(ref, wins, int(games)) for ref, (wins, games) in ranked]

    def to_text(self) -> str:
        lines = [f"mixed-field panel: {self.tested} against every seating of the panel", ""]
        leads = self.leads()
        for i, (report, top) in enumerate(zip(self.reports, leads, strict=True), 1):
            rows = report.rows
            lines.append(
                f"seating {i}: {', '.join(row.entry.label for row in rows)} "
                f"({rows[0].games} games each): {rows[0].entry.label} "
                + ("highest" if top else "NOT highest")
            )
            for row in rows:
                lo, hi = wilson_interval(row.wins, row.games)
                lines.append(
                    f"  {row.entry.label:<24} {100 * row.win_share:5.1f}% "
                    f"[{100 * lo:.1f}%, {100 * hi:.1f}%]"
                )
        lines.append("")
        lines.append(
            f"{self.tested} has the highest win share in {sum(leads)} of {len(self.reports)} "
            "seatings"
        )
        lines.append("each bot over all its seatings:")
        for name, wins, games in self.totals():
            lo, hi = wilson_interval(wins, games)
            share = wins / games if games else math.nan
            lines.append(
                f"  {_short(name):<24} {100 * share:5.1f}% [{100 * lo:.1f}%, {100 * hi:.1f}%]"
                f" of {games} games"
            )
        return "\n".join(lines) + "\n"

    def to_json(self) -> dict[str, Any]:
        """The panel as one object: each seating's tournament report (``Report.to_json``) with
        ``tested_highest``, the count of seatings led, and each bot's share over all."""
        leads = self.leads()
        seatings = [
            {**report.to_json(), "tested_highest": top}
            for report, top in zip(self.reports, leads, strict=True)
        ]
        totals = []
        for ref, wins, games in self.totals():
            lo, hi = wilson_interval(wins, games)
            totals.append(
                {
                    "ref": ref,
                    "bot": _short(ref),
                    "wins": wins,
                    "games": games,
                    "win_share": wins / games if games else None,
                    "win_share_low": lo,
                    "win_share_high": hi,
                }
            )
        return {
            "tested": self.tested,
            "seatings": seatings,
            "highest_in": sum(leads),
            "totals": totals,
        }

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=2) + "\n"


def seating_journals(journal: str | Path, count: int) -> list[Path]:
    """The journal of each seating for ``--panel``/``--mirror --journal FILE``, numbered as the
    report numbers the seatings: ``panel.jsonl`` -> ``panel.1.jsonl``, ``panel.2.jsonl``, ...
    (each seating is a tournament of its own, so each keeps a journal of its own)."""
    path = Path(journal)
    return [path.with_name(f"{path.stem}.{i}{path.suffix}") for i in range(1, count + 1)]


def run_panel(
    plan_for: Callable[[list[str]], TournamentPlan],
    tested: str,
    lineups: list[list[str]],
    run: Callable[[TournamentPlan], Report],
    on_report: Callable[[Report], Any] | None = None,
) -> PanelReport:
    """Play one tournament per line-up and collect the reports."""
    out = PanelReport(tested)
    for lineup in lineups:
        report = run(plan_for(lineup))
        out.reports.append(report)
        if on_report is not None:
            on_report(report)
    return out


def _short(ref: str) -> str:
    """``heuristic``, or ``styles.py:PriceBlind`` for a file reference."""
    if ":" not in ref:
        return ref
    path, _, cls = ref.rpartition(":")
    return f"{Path(path).name}:{cls}"
