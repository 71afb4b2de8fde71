"""Play the games of a tournament: one game, or a chunk of games in a worker.

This is the only code that runs in worker processes (or Ray tasks). It takes a
:class:`~cardtable.arena.plan.TournamentPlan` and ``(deal, rotation)`` pairs and returns plain,
picklable :class:`GameOutcome` values; everything it derives (seeds, seating, fallback bots) comes
from the plan, so where a game runs never changes what happens in it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from cardtable.core import Agent, GameInfo, MatchLog, game_spec, load_bot, run_match
from cardtable.core.registry import GAME_MODULES

from .guard import GuardedAgent, guard_agent
from .plan import TournamentPlan

#: Fault categories, by the exception class the match loop saw.
CATEGORIES = {
    "InvalidAction": "invalid",
    "IllegalAction": "illegal",
    "DecisionTimeout": "timeout",
    "BotReplaced": "replaced",
}


class ArenaError(RuntimeError):
    """A game of the tournament could not be played to its end (not a bot's fault)."""


@dataclass(frozen=True)
class FaultNote:
    """A fault of the bot at ``seat``.

    ``category`` is ``raised`` (``act`` raised), ``invalid`` / ``illegal`` (the engine refused the
    answer), ``timeout`` (no answer by the deadline), ``replaced`` (a decision the fallback answered
    because the bot was abandoned after a hang: a consequence, not a new fault) or ``hook`` (a
    ``start``/``event``/``end`` hook raised or timed out). ``request`` is the request kind or the
    hook name.
    """

    seat: int
    category: str
    request: str
    reason: str


@dataclass(frozen=True)
class GameOutcome:
    """What one game of a tournament produced. Timings are wall-clock and vary from run to run."""

    deal: int
    rotation: int
    seating: tuple[int, ...]
    termination: str
    scores: tuple[float, ...]
    places: tuple[int, ...]
    actions: int
    faults: tuple[FaultNote, ...]
    decisions: tuple[int, ...]
    think_time: tuple[float, ...]
    think_max: tuple[float, ...]


def play_chunk(plan: TournamentPlan, games: Iterable[tuple[int, int]]) -> list[GameOutcome]:
    """Play ``(deal, rotation)`` games in order. Bots' prints go to stderr, never to stdout."""
    GAME_MODULES.update(plan.extra_games)
    with contextlib.redirect_stdout(sys.stderr):
        return [play_game(plan, deal, rotation) for deal, rotation in games]


def play_game(plan: TournamentPlan, deal: int, rotation: int) -> GameOutcome:
    """Play one game of the tournament (and save its record when the plan asks for records)."""
    spec = game_spec(plan.game)
    rules = spec.resolve_rules(plan.rules)
    game = spec.new_game(rules, plan.seats, plan.deal_seed(deal))
    seating = plan.seating(rotation)
    names = tuple(plan.entries[e].label for e in seating)
    guarded: list[GuardedAgent] = []
    for seat, e in enumerate(seating):
        entry = plan.entries[e]
        bot = load_bot(plan.game, entry.ref, seed=plan.bot_seed(deal, e))
        guarded.append(guard_agent(bot, plan.deadline_for(entry), f"{names[seat]}@{seat}"))

    info_rules = game.rules_json()
    backups: dict[int, Agent] = {}

    def fallback(seat: int) -> Agent:
        backup = backups.get(seat)
        if backup is None:
            backup = load_bot(
                plan.game, plan.fallback, seed=plan.fallback_seed(deal, rotation, seat)
            )
            start = getattr(backup, "start", None)
            if start is not None:
                start(seat, GameInfo(plan.game, info_rules, plan.seats, seat, names))
            backups[seat] = backup
        return backup

    log = MatchLog()
    try:
        result = run_match(game, guarded, names=names, fallback=fallback, log=log)
    except Exception as exc:  # an engine or fallback bug: say which game, so it can be replayed
        raise ArenaError(
            f"game {plan.game} deal {deal} rotation {rotation} (game seed {game.seed}, "
            f"bots {', '.join(names)}) crashed after {len(game.history())} actions: "
            f"{type(exc).__name__}: {exc}"
        ) from exc
    finally:
        for agent in guarded:
            agent.close()

    faults = [
        FaultNote(f.seat, CATEGORIES.get(f.error, "raised"), f.request_kind, _stable(f.reason))
        for f in log.faults
    ]
    for seat, agent in enumerate(guarded):
        faults.extend(
            FaultNote(seat, "timeout" if err == "DecisionTimeout" else "hook", hook, _stable(why))
            for hook, err, why in agent.hook_faults
        )

    path = plan.record_path(deal, rotation)
    if path is not None:
        meta: dict[str, Any] = {
            "arena": {
                "deal": deal,
                "rotation": rotation,
                "seed": plan.seed,
                "bots": [plan.entries[e].ref for e in seating],
                "faults": [[f.seat, f.category, f.request, f.reason] for f in faults],
            }
        }
        dataclasses.replace(game.record(), names=names, meta=meta).save(path)

    return GameOutcome(
        deal=deal,
        rotation=rotation,
        seating=seating,
        termination=result.termination.value,
        scores=tuple(float(s) for s in result.scores),
        places=tuple(result.places),
        actions=len(game.history()),
        faults=tuple(faults),
        decisions=tuple(a.decisions for a in guarded),
        think_time=tuple(a.think_time for a in guarded),
        think_max=tuple(a.think_max for a in guarded),
    )


_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


def _stable(reason: str) -> str:
    """A fault reason without memory addresses (they differ between runs), at most 300 chars."""
    reason = _ADDRESS.sub("0x…", reason)
    return reason if len(reason) <= 300 else reason[:299] + "…"
