"""The environment's Kuhhandel vectors (kept up to date by the codec's follower from the engine's
state, without building an observation) are exactly the vectors of the seat's own observation.

Every seat, at every step of random games of every preset, of random setups and of open auctions
with the Master variants: the table's vector (:meth:`KuhhandelCodec.follow`) must be
``np.array_equal`` to :meth:`KuhhandelCodec.encode` of ``game.observe(seat)`` and to the plain
reference encoder. The follower must also catch up after many actions nobody looked at, and
start afresh for each new game on the same table.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import numpy as np
import pytest

from cardtable.games.kuhhandel.rules import random_rules
from cardtable.rl.kuhhandel import KuhhandelCodec
from cardtable.rl.table import Table

from . import reference
from .conftest import random_index

OPEN_MASTER = {
    "preset": "master",
    "auction_style": "open",
    "double_auction": True,
    "super_trade": True,
}

CASES: list[tuple[Any, int]] = [
    ("classic", 4),
    ("classic", 3),
    ("competition", 5),
    ("competition", 6),
    ("master", 4),
    ("master", 6),
    ("master-duel", 2),
    (OPEN_MASTER, 4),
    (random_rules(1, 4), 4),
    (random_rules(2, 5), 5),
    (random_rules(3, 3), 3),
]
IDS = [
    "classic-4",
    "classic-3",
    "competition-5",
    "competition-6",
    "master-4",
    "master-6",
    "master-duel",
    "open-master-4",
    "random-1",
    "random-2",
    "random-3",
]


def _check(table: Table, seat: int, what: str) -> None:
    """``seat``'s vector from the table equals the encoding of its observation, exactly."""
    codec = table.codec
    assert isinstance(codec, KuhhandelCodec)
    if seat == table.seat:
        request, draft = table.request, table.draft
    else:
        request = draft = None
    followed = table.encode(seat)["observation"]
    obs = table.game.observe(seat)
    encoded = codec.encode(obs, request, draft)
    plain = reference.kuhhandel_vector(codec, obs, request, draft)
    assert followed.dtype == np.float32 and followed.shape == encoded.shape
    if not np.array_equal(followed, encoded):
        bad = np.flatnonzero(followed != encoded).tolist()
        got, want = followed[bad], encoded[bad]
        pytest.fail(f"{what}, seat {seat}: features {bad} differ: {got} vs {want}")
    assert np.array_equal(encoded, plain), f"{what}, seat {seat}: encode vs reference"
    with pytest.raises(ValueError):  # read-only: the codec may write into it once let go of
        followed[0] = -7.0


@pytest.mark.parametrize(("rules", "seats"), CASES, ids=IDS)
def test_every_seat_every_step_equals_its_observation(rules: Any, seats: int) -> None:
    table = Table("kuhhandel", rules, seats)
    steps = 0
    for seed in (11, 12, 13, 11):  # the same game again on the same table: nothing stale
        rng = random.Random(seed)
        table.reset(seed)
        while table.seat >= 0:
            order = list(range(table.seats))
            rng.shuffle(order)  # any order of seats
            for s in order:
                _check(table, s, f"game {seed} step {steps}")
            table.step(random_index(table.mask(), rng))
            steps += 1
        for s in range(table.seats):  # the vectors after the end
            _check(table, s, f"game {seed} over")
    assert steps > 200


@pytest.mark.parametrize(("rules", "seats"), CASES, ids=IDS)
def test_the_environment_step_gives_the_observation_and_the_options(rules: Any, seats: int) -> None:
    """The environment's own path (``env.last()``: the codec's ``choosing``, with the bidding's
    kept templates and the menus of fixed choices found by the choices' identity) gives the
    vector of the seat's observation and the mask of its options listed afresh, at every step."""
    from cardtable.rl.aec import CardtableEnv

    assert _play_checked(CardtableEnv("kuhhandel", rules, seats), (31, 32, 31)) > 200


def test_the_environment_step_with_caps_gives_the_observation_and_the_options() -> None:
    """As above with ``overbid``: seats win bids they cannot pay, are exposed and bid again
    under a cap (§4.7), which the bidding's kept templates must show."""
    from cardtable.rl.aec import CardtableEnv

    env = CardtableEnv("kuhhandel", "competition", 5, overbid=True)
    assert _play_checked(env, (31,), need_caps=True) > 200


def _play_checked(env: Any, seeds: tuple[int, ...], *, need_caps: bool = False) -> int:
    """Play ``env`` with a uniform policy, checking every step's observation and mask; the
    number of steps."""
    codec = env.codec
    assert isinstance(codec, KuhhandelCodec)
    steps = capped = 0
    for seed in seeds:
        rng = random.Random(seed)
        env.reset(seed=seed)
        for agent in env.agent_iter():
            obs, _reward, terminated, truncated, _info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            table = env.table
            seat, request, draft = table.seat, table.request, table.draft
            assert request is not None and draft is not None and agent == f"seat_{seat}"
            seen = table.game.observe(seat)
            want = codec.encode(seen, request, draft)
            if not np.array_equal(obs["observation"], want):
                bad = np.flatnonzero(obs["observation"] != want).tolist()
                pytest.fail(f"game {seed} step {steps} ({request.kind}): features {bad} differ")
            fresh = copy.copy(draft)
            fresh.options = None
            options = codec.options(seen, request, fresh, wait=True)
            assert obs["action_mask"].nonzero()[0].tolist() == sorted(options), request.kind
            with pytest.raises(ValueError):  # read-only (see test_episodes for the reuse)
                obs["observation"][0] = -7.0
            capped += bool(table.game.caps)
            env.step(random_index(obs["action_mask"], rng))
            steps += 1
    assert capped or not need_caps, "no step under a cap"
    return steps


@pytest.mark.parametrize(("rules", "seats"), CASES, ids=IDS)
def test_the_follower_catches_up_after_unobserved_actions(rules: Any, seats: int) -> None:
    """As in training: vectors are asked for now and then (here after 0 to 40 steps, of one
    seat), so the follower must bring a vector up to date over many actions at once."""
    table = Table("kuhhandel", rules, seats)
    checked = 0
    for seed in range(20, 26):
        rng = random.Random(seed)
        table.reset(seed)
        skip = 0
        while table.seat >= 0:
            if skip <= 0:
                _check(table, rng.randrange(table.seats), f"game {seed}")
                checked += 1
                skip = rng.choice((0, 1, 3, 10, 40))
            skip -= 1
            table.step(random_index(table.mask(), rng))
        _check(table, rng.randrange(table.seats), f"game {seed} over")
    assert checked > 50


def test_a_payment_seen_again_after_steps_nobody_looked_at() -> None:
    """The vector kept for a payment or offer answered note by note holds the draft written so
    far; after several notes chosen unseen (or a draft of another answer) it is written afresh."""
    table = Table("kuhhandel", "classic", 4)
    checked = 0
    for seed in range(40, 46):
        rng = random.Random(seed)
        table.reset(seed)
        while table.seat >= 0:
            request, draft = table.request, table.draft
            assert request is not None and draft is not None
            if request.kind in ("pay", "offer", "respond") and not draft.count:
                _check(table, table.seat, f"game {seed} first note")  # the vector is kept
                for _ in range(2):  # two notes nobody looks at, if the answer goes on
                    if table.step(random_index(table.mask(), rng)) or table.request is not request:
                        break
                if table.request is request and draft.count >= 2:
                    _check(table, table.seat, f"game {seed} after {draft.count} notes")
                    checked += 1
                continue
            table.step(random_index(table.mask(), rng))
    assert checked > 10


def test_a_follower_that_missed_a_change_is_caught() -> None:
    """The checks above can fail: a follower that does not write the notes of a payment (one
    change of one kind) gives a vector the tests refuse."""
    from cardtable.rl import kuhhandel as K

    table = Table("kuhhandel", "classic", 4)
    rng = random.Random(5)
    table.reset(5)
    original = K._Follower._money
    calls = [0]

    def blind_to_notes(self: Any) -> None:
        calls[0] += 1
        if calls[0] == 1:  # the wallets as dealt, then never again
            original(self)

    K._Follower._money = blind_to_notes  # type: ignore[method-assign]
    try:
        with pytest.raises(pytest.fail.Exception, match="differ"):
            while table.seat >= 0:
                for s in range(table.seats):
                    _check(table, s, "broken")
                table.step(random_index(table.mask(), rng))
    finally:
        K._Follower._money = original  # type: ignore[method-assign]


@pytest.mark.parametrize(("rules", "seats"), CASES, ids=IDS)
def test_the_engine_counts_every_move_the_follower_skips(rules: Any, seats: int) -> None:
    """The follower compares cards only when ``card_moves`` moved and notes only when
    ``note_moves`` moved: at no step may a list change while its counter stands still."""
    table = Table("kuhhandel", rules, seats)
    rng = random.Random(7)
    table.reset(7)
    g = table.game

    def cards() -> Any:
        return repr((g.deck, g.drawn, g.herds, g.rats, g.pedigrees)), g.card_moves

    def notes() -> Any:
        return repr((g.wallets, g.bank, g.reserve)), g.note_moves

    before = cards(), notes()
    moved = [0, 0]
    while table.seat >= 0:
        table.step(random_index(table.mask(), rng))
        after = cards(), notes()
        for i in (0, 1):
            if after[i][0] != before[i][0]:
                assert after[i][1] != before[i][1], f"{('cards', 'notes')[i]} moved uncounted"
                moved[i] += 1
        before = after
    assert all(moved)


@pytest.mark.parametrize(("rules", "seats"), CASES, ids=IDS)
def test_each_new_game_starts_from_the_first_games_vectors(rules: Any, seats: int) -> None:
    """A table's follower is made once; each later game starts from the vectors it showed when
    the first game was first looked at (``_Follower.restart``) and writes what differs. That
    point may be mid-game (the first game here is first looked at after steps nobody looked
    at), and so may a later game's: every seat's vector must still be its observation's."""
    table = Table("kuhhandel", rules, seats)
    follower = None
    for seed, unseen in ((60, 9), (61, 0), (62, 25), (63, 9), (60, 0)):
        rng = random.Random(seed)
        table.reset(seed)
        for _ in range(unseen):  # steps nobody looks at before the game is first looked at
            if table.seat < 0:
                break
            table.step(random_index(table.mask(), rng))
        for step in range(40):
            for s in range(table.seats):
                _check(table, s, f"game {seed} step {unseen + step}")
            if table.seat < 0:
                break
            table.step(random_index(table.mask(), rng))
        codec = table.codec
        assert isinstance(codec, KuhhandelCodec)
        follower = follower or codec._follower
        assert codec._follower is follower  # the same one, started again
