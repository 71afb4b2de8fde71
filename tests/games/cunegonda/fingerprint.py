"""A fingerprint of the Cunegonda engine's behaviour (and its bots'): one hash over many games.

Each match is played step by step with ``random``, ``heuristic`` and ``expert`` bots. Hashed:
every open request, the observation of the seat asked (as JSON), the refusals of probe actions
(wrong seat types, a seat out of range, malformed and illegal cards) with their exception class
and message, every event, the result and the record. Two builds with the same fingerprint play
the same matches and refuse the same actions with the same words.

``python tests/games/cunegonda/fingerprint.py [--games N]`` prints the hash;
tests/games/kuhhandel/test_compiled.py compares the plain and the compiled build with it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from typing import Any

from cardtable.core import ActionError, Game
from cardtable.core.match import start_agents
from cardtable.games import cunegonda as C
from cardtable.games.cunegonda.bots import ExpertBot, HeuristicBot, RandomBot

TABLES: list[tuple[str, Any]] = [("standard", C.STANDARD), ("short", C.SHORT)]
PROBES: list[tuple[Any, Any]] = [
    ("x", 0),
    (True, 0),
    (1.0, 0),
    (99, 0),
    (0, "QS"),
    (0, 52),
    (0, (0, 1)),
    (0, None),
    (1, 51),
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


def _bots(seed: int, mix: str) -> list[Any]:
    if mix == "random":
        return [RandomBot(seed * 10 + s) for s in range(C.SEATS)]
    if mix == "expert":
        return [
            ExpertBot(seed, iterations=4, time_cap=None),
            HeuristicBot(seed + 1),
            RandomBot(seed * 10 + 2),
            HeuristicBot(seed + 3),
        ]
    return [HeuristicBot(seed + s) if s % 2 else RandomBot(seed * 10 + s) for s in range(C.SEATS)]


def play(h: Any, rules: Any, seed: int, mix: str) -> None:
    game: Game = C.new_game(rules, C.SEATS, seed)
    bots = _bots(seed, mix)
    start_agents(game, bots)
    step = 0
    while True:
        pending = game.pending()
        if not pending:
            break
        _line(h, "pending", [tuple(r) for r in pending])
        request = pending[-1] if step % 2 else pending[0]
        seat = request.seat
        observation = game.observe(seat)
        _line(h, "request", tuple(request), observation.to_json())
        if step % 23 == 0:
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


def fingerprint(games: int = 3, expert: int = 1) -> str:
    h = hashlib.sha256()
    for name, rules in TABLES:
        for seed in range(games):
            for mix in ("random", "mixed"):
                _line(h, "game", name, seed, mix)
                play(h, rules, seed, mix)
    for seed in range(expert):
        _line(h, "game", "short", seed, "expert")
        play(h, C.SHORT, seed, "expert")
    return h.hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3, help="seeds per rule set and bot mix")
    parser.add_argument("--expert", type=int, default=1, help="short matches with an expert")
    args = parser.parse_args()
    print(fingerprint(args.games, args.expert))


if __name__ == "__main__":
    main()
