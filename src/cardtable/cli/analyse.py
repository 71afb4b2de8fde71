"""``cardtable analyse RECORD --seat N``: the expert reviews every decision of a seat.

See docs/analysis.md. ``--bench`` plays one game between ``expert`` bots and times its analysis.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Mapping
from typing import Any

from cardtable.analysis.review import (
    NOISE_Z,
    Analysis,
    Budget,
    Review,
    Value,
    adapter_for,
    analyse,
    decision_count,
    summary,
)
from cardtable.core import Record
from cardtable.core.message import Message
from cardtable.i18n import DEFAULT, SUPPORTED, from_environment, render, translate

HELP = "the expert reviews every decision of a seat in a game record: values, mistakes, summary"

EPILOG = """\
examples:
  cardtable analyse game.json --seat 2              # seat 2's decisions, mistakes marked
  cardtable analyse game.json --seat all --json     # every seat, as JSON
  cardtable analyse game.json --seat 0 --budget 200 # 200 sampled worlds per decision
  cardtable analyse game.json --seat 0 --budget 1s  # one second of search per decision
  cardtable bench analysis                          # time the analysis of one classic game
  cardtable bench analysis-latency                  # live tables' latency, with analyses or not

Only the seat's own observation is searched (its view, the events it saw), never the other
seats' hidden cards or notes. See docs/analysis.md.
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.epilog = EPILOG
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.add_argument(
        "file", nargs="*", help="records written by --record or downloaded (one or more)"
    )
    p.add_argument(
        "--seat", default=None, help="the seat to analyse (from 0), or 'all' (default: all)"
    )
    p.add_argument(
        "--player",
        default=None,
        metavar="NAME",
        help="analyse the seat of this name in each record; with several records, a summary of "
        "its mistakes over all of them",
    )
    p.add_argument(
        "--budget",
        default=None,
        help="per decision: sampled worlds (e.g. 48, the default) or seconds (e.g. 0.5s)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the world sampling (default 0)")
    p.add_argument("--json", action="store_true", help="print the analysis as JSON")
    p.add_argument(
        "--mistakes", action="store_true", help="text: list only the mistakes and the summary"
    )
    p.add_argument(
        "--lang",
        choices=SUPPORTED,
        default=None,
        help="the language of the text (default: from LANGUAGE, LC_ALL, LC_MESSAGES or LANG, "
        "else en); --json stays language-neutral",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.add_argument(
        "--bench",
        action="store_true",
        help="play one game of --game/--rules between expert bots and time its analysis "
        "(all seats) on this core",
    )
    p.add_argument("--game", default="kuhhandel", help="with --bench (default kuhhandel)")
    p.add_argument("--rules", default=None, help="with --bench (default: the game's default)")
    p.add_argument("--games", type=int, default=1, help="with --bench: how many games")
    p.add_argument(
        "--latency",
        action="store_true",
        help="measure a live table's decision latency on a server of its own, with and without "
        "analysis jobs running (rounds of both phases; --game/--rules for the live tables)",
    )
    p.add_argument(
        "--seconds",
        type=float,
        default=30.0,
        help="with --latency: play per phase (then the games under way finish, measured too)",
    )
    p.add_argument("--rounds", type=int, default=2, help="with --latency: rounds of both phases")
    p.add_argument("--bots", type=int, default=8, help="with --latency: client bots (4 a table)")
    p.add_argument("--bot", default="heuristic", help="with --latency: the bots' strategy")
    p.add_argument(
        "--think-ms", type=float, default=10.0, help="with --latency: each bot's thinking time"
    )
    p.add_argument(
        "--workers", type=int, default=1, help="with --latency: the server's analysis workers"
    )


def _seats(text: str | None, seats: int) -> list[int]:
    if text is None or text == "all":
        return list(range(seats))
    try:
        seat = int(text)
    except ValueError:
        raise ValueError(f"--seat {text!r}: give a seat number (from 0) or 'all'") from None
    if not 0 <= seat < seats:
        raise ValueError(f"no seat {seat} in this {seats}-seat game (seats count from 0)")
    return [seat]


def run(args: argparse.Namespace) -> int:
    budget = Budget.parse(args.budget) if args.budget else Budget()
    if args.bench:
        return bench(args, budget)
    if args.latency:
        from cardtable.cli.analysis_latency import run_latency

        return run_latency(args)
    if not args.file:
        raise ValueError("give a record file (or --bench)")
    if args.player is not None and args.seat is not None:
        raise ValueError("give --seat or --player, not both")
    lang = getattr(args, "lang", None) or from_environment()
    records = [Record.load(f) for f in args.file]
    chosen: list[list[int]] = []
    for path, record in zip(args.file, records, strict=True):
        adapter_for(record.game)  # a clear error for a game without analysis
        if args.player is not None:
            if args.player not in record.names:
                raise ValueError(f"{path}: no seat named {args.player!r} (seats: {record.names})")
            chosen.append([record.names.index(args.player)])
        else:
            chosen.append(_seats(args.seat, record.seats))
    if len({r.game for r in records}) > 1:
        raise ValueError("the records are of different games: analyse each game's apart")
    analyses = [
        run_analysis(record, seats, budget, args.seed, not args.no_progress)
        for record, seats in zip(records, chosen, strict=True)
    ]
    if len(analyses) == 1:
        if args.json:
            json.dump(analyses[0].to_json(), sys.stdout, indent=1)
            print()
            return 0
        for line in text_lines(analyses[0], mistakes_only=args.mistakes, lang=lang):
            print(line)
        return 0
    reviews = [r for a in analyses for r in a.reviews]
    total = summary(reviews)
    unit = _unit(lang, records[0].game)
    if args.player:
        who = args.player
    elif args.seat not in (None, "all"):
        who = translate(lang, "analyse.who_seat", seat=args.seat)
    else:
        who = translate(lang, "analyse.who_all")
    if args.json:
        player = args.player or (
            f"seat {args.seat}" if args.seat not in (None, "all") else "every seat"
        )  # a code for scripts, as before: --json stays in no language
        out = {"player": player, "games": [a.to_json() for a in analyses], "summary": total}
        json.dump(out, sys.stdout, indent=1)
        print()
        return 0
    for path, analysis in zip(args.file, analyses, strict=True):
        print(f"### {path}")
        for line in text_lines(analysis, mistakes_only=args.mistakes, lang=lang):
            print(line)
        print()
    print(translate(lang, "analyse.over", who=who, n=len(analyses)))
    for line in summary_lines(total, unit, lang):
        print(line)
    return 0


def run_analysis(
    record: Record, seats: list[int], budget: Budget, seed: int, progress: bool
) -> Analysis:
    from cardtable.arena.progress import Progress

    bar = Progress(decision_count(record, seats), enabled=progress, unit="decisions")

    def step(_review: Review) -> None:
        bar.advance()

    try:
        return analyse(record, seats, budget, seed=seed, on_review=step)
    finally:
        bar.finish()


def _pct(x: float) -> str:
    return f"{100 * x:5.1f}%"


def _said(lang: str, words: Any, english: str) -> str:
    """Words in ``lang``: a :class:`Message` or its JSON (``Message.to_json``, as the summaries
    keep the mistake kinds), else ``english`` as it is."""
    if isinstance(words, Message):
        return render(lang, words, indent=False)
    if isinstance(words, Mapping) and isinstance(words.get("key"), str):
        return render(lang, _message(words), indent=False)
    return english


def _message(data: Mapping[str, Any]) -> Message:
    args = {
        k: _message(v) if isinstance(v, Mapping) and "key" in v else v
        for k, v in (data.get("args") or {}).items()
    }
    return Message(str(data["key"]), args, data.get("default"))


def _unit(lang: str, game: str) -> str:
    return translate(lang, "web.analysis.unit", game=game)


def _kind(lang: str, kind: str) -> str:
    key = f"web.analysis.kind.{kind}"
    said = translate(lang, key)
    return kind if said == key else said


def budget_words(lang: str, budget: Budget) -> str:
    if budget.seconds is not None:
        return translate(lang, "analyse.budget_seconds", seconds=budget.seconds)
    return translate(lang, "analyse.budget_worlds", n=budget.worlds or 0)


def text_lines(
    analysis: Analysis, *, mistakes_only: bool = False, lang: str = DEFAULT
) -> list[str]:
    record = analysis.record
    adapter = adapter_for(record.game)
    unit = _unit(lang, record.game)
    names = record.names or tuple(f"seat-{i}" for i in range(record.seats))
    rules = str(record.rules.get("name", "?"))
    lines = [
        translate(
            lang, "analyse.heading", game=translate(lang, f"game.{record.game}"),
            rules=render(lang, Message(f"ruleset.{record.game}.{rules}", {}, rules)),
            budget=budget_words(lang, analysis.budget), seed=str(analysis.seed),
            seconds=round(analysis.seconds, 1),
        ),
        translate(lang, "analyse.threshold", loss=adapter.threshold, unit=unit, z=NOISE_Z),
        translate(lang, "analyse.values"),
    ]  # fmt: skip
    for seat in analysis.seats:
        lines.append("")
        lines.append(translate(lang, "analyse.seat", name=names[seat], seat=seat))
        reviews = analysis.for_seat(seat)
        for r in reviews:
            if mistakes_only and not r.mistake:
                continue
            lines += review_lines(r, unit, lang)
        lines.append("")
        lines += summary_lines(summary(reviews), unit, lang)
    return lines


def review_lines(r: Review, unit: str, lang: str = DEFAULT) -> list[str]:
    head = translate(
        lang, "analyse.decision", number=str(r.number), action=str(r.index + 1),
        kind=_kind(lang, r.kind), answer=_said(lang, r.taken_words, r.taken_label),
    )  # fmt: skip
    if not r.searched:
        return [head + "  " + translate(lang, "analyse.not_searched")]
    best = r.candidates[r.best_at]
    if r.best_at == r.taken_at:
        head += "  " + translate(lang, "analyse.agrees")
    else:
        head += "  " + translate(
            lang, "analyse.expert", answer=_said(lang, best.words, best.label),
            loss=round(r.loss, 1), se=round(r.loss_se, 1), unit=unit,
        )  # fmt: skip
    out = [(translate(lang, "analyse.mistake") + " " if r.mistake else "") + head]
    win, margin = translate(lang, "analyse.win"), translate(lang, "analyse.margin")

    def line(mark: str, c: Value) -> str:
        label = _said(lang, c.words, c.label)
        return (
            f"   {mark} {label:<44} {win} {_pct(c.win)} ±{100 * c.win_se:4.1f}  "
            f"{margin} {c.margin:+7.1f} ±{c.margin_se:5.1f}"
        )

    order = sorted(range(len(r.candidates)), key=lambda i: -r.candidates[i].utility)
    for i in order[:8]:
        mark = "*" if i == r.best_at else " "
        mark += ">" if i == r.taken_at else " "
        out.append(line(mark, r.candidates[i]))
    if len(order) > 8 and r.taken_at not in order[:8]:
        out.append(line(" >", r.candidates[r.taken_at]))
    if r.mistake:
        out.append("   -> " + _said(lang, r.mistake_words, r.mistake_kind))
    return out


def summary_lines(s: dict[str, Any], unit: str, lang: str = DEFAULT) -> list[str]:
    lines = [
        translate(
            lang, "analyse.summary", mistakes=s["mistakes"], searched=s["searched"],
            rate=round(100 * s["rate"], 1), decisions=s["decisions"], loss=round(s["loss"], 1),
            unit=unit,
        )
    ]  # fmt: skip
    words = s.get("kind_words") or {}
    for kind, n in s["by_kind"].items():
        lines.append(
            translate(lang, "analyse.by_kind", n=n, kind=_said(lang, words.get(kind), kind))
        )
    return lines


def bench(args: argparse.Namespace, budget: Budget) -> int:
    """Play ``--games`` games between expert bots and time the analysis of each (all seats)."""
    from cardtable.core import game_spec, load_bot, run_match

    spec = game_spec(args.game)
    rules = spec.resolve_rules(args.rules)
    seats = 4
    times: list[float] = []
    cpu: list[float] = []
    rates: list[float] = []
    searched_total = 0
    mistakes_total = 0
    decisions = 0
    for g in range(args.games):
        game = spec.new_game(rules, seats, 1000 + g)
        bots = [load_bot(args.game, "expert", seed=100 * g + s) for s in range(seats)]
        run_match(game, bots)
        record = game.record()
        started, cpu0 = time.perf_counter(), time.process_time()
        analysis = run_analysis(record, list(range(seats)), budget, 0, not args.no_progress)
        times.append(time.perf_counter() - started)
        cpu.append(time.process_time() - cpu0)
        decisions += len(analysis.reviews)
        searched = [r for r in analysis.reviews if r.searched]
        mistakes = sum(r.mistake for r in searched)
        searched_total += len(searched)
        mistakes_total += mistakes
        rates.append(mistakes / max(1, len(searched)))
        kinds = summary(analysis.reviews)["by_kind"]
        print(
            f"game {g + 1}: {len(record.actions)} actions, {len(analysis.reviews)} decisions "
            f"({len(searched)} searched), all seats analysed in {times[-1]:.1f} s "
            f"({cpu[-1]:.1f} s of CPU), {mistakes} mistakes ({100 * rates[-1]:.1f}%)"
            + (f": {kinds}" if kinds else "")
        )
    name = spec.rules_name(rules)
    n = len(times)
    print(
        f"bench analyse: {args.game} {name}, {budget.words()}, {n} game(s) between expert bots, "
        f"one process (one core): all {seats} seats {sum(cpu) / n:.1f} s of CPU per game "
        f"(max {max(cpu):.1f}), one seat {sum(cpu) / n / seats:.1f} s; wall {sum(times) / n:.1f} s "
        f"per game (the machine's load included); {decisions / max(sum(cpu), 1e-9):.1f} "
        f"decisions per CPU second; the expert's own mistake rate "
        f"{100 * mistakes_total / max(1, searched_total):.1f}% of {searched_total} searched "
        f"decisions"
    )
    return 0
