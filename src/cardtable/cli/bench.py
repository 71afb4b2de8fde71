"""``cardtable bench``: engine speed with bots, in complete games and decisions per second."""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from cardtable.cli.play import build_agents, seat_refs
from cardtable.core import game_spec, run_match
from cardtable.core.compiled import engine_build

HELP = "measure engine speed: games/s, decisions/s and µs per decision on one core"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("game", help="kuhhandel or cunegonda")
    p.add_argument("--rules", default=None)
    p.add_argument("--seats", type=int, default=None)
    p.add_argument("--bots", default="random")
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="play the same games this many times and report the fastest run (a shared "
        "machine only ever slows a run down); every run's games/s is listed too",
    )
    p.add_argument("--json", action="store_true")
    p.add_argument(
        "--env",
        action="store_true",
        help="also measure the RL environment (needs cardtable[rl]): env steps/s beside "
        "the engine's decisions/s",
    )
    p.add_argument("--env-games", type=int, default=None, help="games for --env (default --games)")
    p.add_argument(
        "--env-repeat",
        type=int,
        default=3,
        help="--env: interleaved runs of engine, engine with observations and env; the best "
        "rate of each is reported (default 3)",
    )


def run(args: argparse.Namespace) -> int:
    spec = game_spec(args.game)
    rules = spec.resolve_rules(args.rules)
    lo, hi = spec.seat_range(rules)
    seats = args.seats or max(lo, min(hi, 4))
    refs = seat_refs(args.bots, seats)
    runs = [_play_games(args, spec, rules, seats, refs) for _ in range(max(1, args.repeat))]
    elapsed, wall, decisions, terminations = min(runs, key=lambda r: r[0])
    out = {
        "game": args.game,
        "rules": spec.rules_name(rules),
        "seats": seats,
        "bots": refs,
        "games": args.games,
        "cpu_seconds": round(elapsed, 3),
        "wall_seconds": round(wall, 3),
        "games_per_second": round(args.games / elapsed, 1),
        "decisions_per_game": round(decisions / args.games, 1),
        "decisions_per_second": round(decisions / elapsed),
        "us_per_decision": round(elapsed / max(decisions, 1) * 1e6, 2),
        "terminations": terminations,
        "engine_build": engine_build(),
        "runs": len(runs),
        "games_per_second_each_run": [round(args.games / r[0], 1) for r in runs],
    }
    if getattr(args, "env", False):
        out.update(_env_speed(args, rules, seats))
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        print(
            f"{args.game} {out['rules']} {seats} seats, bots {','.join(refs)}: "
            f"{args.games} games in {elapsed:.2f} s of CPU ({wall:.2f} s wall)\n"
            f"  {out['games_per_second']} games/s, {out['decisions_per_game']} decisions/game, "
            f"{out['decisions_per_second']} decisions/s, {out['us_per_decision']} µs/decision\n"
            f"  terminations: {terminations}; engine build: {out['engine_build']}"
        )
        if len(runs) > 1:
            each = ", ".join(str(r) for r in out["games_per_second_each_run"])
            print(f"  fastest of {len(runs)} runs of the same games; games/s of each: {each}")
        if "env_steps_per_second" in out:
            print(
                f"RL environment, {out['env_games']} games, uniform masked policy, best of "
                f"{out['env_repeat']} interleaved runs each:\n"
                f"  {out['env_steps_per_second']} env steps/s ({out['env_us_per_step']} µs/step, "
                f"{out['env_steps_per_decision']} steps/decision), in an environment that has "
                f"played {out['env_games']} other games (as in training)\n"
                f"  the same games in a new environment: "
                f"{out['env_new_steps_per_second']} env steps/s "
                f"(÷ engine: {out['env_new_vs_engine']})\n"
                f"  engine (as above): {out['plain_decisions_per_second']} decisions/s; "
                f"with an observation per decision: "
                f"{out['observed_decisions_per_second']} decisions/s\n"
                f"  env steps/s ÷ engine decisions/s: {out['env_vs_engine']} "
                f"(÷ observed: {out['env_vs_observed']})"
            )
    return 0


def _play_games(
    args: argparse.Namespace, spec: Any, rules: object, seats: int, refs: list[str]
) -> tuple[float, float, int, dict[str, int]]:
    """Play ``args.games`` games; CPU seconds, wall seconds, decisions, terminations."""
    decisions = 0
    terminations: dict[str, int] = {}
    t0 = time.perf_counter()
    c0 = time.process_time()
    for g in range(args.games):
        seed = args.seed + g
        game = spec.new_game(rules, seats, seed)
        result = run_match(game, build_agents(args.game, refs, seed))
        decisions += len(game.history())
        terminations[result.termination.value] = terminations.get(result.termination.value, 0) + 1
    wall = time.perf_counter() - t0
    # CPU time of this process: one core's work, robust against other load on the machine.
    elapsed = max(time.process_time() - c0, 1e-9)
    return elapsed, wall, decisions, terminations


def _env_speed(args: argparse.Namespace, rules: object, seats: int) -> dict[str, object]:
    """The RL section of the report (see cardtable.rl.speed): the engine is measured again there,
    interleaved with the environment, so that the ratios compare runs under the same load."""
    from cardtable.rl.speed import compare

    games = args.env_games or args.games
    return compare(args.game, rules, seats, games, args.seed, args.env_repeat)
