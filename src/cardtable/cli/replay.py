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
from cardtable.i18n import DEFAULT, SUPPORTED, event_line, from_environment, refusal, translate
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
    p.add_argument(
        "--lang",
        choices=SUPPORTED,
        default=None,
        help="the language of the log, --at and --step (default: from LANGUAGE, LC_ALL, "
        "LC_MESSAGES or LANG, else en); MATCHES / DOES NOT MATCH stay as they are for scripts",
    )


def run(args: argparse.Namespace) -> int:
    record = Record.load(args.file)
    lang = getattr(args, "lang", None) or from_environment()
    if args.seat is not None and not 0 <= args.seat < record.seats:
        raise ValueError(
            f"no seat {args.seat} in this {record.seats}-seat game (seats count from 0)"
        )
    if args.at is not None or args.ask is not None:
        if args.seat is None or args.at is None:
            raise ValueError("--at and --ask need --seat N and --at K (the seat's K-th decision)")
        return show_decision(record, args, lang)
    if args.json:
        raise ValueError("--json goes with --seat N --at K")
    ok, why = verify(record)
    if args.step:
        if not ok:
            print("DOES NOT MATCH: " + why)
            return 1
        step(record, args.seat, sys.stdin, sys.stdout, lang)
        print("MATCHES: " + why)
        return 0
    if not args.quiet and ok:
        game = replay(record)
        spec = game_spec(record.game)
        names = _names(record)
        for ev in game.events():
            if args.seat is None or ev.visible_to(args.seat):
                line = event_line(lang, spec, ev, names)
                if line:
                    print(line)
        if game.is_over():
            print()
            print(final_table(names, game.result(), lang))
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


def show_decision(record: Record, args: argparse.Namespace, lang: str = DEFAULT) -> int:
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
    print("\n".join(describe_decision(record, decision, lang)))
    if answer is not None:
        print()
        if answer.same:
            verdict = translate(lang, "replay.same")
        elif answer.problem:
            problem = refusal(lang, answer.refused) if answer.refused else answer.problem
            verdict = translate(lang, "replay.refused", problem=problem)
        else:
            verdict = translate(lang, "replay.different")
        action = _dumps(answer.action)
        print(translate(lang, "replay.asked", bot=args.ask, seed=str(seed), action=action,
                        verdict=verdict))  # fmt: skip
        if answer.output:
            print(translate(lang, "replay.printed"))
            for line in answer.output.rstrip("\n").splitlines():
                print(f"  | {line}")
    return 0


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(", ", ": "))


def describe_decision(record: Record, decision: Decision, lang: str = DEFAULT) -> list[str]:
    """What ``cardtable replay --seat N --at K`` prints for a decision, in ``lang``."""
    names = _names(record)
    seat = decision.seat
    lines = [
        translate(
            lang, "replay.decision", name=names[seat], seat=seat, number=decision.number,
            of=decision.of, action=decision.upto + 1, actions=len(record.actions),
            upto=str(decision.upto),
        ),
    ]  # fmt: skip
    lines += view_lines(record, decision.game, seat, lang)
    lines += request_lines(decision.game, decision, lang)
    return lines


def view_lines(record: Record, game: Game, seat: int, lang: str = DEFAULT) -> list[str]:
    spec = game_spec(record.game)
    obs = game.observe(seat)
    if spec.describe_view is not None:
        return views_in_words(lang, spec, obs, record.rules, _names(record))
    return [translate(lang, "replay.observation", json=_dumps(game.observe_json(seat)))]


def request_lines(game: Game, decision: Decision, lang: str = DEFAULT) -> list[str]:
    """The request (its kind, info and choices: codes, as the bot got them) and the answer."""
    data = game.request_to_json(decision.request)
    lines = [translate(lang, "replay.request", kind=data["kind"])]
    if data["info"]:
        lines.append("  " + translate(lang, "replay.info", json=_dumps(data["info"])))
    if data["choices"] is None:
        lines.append("  " + translate(lang, "replay.no_choices"))
    else:
        lines.append("  " + translate(lang, "replay.choices", json=_dumps(data["choices"])))
    lines.append(translate(lang, "replay.recorded", json=_dumps(decision.recorded)))
    return lines


def step(
    record: Record, seat: int | None, stdin: TextIO, stdout: TextIO, lang: str = DEFAULT
) -> None:
    """Walk through ``record`` one action at a time, reading commands from ``stdin``.

    Enter or ``n``: the next action; ``p``: one action back; ``q`` (or the end of input): stop.
    With ``seat``, only what that seat saw is printed, and before each of its decisions its view
    and the request. Everything is said in ``lang``.
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
                line = event_line(lang, spec, ev, names)
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
                for line in describe_decision(record, decision, lang):
                    say(line)
            stdout.write(
                translate(lang, "replay.next", position=position, total=total,
                          name=names[acting], seat=acting, action=_dumps(data)) + " "
            )  # fmt: skip
        else:
            stdout.write(translate(lang, "replay.end", total=total) + " ")
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
                say(translate(lang, "replay.back", action=position + 1))
            continue
        if command not in ("", "n"):
            say(translate(lang, "replay.keys"))
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
            say(final_table(names, game.result(), lang))
