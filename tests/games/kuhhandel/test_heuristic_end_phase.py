"""The heuristic bot's end-phase cow trades make progress (§6: every turn is a compulsory trade).

A classic 3-seat game (the web test's table: a person and two ``heuristic`` house bots) used to
end at the end-phase cap (§6.3, 500 rounds) with incomplete sets: the two bots held 1 and 2 Horses
(the person the fourth), and the one with a single Horse challenged the one with two, turn after
turn. Both offered the same 500 note, the tie went to the challenger (§5.5), the notes went back
and forth unchanged, and the Horse with them, 1000 times.
"""

from __future__ import annotations

from typing import Any

from cardtable.core import Request, run_match
from cardtable.games import kuhhandel as K
from cardtable.games.kuhhandel import actions as A
from cardtable.games.kuhhandel.money import cheapest_payment

HORSE = 9


class PagePerson:
    """The browser tests' person (tests/web/browser_helpers.py ``kuhhandel_step``) without a page:
    auctions on its turns, else the first trade; every third bid panel the minimum bid, the next
    one "out" of that auction; offers its one largest note; answers challenges alternately with a
    one-note counter and an accept; pays the cheapest way; sells."""

    wants_observation = True

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.out_of: tuple[int, int] | None = None

    def act(self, obs: Any, request: Request) -> A.Action:
        kind, info = request.kind, request.info or {}
        if kind == "bid":
            lot = (obs.deck_size, info["card"])
            if lot == self.out_of:
                return A.PASS  # the page passes for a person who is out of this auction
            self.counts[kind] = self.counts.get(kind, 0) + 1
            if self.counts[kind] % 3 == 0 and (info["max"] is None or info["min"] <= info["max"]):
                return A.Bid(info["min"])
            if self.counts[kind] % 3 == 1:
                self.out_of = lot
            return A.PASS
        self.counts[kind] = self.counts.get(kind, 0) + 1
        choices = request.choices or ()
        if kind == "turn":
            return next((c for c in choices if c.kind == "auction"), choices[0])
        if kind in ("offer", "respond"):
            if kind == "respond" and self.counts[kind] % 2 == 0:
                return A.ACCEPT
            wallet = sorted(info["wallet"])
            notes = tuple(wallet[-1:])
            return A.Offer(notes) if kind == "offer" else A.Counter(notes)
        if kind == "pay":
            wallet = list(info["wallet"])
            values = sorted(set(wallet))
            pay = cheapest_payment([wallet.count(v) for v in values], values, info["amount"])
            assert pay is not None
            return A.Pay(pay)
        if kind == "sell_or_buy":
            return A.SELL
        return choices[0]


def test_s6_the_page_person_and_two_heuristic_bots_finish_the_game_that_capped() -> None:
    g = K.new_game(K.CLASSIC, 3, 1892)
    bots = [K.SPEC.bots["heuristic"](seed=358000 + s) for s in (1, 2)]
    result = run_match(g, [PagePerson(), *bots])
    assert result.termination.value == "normal", (result.reason, g.end_turns)
    assert g.end_turns < 100, g.end_turns


def end_phase(herds: list[list[int]], wallets: list[list[int]], turn_seat: int) -> Any:
    """An arranged classic 3-seat game whose deck is empty (every turn a cow trade)."""
    g = K.new_game(K.CLASSIC, 3, 0)
    return g.arrange(deck=[], herds=herds, wallets=wallets, turn_seat=turn_seat)


def bot_answer(g: Any, seat: int) -> A.Action:
    bot = K.SPEC.bots["heuristic"](seed=1)
    bot.start(seat, type("Info", (), {"rules": K.CLASSIC.to_json()})())
    request = g.pending()[0]
    assert request.seat == seat
    action: A.Action = bot.act(g.observe(seat), request)
    return action


# Horses 1, 1, 2; every other species complete. Seat 2 holds few notes (the weaker opponent).
HORSES = [
    [4, 0, 0, 0, 0, 0, 0, 0, 0, 1],
    [0, 4, 4, 0, 0, 0, 0, 0, 0, 1],
    [0, 0, 0, 4, 4, 4, 4, 4, 4, 2],
]
WALLETS = [[2, 8, 2, 1, 1, 1], [3, 0, 0, 0, 1, 1], [1, 3, 0, 0, 0, 1]]


def test_s6_in_the_end_phase_it_challenges_where_it_holds_at_least_as_many_cards() -> None:
    # seat 1 (one Horse) may challenge seat 0 (one Horse) or seat 2 (two): winning against seat 0
    # gathers the Horses (2 and 2, then one trade completes them); winning against seat 2 on a
    # tie only swaps the holdings, and seat 2 would challenge back
    g = end_phase(HORSES, WALLETS, turn_seat=1)
    assert bot_answer(g, 1) == A.Challenge(0, HORSE)


def test_s6_it_concedes_an_end_phase_challenge_when_every_herd_is_as_it_was_last_time() -> None:
    g = end_phase(HORSES, WALLETS, turn_seat=2)
    bot = K.SPEC.bots["heuristic"](seed=1)
    bot.start(1, type("Info", (), {"rules": K.CLASSIC.to_json()})())
    g.apply(2, A.Challenge(1, HORSE))
    g.apply(2, A.Offer((500,)))
    request = g.pending()[0]
    first = bot.act(g.observe(1), request)
    assert first != A.ACCEPT  # it defends its Horse the first time (a 500 against one note)
    # the same challenge again with every herd as it was (the trades since went in a circle)
    again = bot.act(g.observe(1), request)
    assert again == A.ACCEPT
