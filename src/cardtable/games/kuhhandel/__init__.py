"""Kuhhandel (You're Bluffing!): the rules engine for every rule set.

>>> from cardtable.games import kuhhandel
>>> game = kuhhandel.new_game(kuhhandel.CLASSIC, seats=4, seed=7)
>>> game.next_request().kind
'turn'
"""

from __future__ import annotations

from cardtable.core.registry import GameSpec
from cardtable.games.kuhhandel import actions, state
from cardtable.games.kuhhandel.bots import BOTS
from cardtable.games.kuhhandel.describe import describe_event, describe_view
from cardtable.games.kuhhandel.money import cheapest_payment, payment_problem, quick_payment
from cardtable.games.kuhhandel.observe import KuhhandelObservation
from cardtable.games.kuhhandel.rules import (
    CLASSIC,
    COMPETITION,
    MASTER,
    MASTER_DUEL,
    PRESETS,
    RuleSet,
    Species,
    random_rules,
)
from cardtable.games.kuhhandel.state import KuhhandelGame, new_game


def _seat_range(rules: RuleSet) -> tuple[int, int]:
    return rules.min_seats, rules.max_seats


SPEC = GameSpec(
    name="kuhhandel",
    new_game=new_game,
    rules_from_json=RuleSet.from_json,
    presets=PRESETS,
    default_rules="classic",
    seat_range=_seat_range,
    describe_event=describe_event,
    bots=BOTS,
    engine=state,
    describe_view=describe_view,
)

__all__ = [
    "CLASSIC",
    "COMPETITION",
    "MASTER",
    "MASTER_DUEL",
    "PRESETS",
    "SPEC",
    "KuhhandelGame",
    "KuhhandelObservation",
    "RuleSet",
    "Species",
    "actions",
    "cheapest_payment",
    "new_game",
    "payment_problem",
    "quick_payment",
    "random_rules",
]
