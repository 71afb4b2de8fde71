"""``cardtable play``: one game between built-in bots, bot files or a person in the terminal.

A bot's mistake (it raises, answers something the engine refuses, or passes the deadline) is
named with the seat, the bot and the request. Without ``--fallback`` it stops the game (exit code
3); with it, the fallback bot answers that decision and the game goes on, as in the arena.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections import Counter
from typing import Any

from cardtable.arena.guard import GuardedAgent, guard_agent
from cardtable.arena.plan import is_file_ref
from cardtable.arena.play import CATEGORIES
from cardtable.core import (
    Agent,
    Fault,
    Game,
    MatchLog,
    Request,
    game_spec,
    load_bot,
    run_match,
    split_bot_list,
    split_bot_ref,
)
from cardtable.core.contract import Event, GameInfo
from cardtable.i18n import SUPPORTED, event_line, from_environment, translate
from cardtable.stdio.spec import is_program_ref, parse_program_ref

HELP = "play one game and print it (bots by name or file; 'human' for a person at the terminal)"

EPILOG = """\
exit codes:
  0  the game was played to its end (faults answered by --fallback are listed, not errors)
  2  a bad argument: unknown game, rule set, bot or option
  3  a bot failed a decision (raised, answered something the engine refused, or passed
     --deadline) and there was no --fallback: the game stopped; the message names the seat,
     the bot and the request
"""

#: Exit code of ``cardtable play`` when a bot failed a decision and no fallback answered it.
EXIT_BOT_FAILED = 3

#: A server's default deadline per decision (``deadline_ms`` in docs/server.md): a bot slower
#: than this locally gets a warning.
SERVER_DEADLINE_S = 2.0


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.epilog = EPILOG
    p.formatter_class = argparse.RawDescriptionHelpFormatter
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
    p.add_argument(
        "--lang",
        choices=SUPPORTED,
        default=None,
        help="the language of the log and of a human seat (default: from LANGUAGE, LC_ALL, "
        "LC_MESSAGES or LANG, else en)",
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--json", action="store_true", help="print the result as JSON instead of the log"
    )
    p.add_argument("--record", metavar="FILE", help="write the game record to FILE")
    p.add_argument("--quiet", action="store_true", help="print only the final table")
    p.add_argument(
        "--deadline",
        type=float,
        default=5.0,
        metavar="SEC",
        help="seconds a bot from a file may take per decision (default 5; 0 = no deadline), as "
        "the arena's --deadline",
    )
    p.add_argument(
        "--fallback",
        default=None,
        metavar="BOT",
        help="a bot that answers a decision another bot failed, so the game goes on (as the "
        "arena); without it the first failure stops the game (exit code 3)",
    )


def bot_seed(seed: int, seat: int) -> int:
    """The seed of the bot at ``seat`` in ``cardtable play --seed SEED`` (stored in records)."""
    return seed * 1000 + seat


def build_agents(
    game: str, refs: list[str], seed: int, deadline: float | None = None, lang: str = "en"
) -> list[Agent]:
    """One agent per seat; a program (``cmd:...``) answers within ``deadline`` seconds (its own
    reference's, else 5, when ``None``)."""
    agents: list[Agent] = []
    for i, ref in enumerate(refs):
        if ref == "human":
            from cardtable.cli.human import TerminalPlayer

            agents.append(TerminalPlayer(game, lang=lang))
        else:
            own = {"deadline": deadline} if deadline and is_program_ref(ref) else {}
            agents.append(load_bot(game, ref, seed=bot_seed(seed, i), **own))
    return agents


def bot_label(ref: str) -> str:
    """``mybot`` for ``path/mybot.py:MyBot``, ``bot`` for ``cmd:node bot.js``."""
    if is_program_ref(ref):
        return parse_program_ref(ref).label
    return split_bot_ref(ref)[0].rsplit(":", 1)[-1].removesuffix(".py")


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
        else tuple(f"{bot_label(r)}-{i}" for i, r in enumerate(refs))
    )
    lang = args.lang or from_environment()
    agents = build_agents(args.game, refs, args.seed, args.deadline or None, lang)
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
        line = event_line(lang, spec, ev, names)
        if line:
            print(line)

    if args.deadline < 0:
        raise ValueError("--deadline must not be negative")
    if args.fallback is not None:
        load_bot(args.game, args.fallback, seed=0)  # a bad fallback is a bad argument, now
    guarded = [
        guard_agent(agent, args.deadline or None, names[seat]) if is_file_ref(refs[seat]) else agent
        for seat, agent in enumerate(agents)
    ]
    referee = Referee(args.game, game, refs, names, args.fallback, args.seed)
    log = MatchLog()
    try:
        result = run_match(
            game,
            guarded,
            names=names,
            on_event=show if verbose else None,
            fallback=referee.fallback,
            log=log,
        )
    except BotFailed as stop:
        fault = log.faults[-1]
        print(referee.explain(fault, stop.request), file=sys.stderr)
        if args.record:
            partial = dataclasses.replace(game.record(), names=names, meta=_meta(refs, args.seed))
            partial.save(args.record)
            print(
                f"the game so far ({len(partial.actions)} actions) is in {args.record}: "
                f"cardtable replay {args.record} --seat {fault.seat} --step",
                file=sys.stderr,
            )
        return EXIT_BOT_FAILED
    finally:
        for agent in guarded:
            if isinstance(agent, GuardedAgent):
                agent.close()
    for seat, agent in enumerate(guarded):
        if isinstance(agent, GuardedAgent):
            if agent.think_max > SERVER_DEADLINE_S and not agent.abandoned:
                print(
                    f"cardtable: warning: seat {seat} ({names[seat]}, {refs[seat]}) took "
                    f"{agent.think_max:.1f} s for its slowest decision; a server gives "
                    f"{SERVER_DEADLINE_S:g} s per decision by default (then its time bank)",
                    file=sys.stderr,
                )
            for hook, _error, why in agent.hook_faults:
                print(
                    f"cardtable: warning: seat {seat} ({names[seat]}, {refs[seat]}): its {hook} "
                    f"hook failed: {why} (ignored)",
                    file=sys.stderr,
                )
    record = game.record()
    record = dataclasses.replace(record, names=names, meta=_meta(refs, args.seed))
    if args.record:
        record.save(args.record)
    if args.json:
        out: dict[str, Any] = {
            "game": args.game,
            "rules": spec.rules_name(rules),
            "seed": args.seed,
        }
        out["names"] = list(names)
        out["result"] = result.to_json()  # as in records: places from 0
        out["places"] = [p + 1 for p in result.places]  # as people count: 1 is first
        out["decisions"] = len(record.actions)
        out["faults"] = [
            {
                "seat": f.seat,
                "bot": refs[f.seat],
                "category": category(f),
                "request": f.request_kind,
                "reason": f.reason,
            }
            for f in log.faults
        ]
        json.dump(out, sys.stdout, indent=1)
        print()
        return 0
    print()
    print(final_table(names, result, lang))
    for line in fault_summary(log.faults, names, refs, args.fallback):
        print(line)
    if args.record:
        print(f"record written to {args.record}")
    return 0


def final_table(names: tuple[str, ...], result: Any, lang: str = "en") -> str:
    lines = [
        translate(lang, "play.result", termination=result.termination.value, reason=result.reason)
    ]
    money = result.details.get("money") if result.details else None
    order = sorted(range(len(names)), key=lambda s: (result.places[s], s))
    width = max(len(n) for n in names)
    for s in order:
        extra = "  " + translate(lang, "play.money", money=str(money[s])) if money else ""
        lines.append(
            f"  {result.places[s] + 1}. {names[s]:<{width}}  {result.scores[s]:>8g}{extra}"
        )
    return "\n".join(lines)


def _meta(refs: list[str], seed: int) -> dict[str, Any]:
    """What a record of ``cardtable play`` keeps besides the game: the bots and their seeds (so
    ``cardtable replay --ask`` can seed a bot as it was)."""
    return {"play": {"bots": refs, "bot_seeds": [bot_seed(seed, i) for i in range(len(refs))]}}


def category(fault: Fault) -> str:
    """The arena's word for a fault: raised, invalid, illegal, timeout, replaced."""
    return CATEGORIES.get(fault.error, "raised")


class BotFailed(Exception):
    """A bot failed a decision and no fallback was given: the game stops."""

    def __init__(self, request: Request | None) -> None:
        super().__init__("a bot failed a decision")
        self.request = request


class Referee:
    """Answers a failed decision with the ``--fallback`` bot, or stops the game without one."""

    def __init__(
        self,
        game_name: str,
        game: Game,
        refs: list[str],
        names: tuple[str, ...],
        fallback: str | None,
        seed: int,
    ) -> None:
        self.game_name = game_name
        self.game = game
        self.refs = refs
        self.names = names
        self.ref = fallback
        self.seed = seed
        self.backups: dict[int, Agent] = {}

    def fallback(self, seat: int) -> Agent:
        if self.ref is None:
            pending = [r for r in self.game.pending() if r.seat == seat]
            raise BotFailed(pending[0] if pending else None)
        backup = self.backups.get(seat)
        if backup is None:
            backup = load_bot(self.game_name, self.ref, seed=bot_seed(self.seed, seat) + 500)
            start_agents_for(self.game, backup, seat, self.names)
            self.backups[seat] = backup
        return backup

    def explain(self, fault: Fault, request: Request | None) -> str:
        """The message for a failure that stopped the game."""
        seat = fault.seat
        lines = [
            f"cardtable: seat {seat} ({self.names[seat]}, bot {self.refs[seat]}) failed its "
            f"'{fault.request_kind}' request: {category(fault)}: {fault.reason}",
        ]
        if request is not None:
            shown = json.dumps(self.game.request_to_json(request), separators=(", ", ": "))
            lines.append(f"  the request: {shown}")
        number = sum(1 for s, _a in self.game.history() if s == seat) + 1
        lines.append(
            f"  the game stopped after {len(self.game.history())} actions, at seat {seat}'s "
            f"decision {number}; --fallback heuristic lets a fallback bot answer such decisions "
            "and goes on (exit code 3)"
        )
        return "\n".join(lines)


def start_agents_for(game: Game, agent: Agent, seat: int, names: tuple[str, ...]) -> None:
    start = getattr(agent, "start", None)
    if start is not None:
        start(seat, GameInfo(game.name, game.rules_json(), game.seats, seat, names))


def fault_summary(
    faults: list[Fault], names: tuple[str, ...], refs: list[str], fallback: str | None
) -> list[str]:
    """Per faulty seat: how many decisions the fallback answered, by kind, and the top reasons."""
    lines: list[str] = []
    for seat in sorted({f.seat for f in faults}):
        mine = [f for f in faults if f.seat == seat]
        kinds = Counter(category(f) for f in mine)
        counts = ", ".join(f"{k} {n}" for k, n in sorted(kinds.items()))
        lines.append(
            f"faults of seat {seat} ({names[seat]}, bot {refs[seat]}): {len(mine)} decision(s) "
            f"answered by the fallback {fallback}: {counts}"
        )
        reasons = Counter((category(f), f.request_kind, f.reason) for f in mine)
        for (kind, request, reason), n in reasons.most_common(3):
            lines.append(f"  {n} x {kind} on {request}: {reason}")
    return lines
