"""``cardtable bench``: engine speed with bots, in complete games and decisions per second."""

from __future__ import annotations

import argparse
import json
import os
import time
from typing import Any

from cardtable.cli.play import build_agents, seat_refs
from cardtable.core import game_spec, run_match
from cardtable.core.compiled import build_line, engine_build
from cardtable.stdio.spec import is_program_ref

HELP = "measure engine speed: games/s, decisions/s and µs per decision on one core"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "game",
        help="kuhhandel or cunegonda (the engine); also 'cardtable bench server' (the cluster), "
        "'bench analysis' (the expert's analysis), 'bench analysis-latency' (live tables "
        "while analyses run) and 'bench table' (the browser table's cost in Chromium)",
    )
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
    p.add_argument(
        "--frames",
        action="store_true",
        help="measure the protocol's schema checks instead: µs per client frame parsed "
        "(hello, join, resume...) and per server frame validated (the requests and events of "
        "--games games, as the server sends them)",
    )
    p.add_argument(
        "--skeleton",
        action="store_true",
        help="also play the same number of games with a bare Python skeleton of classic "
        "Kuhhandel (no checks, no events: cardtable/cli/skeleton.py), interleaved with the "
        "engine's runs, and report the engine's games/s as a share of the skeleton's "
        "(kuhhandel classic with random bots only)",
    )
    p.add_argument(
        "--train",
        action="store_true",
        help="measure training instead (kuhhandel; needs cardtable[rl,train]): MaskablePPO's "
        "learner steps per CPU second and the environments' share, with one environment and "
        "with the default batch (--train-envs), the rollout kept at 2048 steps",
    )
    p.add_argument(
        "--train-envs", default="1,8", help="--train: numbers of envs compared (default 1,8)"
    )
    p.add_argument(
        "--train-steps", type=int, default=4096, help="--train: learner steps per run (4096)"
    )
    p.add_argument(
        "--train-repeat", type=int, default=2, help="--train: interleaved runs, best kept (2)"
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
    if args.frames:
        return _frames(args, spec, rules, seats, refs)
    if args.train:
        return _train_speed(args)
    if any(is_program_ref(r) for r in refs):
        return _program_overhead(args, rules, seats, refs)
    if not args.json:
        print(build_line([args.game]), flush=True)
    if args.skeleton and (
        args.game != "kuhhandel"
        or spec.rules_name(rules) != "classic"
        or any(r != "random" for r in refs)
    ):
        raise ValueError("--skeleton is classic Kuhhandel with random bots only")
    runs: list[tuple[float, float, int, dict[str, int]]] = []
    skeleton_runs: list[tuple[float, int]] = []
    for _ in range(max(1, args.repeat)):  # interleaved: both see the same load
        runs.append(_play_games(args, spec, rules, seats, refs))
        if args.skeleton:
            skeleton_runs.append(_play_skeleton(args, seats))
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
        "engine_build": engine_build(args.game),
        "runs": len(runs),
        "games_per_second_each_run": [round(args.games / r[0], 1) for r in runs],
    }
    if skeleton_runs:
        sk_elapsed, sk_decisions = min(skeleton_runs)
        sk_rate = args.games / sk_elapsed
        out["skeleton_games_per_second"] = round(sk_rate, 1)
        out["skeleton_decisions_per_game"] = round(sk_decisions / args.games, 1)
        out["skeleton_games_per_second_each_run"] = [
            round(args.games / r[0], 1) for r in skeleton_runs
        ]
        out["vs_skeleton"] = round(out["games_per_second"] / sk_rate, 3)
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
        if skeleton_runs:
            print(
                f"bare Python skeleton of the game (no checks, no events; cli/skeleton.py), the "
                f"same number of games, runs interleaved with the engine's:\n"
                f"  {out['skeleton_games_per_second']} games/s, "
                f"{out['skeleton_decisions_per_game']} decisions/game\n"
                f"  engine ({out['engine_build']}) ÷ skeleton, games/s: {out['vs_skeleton']}"
            )
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


def _program_overhead(args: argparse.Namespace, rules: object, seats: int, refs: list[str]) -> int:
    """``--bots cmd:...``: a program's cost per decision beside the same rule in this process
    (:mod:`cardtable.stdio.overhead`)."""
    from cardtable.stdio.overhead import measure

    out = measure(args.game, rules, seats, refs, args.games, args.seed)
    out = {"game": args.game, "seats": seats, "bots": refs, "games": args.games, **out}
    if args.json:
        print(json.dumps(out, indent=1))
        return 0
    print(
        f"{args.game} {seats} seats, bots {','.join(refs)}: {args.games} games, each played "
        f"with the program and with the Python starter kit's rule in this process\n"
        f"  program: {out['program_decisions']} decisions, {out['program_us_per_decision']} µs "
        f"mean (p50 {out['program_us_p50']}, p99 {out['program_us_p99']})\n"
        f"  in process: {out['python_decisions']} decisions, {out['python_us_per_decision']} µs "
        f"mean (p50 {out['python_us_p50']})\n"
        f"  stdio adapter overhead per decision: {out['adapter_overhead_us_per_decision']} µs "
        f"mean, {out['adapter_overhead_us_p50']} µs p50"
    )
    if len(out["programs"]) > 1:  # each program apart, in the same games and run
        for each in out["programs"]:
            print(
                f"  {each['ref'][:60]}{'...' if len(each['ref']) > 60 else ''}: "
                f"{each['decisions']} decisions, {each['us_per_decision']} µs mean "
                f"(p50 {each['us_p50']}, p99 {each['us_p99']}); start-up to ready: "
                f"p50 {each['start_ms_p50']} ms over {each['starts']} starts"
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


def _play_skeleton(args: argparse.Namespace, seats: int) -> tuple[float, int]:
    """The skeleton's games of the same seeds: CPU seconds, decisions."""
    from cardtable.cli.skeleton import play

    decisions = 0
    c0 = time.process_time()
    for g in range(args.games):
        decisions += play(seats, args.seed + g)[0]
    return max(time.process_time() - c0, 1e-9), decisions


def _env_speed(args: argparse.Namespace, rules: object, seats: int) -> dict[str, object]:
    """The RL section of the report (see cardtable.rl.speed): the engine is measured again there,
    interleaved with the environment, so that the ratios compare runs under the same load."""
    from cardtable.rl.speed import compare

    games = args.env_games or args.games
    return compare(args.game, rules, seats, games, args.seed, args.env_repeat)


def _train_speed(args: argparse.Namespace) -> int:
    """``--train``: learner steps per CPU second of the ``learned`` recipe with each number of
    envs (:func:`cardtable.rl.train.speed`)."""
    if args.game != "kuhhandel":
        raise ValueError("--train measures the learned bot's training: kuhhandel only")
    from cardtable.rl.train import ROLLOUT, speed

    envs = [int(n) for n in args.train_envs.split(",")]
    if not envs or min(envs) < 1:
        raise ValueError("--train-envs: numbers of environments, at least 1 each (1,8)")
    out = speed(envs, args.train_steps, args.train_repeat)
    if args.json:
        print(json.dumps(out, indent=1))
        return 0
    print(
        f"MaskablePPO, preset {out['train_preset']} (classic, 4 seats, three heuristic "
        f"opponents), rollout {ROLLOUT} steps, {args.train_steps} learner steps per run, best "
        f"of {out['train_repeat']} interleaved runs; CPU time of this process:"
    )
    for row in out["train"]:
        print(
            f"  {row['envs']} envs × n_steps {row['n_steps']}: "
            f"{row['steps_per_cpu_second']} learner steps per CPU second "
            f"({row['steps']} steps in {row['cpu_seconds']} s; environments "
            f"{100 * row['env_share']:.0f}% of it); × {row['vs_first']} of the first"
        )
    return 0


#: Client frames as bots and browsers send them (the action frame takes the parser's short path).
CLIENT_FRAMES: list[dict[str, Any]] = [
    {"type": "hello", "protocol": 1, "bot": "alice", "token": "x" * 43, "events_in_request": True},
    {"type": "hello", "protocol": 1, "guest": "Ada", "push_observations": True},
    {"type": "join", "lobby": "ranked", "game": "kuhhandel", "rules": "classic"},
    {"type": "join", "lobby": "practice", "game": "cunegonda", "opponents": ["random", "expert"]},
    {
        "type": "join",
        "lobby": "private",
        "game": "kuhhandel",
        "create": {"rules": "classic", "seats": 3, "bots": ["random"], "quiet_ms": 2500},
    },
    {"type": "resume", "game_id": "g1", "since": 10},
    {"type": "leave"},
]


def _server_frames(
    args: argparse.Namespace, spec: Any, rules: object, seats: int, refs: list[str]
) -> list[dict[str, Any]]:
    """The request and event frames a server sends for ``args.games`` games, decoded from their
    wire text (as a client sees them)."""
    from cardtable.protocol import dumps

    frames: list[dict[str, Any]] = []
    for g in range(args.games):
        seed = args.seed + g
        game = spec.new_game(rules, seats, seed)
        agents = build_agents(args.game, refs, seed)
        events = 0
        while not game.is_over():
            request = game.pending()[0]
            message = {
                "type": "request",
                "game_id": f"g{g}",
                "request_id": str(len(frames)),
                "request": game.request_to_json(request),
                "observation": game.observe_json(request.seat),
                "deadline_ms": 5000,
                "time_bank_ms": 60000,
            }
            frames.append(json.loads(dumps(message)))
            agent = agents[request.seat]
            wants = getattr(agent, "wants_observation", True)
            observation = game.observe(request.seat) if wants else None
            game.apply(request.seat, agent.act(observation, request))
            for ev in game.events(events):
                event = {"kind": ev.kind, "data": dict(ev.data)}
                message = {"type": "event", "game_id": f"g{g}", "index": events, "event": event}
                frames.append(json.loads(dumps(message)))
                events += 1
    return frames


def _observations(
    args: argparse.Namespace, spec: Any, rules: object, seats: int, refs: list[str]
) -> list[Any]:
    """The observation of the seat asked at every decision of ``args.games`` games."""
    views: list[Any] = []
    for g in range(args.games):
        seed = args.seed + g
        game = spec.new_game(rules, seats, seed)
        agents = build_agents(args.game, refs, seed)
        while not game.is_over():
            request = game.pending()[0]
            views.append(game.observe(request.seat))
            game.apply(request.seat, agents[request.seat].act(views[-1], request))
    return views


def _frames(args: argparse.Namespace, spec: Any, rules: object, seats: int, refs: list[str]) -> int:
    """``--frames``: the schema checks' cost per frame (CPU time, best of ``--repeat`` runs)."""
    from cardtable.protocol import messages, parse_client_message, validate_server_message

    texts = [json.dumps(f) for f in CLIENT_FRAMES]
    server = _server_frames(args, spec, rules, seats, refs)
    rounds = max(1, 20000 // len(texts))

    def client_run() -> float:
        c0 = time.process_time()
        for _ in range(rounds):
            for text in texts:
                parse_client_message(text)
        return time.process_time() - c0

    def server_run() -> float:
        c0 = time.process_time()
        for frame in server:
            validate_server_message(frame)
        return time.process_time() - c0

    # the observations of those requests: built into JSON by the server for the seat asked,
    # decoded back into the engine's value by the client library (``GameCodec``)
    from cardtable.client.seat import GameCodec

    observed = _observations(args, spec, rules, seats, refs)
    codec = GameCodec(args.game, spec.new_game(rules, seats, 0).rules_json(), seats)
    wire_views = [json.loads(json.dumps(view.to_json())) for view in observed]

    def encode_view_run() -> float:
        c0 = time.process_time()
        for view in observed:
            view.to_json()
        return time.process_time() - c0

    def decode_view_run() -> float:
        c0 = time.process_time()
        for data in wire_views:
            codec.observation(data)
        return time.process_time() - c0

    def decode_run() -> float:  # what json.loads alone costs for the client frames
        c0 = time.process_time()
        for _ in range(rounds):
            for text in texts:
                json.loads(text)
        return time.process_time() - c0

    from cardtable.protocol.schema import VALIDATORS, selected_validator, use_validator

    repeat = max(1, args.repeat)
    n_views = max(len(observed), 1)
    n_client = rounds * len(texts)
    # both validators in turn, each run after the other, so that both see the same load
    runs: dict[str, dict[str, list[float]]] = {v: {"client": [], "server": []} for v in VALIDATORS}
    before = selected_validator()
    try:
        for _ in range(repeat):
            for name in VALIDATORS:
                use_validator(name)
                runs[name]["client"].append(client_run())
                runs[name]["server"].append(server_run())
    finally:
        use_validator(before)
    decode = min(decode_run() for _ in range(repeat))
    encoded = min(encode_view_run() for _ in range(repeat))
    decoded = min(decode_view_run() for _ in range(repeat))
    by_validator = {
        name: {
            "client_us_per_frame": round(min(r["client"]) / n_client * 1e6, 2),
            "server_us_per_frame": round(min(r["server"]) / max(len(server), 1) * 1e6, 2),
        }
        for name, r in runs.items()
    }
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    out = {
        "validator": messages.VALIDATOR,
        "validators": by_validator,
        "client_frames": n_client,
        "client_us_per_frame": by_validator[before]["client_us_per_frame"],
        "client_json_us_per_frame": round(decode / n_client * 1e6, 2),
        "server_frames": len(server),
        "server_events": sum(1 for f in server if f["type"] == "event"),
        "server_us_per_frame": by_validator[before]["server_us_per_frame"],
        "observations": len(observed),
        "observation_to_json_us": round(encoded / n_views * 1e6, 2),
        "observation_from_json_us": round(decoded / n_views * 1e6, 2),
        "server_game": f"{args.game} {spec.rules_name(rules)} {seats} seats, {args.games} games",
        "runs": repeat,
        "load_average": round(load, 1),
    }
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        lines = [
            f"protocol schema checks, CPU time, best of {repeat} (runs in turn), load average "
            f"{out['load_average']}; the server decides with {before}:"
        ]
        for name, figures in by_validator.items():
            lines.append(
                f"  {name}: client frames (hello, join, resume, leave) "
                f"{figures['client_us_per_frame']} µs per frame parsed and checked, server frames "
                f"{figures['server_us_per_frame']} µs per frame validated"
            )
        lines.append(
            f"  of a client frame, json.loads alone: {out['client_json_us_per_frame']} µs; "
            f"{n_client} client frames, {len(server)} server frames (requests with observations, "
            f"events of {out['server_game']})\n"
            f"  observations of the seat asked: {out['observation_to_json_us']} µs to JSON "
            f"(the server), {out['observation_from_json_us']} µs back from JSON (the client "
            f"library), {len(observed)} observations"
        )
        print("\n".join(lines))
    return 0
