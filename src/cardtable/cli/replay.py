"""``cardtable replay FILE``: re-simulate a record, say whether it matches, print it.

With ``--seat N --at K`` it shows decision ``K`` of seat ``N`` (counted from 1 among that seat's
own actions) as the seat saw it: its view of the game and the request; ``--ask BOT`` asks a bot
that decision again. ``--step`` walks through the game one action at a time.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from typing import Any, TextIO

from cardtable.cli.play import final_table
from cardtable.core import Game, Record, game_spec, load_bot, replay, verify
from cardtable.core.decision import (
    Decision,
    ask_again,
    decision_at,
    decision_indices,
    open_request,
)
from cardtable.i18n import DEFAULT, event_line, from_environment
from cardtable.i18n import view_lines as views_in_words

HELP = "re-simulate a game record, report whether it matches, and print the game"

EPILOG = """\
examples:
  cardtable replay game.json                      # the whole log, then MATCHES / DOES NOT MATCH
  cardtable replay game.json --seat 2 --step      # one action at a time (Enter/n, p, q)
  cardtable replay game.json --seat 2 --at 5      # seat 2's 5th decision, as seat 2 saw it
  cardtable replay game.json --seat 2 --at 5 --ask mybot.py:MyBot   # ask your bot again

--at K counts the decisions of --seat from 1 (its K-th action in the record). See
docs/writing-a-bot.md, "Debugging a decision".
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.epilog = EPILOG
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.add_argument("file", help="a record written by --record or downloaded from the server")
    p.add_argument("--seat", type=int, default=None, help="print only what this seat saw")
    p.add_argument(
        "--at",
        type=int,
        default=None,
        metavar="K",
        help="show the seat's K-th decision (from 1): its view, the request and its answer",
    )
    p.add_argument(
        "--ask",
        default=None,
        metavar="BOT",
        help="with --at: ask this bot (name or file.py:Class) that decision again",
    )
    p.add_argument(
        "--bot-seed",
        type=int,
        default=None,
        help="seed of the bot asked again (default: the seat's seed stored in the record, else 0)",
    )
    p.add_argument(
        "--fresh",
        action="store_true",
        help="with --ask: do not ask the bot the seat's earlier decisions first (faster; a bot "
        "that keeps state in act() may then answer differently)",
    )
    p.add_argument("--step", action="store_true", help="walk through the game one action a time")
    p.add_argument("--json", action="store_true", help="with --at: print the decision as JSON")
    p.add_argument("--quiet", action="store_true", help="only say whether it matches")


def run(args: argparse.Namespace) -> int:
    record = Record.load(args.file)
    if args.seat is not None and not 0 <= args.seat < record.seats:
        raise ValueError(
            f"no seat {args.seat} in this {record.seats}-seat game (seats count from 0)"
        )
    if args.at is not None or args.ask is not None:
        if args.seat is None or args.at is None:
            raise ValueError("--at and --ask need --seat N and --at K (the seat's K-th decision)")
        return show_decision(record, args)
    if args.json:
        raise ValueError("--json goes with --seat N --at K")
    ok, why = verify(record)
    if args.step:
        if not ok:
            print("DOES NOT MATCH: " + why)
            return 1
        step(record, args.seat, sys.stdin, sys.stdout)
        print("MATCHES: " + why)
        return 0
    if not args.quiet and ok:
        game = replay(record)
        spec = game_spec(record.game)
        names = _names(record)
        lang = getattr(args, "lang", None) or from_environment()
        for ev in game.events():
            if args.seat is None or ev.visible_to(args.seat):
                line = event_line(lang, spec, ev, names)
                if line:
                    print(line)
        if game.is_over():
            print()
            print(final_table(names, game.result()))
    print(("MATCHES: " if ok else "DOES NOT MATCH: ") + why)
    return 0 if ok else 1


def _names(record: Record) -> tuple[str, ...]:
    return record.names or tuple(f"seat-{i}" for i in range(record.seats))


def recorded_seed(record: Record, seat: int) -> int | None:
    """The seed the seat's bot had when the game was played, if the record says so.

    ``cardtable play --record`` stores it under ``meta.play.bot_seeds``, the arena under
    ``meta.arena.bot_seeds``, a server's tournament game (either protocol) under
    ``meta.bot_seeds``.
    """
    meta = record.meta or {}
    for section in (meta, *meta.values()):
        if isinstance(section, Mapping):
            seeds = section.get("bot_seeds")
            if isinstance(seeds, list) and seat < len(seeds) and isinstance(seeds[seat], int):
                return seeds[seat]
    return None


def show_decision(record: Record, args: argparse.Namespace) -> int:
    decision = decision_at(record, args.seat, args.at)
    out: dict[str, Any] = decision.to_json()
    answer = None
    seed = args.bot_seed if args.bot_seed is not None else recorded_seed(record, args.seat) or 0
    if args.ask is not None:
        bot = load_bot(record.game, args.ask, seed=seed)
        answer = ask_again(record, args.seat, args.at, bot, warm=not args.fresh)
        out["asked"] = {
            "bot": args.ask,
            "seed": seed,
            "action": answer.action,
            "problem": answer.problem or None,
            "same": answer.same,
            "output": answer.output,
        }
    if args.json:
        json.dump(out, sys.stdout, indent=1)
        print()
        return 0
    print("\n".join(describe_decision(record, decision)))
    if answer is not None:
        print()
        verdict = (
            "the same as recorded"
            if answer.same
            else (f"refused: {answer.problem}" if answer.problem else "DIFFERENT from the record")
        )
        print(f"Asked again: {args.ask} (seed {seed}) answers {_dumps(answer.action)}: {verdict}")
        if answer.output:
            print("What the bot printed or logged while answering:")
            for line in answer.output.rstrip("\n").splitlines():
                print(f"  | {line}")
    return 0


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(", ", ": "))


def describe_decision(record: Record, decision: Decision) -> list[str]:
    """What ``cardtable replay --seat N --at K`` prints for a decision."""
    names = _names(record)
    seat = decision.seat
    lines = [
        f"{names[seat]} (seat {seat}), decision {decision.number} of {decision.of}: action "
        f"{decision.upto + 1} of {len(record.actions)} in the record "
        f"(the game before it is core.replay(record, upto={decision.upto}))",
    ]
    lines += view_lines(record, decision.game, seat)
    lines += request_lines(decision.game, decision)
    return lines


def view_lines(record: Record, game: Game, seat: int) -> list[str]:
    spec = game_spec(record.game)
    obs = game.observe(seat)
    if spec.describe_view is not None:
        return views_in_words(DEFAULT, spec, obs, record.rules, _names(record))
    return ["Observation: " + _dumps(game.observe_json(seat))]


def request_lines(game: Game, decision: Decision) -> list[str]:
    data = game.request_to_json(decision.request)
    lines = [f"Request: {data['kind']}"]
    if data["info"]:
        lines.append(f"  info: {_dumps(data['info'])}")
    if data["choices"] is None:
        lines.append("  choices: none listed (the info bounds the answer)")
    else:
        lines.append(f"  choices: {_dumps(data['choices'])}")
    lines.append(f"Recorded answer: {_dumps(decision.recorded)}")
    return lines


def step(record: Record, seat: int | None, stdin: TextIO, stdout: TextIO) -> None:
    """Walk through ``record`` one action at a time, reading commands from ``stdin``.

    Enter or ``n``: the next action; ``p``: one action back; ``q`` (or the end of input): stop.
    With ``seat``, only what that seat saw is printed, and before each of its decisions its view
    and the request.
    """
    spec = game_spec(record.game)
    names = _names(record)
    total = len(record.actions)
    mine = set(decision_indices(record, seat)) if seat is not None else set()
    numbers = {index: n + 1 for n, index in enumerate(sorted(mine))}
    position = 0
    game = replay(record, upto=0)

    def say(text: str = "") -> None:
        stdout.write(text + "\n")

    def show_events(since: int) -> None:
        for ev in game.events(since):
            if seat is None or ev.visible_to(seat):
                line = event_line(DEFAULT, spec, ev, names)
                if line:
                    say(line)

    show_events(0)
    while True:
        if position < total:
            acting, data = record.actions[position]
            if position in mine:
                decision = Decision(
                    acting, numbers[position], len(mine), position, game,
                    open_request(game, acting), data,
                )  # fmt: skip
                say("")
                for line in describe_decision(record, decision):
                    say(line)
            stdout.write(
                f"[{position}/{total}] next: {names[acting]} (seat {acting}) {_dumps(data)}"
                "  (Enter/n: next, p: back, q: quit) "
            )
        else:
            stdout.write(f"[{total}/{total}] the end  (p: back, q: quit) ")
        stdout.flush()
        command = stdin.readline()
        if not stdin.isatty():
            say("")  # the answer typed at a terminal ends its line; piped input does not
        if not command or command.strip().lower() == "q":
            say("")
            return
        command = command.strip().lower()
        if command == "p":
            if position > 0:
                position -= 1
                game = replay(record, upto=position)
                say(f"(back to before action {position + 1})")
            continue
        if command not in ("", "n"):
            say("Enter or n: next action, p: one back, q: quit")
            continue
        if position >= total:
            continue
        before = len(game.events())
        acting, data = record.actions[position]
        game.apply(acting, game.action_from_json(data))
        position += 1
        show_events(before)
        if position == total and game.is_over():
            say("")
            say(final_table(names, game.result()))
