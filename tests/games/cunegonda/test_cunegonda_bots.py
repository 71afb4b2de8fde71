"""The built-in Cunegonda bots: legal, seeded, and the heuristic plays like a Hearts player."""

from __future__ import annotations

import statistics

from cunegonda_support import ONE_ROUND

from cardtable.core import Request, load_bot, run_match
from cardtable.games.cunegonda import NAMES, Observation, Trick, card, new_game
from cardtable.games.cunegonda.bots import HeuristicBot, RandomBot
from cardtable.games.cunegonda.scoring import trick_value


def cards(text: str) -> tuple[int, ...]:
    return tuple(sorted(card(n) for n in text.split()))


def observation(
    seat: int,
    hand: str,
    *,
    trick: str = "",
    leader: int | None = None,
    tricks: tuple[Trick, ...] = (),
    passed: str = "",
) -> Observation:
    """A play-phase observation for ``seat`` built by hand (tests feed it to the bot)."""
    played = tuple(card(n) for n in trick.split())
    if leader is None:
        leader = (seat - len(played)) % 4
    return Observation(
        seat=seat,
        round=0,
        rounds=1,
        phase="play",
        hand=cards(hand),
        passed=cards(passed) if passed else None,
        pass_to=(seat - 1) % 4,
        received=None,
        received_from=(seat + 1) % 4,
        passes_chosen=(True,) * 4,
        leader=leader,
        trick=played,
        tricks=tricks,
        round_points=(0, 0, 0, 0),
        round_scores=(),
        totals=(0, 0, 0, 0),
        turn=seat,
    )


def legal(obs: Observation) -> tuple[int, ...]:
    if obs.trick:
        follow = tuple(c for c in obs.hand if c // 13 == obs.trick[0] // 13)
        if follow:
            return follow
    return obs.hand


def play(obs: Observation, bot: HeuristicBot | None = None) -> str:
    bot = bot or HeuristicBot()
    action = bot.act(obs, Request(obs.seat or 0, "play", legal(obs), None))
    assert isinstance(action, int)
    return NAMES[action]


def pass_of(hand: str) -> set[str]:
    obs = observation(0, hand)
    action = HeuristicBot().act(obs, Request(0, "pass", None, {"count": 3, "to": 3}))
    assert isinstance(action, tuple) and len(action) == 3
    return {NAMES[c] for c in action}


def test_bot_factories_take_a_seed() -> None:
    assert isinstance(load_bot("cunegonda", "random", seed=3), RandomBot)
    assert isinstance(load_bot("cunegonda", "heuristic", seed=3), HeuristicBot)


def test_random_bot_is_seeded_and_legal() -> None:
    def match(bot_seed: int) -> list[tuple[int, object]]:
        game = new_game(ONE_ROUND, 4, 1)
        run_match(game, [load_bot("cunegonda", "random", seed=bot_seed + s) for s in range(4)])
        return list(game.history())

    assert match(5) == match(5)
    assert match(5) != match(6)


def test_heuristic_passes_unguarded_queen_and_spade_honours() -> None:
    assert pass_of("QS AS KS 2S 3C 4C 5D 6D 7D 8H 2H 3H 4H") == {"QS", "AS", "KS"}


def test_heuristic_keeps_a_guarded_queen_and_passes_high_hearts() -> None:
    passed = pass_of("QS 2S 3S 4S 5S AH KH QH 2C 3C 4D 5D 6D")
    assert passed == {"AH", "KH", "QH"}


def test_heuristic_dumps_the_queen_when_void() -> None:
    """Void in clubs: the queen of spades goes on another seat's trick."""
    obs = observation(2, "QS 2S AH 3H 5D", trick="10C 4C")
    assert play(obs) == "QS"


def test_heuristic_throws_its_highest_heart_when_void_without_the_queen() -> None:
    obs = observation(1, "2S 3S 9H AH 5D", trick="10C")
    assert play(obs) == "AH"


def test_heuristic_drops_the_queen_under_a_higher_spade() -> None:
    obs = observation(3, "QS 3S 4S 2D 7D", trick="AS 5S")
    assert play(obs) == "QS"


def test_heuristic_ducks_a_trick_with_points() -> None:
    """Hearts led: it plays its highest heart below the best one, not a winning one."""
    obs = observation(1, "2H 9H AH 3C 4C", trick="JH")
    assert play(obs) == "9H"


def test_heuristic_takes_a_clean_trick_as_last_seat() -> None:
    obs = observation(3, "2D KD 3C 4S 5S", trick="4D 9D 10D")
    assert trick_value(cards("4D 9D 10D KD")) == 10
    assert play(obs) == "KD"


def test_heuristic_does_not_overtake_when_last_and_the_trick_costs() -> None:
    obs = observation(3, "2D KD 3C 4S 5S", trick="4D QH 10D")
    assert play(obs) == "2D"


def test_heuristic_stops_a_moon_shot() -> None:
    """Seat 0 took every point card so far (QS and 7 hearts): the bot takes a heart trick."""
    tricks = (
        Trick(0, cards_in_order("AH 2H 3H 4H"), 0, 10 - 2 - 3 - 4 - 14),
        Trick(0, cards_in_order("KH 5H 6H 7H"), 0, 10 - 5 - 6 - 7 - 13),
        Trick(0, cards_in_order("AS QS 2S 3S"), 0, 10 - 26),
    )
    # Seat 0 leads a small heart; seat 1 could duck with 8H but overtakes with JH.
    obs = observation(1, "8H JH 4C 5C 6C 7C 8C 9C 10C", trick="9H", leader=0, tricks=tricks)
    assert play(obs) == "JH"
    # Without the moon threat (the points are shared) it ducks.
    shared = (*tricks[:2], Trick(0, cards_in_order("AS QS 2S 3S"), 2, -16))
    calm = observation(1, "8H JH 4C 5C 6C 7C 8C 9C 10C", trick="9H", leader=0, tricks=shared)
    assert play(calm) == "8H"
    # Leading against the shooter: its highest heart.
    lead = observation(1, "8H JH 4C 5C 6C 7C 8C 9C 10C", leader=1, tricks=tricks)
    assert play(lead) == "JH"


def cards_in_order(text: str) -> tuple[int, ...]:
    return tuple(card(n) for n in text.split())


def test_heuristic_tries_the_moon_with_a_very_strong_hand() -> None:
    """It keeps its hearts and the queen, passes its low cards, and plays to win every trick."""
    bot = HeuristicBot()
    hand = "AH KH QH JH 10H 9H AS KS QS AC KC 2D 3C"
    action = bot.act(observation(0, hand), Request(0, "pass", None, {"count": 3, "to": 3}))
    assert isinstance(action, tuple)
    assert {NAMES[c] for c in action} == {"2D", "3C", "KC"}
    # Playing for the moon, it overtakes a heart trick it would otherwise duck.
    obs = observation(0, "AH KH QH JH 10H 9H AS KS QS AC", trick="5H 8H 4H", leader=1)
    assert play(obs, bot) == "AH"
    assert play(obs) == "9H"  # not shooting: the cheapest of its winning hearts


def test_heuristic_beats_random_on_mean_score() -> None:
    """Over 100 one-round matches (the heuristic in each seat in turn), it scores more."""
    heuristic: list[float] = []
    randoms: list[float] = []
    for i in range(100):
        seat = i % 4
        agents = [load_bot("cunegonda", "random", seed=10 * i + s) for s in range(4)]
        agents[seat] = load_bot("cunegonda", "heuristic", seed=i)
        result = run_match(new_game(ONE_ROUND, 4, 1000 + i), agents)
        heuristic.append(result.scores[seat])
        randoms.extend(result.scores[s] for s in range(4) if s != seat)
    assert statistics.mean(heuristic) > statistics.mean(randoms) + 10
    assert statistics.mean(heuristic) > 5
