"""Kuhhandel Master and the duel (spec §2, §7, §9, §10, §11); each test names its section."""

from __future__ import annotations

import pytest

from cardtable.core import IllegalAction, run_match
from cardtable.games import kuhhandel as K
from cardtable.games.kuhhandel import actions as A

CHICKEN, GOOSE, CAT, DOG, SHEEP, GOAT, DONKEY, PIG, COW, HORSE = range(10)
N = 10
RAT = 2 * N  # the rat card
RATS = N  # the rats as a tradable "species"


def pedigree(k: int) -> int:
    return N + k


def mwallet(*notes: int) -> list[int]:
    values = [0, 10, 20, 50, 100, 200, 500]
    return [notes.count(v) for v in values]


MSTART = mwallet(0, 0, 10, 10, 10, 20, 50)


def herd(**cards: int) -> list[int]:
    names = ["chicken", "goose", "cat", "dog", "sheep", "goat", "donkey", "pig", "cow", "horse"]
    return [cards.get(n, 0) for n in names]


def mgame(rules: K.RuleSet = K.MASTER, seats: int = 3, **arrangement: object) -> K.KuhhandelGame:
    g = K.new_game(rules, seats, seed=1)
    if arrangement:
        g.arrange(**arrangement)  # type: ignore[arg-type]
    return g


def play(g: K.KuhhandelGame, *moves: tuple[int, A.Action]) -> None:
    for seat, action in moves:
        g.apply(seat, action)


# ---------------------------------------------------------------- §2, §9.1 components
def test_s2_master_components_and_deck() -> None:
    g = mgame(seats=6)
    assert len(g.deck) == 40 + 10 + 4
    assert sorted(c for c in g.deck if c >= N) == [*range(N, 2 * N), RAT, RAT, RAT, RAT]
    assert sum(K.MASTER.supply or ()) == 66
    assert all(g.money(s) == 100 and g.note_count(s) == 7 for s in range(6))
    assert K.MASTER.trade_tie == "offer_again"
    with pytest.raises(ValueError):
        K.new_game(K.MASTER, 2, 0)  # two seats play the duel preset


def test_s9_1_animals_pedigrees_and_rats_are_shuffled_together() -> None:
    positions = {c: [] for c in (RAT, pedigree(HORSE))}
    for seed in range(30):
        deck = K.new_game(K.MASTER, 4, seed).deck
        for c in positions:
            positions[c].append(deck.index(c))
    assert all(len(set(p)) > 5 for p in positions.values())


# ---------------------------------------------------------------- §9.2 pedigree countdown
def countdown(**kw: object) -> K.KuhhandelGame:
    g = mgame(seats=4, deck=[pedigree(COW), CHICKEN, GOOSE], turn_seat=0, **kw)
    play(g, (0, A.AUCTION))
    return g


def test_s9_2_every_other_seat_chooses_a_claim_in_secret() -> None:
    g = countdown()
    pending = g.pending()
    assert [r.seat for r in pending] == [1, 2, 3] and all(r.kind == "claim" for r in pending)
    assert pending[0].choices == tuple(A.Claim(c) for c in range(8))  # 7 notes: 0..7
    play(g, (2, A.Claim(5)))
    assert g.observe(1).countdown["chosen"] == [2]  # type: ignore[index]
    assert g.observe(1).countdown["my_claim"] is None  # type: ignore[index]
    assert all(e.data.get("count") is None for e in g.events_for(1) if e.kind == "claim_chosen")


def test_s9_2_highest_count_first_claim_in_seat_order_wins() -> None:
    g = countdown()
    play(g, (3, A.Claim(4)), (1, A.Claim(2)), (2, A.Claim(4)))
    assert g.stage == "preempt" and g.claimant == 2 and g.claim_count == 4  # 2 is left of 3


def test_s9_2_claimant_must_hold_enough_notes() -> None:
    g = countdown(wallets=[MSTART, mwallet(10, 10), MSTART, MSTART])
    with pytest.raises(IllegalAction, match="hold that many notes"):
        g.apply(1, A.Claim(3))


def test_s9_2_release_claimant_pays_by_count_zero_notes_fine() -> None:
    g = countdown()
    play(g, (1, A.Claim(3)), (2, A.Claim(0)), (3, A.Claim(1)))
    play(g, (0, A.RELEASE))
    req = g.next_request()
    assert req is not None and req.seat == 1 and req.info and req.info["count"] == 3
    with pytest.raises(IllegalAction, match="exactly 3 notes"):
        g.apply(1, A.Pay((0, 0)))
    play(g, (1, A.Pay((0, 0, 10))))
    assert g.pedigrees[1] == [COW] and g.note_count(1) == 4 and g.note_count(0) == 10


def test_s9_2_preempt_auctioneer_pays_the_claimant_and_keeps_it() -> None:
    g = countdown()
    play(g, (1, A.Claim(6)), (2, A.Claim(0)), (3, A.Claim(0)))
    # pre-emption is decided before the claimant's notes are shown: no payment event yet
    assert not any(e.kind.startswith("payment") for e in g.events())
    play(g, (0, A.PREEMPT), (0, A.Pay((0, 0, 10, 10, 10, 20))))
    assert g.pedigrees[0] == [COW] and g.note_count(1) == 13


def test_s9_2_preempt_needs_enough_notes() -> None:
    g = countdown(wallets=[mwallet(50), MSTART, MSTART, MSTART])
    play(g, (1, A.Claim(3)), (2, A.Claim(0)), (3, A.Claim(0)))
    req = g.next_request()
    assert req is not None and req.choices == (A.RELEASE,)
    with pytest.raises(IllegalAction, match="hold 3 notes"):
        g.apply(0, A.PREEMPT)


def test_s9_2_nobody_claims_auctioneer_takes_it_free() -> None:
    g = countdown()
    play(g, (1, A.Claim(0)), (2, A.Claim(0)), (3, A.Claim(0)))
    assert g.pedigrees[0] == [COW] and g.money(0) == 100 and g.turn_seat == 1


def test_s9_2_pedigree_cards_are_never_traded() -> None:
    g = mgame(herds=[herd(cow=1), herd(cow=1), herd()], deck=[CHICKEN], turn_seat=0)
    g.pedigrees[1].append(COW)
    req = g.next_request()
    assert req is not None
    assert all(c.species in (COW,) for c in req.choices or () if isinstance(c, A.Challenge))
    with pytest.raises(IllegalAction):
        g.apply(0, A.Challenge(1, pedigree(COW)))


# ---------------------------------------------------------------- §9.3 rats
def rat_game(**kw: object) -> K.KuhhandelGame:
    g = mgame(seats=3, deck=[RAT, HORSE, GOOSE], turn_seat=0, **kw)
    play(g, (0, A.AUCTION))
    return g


def test_s9_3_take_or_place_a_note_from_the_left_taker_collects_the_pile() -> None:
    g = rat_game()
    req = g.next_request()
    assert (
        req is not None
        and req.seat == 1
        and req.kind == "rat"
        and A.TAKE_RAT in (req.choices or ())
    )
    play(g, (1, A.PlaceNote(0)), (2, A.PlaceNote(10)), (0, A.PlaceNote(20)))
    assert g.observe(2).rat_pile == 3  # only the count is public
    assert [e.to for e in g.events() if e.kind == "rat_note_value"] == [(1,), (2,), (0,)]
    play(g, (1, A.TAKE_RAT))
    assert g.rats[1] == 1 and g.money(1) == 100 - 0 + 30 and g.note_count(1) == 9


def test_s9_3_auctioneer_stays_and_draws_again() -> None:
    g = rat_game()
    play(g, (1, A.TAKE_RAT))
    assert g.turn_seat == 0 and g.stage == "bid" and g.card == HORSE  # the next card, same turn


def test_s9_3_a_seat_without_notes_must_take_the_rat() -> None:
    g = rat_game(wallets=[MSTART, [0] * 7, MSTART])
    req = g.next_request()
    assert req is not None and req.seat == 1 and req.choices == (A.TAKE_RAT,)
    with pytest.raises(IllegalAction, match="no note"):
        g.apply(1, A.PlaceNote(0))


# ---------------------------------------------------------------- §9.4 rats in cow trades
def rat_trade(rules: K.RuleSet = K.MASTER) -> K.KuhhandelGame:
    return mgame(rules, herds=[herd(), herd(), herd()], rats=[2, 1, 0], deck=[CHICKEN], turn_seat=0)


def test_s9_4_rats_are_challenged_like_a_species() -> None:
    g = rat_trade()
    req = g.next_request()
    assert req is not None and A.Challenge(1, RATS) in (req.choices or ())
    play(g, (0, A.Challenge(1, RATS)))
    assert g.stake == 1


def test_s9_4_the_higher_offer_gives_its_rats_away() -> None:
    g = rat_trade()
    play(g, (0, A.Challenge(1, RATS)), (0, A.Offer((50,))), (1, A.Counter((10,))))
    assert g.rats == [1, 2, 0]  # the challenger offered more and gave one rat away
    g = rat_trade()
    play(g, (0, A.Challenge(1, RATS)), (0, A.Offer((10,))), (1, A.Counter((50,))))
    assert g.rats == [3, 0, 0]  # the opponent paid more to give its rat away


def test_s9_4_tie_offers_again_then_the_challenger_gives_them_away() -> None:
    g = rat_trade()
    play(g, (0, A.Challenge(1, RATS)), (0, A.Offer((10,))), (1, A.Counter((10,))))
    assert g.stage == "offer"
    play(g, (0, A.Offer((20,))), (1, A.Counter((20,))))
    assert g.rats == [1, 2, 0]


def test_s9_4_rats_never_make_a_trade_compulsory_nor_keep_the_game_going() -> None:
    g = mgame(herds=[herd(cow=4), herd(dog=4), herd(horse=4)], rats=[1, 1, 0], deck=[], turn_seat=0)
    assert g.is_over()  # the animals are all complete: rats alone do not keep it going
    g = mgame(herds=[herd(cow=2), herd(cow=2), herd(horse=4)], rats=[1, 0, 1], deck=[], turn_seat=0)
    req = g.next_request()
    assert req is not None and req.seat == 0 and A.Challenge(2, RATS) in (req.choices or ())
    g = mgame(
        herds=[herd(cow=4), herd(cow=0, dog=2), herd(dog=2)], rats=[1, 1, 0], deck=[], turn_seat=0
    )
    assert g.turn_seat == 1  # seat 0 could only trade rats: skipped


# ---------------------------------------------------------------- §9.5 variants
def test_s9_5_super_trade_allows_an_auction_after_a_trade() -> None:
    rules = K.MASTER.with_changes(super_trade=True)
    g = mgame(rules, herds=[herd(cow=2), herd(cow=2), herd()], deck=[HORSE, GOOSE], turn_seat=0)
    play(g, (0, A.Challenge(1, COW)), (0, A.Offer((50,))), (1, A.ACCEPT))
    req = g.next_request()
    assert req is not None and req.seat == 0 and req.choices == (A.AUCTION, A.PASS)
    play(g, (0, A.AUCTION))
    assert g.card == HORSE and g.turn_seat == 0


def test_s9_5_double_auction_sells_two_animals_as_one_lot() -> None:
    rules = K.MASTER.with_changes(double_auction=True)
    g = mgame(rules, deck=[COW, DOG, GOOSE], turn_seat=0)
    play(g, (0, A.AUCTION), (1, A.Bid(10)), (2, A.PASS), (2, A.PASS), (0, A.SELL))
    play(g, (1, A.Pay((10,))))
    assert g.herds[1][COW] == 1 and g.herds[1][DOG] == 1 and g.deck == [GOOSE]


# ---------------------------------------------------------------- §7 Master scoring
def test_s7_master_rulebook_example_2670() -> None:
    g = mgame(herds=[herd(cow=4, dog=4), herd(), herd()], deck=[])
    g.pedigrees[0] = [COW, HORSE]
    assert g.score(0) == 2670


def test_s7_master_all_rats_strike_the_cheapest_quartet() -> None:
    g = mgame(herds=[herd(cow=4, dog=4, chicken=4), herd(), herd()], deck=[])
    g.pedigrees[0] = [COW]
    g.rats = [4, 0, 0]
    assert g.struck_quartet(0) == CHICKEN
    # Cow, Dog remain: (800 + 160 + 250) * 2 = 2420
    assert g.score(0) == 2420
    g.rats = [3, 1, 0]
    assert g.score(0) == (800 + 160 + 10 + 250) * 3


def test_s7_master_struck_species_pedigree_counts_as_other() -> None:
    g = mgame(herds=[herd(chicken=4), herd(), herd()], deck=[])
    g.pedigrees[0] = [CHICKEN]
    g.rats = [4, 0, 0]
    assert g.struck_quartet(0) == CHICKEN and g.score(0) == 250  # 0 quartets, +250 (step 5)


def test_s7_master_ranking_by_score_then_money() -> None:
    g = mgame(
        herds=[herd(cow=4), herd(cow=0), herd()], wallets=[MSTART, mwallet(500), MSTART], deck=[]
    )
    g.pedigrees[1] = [HORSE, PIG, GOAT, SHEEP, DOG, CAT, GOOSE, CHICKEN]  # 8 x 250 = 2000
    g.pedigrees[2] = [COW, DOG, CAT, GOOSE, CHICKEN, GOAT, SHEEP, PIG]
    r = g.result()
    assert r.scores == (800.0, 2000.0, 2000.0) and r.places == (2, 0, 1)


# ---------------------------------------------------------------- §10 the duel
def duel(**kw: object) -> K.KuhhandelGame:
    return mgame(K.MASTER_DUEL, seats=2, **kw)


def test_s10_duel_setup_payout_notes_aside_ten_removed() -> None:
    g = duel()
    assert g.reserve == [0, 0, 0, 2, 2, 2, 2]
    assert sum(g.removed) == 10
    assert g.observe(0).bank is None  # the removed notes are unknown
    req = g.next_request()
    assert req is not None and req.choices == (A.DRAW,)
    with pytest.raises(IllegalAction, match="no auctions"):
        g.apply(0, A.AUCTION)


def test_s10_divide_keep_or_give_the_other_gets_the_next_card_unseen() -> None:
    g = duel(deck=[HORSE, CHICKEN, COW], turn_seat=0)
    play(g, (0, A.DRAW))
    assert g.observe(0).peek == HORSE and g.observe(1).peek is None
    assert [e.to for e in g.events() if e.kind == "peek"] == [(0,)]
    play(g, (0, A.GIVE))
    assert g.herds[1][HORSE] == 1 and g.herds[0][CHICKEN] == 1 and g.turn_seat == 1
    play(g, (1, A.DRAW), (1, A.KEEP))
    assert g.herds[1][COW] == 1  # the last card: no second card


def test_s10_donkey_pays_from_the_reserve_when_laid_down() -> None:
    g = duel(deck=[DONKEY, DONKEY, COW], turn_seat=0)
    play(g, (0, A.DRAW))
    assert g.money(0) == 100  # not yet: it pays when laid down
    play(g, (0, A.KEEP))
    assert g.money(0) == 100 + 50 + 100 and g.reserve == [0, 0, 0, 0, 0, 2, 2]


def test_s10_rats_and_pedigrees_are_divided_like_any_card() -> None:
    g = duel(deck=[RAT, pedigree(COW)], turn_seat=0)
    play(g, (0, A.DRAW), (0, A.GIVE))
    assert g.rats[1] == 1 and g.pedigrees[0] == [COW]


def test_master_and_duel_play_to_the_end_with_every_bot() -> None:
    for rules, seats in ((K.MASTER, 4), (K.MASTER, 6), (K.MASTER_DUEL, 2)):
        for seed in range(3):
            for bot in ("random", "heuristic"):
                g = K.new_game(rules, seats, seed)
                r = run_match(g, [K.SPEC.bots[bot](seed=seed + i) for i in range(seats)])
                assert len(r.places) == seats
