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
from cardtable.stdio.spec import is_program_ref

from .guard import GuardedAgent, guard_agent, queue_wait
from .plan import TournamentPlan

#: Fault categories, by the exception class the match loop saw.
CATEGORIES = {
    "InvalidAction": "invalid",
    "IllegalAction": "illegal",
    "DecisionTimeout": "timeout",
    "BotReplaced": "replaced",
    # a program's faults (cardtable.stdio)
    "ProgramCrashed": "crashed",
    "NotAMessage": "not_a_message",
    "ProgramLate": "timeout",
    "ProgramStuck": "timeout",
    "ProgramFlooded": "flood",
    "ProgramGone": "replaced",
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
    #: CPU time of the deciding thread per seat (seconds), and per-seat histograms of decision
    #: times in 0.1 ms buckets (``{bucket: count}``); empty in journals written before them.
    cpu_time: tuple[float, ...] = ()
    cpu_max: tuple[float, ...] = ()
    wall_hist: tuple[dict[int, int], ...] = ()
    cpu_hist: tuple[dict[int, int], ...] = ()
    #: Per seat, for bots that report them (``searches`` and ``capped_searches`` attributes, e.g.
    #: ``expert``): the searches it ran and how many of them its time cap ended early.
    searches: tuple[int, ...] = ()
    capped: tuple[int, ...] = ()
    #: Per seat: seconds the deciding thread waited for a core (total, longest decision's) and
    #: the longest decision's wall time without that wait; empty where not measured.
    queue_time: tuple[float, ...] = ()
    queue_max: tuple[float, ...] = ()
    own_max: tuple[float, ...] = ()


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
        # a program (cmd:...) keeps the deadline itself: it knows when its answer is late
        own = {"deadline": plan.decision_timeout} if is_program_ref(entry.ref) else {}
        bot = load_bot(plan.game, entry.ref, seed=plan.bot_seed(deal, e), **own)
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

    queued = queue_wait() is not None  # the kernel tells how long threads wait for a core
    path = plan.record_path(deal, rotation)
    if path is not None:
        meta: dict[str, Any] = {
            "arena": {
                "deal": deal,
                "rotation": rotation,
                "seed": plan.seed,
                "bots": [plan.entries[e].ref for e in seating],
                "bot_seeds": [plan.bot_seed(deal, e) for e in seating],
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
        cpu_time=tuple(a.cpu_time for a in guarded),
        cpu_max=tuple(a.cpu_max for a in guarded),
        wall_hist=tuple(dict(a.wall_hist) for a in guarded),
        cpu_hist=tuple(dict(a.cpu_hist) for a in guarded),
        searches=tuple(_count(a.agent, "searches") for a in guarded),
        capped=tuple(_count(a.agent, "capped_searches") for a in guarded),
        queue_time=tuple(a.queue_time for a in guarded) if queued else (),
        queue_max=tuple(a.queue_max for a in guarded) if queued else (),
        own_max=tuple(a.own_max for a in guarded) if queued else (),
    )


def _count(bot: object, name: str) -> int:
    """A bot's own counter (0 when it has none or it is not a number)."""
    value = getattr(bot, name, 0)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


def _stable(reason: str) -> str:
    """A fault reason without memory addresses (they differ between runs), at most 300 chars."""
    reason = _ADDRESS.sub("0x…", reason)
    return reason if len(reason) <= 300 else reason[:299] + "…"
