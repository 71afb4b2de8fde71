"""Action masks match the engine's legal actions exactly (property tests on random states).

- every index the mask allows leads (after completing the answer with further allowed steps) to an
  action the engine accepts;
- for requests that list their choices, the reachable actions are exactly those choices;
- payments (spec §4.6) and offers (§5.2): the reachable answers are exactly the valid payments /
  every sub-multiset of the wallet, enumerated independently;
- every answer the built-in bots give in a sample of states is reachable (``codec.indices``).
"""

from __future__ import annotations

import copy
import itertools
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardtable.core import load_bot
from cardtable.games.kuhhandel import actions as A
from cardtable.games.kuhhandel.money import payment_problem
from cardtable.rl.codec import WAIT
from cardtable.rl.table import Table

from .conftest import ENV_IDS, ENVIRONMENTS, random_index

OPEN_AUCTIONS = {
    "preset": "master",
    "auction_style": "open",
    "double_auction": True,
    "super_trade": True,
}


def _random_state(table: Table, seed: int, steps: int) -> bool:
    """Play ``steps`` uniformly random env steps from game ``seed``; False if the game ended."""
    rng = random.Random(seed)
    table.reset(seed)
    for _ in range(steps):
        if table.seat < 0:
            return False
        table.step(random_index(table.mask(), rng))
    return table.seat >= 0


def _complete(table: Table, index: int, rng: random.Random) -> Any:
    """The engine action reached by ``index`` and then random allowed steps (None for WAIT)."""
    codec = table.codec
    obs = table.observation(table.seat)
    request = table.request
    draft = copy.deepcopy(table.draft)
    assert request is not None and draft is not None
    value = codec.choose(obs, request, draft, index, wait=True)
    while value is None:
        m = codec.mask(obs, request, draft, wait=True)
        value = codec.choose(obs, request, draft, random_index(m, rng), wait=True)
    return None if value is WAIT else value


def _accepted(table: Table, action: Any) -> bool:
    game = copy.deepcopy(table.game)
    game.apply(table.seat, action)  # raises if the engine refuses it
    return True


def _check_state(table: Table, rng: random.Random) -> None:
    codec = table.codec
    request, draft = table.request, table.draft
    assert request is not None and draft is not None
    obs = table.observation(table.seat)
    opts = codec.allowed(obs, request, draft, wait=True)
    mask = table.mask()
    assert set(opts) == {i for i in range(codec.n_actions) if mask[i]}
    reached = set()
    for index in opts:
        action = _complete(table, index, rng)
        if action is not None:
            assert _accepted(table, action), (request, index, action)
            reached.add(action if not isinstance(action, tuple) else tuple(action))
    if request.choices is not None and not draft.started:
        assert reached == set(request.choices), request.kind
    # every bot's answer in this state is reachable through the mask
    for ref, seed in (("random", 1), ("random", 2), ("heuristic", 3)):
        bot = load_bot(table.spec.name, ref, seed=seed)
        start = getattr(bot, "start", None)
        if start is not None:
            from cardtable.core import GameInfo

            start(
                table.seat,
                GameInfo(table.spec.name, table.game.rules_json(), table.seats, table.seat),
            )
        answer = bot.act(obs, request)
        if not draft.started:
            path = codec.indices(obs, request, answer)
            assert path


@pytest.mark.parametrize(("game", "rules", "seats"), ENVIRONMENTS, ids=ENV_IDS)
@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 10_000), steps=st.integers(0, 900))
def test_masked_actions_are_accepted_and_bot_answers_reachable(
    game: str, rules: Any, seats: int, seed: int, steps: int
) -> None:
    table = Table(game, rules, seats)
    if game == "cunegonda":
        steps %= 70
    if _random_state(table, seed, steps):
        _check_state(table, random.Random(seed))


@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 10_000), steps=st.integers(0, 900))
def test_open_auctions_and_master_variants(seed: int, steps: int) -> None:
    """Open auctions list several requests at once (bidders and the auctioneer's knock)."""
    table = Table("kuhhandel", OPEN_AUCTIONS, 5)
    if _random_state(table, seed, steps):
        _check_state(table, random.Random(seed))


def test_every_kind_of_request_is_met() -> None:
    """The random states above do reach every request kind (else the property is hollow)."""
    kinds: set[str] = set()
    for rules, seats in (("master", 4), ("master-duel", 2), (OPEN_AUCTIONS, 4)):
        table = Table("kuhhandel", rules, seats)
        for seed in range(6):
            rng = random.Random(seed)
            table.reset(seed)
            while table.seat >= 0:
                assert table.request is not None
                kinds.add(table.request.kind)
                table.step(random_index(table.mask(), rng))
    from cardtable.rl.kuhhandel import KINDS

    assert kinds == set(KINDS)


def _all_paths(table: Table, request: Any, obs: Any, draft: Any, out: list[Any]) -> None:
    """Every answer reachable from ``draft`` (each allowed index, then every continuation)."""
    codec = table.codec
    for index in codec.allowed(obs, request, draft):
        d = copy.deepcopy(draft)
        value = codec.choose(obs, request, d, index)
        if value is None:
            before = len(out)
            _all_paths(table, request, obs, d, out)
            assert len(out) > before, f"{codec.action_names[index]} leads to a dead end"
        else:
            out.append(value)


def _wallet_submultisets(wallet: list[int]) -> set[tuple[int, ...]]:
    counts = {v: wallet.count(v) for v in set(wallet)}
    values = sorted(counts)
    out = set()
    for pick in itertools.product(*(range(counts[v] + 1) for v in values)):
        out.add(tuple(sorted(v for v, k in zip(values, pick, strict=True) for _ in range(k))))
    return out


@pytest.mark.parametrize("rules", ["classic", "master"])
def test_payments_and_offers_reachable_exactly(rules: str) -> None:
    """§4.6 valid payments / §5.2 offers: reachable set == independently enumerated set."""
    table = Table("kuhhandel", rules, 4)
    seen = {"pay": 0, "offer": 0, "respond": 0}
    for seed in range(40):
        rng = random.Random(seed)
        table.reset(seed)
        while table.seat >= 0 and min(seen.values()) < 6:
            request = table.request
            assert request is not None and table.draft is not None
            wallet = list((request.info or {}).get("wallet", ()))
            if request.kind in seen and len(wallet) <= 12 and not table.draft.started:
                obs = table.observation(table.seat)
                found: list[Any] = []
                _all_paths(table, request, obs, table.codec.new_draft(request), found)
                notes = [a.notes for a in found if not isinstance(a, A.Accept)]
                assert len(notes) == len(set(notes)), "one path per answer"
                subsets = _wallet_submultisets(wallet)
                if request.kind == "pay" and "amount" in request.info:
                    amount = request.info["amount"]
                    want = {s for s in subsets if payment_problem(s, amount) is None}
                elif request.kind == "pay":
                    want = {s for s in subsets if len(s) == request.info["count"]}
                else:
                    want = subsets
                assert set(notes) == want
                if request.kind == "respond":
                    assert A.ACCEPT in found
                seen[request.kind] += 1
            table.step(random_index(table.mask(), rng))
    assert min(seen.values()) >= 3, seen


def test_bids_follow_the_menu_and_raise() -> None:
    table = Table("kuhhandel", "competition", 4)
    rng = random.Random(0)
    table.reset(5)
    while table.request is None or table.request.kind != "bid":
        table.step(random_index(table.mask(), rng))
    request, obs = table.request, table.observation(table.seat)
    codec = table.codec
    low, money = request.info["min"], request.info["money"]
    for amount in range(low, money + 1):
        path = codec.indices(obs, request, A.Bid(amount))
        assert len(path) == 1 + (amount - low) // 10  # competition raises by 1, menu of 10
    with pytest.raises(ValueError):
        codec.indices(obs, request, A.Bid(money + 1))  # above the seat's money: masked out
    overbid = Table("kuhhandel", "competition", 4, overbid=True).codec
    assert overbid.indices(obs, request, A.Bid(money + 1))
