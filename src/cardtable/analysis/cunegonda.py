"""Cunegonda in the analysis: cards in words, the match's win chance, mistakes by kind.

The ``expert`` plays each candidate to the end of the round; the loss is counted in the seat's
round points (what the expert maximises). The win chance of the match is estimated from the totals
after the round: with ``r`` rounds left, each seat's remaining points are taken as independent and
normal with :data:`ROUND_SD` points per round, so the chance to finish ahead of a seat ``o`` is
``Phi((T_me - T_o) / (ROUND_SD * sqrt(2 r)))`` and the win chance their product (in the last round
the totals decide, ties shared). The margin is the seat's total minus the best other total.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from cardtable.analysis.review import (
    CUNEGONDA_THRESHOLD,
    UNSEARCHED,
    Adapter,
    Budget,
    paired,
)
from cardtable.core import Request
from cardtable.core.message import Message, msg
from cardtable.games.cunegonda.bots.expert import ExpertBot
from cardtable.games.cunegonda.cards import NAMES, QUEEN_OF_SPADES
from cardtable.games.cunegonda.scoring import PENALTY

#: The spread of one seat's points in one round (about 20 on the expert's own games).
ROUND_SD = 20.0


def _phi(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def win_chance(totals: Sequence[float], me: int, rounds_left: int) -> float:
    """The chance ``me`` wins the match from ``totals`` with ``rounds_left`` rounds to play."""
    if rounds_left <= 0:
        top = max(totals)
        if totals[me] < top:
            return 0.0
        return 1.0 / sum(1 for t in totals if t == top)
    sd = ROUND_SD * math.sqrt(2.0 * rounds_left)
    p = 1.0
    for s, t in enumerate(totals):
        if s != me:
            p *= _phi((totals[me] - t) / sd)
    return p


def _names(cards: Sequence[int]) -> str:
    return " ".join(NAMES[c] for c in cards)


class CunegondaAdapter(Adapter):
    game = "cunegonda"
    unit = "round points"
    threshold = CUNEGONDA_THRESHOLD

    def bot(self, seed: int, budget: Budget) -> Any:
        return ExpertBot(
            seed=seed,
            iterations=max(1, budget.worlds or 1),
            time_per_decision=budget.seconds,
            time_cap=None,
        )

    def taken(self, obs: Any, request: Request, action: Any, index: int) -> Any:
        if request.kind == "pass":
            return tuple(sorted(action))
        if request.kind == "play":
            return int(action)
        return UNSEARCHED

    def judge(self, obs: Any) -> Callable[[Sequence[float]], tuple[float, float]]:
        me = obs.seat
        totals0 = list(obs.totals)
        left = int(obs.rounds) - int(obs.round) - 1

        def judge(scores: Sequence[float]) -> tuple[float, float]:
            totals = [t + s for t, s in zip(totals0, scores, strict=True)]
            best_other = max(t for s, t in enumerate(totals) if s != me)
            return win_chance(totals, me, left), totals[me] - best_other

        return judge

    def label(self, obs: Any, request: Request, candidate: Any) -> Message:
        if request.kind == "pass":
            return msg("analysis.cunegonda.pass", cards=_names(candidate))
        return msg("analysis.cunegonda.play", card=NAMES[candidate])

    def action_json(self, obs: Any, request: Request, candidate: Any) -> Any:
        if request.kind == "pass":
            return {"pass": [NAMES[c] for c in candidate]}
        return {"play": NAMES[candidate]}

    def describe_action(self, obs: Any, request: Request, action_json: Any) -> Message:
        if isinstance(action_json, dict):
            if "pass" in action_json:
                cards = " ".join(str(c) for c in action_json["pass"])
                return msg("analysis.cunegonda.pass", cards=cards)
            if "play" in action_json:
                return msg("analysis.cunegonda.play", card=str(action_json["play"]))
        return msg("analysis.as_given", text=str(action_json))

    def loss(
        self, best: list[tuple[float, float, float]], taken: list[tuple[float, float, float]]
    ) -> tuple[float, float]:
        return paired(best, taken, 0)

    def mistake_kind(self, obs: Any, request: Request, taken: Any, best: Any) -> Message:
        m = "analysis.mistake.cunegonda."
        if request.kind == "pass":
            if QUEEN_OF_SPADES in obs.hand:
                if QUEEN_OF_SPADES in best and QUEEN_OF_SPADES not in taken:
                    return msg(m + "kept_queen")
                if QUEEN_OF_SPADES in taken and QUEEN_OF_SPADES not in best:
                    return msg(m + "passed_queen")
            return msg(m + "weak_pass")
        card = int(taken)
        trick = list(obs.trick)
        if not trick:
            return msg(m + ("led_queen" if card == QUEEN_OF_SPADES else "weak_lead"))
        led = trick[0] // 13
        high = max(c for c in trick if c // 13 == led)
        wins_now = card // 13 == led and card > high
        if wins_now and (card == QUEEN_OF_SPADES or QUEEN_OF_SPADES in trick):
            return msg(m + "took_queen")
        if wins_now and any(PENALTY[c] for c in trick):
            return msg(m + "took_hearts")
        if card == QUEEN_OF_SPADES:
            return msg(m + "queen_wrong_time")
        if card // 13 != led:
            return msg(m + "weak_discard")
        return msg(m + "weak_follow")
