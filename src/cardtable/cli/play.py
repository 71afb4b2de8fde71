"""``cardtable play``: one game between built-in bots, bot files or a person in the terminal."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from cardtable.core import (
    Agent,
    Record,
    game_spec,
    load_bot,
    run_match,
    split_bot_list,
    split_bot_ref,
)
from cardtable.core.contract import Event

HELP = "play one game and print it (bots by name or file; 'human' for a person at the terminal)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("game", help="kuhhandel or cunegonda")
    p.add_argument("--rules", default=None, help="a preset name (default: the game's default)")
    p.add_argument("--seats", type=int, default=None, help="number of seats")
    p.add_argument(
        "--bots",
        default="heuristic",
        help="comma-separated bots per seat: random, heuristic, expert, human, or path.py:Class "
        "(the last one fills the remaining seats)",
    )
    p.add_argument("--names", default=None, help="comma-separated seat names")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--json", action="store_true", help="print the result as JSON instead of the log"
    )
    p.add_argument("--record", metavar="FILE", help="write the game record to FILE")
    p.add_argument("--quiet", action="store_true", help="print only the final table")


def build_agents(game: str, refs: list[str], seed: int) -> list[Agent]:
    agents: list[Agent] = []
    for i, ref in enumerate(refs):
        if ref == "human":
            from cardtable.cli.human import TerminalPlayer

            agents.append(TerminalPlayer(game))
        else:
            agents.append(load_bot(game, ref, seed=seed * 1000 + i))
    return agents


def seat_refs(bots: str, seats: int) -> list[str]:
    refs = split_bot_list(bots)
    if not refs:
        raise ValueError("no bots given")
    if len(refs) > seats:
        raise ValueError(f"{len(refs)} bots for {seats} seats")
    return refs + [refs[-1]] * (seats - len(refs))  # the last bot fills the other seats (as arena)


def run(args: argparse.Namespace) -> int:
    spec = game_spec(args.game)
    rules = spec.resolve_rules(args.rules)
    lo, hi = spec.seat_range(rules)
    refs = split_bot_list(args.bots)
    seats = args.seats or (len(refs) if len(refs) > 1 else max(lo, min(hi, 4)))
    if not lo <= seats <= hi:
        raise ValueError(
            f"{args.game} ({spec.rules_name(rules)}) is for {lo}–{hi} seats, not {seats}"
        )
    refs = seat_refs(args.bots, seats)
    names = (
        tuple(n.strip() for n in args.names.split(","))
        if args.names
        else tuple(
            f"{split_bot_ref(r)[0].rsplit(':', 1)[-1].removesuffix('.py')}-{i}"
            for i, r in enumerate(refs)
        )
    )
    agents = build_agents(args.game, refs, args.seed)
    game = spec.new_game(rules, seats, args.seed)
    for agent in agents:
        if hasattr(agent, "check"):  # a person: let them retry instead of losing the game
            agent.game = game  # type: ignore[attr-defined]
    human_seats = [i for i, r in enumerate(refs) if r == "human"]
    verbose = not args.json and not args.quiet

    def show(ev: Event) -> None:
        # A person at the table sees only what their seat may see; with bots only, everything.
        if human_seats and not any(ev.visible_to(s) for s in human_seats):
            return
        line = spec.describe_event(ev, names)
        if line:
            print(line)

    result = run_match(game, agents, names=names, on_event=show if verbose else None)
    record = game.record()
    record = Record(**{**record.__dict__, "names": names})
    if args.record:
        record.save(args.record)
    if args.json:
        out: dict[str, Any] = {
            "game": args.game,
            "rules": spec.rules_name(rules),
            "seed": args.seed,
        }
        out["names"] = list(names)
        out["result"] = result.to_json()
        out["decisions"] = len(record.actions)
        json.dump(out, sys.stdout, indent=1)
        print()
        return 0
    print()
    print(final_table(names, result))
    if args.record:
        print(f"record written to {args.record}")
    return 0


def final_table(names: tuple[str, ...], result: Any) -> str:
    lines = [f"Result ({result.termination.value}: {result.reason})"]
    money = result.details.get("money") if result.details else None
    order = sorted(range(len(names)), key=lambda s: (result.places[s], s))
    width = max(len(n) for n in names)
    for s in order:
        extra = f"  money {money[s]}" if money else ""
        lines.append(
            f"  {result.places[s] + 1}. {names[s]:<{width}}  {result.scores[s]:>8g}{extra}"
        )
    return "\n".join(lines)
