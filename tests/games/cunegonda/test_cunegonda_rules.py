"""One test per rule of cunegonda-rules.md; each names its section."""

from __future__ import annotations

import itertools
import random

import pytest
from cunegonda_support import ONE_ROUND, moon_game, play_out, random_action, random_game

from cardtable.core import Event, IllegalAction, Termination
from cardtable.games.cunegonda import CunegondaGame, CunegondaRules, card, new_game
from cardtable.games.cunegonda.scoring import round_scores, trick_value

# The spec's own numbers, written out here instead of imported from the engine.
HEART_VALUE = {
    "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9, "10": 10,
    "J": 11, "Q": 12, "K": 13, "A": 14,
}  # fmt: skip
RANK_ORDER = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]


def spec_trick_value(names: list[str]) -> int:
    value = 10
    for n in names:
        if n == "QS":
            value -= 26
        elif n.endswith("H"):
            value -= HEART_VALUE[n[:-1]]
    return value


def spec_winner(leader: int, names: list[str]) -> int:
    led = names[0][-1]
    best = max(
        (i for i, n in enumerate(names) if n[-1] == led),
        key=lambda i: RANK_ORDER.index(names[i][:-1]),
    )
    return (leader + best) % 4


def events_of(game: CunegondaGame, kind: str) -> list[Event]:
    return [e for e in game.events() if e.kind == kind]


def finish_pass(game: CunegondaGame, rng: random.Random) -> None:
    """Let every seat choose a random pass."""
    while game.pending() and game.pending()[0].kind == "pass":
        req = game.pending()[0]
        game.apply(req.seat, random_action(game, req, rng))


# -- Match -------------------------------------------------------------------------------------


def test_match_deck_is_52_cards_ace_high() -> None:
    """Match: a standard 52-card deck, ace high: an ace of the led suit beats its king."""
    # Every trick of a full match is won by the highest card of the led suit under ace-high order.
    game = random_game(3, CunegondaRules(rounds=2))
    for ev in events_of(game, "trick"):
        assert ev.data["winner"] == spec_winner(ev.data["leader"], ev.data["cards"])
    dealt = [set(e.data["cards"]) for e in events_of(game, "deal")[:4]]
    assert len(set().union(*dealt)) == 52


def test_match_is_10_rounds_by_default() -> None:
    """Match: a match is 10 rounds; the game is over after round 10's last trick."""
    game = random_game(11, CunegondaRules())
    ends = events_of(game, "round_end")
    assert [e.data["round"] for e in ends] == list(range(10))
    assert game.is_over()
    assert game.result().termination is Termination.NORMAL
    assert len(game.result().details["round_scores"]) == 10


def test_match_shortened_by_parameter_never_silently() -> None:
    """Match: a parameter may shorten the match, never silently (rules, events, result say so)."""
    game = random_game(5, CunegondaRules(rounds=3))
    assert len(events_of(game, "round_end")) == 3
    assert game.rules_json() == {"rounds": 3}
    assert events_of(game, "round_start")[0].data["rounds"] == 3
    assert "shortened" in game.result().reason


def test_match_highest_total_wins() -> None:
    """Match: the highest total after the last round wins; totals are the sum of round scores."""
    game = random_game(8, CunegondaRules(rounds=4))
    result = game.result()
    rounds = result.details["round_scores"]
    totals = [sum(r[s] for r in rounds) for s in range(4)]
    assert list(result.scores) == totals
    best = max(totals)
    assert set(result.winners) == {s for s in range(4) if totals[s] == best}


def test_match_ties_share_the_place() -> None:
    """Match: ties share the place, and the next place skips the shared ones ("1224")."""
    tied = None
    for seed in range(500):
        game = random_game(seed)
        totals = game.result().scores
        if len(set(totals)) < 4:
            tied = game
            break
    assert tied is not None, "no tie in 500 one-round matches"
    totals = tied.result().scores
    places = tied.result().places
    for s in range(4):
        assert places[s] == sum(1 for t in totals if t > totals[s])
    end = events_of(tied, "match_end")[0]
    assert end.data["places"] == list(places)


# -- Round 1: deal ------------------------------------------------------------------------------


def test_round_deal_13_cards_each() -> None:
    """Round 1 (Deal): 13 cards to each seat, the 52 cards once each, seen only by that seat."""
    game = new_game(ONE_ROUND, 4, 42)
    deals = events_of(game, "deal")
    assert len(deals) == 4
    for s, ev in enumerate(deals):
        assert ev.to == (s,)
        assert len(ev.data["cards"]) == 13
        assert [card(n) for n in ev.data["cards"]] == list(game.observe(s).hand)
    assert len({n for ev in deals for n in ev.data["cards"]}) == 52


def test_round_deal_is_seeded() -> None:
    """Round 1 (Deal): the shuffle is seeded: the same seed deals the same hands."""
    hands = [tuple(new_game(ONE_ROUND, 4, 7).observe(s).hand) for s in range(4)]
    again = [tuple(new_game(ONE_ROUND, 4, 7).observe(s).hand) for s in range(4)]
    other = [tuple(new_game(ONE_ROUND, 4, 8).observe(s).hand) for s in range(4)]
    assert hands == again
    assert hands != other


def test_round_each_round_is_a_new_deal() -> None:
    """Round 1 (Deal): every round starts with a fresh deal of 13 cards each."""
    game = random_game(9, CunegondaRules(rounds=3))
    deals = events_of(game, "deal")
    assert len(deals) == 12
    for r in range(3):
        cards = [n for ev in deals[4 * r : 4 * r + 4] for n in ev.data["cards"]]
        assert sorted(cards) == sorted(set(cards)) and len(cards) == 52


# -- Round 2: pass ------------------------------------------------------------------------------


def test_round_pass_goes_to_seat_s_minus_1() -> None:
    """Round 2 (Pass): seat s's 3 cards go to seat s-1 mod 4 (the seat on its right)."""
    game = new_game(ONE_ROUND, 4, 1)
    before = [set(game.observe(s).hand) for s in range(4)]
    chosen = {}
    for s in range(4):
        chosen[s] = tuple(sorted(game.observe(s).hand)[:3])
        game.apply(s, chosen[s])
    for s in range(4):
        to = (s - 1) % 4
        hand = set(game.observe(to).hand)
        assert set(chosen[s]) <= hand
        assert game.observe(to).received == chosen[s]
        assert game.observe(s).passed == chosen[s]
        assert not set(chosen[s]) & set(game.observe(s).hand)
        assert hand == (before[to] - set(chosen[to])) | set(chosen[s])
    infos = [r.info for r in new_game(ONE_ROUND, 4, 1).pending()]
    assert [i["to"] if i else None for i in infos] == [3, 0, 1, 2]


def test_round_pass_is_simultaneous_and_hidden_until_all_chose() -> None:
    """Round 2 (Pass): all choices are made before any card moves; nobody sees a pass early."""
    game = new_game(ONE_ROUND, 4, 2)
    assert [r.seat for r in game.pending()] == [0, 1, 2, 3]
    assert all(r.kind == "pass" for r in game.pending())
    hands = [game.observe(s).hand for s in range(4)]
    # Seats choose in the order 2, 0, 3: no card moves and nobody learns another's pass.
    for s in (2, 0, 3):
        game.apply(s, hands[s][:3])
        assert [game.observe(x).hand for x in range(4)] == hands
        for x in range(4):
            assert game.observe(x).received is None
        assert not events_of(game, "pass")
    assert [r.seat for r in game.pending()] == [1]
    assert game.observe(1).passes_chosen == (True, False, True, True)
    with pytest.raises(IllegalAction):
        game.apply(0, hands[0][3:6])  # a seat chooses once
    game.apply(1, hands[1][:3])
    assert game.observe(0).received == tuple(sorted(hands[1][:3]))
    assert [e.to for e in events_of(game, "pass")] == [(0, 3), (1, 0), (2, 1), (3, 2)]


def test_round_pass_same_direction_every_round() -> None:
    """Round 2 (Pass): the direction is the same every round."""
    game = random_game(4, CunegondaRules(rounds=4))
    passes = events_of(game, "pass")
    assert len(passes) == 16
    assert all(e.data["to"] == (e.data["seat"] - 1) % 4 for e in passes)


def test_round_pass_must_be_3_own_cards() -> None:
    """Round 2 (Pass): a seat passes exactly 3 cards of its own hand."""
    game = new_game(ONE_ROUND, 4, 3)
    mine = game.observe(0).hand
    theirs = game.observe(1).hand
    with pytest.raises(ValueError):
        game.apply(0, mine[:2])
    with pytest.raises(ValueError):
        game.apply(0, mine[:4])
    with pytest.raises(IllegalAction):
        game.apply(0, (mine[0], mine[1], theirs[0]))
    game.apply(0, mine[:3])


# -- Round 3: play ------------------------------------------------------------------------------


def test_round_lead_of_round_r_is_seat_r_mod_4() -> None:
    """Round 3 (Play): round r (from 0) is led by seat r mod 4."""
    game = random_game(6, CunegondaRules(rounds=6))
    starts = events_of(game, "round_start")
    assert [e.data["leader"] for e in starts] == [r % 4 for r in range(6)]
    plays = events_of(game, "play")
    firsts = [plays[52 * r] for r in range(6)]
    assert [e.data["seat"] for e in firsts] == [r % 4 for r in range(6)]


def test_round_play_in_increasing_seat_order() -> None:
    """Round 3 (Play): play goes in increasing seat order from the leader."""
    game = random_game(12)
    for ev in events_of(game, "trick"):
        r, i = ev.data["round"], ev.data["trick"]
        plays = [e for e in events_of(game, "play") if e.data["round"] == r][4 * i : 4 * i + 4]
        assert [p.data["seat"] for p in plays] == [(ev.data["leader"] + k) % 4 for k in range(4)]
        assert [p.data["card"] for p in plays] == ev.data["cards"]


def test_round_winner_leads_next_trick() -> None:
    """Round 3 (Play): the winner of each trick leads the next."""
    game = random_game(13)
    tricks = events_of(game, "trick")
    for prev, nxt in itertools.pairwise(tricks):
        assert nxt.data["leader"] == prev.data["winner"]


def test_round_highest_card_of_led_suit_wins() -> None:
    """Round 3 (Play): the highest card of the led suit wins (off-suit cards never win)."""
    seen_offsuit_high = False
    for seed in range(20):
        game = random_game(seed)
        for ev in events_of(game, "trick"):
            names = ev.data["cards"]
            assert ev.data["winner"] == spec_winner(ev.data["leader"], names)
            led = names[0][-1]
            top = max(names, key=lambda n: RANK_ORDER.index(n[:-1]))
            if top[-1] != led and RANK_ORDER.index(top[:-1]) > RANK_ORDER.index(
                ev.data["card"][:-1]
            ):
                seen_offsuit_high = True
    assert seen_offsuit_high  # the cases above included an off-suit card higher than the winner


def test_round_must_follow_suit() -> None:
    """Round 3 (Play): a seat must play a card of the led suit if it has one."""
    rng = random.Random(0)
    checked = 0
    for seed in range(30):
        game = new_game(ONE_ROUND, 4, seed)
        finish_pass(game, rng)
        while not game.is_over():
            req = game.pending()[0]
            obs = game.observe(req.seat)
            assert req.choices is not None
            if obs.trick:
                led = obs.trick[0] // 13
                follow = [c for c in obs.hand if c // 13 == led]
                if follow:
                    assert list(req.choices) == follow
                    other = [c for c in obs.hand if c // 13 != led]
                    if other:
                        with pytest.raises(IllegalAction, match="follow suit"):
                            game.apply(req.seat, other[0])
                        checked += 1
                else:
                    assert req.choices == obs.hand  # void: any card
            game.apply(req.seat, rng.choice(req.choices))
    assert checked > 100


def test_round_no_hearts_broken_rule_and_free_first_trick() -> None:
    """Round 3 (Play): no "hearts broken" rule, no restriction on the first trick."""
    game = new_game(ONE_ROUND, 4, 21)
    finish_pass(game, random.Random(1))
    leader = game.pending()[0]
    assert leader.choices == game.observe(leader.seat).hand  # hearts and the QS included
    hearts = [c for c in leader.choices or () if c // 13 == 2]
    assert hearts
    game.apply(leader.seat, hearts[0])  # leading a heart at the first trick is legal


def test_round_has_13_tricks() -> None:
    """Round 3 (Play): 13 tricks per round; every dealt card is played once."""
    game = random_game(14)
    tricks = events_of(game, "trick")
    assert len(tricks) == 13
    played = [n for ev in tricks for n in ev.data["cards"]]
    assert len(played) == 52 == len(set(played))


# -- Scoring ------------------------------------------------------------------------------------


def test_scoring_plus_10_per_trick() -> None:
    """Scoring: each trick won is +10 for its winner (a trick without points is worth 10)."""
    assert trick_value([card(n) for n in ["2C", "AC", "KD", "JS"]]) == 10
    game = random_game(15)
    clean = [e for e in events_of(game, "trick") if not e.data["hearts"] and not e.data["queen"]]
    assert clean and all(e.data["value"] == 10 for e in clean)


def test_scoring_heart_values() -> None:
    """Scoring: minus the heart values (2..10 face value, J 11, Q 12, K 13, A 14)."""
    for rank, value in HEART_VALUE.items():
        assert trick_value([card(rank + "H"), card("2C")]) == 10 - value
    assert trick_value([card(n) for n in ["AH", "KH", "QH", "JH"]]) == 10 - 50
    for seed in range(5):
        for ev in events_of(random_game(seed), "trick"):
            assert ev.data["value"] == spec_trick_value(ev.data["cards"])


def test_scoring_queen_of_spades_minus_26() -> None:
    """Scoring: minus 26 if the trick holds the queen of spades."""
    assert trick_value([card(n) for n in ["QS", "2S", "3S", "4S"]]) == -16
    assert trick_value([card(n) for n in ["QS", "AH", "2S", "KS"]]) == 10 - 26 - 14
    game = random_game(16)
    queen = [e for e in events_of(game, "trick") if e.data["queen"]]
    assert len(queen) == 1
    assert queen[0].data["value"] == spec_trick_value(queen[0].data["cards"])


def test_scoring_round_points_are_trick_values() -> None:
    """Scoring: a seat's round score is the sum of the values of the tricks it won."""
    for seed in range(5):
        game = random_game(seed)
        end = events_of(game, "round_end")[0]
        if end.data["moon"] is not None:
            continue
        sums = [0] * 4
        for ev in events_of(game, "trick"):
            sums[ev.data["winner"]] += spec_trick_value(ev.data["cards"])
        assert end.data["scores"] == sums == end.data["points"]


def test_scoring_shoot_the_moon_plus_60_minus_20() -> None:
    """Scoring (Shoot the moon): all 13 hearts and the QS: +60 for that seat, -20 for each other."""
    scores, shooter = round_scores([-94, 40, 30, 24], [[*range(26, 39), 49], [], [], []])
    assert (scores, shooter) == ([60, -20, -20, -20], 0)
    # 13 hearts without the queen is no moon.
    scores, shooter = round_scores([-84, 40, 30, 14], [list(range(26, 39)), [49], [], []])
    assert shooter == -1 and scores == [-84, 40, 30, 14]
    # End to end: a round where the others help seat 0.
    for seed in range(300):
        game = moon_game(seed)
        end = events_of(game, "round_end")[0]
        if end.data["moon"] is None:
            continue
        shooter = end.data["moon"]
        won = [e for e in events_of(game, "trick") if e.data["winner"] == shooter]
        taken = [n for e in won for n in e.data["cards"]]
        assert "QS" in taken and sum(1 for n in taken if n.endswith("H")) == 13
        assert end.data["scores"] == [60 if s == shooter else -20 for s in range(4)]
        assert end.data["points"] != end.data["scores"]  # the trick points were replaced
        assert [e.data["seat"] for e in events_of(game, "moon")] == [shooter]
        assert game.result().scores == tuple(end.data["scores"])
        return
    pytest.fail("no moon in 300 cooperative rounds")


def test_scoring_every_round_sums_to_zero() -> None:
    """Scoring: both ways (tricks or moon) a round sums to zero."""
    for seed in range(3):
        game = random_game(seed, CunegondaRules(rounds=5))
        for r in game.result().details["round_scores"]:
            assert sum(r) == 0
    assert sum(events_of(moon_game(0), "round_end")[0].data["scores"]) == 0


def test_information_seat_sees_own_hand_only() -> None:
    """Information: a seat sees its hand, its pass and what it received, never another's."""
    game = new_game(ONE_ROUND, 4, 30)
    finish_pass(game, random.Random(30))
    obs = game.observe(0)
    assert obs.passed is not None and obs.received is not None
    assert game.observe(None).hand == ()
    assert game.observe(None).passed is None and game.observe(None).received is None
    play_out(game, random.Random(1), until=lambda g: len(g.observe(None).tricks) == 5)
    for s in range(4):
        assert len(game.observe(s).tricks) == 5  # every trick and its winner is public
