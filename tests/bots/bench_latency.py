"""Decision latency of the ``expert`` bots (a benchmark, not a test: pytest does not collect it).

    .venv/bin/python tests/bots/bench_latency.py [--games N] [--iterations I]

Plays the expert against ``heuristic`` bots in every Kuhhandel preset and in Cunegonda and prints,
per game, the mean, 99th percentile and maximum time per decision. Two clocks: CPU time of the
deciding thread (``time.thread_time``: what one core spends, unaffected by other processes on a
shared machine) and wall time (affected by them). The server limits are mean <= 50 ms and
max <= 400 ms per decision on one core.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from cardtable.core import Event, GameInfo, Request, load_bot, run_match
from cardtable.games import cunegonda, kuhhandel


class Timed:
    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.cpu: list[float] = []
        self.wall: list[float] = []
        self.kinds: list[str] = []

    def start(self, seat: int, info: GameInfo) -> None:
        if hasattr(self.bot, "start"):
            self.bot.start(seat, info)

    def event(self, event: Event) -> None:
        if hasattr(self.bot, "event"):
            self.bot.event(event)

    def act(self, obs: Any, request: Request) -> Any:
        c, w = time.thread_time(), time.perf_counter()
        action = self.bot.act(obs, request)
        self.cpu.append(time.thread_time() - c)
        self.wall.append(time.perf_counter() - w)
        self.kinds.append(request.kind)
        return action


def _row(name: str, cpu: list[float], wall: list[float], games: int) -> str:
    def ms(xs: list[float], q: float | None = None) -> float:
        if q is None:
            return 1000 * statistics.mean(xs)
        return 1000 * sorted(xs)[min(len(xs) - 1, int(q * len(xs)))]

    return (
        f"{name:<24} {games:>5} {len(cpu) / games:>9.0f} {ms(cpu):>8.2f} {ms(cpu, 0.99):>8.1f} "
        f"{1000 * max(cpu):>8.1f} {ms(wall):>9.2f} {1000 * max(wall):>9.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8, help="games per line (default 8)")
    parser.add_argument("--iterations", type=int, default=None, help="expert budget (default)")
    args = parser.parse_args()
    options = {} if args.iterations is None else {"iterations": args.iterations}
    print(
        f"{'game':<24} {'games':>5} {'dec/game':>9} {'cpu mean':>8} {'cpu p99':>8} "
        f"{'cpu max':>8} {'wall mean':>9} {'wall max':>9}   (ms per decision)"
    )
    lines: list[tuple[str, Any, int, Any]] = [
        ("kuhhandel classic", kuhhandel.PRESETS["classic"], 4, kuhhandel),
        ("kuhhandel competition", kuhhandel.PRESETS["competition"], 5, kuhhandel),
        ("kuhhandel master", kuhhandel.PRESETS["master"], 4, kuhhandel),
        ("kuhhandel master-duel", kuhhandel.PRESETS["master-duel"], 2, kuhhandel),
        ("cunegonda standard", cunegonda.STANDARD, 4, cunegonda),
    ]
    for name, rules, seats, module in lines:
        game_name = module.SPEC.name
        cpu: list[float] = []
        wall: list[float] = []
        for g in range(args.games):
            game = module.new_game(rules, seats, g)
            agents: list[Any] = [load_bot(game_name, "heuristic", seed=s) for s in range(seats)]
            expert = Timed(load_bot(game_name, "expert", seed=g, **options))
            agents[g % seats] = expert
            run_match(game, agents)
            cpu += expert.cpu
            wall += expert.wall
        print(_row(name, cpu, wall, args.games), flush=True)


if __name__ == "__main__":
    main()
