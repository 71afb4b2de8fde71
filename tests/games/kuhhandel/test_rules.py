"""One test (at least) per rule of kuhhandel-rules.md; each test names its section."""

from __future__ import annotations

import json

import pytest

from cardtable.core import IllegalAction, InvalidAction, Termination
from cardtable.games import kuhhandel as K
from cardtable.games.kuhhandel import actions as A
from cardtable.games.kuhhandel.money import cheapest_payment, payment_problem, quick_payment

CHICKEN, GOOSE, CAT, DOG, SHEEP, GOAT, DONKEY, PIG, COW, HORSE = range(10)
START = [2, 4, 1, 0, 0, 0]  # 2x0, 4x10, 1x50


def herd(**cards: int) -> list[int]:
    names = ["chicken", "goose", "cat", "dog", "sheep", "goat", "donkey", "pig", "cow", "horse"]
    return [cards.get(n, 0) for n in names]


def wallet(*notes: int) -> list[int]:
    values = [0, 10, 50, 100, 200, 500]
    return [notes.count(v) for v in values]


def game(rules: K.RuleSet = K.CLASSIC, seats: int = 3, **arrangement: object) -> K.KuhhandelGame:
    g = K.new_game(rules, seats, seed=1)
    if arrangement:
        g.arrange(**arrangement)  # type: ignore[arg-type]
    return g


def play(g: K.KuhhandelGame, *moves: tuple[int, A.Action]) -> None:
    for seat, action in moves:
        g.apply(seat, action)


# ---------------------------------------------------------------- §2 components
def test_s2_classic_components() -> None:
    g = game(seats=5)
    assert len(g.deck) == 40 and sorted(g.deck) == sorted(k for k in range(10) for _ in range(4))
    assert sum(K.CLASSIC.supply or ()) == 55
    assert all(g.money(s) == 90 for s in range(5))
    assert g.bank == [0, 0, 5, 5, 5, 5]  # 55 notes less 5 start wallets of 7 notes
    assert K.CLASSIC.species[DONKEY].payouts == (50, 100, 200, 500)


def test_s2_competition_unlimited_bank_and_seats() -> None:
    g = game(K.COMPETITION, seats=6)
    assert (
        g.bank is None and K.COMPETITION.min_raise == 1 and K.COMPETITION.max_bidding_rounds == 15
    )
    with pytest.raises(ValueError, match="3–5 seats"):
        K.new_game(K.CLASSIC, 6, 0)


def test_s2_finite_bank_exhausted_pays_nothing() -> None:
    g = game(deck=[DONKEY, CHICKEN], turn_seat=0)
    assert g.bank is not None
    g.bank[2] = 2  # only two 50-notes left in the bank
    play(g, (0, A.AUCTION))
    assert [g.wallets[s][2] for s in range(3)] == [2, 2, 1]  # seat 2 got nothing


# ---------------------------------------------------------------- §3 turn
def test_s3_only_auctions_at_the_start() -> None:
    g = game()
    req = g.next_request()
    assert req is not None and req.kind == "turn" and req.choices == (A.AUCTION,)


def test_s3_trade_needs_a_shared_incomplete_species() -> None:
    g = game(herds=[herd(cow=2, dog=4), herd(cow=1, dog=0), herd(horse=1)], turn_seat=0)
    req = g.next_request()
    assert req is not None and set(req.choices or ()) == {A.AUCTION, A.Challenge(1, COW)}
    with pytest.raises(IllegalAction, match="owns no Horse|own no Horse"):
        g.apply(0, A.Challenge(2, HORSE))


def test_s3_play_moves_clockwise() -> None:
    g = game(deck=[CHICKEN, GOOSE, CAT], turn_seat=2)
    play(g, (2, A.AUCTION), (0, A.PASS), (1, A.PASS))
    assert g.turn_seat == 0


# ---------------------------------------------------------------- §4 auction
def test_s4_1_donkey_pays_everyone_before_the_auction() -> None:
    g = game(deck=[DONKEY, DONKEY, CHICKEN], turn_seat=0)
    play(g, (0, A.AUCTION))
    assert [g.money(s) for s in range(3)] == [140, 140, 140]
    assert g.stage == "bid"
    play(g, (1, A.PASS), (2, A.PASS))
    play(g, (1, A.AUCTION))
    assert [g.money(s) for s in range(3)] == [240, 240, 240]  # second donkey: 100


def test_s4_2_minimum_raise_and_auctioneer_cannot_bid() -> None:
    g = game(deck=[COW, CHICKEN], turn_seat=0)
    play(g, (0, A.AUCTION))
    with pytest.raises(IllegalAction, match="at least 10"):
        g.apply(1, A.Bid(5))
    play(g, (1, A.Bid(10)))
    with pytest.raises(IllegalAction, match="at least 20"):
        g.apply(2, A.Bid(15))
    with pytest.raises(IllegalAction):
        g.apply(0, A.Bid(30))  # the auctioneer is never asked


def test_s4_2_competition_raises_by_one() -> None:
    g = game(K.COMPETITION, deck=[COW, CHICKEN], turn_seat=0)
    play(g, (0, A.AUCTION), (1, A.Bid(1)), (2, A.Bid(2)))
    assert g.high == 2


def test_s4_3_rounds_order_and_pass_is_not_final() -> None:
    g = game(seats=4, deck=[COW, CHICKEN], turn_seat=1)
    play(g, (1, A.AUCTION))
    asked = []
    for action in (A.PASS, A.Bid(10), A.PASS):  # round 1: seats 2, 3, 0
        req = g.next_request()
        assert req is not None
        asked.append(req.seat)
        g.apply(req.seat, action)
    assert asked == [2, 3, 0]
    # round 2: everyone but the high bidder (3) is asked again, including seat 2 who passed
    req = g.next_request()
    assert req is not None and req.seat == 2 and req.info and req.info["round"] == 2
    play(g, (2, A.Bid(20)), (3, A.PASS), (0, A.PASS))
    # round 3: 3 and 0 asked (2 is high), nobody bids -> closed
    play(g, (3, A.PASS), (0, A.PASS))
    assert g.stage == "sell_or_buy" and g.high == 20 and g.high_bidder == 2


def test_s4_3_max_bidding_rounds_closes_the_auction() -> None:
    rules = K.CLASSIC.with_changes(max_bidding_rounds=2)
    g = game(rules, deck=[COW, CHICKEN], turn_seat=0)
    play(g, (0, A.AUCTION), (1, A.Bid(10)), (2, A.Bid(20)), (1, A.Bid(30)), (2, A.Bid(40)))
    assert g.stage == "sell_or_buy" and g.high == 40  # round 2 had bids, but it was the last


def test_s4_3_open_auction_many_may_bid_and_the_auctioneer_knocks() -> None:
    rules = K.CLASSIC.with_changes(auction_style="open")
    g = game(rules, seats=4, deck=[COW, CHICKEN], turn_seat=0)
    play(g, (0, A.AUCTION))
    pending = g.pending()
    assert [r.seat for r in pending] == [1, 2, 3, 0] and pending[-1].kind == "knock"
    play(g, (3, A.Bid(10)), (1, A.Bid(20)))  # any bidder, any order
    assert {r.seat for r in g.pending() if r.kind == "bid"} == {2, 3}
    play(g, (0, A.KNOCK))  # the server's quiet period or the auctioneer closes it
    assert g.stage == "sell_or_buy" and g.high_bidder == 1


def test_s4_3_open_auction_closes_when_everyone_passed() -> None:
    rules = K.CLASSIC.with_changes(auction_style="open")
    g = game(rules, deck=[COW, CHICKEN], turn_seat=0)
    play(g, (0, A.AUCTION), (1, A.Bid(10)), (2, A.PASS))
    assert g.stage == "sell_or_buy"


def test_s4_4_nobody_bids_auctioneer_takes_it_free() -> None:
    g = game(deck=[HORSE, CHICKEN], turn_seat=0)
    play(g, (0, A.AUCTION), (1, A.PASS), (2, A.PASS))
    assert g.herds[0][HORSE] == 1 and g.money(0) == 90 and g.turn_seat == 1


def test_s4_5_sell_highest_bidder_pays_auctioneer() -> None:
    g = game(deck=[HORSE, CHICKEN], turn_seat=0)
    play(g, (0, A.AUCTION), (1, A.Bid(10)), (2, A.Bid(20)), (1, A.PASS), (0, A.SELL))
    req = g.next_request()
    assert req is not None and req.seat == 2 and req.kind == "pay" and req.info
    assert req.info["amount"] == 20
    play(g, (2, A.Pay((10, 10))))
    assert g.herds[2][HORSE] == 1 and g.money(0) == 110 and g.money(2) == 70


def test_s4_5_buy_auctioneer_pays_highest_bidder_and_keeps_it() -> None:
    g = game(deck=[HORSE, CHICKEN], turn_seat=0)
    play(g, (0, A.AUCTION), (1, A.Bid(50)), (2, A.PASS), (2, A.PASS))
    play(g, (0, A.BUY), (0, A.Pay((50,))))
    assert g.herds[0][HORSE] == 1 and g.money(0) == 40 and g.money(1) == 140


def test_s4_6_payment_gives_no_change_and_no_spare_notes() -> None:
    assert payment_problem((10, 10, 10), 30) is None
    assert payment_problem((50,), 30) is None  # overpaying is fine when nothing closer exists
    assert payment_problem((10, 50), 30) is not None  # the 10 could be left out
    assert payment_problem((0, 10, 10, 10), 30) is not None  # 0-notes are never part of a payment
    assert payment_problem((10, 10), 30) is not None  # too little
    g = game(deck=[HORSE, CHICKEN], turn_seat=0)
    play(g, (0, A.AUCTION), (1, A.Bid(30)), (2, A.PASS), (2, A.PASS), (0, A.SELL))
    before = json.dumps(g.observe(1).to_json())
    with pytest.raises(IllegalAction, match="no change"):
        g.apply(1, A.Pay((10, 50)))
    with pytest.raises(IllegalAction, match="do not hold"):
        g.apply(1, A.Pay((100,)))
    assert json.dumps(g.observe(1).to_json()) == before


def test_s4_6_cheapest_payment() -> None:
    notes = [0, 10, 50, 100, 200, 500]
    assert cheapest_payment(wallet(0, 0, 10, 10, 10, 10, 50), notes, 30) == (10, 10, 10)
    assert cheapest_payment(wallet(10, 50, 50), notes, 60) == (10, 50)
    assert cheapest_payment(wallet(50, 200), notes, 60) == (200,)
    assert cheapest_payment(wallet(10, 10), notes, 30) is None
    assert cheapest_payment(wallet(100, 50, 50, 50), notes, 140) == (50, 100)
    for amount in range(10, 200, 10):
        w = wallet(10, 10, 50, 100, 200)
        pay = cheapest_payment(w, notes, amount)
        assert pay is not None and payment_problem(pay, amount) is None
        quick = quick_payment(w, notes, amount)
        assert quick is not None and payment_problem(quick, amount) is None
        assert sum(pay) <= sum(quick)


def test_s4_7_cannot_pay_exposes_and_repeats_with_a_cap() -> None:
    g = game(deck=[HORSE, CHICKEN], turn_seat=0)
    play(g, (0, A.AUCTION), (1, A.Bid(100)), (2, A.PASS), (2, A.PASS))
    play(g, (0, A.SELL))  # seat 1 holds 90 < 100: exposed, the auction is repeated
    assert g.stage == "bid" and g.exposed[1] == (0, 0, 10, 10, 10, 10, 50)
    assert any(e.kind == "exposed" and e.to is None for e in g.events())
    with pytest.raises(IllegalAction, match="not bid more than 90"):
        g.apply(1, A.Bid(100))
    play(g, (1, A.Bid(90)), (2, A.PASS), (2, A.PASS), (0, A.SELL), (1, A.Pay((10, 10, 10, 10, 50))))
    assert g.herds[1][HORSE] == 1 and g.money(0) == 180


def test_s4_7_auctioneer_exposed_may_only_buy_when_it_can_pay() -> None:
    g = game(deck=[HORSE, CHICKEN], turn_seat=0, wallets=[wallet(10), START, START])
    play(g, (0, A.AUCTION), (1, A.Bid(50)), (2, A.PASS), (2, A.PASS))
    play(g, (0, A.BUY))  # 10 < 50: the auctioneer is exposed
    assert g.stage == "bid" and 0 in g.exposed
    play(g, (1, A.Bid(50)), (2, A.PASS), (2, A.PASS))
    req = g.next_request()
    assert req is not None and req.choices == (A.SELL,)
    with pytest.raises(IllegalAction, match="only buy when you can pay"):
        g.apply(0, A.BUY)


def test_s4_7_repeated_auction_pays_no_new_donkey_money() -> None:
    g = game(deck=[DONKEY, CHICKEN], turn_seat=0)
    play(g, (0, A.AUCTION), (1, A.Bid(200)), (2, A.PASS), (2, A.PASS), (0, A.SELL))
    assert g.stage == "bid" and [g.money(s) for s in range(3)] == [140, 140, 140]


def test_s4_8_payment_notes_only_to_payer_and_payee() -> None:
    g = game(deck=[HORSE, CHICKEN], turn_seat=0)
    play(g, (0, A.AUCTION), (1, A.Bid(20)), (2, A.PASS), (2, A.PASS))
    play(g, (0, A.SELL), (1, A.Pay((10, 10))))
    public = [e for e in g.events() if e.kind == "payment"]
    private = [e for e in g.events() if e.kind == "payment_notes"]
    assert public[0].to is None and public[0].data["count"] == 2 and "notes" not in public[0].data
    assert private[0].to == (1, 0)
    assert all(e.kind != "payment_notes" for e in g.events_for(2))


# ---------------------------------------------------------------- §5 cow trade
def trade_game(rules: K.RuleSet = K.CLASSIC, **kw: object) -> K.KuhhandelGame:
    return game(
        rules,
        herds=kw.get("herds", [herd(cow=2), herd(cow=2), herd()]),
        wallets=kw.get("wallets", [START, START, START]),
        deck=[CHICKEN, GOOSE],
        turn_seat=0,
    )


def test_s5_1_cards_at_stake_is_the_smaller_holding() -> None:
    for mine, theirs, stake in ((2, 2, 2), (3, 1, 1), (1, 3, 1), (1, 1, 1)):
        g = trade_game(herds=[herd(cow=mine), herd(cow=theirs), herd()])
        play(g, (0, A.Challenge(1, COW)))
        assert g.stake == stake


def test_s5_2_offer_is_hidden_and_may_be_empty() -> None:
    g = trade_game()
    play(g, (0, A.Challenge(1, COW)), (0, A.Offer(())))
    req = g.next_request()
    assert req is not None and req.kind == "respond" and req.info and req.info["offer_notes"] == 0
    g2 = trade_game()
    play(g2, (0, A.Challenge(1, COW)), (0, A.Offer((0, 10, 50))))
    assert g2.observe(1).trade is not None and g2.observe(1).trade.my_offer is None  # type: ignore[union-attr]
    assert g2.observe(1).trade.offer_count == 3  # type: ignore[union-attr]
    assert g2.observe(0).trade.my_offer == (0, 10, 50)  # type: ignore[union-attr]
    assert [e.data for e in g2.events() if e.kind == "offer"] == [{"seat": 0, "count": 3}]


def test_s5_3_accept_takes_the_offer_and_hands_over_the_cards() -> None:
    g = trade_game()
    play(g, (0, A.Challenge(1, COW)), (0, A.Offer((10, 50))), (1, A.ACCEPT))
    assert g.herds[0][COW] == 4 and g.herds[1][COW] == 0
    assert g.money(0) == 30 and g.money(1) == 150


def test_s5_4_counter_exchanges_offers_and_higher_total_wins() -> None:
    g = trade_game()
    play(g, (0, A.Challenge(1, COW)), (0, A.Offer((10, 10))), (1, A.Counter((50,))))
    assert g.herds[1][COW] == 4 and g.herds[0][COW] == 0
    assert g.money(0) == 90 - 20 + 50 and g.money(1) == 90 - 50 + 20
    trade = [e for e in g.events() if e.kind == "trade"][0]
    assert (
        trade.data["winner"] == 1
        and trade.data["offer_count"] == 2
        and trade.data["counter_count"] == 1
    )
    notes = [e for e in g.events() if e.kind == "trade_notes"][0]
    assert notes.to == (0, 1) and notes.data["counter"] == [50]


def test_s5_5_tie_challenger_wins_at_once() -> None:
    g = trade_game()
    play(g, (0, A.Challenge(1, COW)), (0, A.Offer((10,))), (1, A.Counter((10,))))
    assert g.herds[0][COW] == 4 and g.money(0) == 90 and g.money(1) == 90


def test_s5_5_tie_offer_again_then_challenger_wins() -> None:
    rules = K.CLASSIC.with_changes(trade_tie="offer_again")
    g = trade_game(rules)
    play(g, (0, A.Challenge(1, COW)), (0, A.Offer((50,))), (1, A.Counter((10, 10, 10, 10, 0))))
    assert g.stage == "turn" and g.herds[0][COW] == 4  # 50 against 40: no tie, settled
    g = trade_game(rules)
    play(g, (0, A.Challenge(1, COW)), (0, A.Offer((10,))), (1, A.Counter((10,))))
    assert g.stage == "offer" and g.herds[0][COW] == 2  # first tie: offers again
    req = g.next_request()
    assert req is not None and req.info and req.info["again"] is True
    play(g, (0, A.Offer((50,))), (1, A.Counter((50,))))
    assert g.herds[0][COW] == 4  # second tie: the challenger wins


def test_s5_6_a_complete_set_cannot_be_challenged() -> None:
    g = trade_game(herds=[herd(cow=4, dog=1), herd(cow=0, dog=1), herd()])
    req = g.next_request()
    assert req is not None and A.Challenge(1, COW) not in (req.choices or ())
    with pytest.raises(IllegalAction):
        g.apply(0, A.Challenge(1, COW))


# ---------------------------------------------------------------- §6 end phase
def test_s6_1_end_phase_trades_are_compulsory_and_seats_skipped() -> None:
    g = game(
        herds=[herd(cow=2, dog=4), herd(cow=2), herd(horse=4)],
        deck=[],
        turn_seat=2,
    )
    assert g.end_phase and g.turn_seat == 0  # seat 2 owns only a complete set: skipped
    assert any(e.kind == "skip" and e.data["seat"] == 2 for e in g.events())
    req = g.next_request()
    assert req is not None and req.choices == (A.Challenge(1, COW),)
    with pytest.raises(IllegalAction, match="deck is empty"):
        g.apply(0, A.AUCTION)


def test_s6_2_game_ends_when_every_set_is_complete() -> None:
    g = game(herds=[herd(cow=2, dog=4), herd(cow=2), herd(horse=4)], deck=[], turn_seat=0)
    play(g, (0, A.Challenge(1, COW)), (0, A.Offer((10,))), (1, A.ACCEPT))
    assert g.is_over() and g.result().termination is Termination.NORMAL


def test_s6_3_turn_cap_ends_the_game_and_incomplete_sets_score_nothing() -> None:
    rules = K.CLASSIC.with_changes(max_turns=3)
    g = game(rules, deck=[HORSE, HORSE, HORSE, HORSE, CHICKEN], turn_seat=0)
    for seat in range(3):
        play(g, (seat, A.AUCTION), ((seat + 1) % 3, A.PASS), ((seat + 2) % 3, A.PASS))
    assert g.is_over()
    r = g.result()
    assert r.termination is Termination.CAP and "max_turns" in r.reason
    assert r.scores == (0.0, 0.0, 0.0)


def test_s6_3_end_phase_round_cap() -> None:
    rules = K.CLASSIC.with_changes(max_end_phase_rounds=1)
    g = game(rules, herds=[herd(cow=2), herd(cow=1), herd(cow=1)], deck=[], turn_seat=0)
    # three end-phase turns of empty offers and accepts, then the cap
    play(g, (0, A.Challenge(1, COW)), (0, A.Offer(())), (1, A.Counter((10,))))
    while not g.is_over():
        req = g.next_request()
        assert req is not None
        if req.kind == "turn":
            g.apply(req.seat, (req.choices or ())[0])
        elif req.kind == "offer":
            g.apply(req.seat, A.Offer(()))
        else:
            g.apply(req.seat, A.Counter((10,)))
    assert g.result().termination is Termination.CAP and "end_phase" in g.result().reason


# ---------------------------------------------------------------- §7 scoring
def test_s7_classic_score_sum_times_count() -> None:
    g = game(herds=[herd(horse=4, chicken=4), herd(cow=4), herd()], deck=[], turn_seat=0)
    assert g.is_over()
    assert g.score(0) == (1000 + 10) * 2 == 2020
    assert g.result().scores == (2020.0, 800.0, 0.0)


def test_s7_ranking_money_breaks_ties_and_equal_share() -> None:
    g = game(
        herds=[herd(cow=4), herd(pig=4, chicken=4), herd()],
        wallets=[wallet(50), wallet(10), wallet(10)],
        deck=[],
    )
    # cow 800 vs (650+10)*2=1320; seat 2 scores 0
    assert g.result().places == (1, 0, 2)
    g = game(
        herds=[herd(cow=4), herd(cow=0, chicken=0), herd()],
        wallets=[wallet(), wallet(50), wallet(50)],
        deck=[],
    )
    assert g.result().places == (0, 1, 1)  # seats 1 and 2: equal score and money share 2nd


def test_s7_exam_variant_adds_money() -> None:
    rules = K.CLASSIC.with_changes(exam=True)
    g = game(rules, herds=[herd(cow=4), herd(), herd()], deck=[])
    assert g.result().scores == (890.0, 90.0, 90.0)


# ---------------------------------------------------------------- §8 rule sets as data
def test_s8_rules_roundtrip_as_json_and_presets_by_name() -> None:
    for rules in K.PRESETS.values():
        assert K.RuleSet.from_json(json.loads(json.dumps(rules.to_json()))) == rules
    assert K.RuleSet.from_json({"preset": "classic", "min_raise": 5}).min_raise == 5
    with pytest.raises(ValueError, match="unknown rule parameters"):
        K.RuleSet.from_json({"preset": "classic", "bogus": 1})
    with pytest.raises(ValueError, match="payout 7"):
        K.CLASSIC.with_changes(species=(K.Species("A", 10, (7, 0)),))


def test_s8_random_setup_is_valid_and_playable() -> None:
    from cardtable.core import run_match

    for seed in range(20):
        rules = K.random_rules(seed, seats=4)
        assert rules.problems() == []
        assert len({s.value for s in rules.species}) == len(rules.species)
        g = K.new_game(rules, 4, seed)
        result = run_match(g, [K.SPEC.bots["random"](seed=i) for i in range(4)])
        assert len(result.places) == 4


def test_s8_random_setup_has_2_to_4_species_per_seat() -> None:
    """Spec §8: "2–4 species per player, 3–4 cards per species, values 10..1000"."""
    per_seat: set[int] = set()
    for seats in (3, 4, 5, 6):
        for seed in range(30):
            rules = K.random_rules(seed, seats=seats)
            count = len(rules.species)
            assert 2 * seats <= count <= 4 * seats, (seed, seats, count)
            assert count % seats == 0
            per_seat.add(count // seats)
            for s in rules.species:
                assert len(s.payouts) in (3, 4) and 10 <= s.value <= 1000
    assert per_seat == {2, 3, 4}  # every count the spec names occurs
    assert len(K.random_rules(0, seats=2).species) >= 6  # taken as 3 seats


# ---------------------------------------------------------------- errors change nothing
def test_malformed_and_illegal_actions_are_told_apart() -> None:
    g = game()
    with pytest.raises(InvalidAction):
        g.apply(0, {"kind": "bid"})
    with pytest.raises(InvalidAction):
        g.apply(0, "auction")
    with pytest.raises(InvalidAction):
        g.apply(7, A.AUCTION)
    with pytest.raises(IllegalAction, match="seat 0's turn"):
        g.apply(1, A.AUCTION)
    with pytest.raises(IllegalAction):
        g.apply(0, A.Bid(10))
    assert g.history() == [] and len(g.deck) == 40
    g.apply(0, {"kind": "auction"})  # JSON form is accepted
    assert len(g.deck) == 39
