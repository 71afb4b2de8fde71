"""A fingerprint of the engine's behaviour: one hash over many games of every rule set.

Each game is played step by step with ``random`` and ``heuristic`` bots (and, on each preset, a
game with an ``expert``, whose playouts run ``bots/sim.py``). Hashed: every request
(seat, kind, choices, info), the observation of the seat asked (as JSON), the refusals of probe
actions (wrong seat types, a seat out of range, an illegal kind) with their exception class and
message, every event, the result and the record. Two engines with the same fingerprint play the
same games and refuse the same actions with the same words.

``python tests/games/kuhhandel/fingerprint.py [--games N] [--part K/N]`` prints the hash (of
every game, or of the K-th of N parts); tests/games/kuhhandel/test_compiled.py compares the plain
and the compiled build with it, part by part.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from dataclasses import replace
from typing import Any

from cardtable.core import ActionError, Game
from cardtable.core.match import start_agents
from cardtable.games import kuhhandel as K
from cardtable.games.kuhhandel.bots import ExpertBot, HeuristicBot, RandomBot

TABLES: list[tuple[str, Any, int]] = [
    ("classic", K.CLASSIC, 4),
    ("competition", K.COMPETITION, 5),
    ("master", K.MASTER, 4),
    ("master-duel", K.MASTER_DUEL, 2),
    ("open", replace(K.CLASSIC, auction_style="open"), 3),
    ("variants", replace(K.MASTER, super_trade=True, double_auction=True, exam=True), 3),
    ("random-setup", K.random_rules(7, 4), 4),
]
PROBES: list[tuple[Any, Any]] = [
    ("x", {"kind": "pass"}),
    (True, {"kind": "pass"}),
    (1.0, {"kind": "pass"}),
    (99, {"kind": "pass"}),
    (0, {"kind": "no-such-kind"}),
    (0, {"kind": "bid", "amount": "ten"}),
    (0, {"kind": "pay", "notes": [7, 7]}),
]


def _default(value: Any) -> Any:
    if hasattr(value, "to_json"):
        return value.to_json()
    if isinstance(value, set | frozenset):
        return sorted(value)
    return repr(value)


def _line(h: Any, *parts: Any) -> None:
    h.update(json.dumps(parts, default=_default, sort_keys=True).encode())
    h.update(b"\n")


def play(h: Any, rules: Any, seats: int, seed: int, mix: str) -> None:
    game: Game = K.new_game(rules, seats, seed)
    if mix == "random":
        bots: list[Any] = [RandomBot(seed * 10 + s) for s in range(seats)]
    elif mix == "expert":  # the expert's playouts run the model of bots/sim.py; no clock
        bots = [ExpertBot(seed, iterations=6, time_cap=None)]
        bots += [HeuristicBot(s) if s % 2 else RandomBot(seed * 10 + s) for s in range(1, seats)]
    else:
        bots = [HeuristicBot() if s % 2 else RandomBot(seed * 10 + s) for s in range(seats)]
    start_agents(game, bots)
    step = 0
    while True:
        pending = game.pending()
        if not pending:
            break
        request = pending[0]
        seat, kind, choices, info = request
        observation = game.observe(seat)
        _line(h, "request", seat, kind, choices, info, observation.to_json())
        if step % 37 == 0:
            for probe_seat, probe in PROBES:
                try:
                    game.apply(probe_seat, probe)
                    _line(h, "accepted", probe_seat, probe)
                    return  # a probe was legal here: the game went on differently; stop it
                except ActionError as exc:
                    _line(h, "refused", type(exc).__name__, exc.reason)
        action = bots[seat].act(observation, request)
        game.apply(seat, action)
        step += 1
    _line(h, "events", [(e.kind, e.data, e.to) for e in game.events()])
    _line(h, "result", game.result().to_json())
    _line(h, "record", game.record().to_json())


def games_of(games: int = 4, expert: int = 1) -> list[tuple[str, Any, int, int, str]]:
    """Every game the fingerprint plays, in order: (table, rules, seats, seed, bot mix)."""
    listed = [
        (name, rules, seats, seed, mix)
        for name, rules, seats in TABLES
        for seed in range(games)
        for mix in ("random", "mixed")
    ]
    # the presets, with an expert (slower)
    listed += [(name, r, s, seed, "expert") for name, r, s in TABLES[:4] for seed in range(expert)]
    return listed


def fingerprint(games: int = 4, expert: int = 1, part: int = 0, parts: int = 1) -> str:
    """The hash of every game (``parts`` > 1: of every ``parts``-th game from the ``part``-th,
    so that the parts together play each game once)."""
    h = hashlib.sha256()
    for name, rules, seats, seed, mix in games_of(games, expert)[part::parts]:
        _line(h, "game", name, seed, mix)
        play(h, rules, seats, seed, mix)
    return h.hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4, help="seeds per table and bot mix")
    parser.add_argument("--expert", type=int, default=1, help="seeds per preset with an expert")
    parser.add_argument("--part", default="1/1", help="K/N: only every N-th game from the K-th")
    args = parser.parse_args()
    part, parts = (int(n) for n in args.part.split("/"))
    print(fingerprint(args.games, args.expert, part - 1, parts))


if __name__ == "__main__":
    main()
