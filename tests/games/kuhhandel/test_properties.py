"""State machines over random legal play (spec §2, §4.6, §6.3, §11): conservation, termination,
determinism, no leaks, and refused actions that change nothing."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from cardtable.core import ActionError, Record, run_match, verify
from cardtable.games import kuhhandel as K
from cardtable.games.kuhhandel import actions as A

PRESET_SEATS = [
    ("classic", 3),
    ("classic", 5),
    ("competition", 4),
    ("competition", 6),
    ("master", 3),
    ("master", 6),
    ("master-duel", 2),
]
VARIANTS = {
    "open": (K.CLASSIC.with_changes(name="classic-open", auction_style="open"), 4),
    "super": (K.MASTER.with_changes(name="super", super_trade=True), 4),
    "exam": (K.MASTER.with_changes(name="exam", exam=True), 3),
    "double": (K.MASTER.with_changes(name="double", double_auction=True), 5),
    "master-open": (K.MASTER.with_changes(name="master-open", auction_style="open"), 4),
}


def rules_for(name: str) -> tuple[K.RuleSet, int | None]:
    if name in VARIANTS:
        return VARIANTS[name]
    return K.PRESETS[name], None


def snapshot(game: K.KuhhandelGame) -> str:
    """Everything observable about a game, for before/after comparisons."""
    return json.dumps(
        {
            "obs": [game.observe(s).to_json() for s in range(game.seats)],
            "history": len(game.history()),
            "events": len(game.events()),
            "pending": [game.request_to_json(r) for r in game.pending()],
            "wallets": game.wallets,
            "deck": game.deck,
        },
        sort_keys=True,
    )


def total_notes(game: K.KuhhandelGame) -> list[int]:
    """Every note not in the bank: in wallets, beside a rat, laid aside or removed (the duel)."""
    notes = game.rules.notes
    out = [sum(w[i] for w in game.wallets) + game.removed[i] for i in range(len(notes))]
    for v in game.rat_pile:
        out[notes.index(v)] += 1
    if game.reserve is not None:
        out = [o + r for o, r in zip(out, game.reserve, strict=True)]
    return out


def total_cards(game: K.KuhhandelGame) -> int:
    held = sum(map(sum, game.herds)) + sum(map(len, game.pedigrees)) + sum(game.rats)
    return held + len(game.deck) + len(game.cards_in_play())


def bad_actions(rng: random.Random, game: K.KuhhandelGame) -> list[tuple[int, Any]]:
    seats = game.seats
    return [
        (rng.randrange(seats), {"kind": "bid", "amount": "ten"}),
        (rng.randrange(seats), {"kind": "nonsense"}),
        (rng.randrange(seats), [1, 2, 3]),
        (rng.randrange(seats), A.Bid(rng.choice([-5, 0, 1, 10**6]))),
        (rng.randrange(seats), A.Pay((rng.choice([0, 10, 20, 500, 7]),) * rng.randint(0, 9))),
        (rng.randrange(seats), A.Offer((500, 500, 500, 500))),
        (rng.randrange(seats), A.Challenge(rng.randrange(-1, seats + 1), rng.randrange(-1, 12))),
        (rng.randrange(seats), rng.choice([A.AUCTION, A.PASS, A.SELL, A.BUY, A.ACCEPT, A.KNOCK])),
        (seats + 3, A.AUCTION),
    ]


class KuhhandelMachine(RuleBasedStateMachine):
    """Random legal play with refused actions mixed in; invariants checked after every step."""

    @initialize(
        choice=st.sampled_from([*PRESET_SEATS, *((n, s) for n, (_, s) in VARIANTS.items())]),
        seed=st.integers(0, 2**31),
    )
    def start(self, choice: tuple[str, int], seed: int) -> None:
        name, seats = choice
        rules = rules_for(name)[0]
        self.game = K.new_game(rules, seats, seed)
        self.rng = random.Random(seed)
        self.bots = [K.SPEC.bots["random"](seed=seed + i) for i in range(seats)]
        self.supply = list(rules.supply) if rules.supply else None
        self.start_notes = total_notes(self.game)
        self.cards = total_cards(self.game)
        self.payouts = [0] * len(rules.notes)

    @precondition(lambda self: not self.game.is_over())
    @rule()
    def legal_move(self) -> None:
        req = self.game.pending()[self.rng.randrange(len(self.game.pending()))]
        before = len(self.game.events())
        action = self.bots[req.seat].act(None, req)
        self.game.apply(req.seat, action)
        self._count_payouts(before)

    def _count_payouts(self, since: int) -> None:
        """Donkey payouts (§4.1) since event ``since``: notes that entered the game."""
        for ev in self.game.events(since):
            if ev.kind == "payout":
                self.payouts[self.game.rules.notes.index(ev.data["note"])] += len(ev.data["seats"])

    @precondition(lambda self: not self.game.is_over())
    @rule(which=st.integers(0, 8))
    def refused_move_changes_nothing(self, which: int) -> None:
        seat, action = bad_actions(self.rng, self.game)[which]
        before = snapshot(self.game)
        events = len(self.game.events())
        try:
            self.game.apply(seat, action)
        except ActionError:
            assert snapshot(self.game) == before
        else:  # it happened to be legal (an auction, say): fine, and it may have paid out
            self._count_payouts(events)

    @precondition(lambda self: self.game.is_over())
    @rule()
    def a_finished_game_stays_finished(self) -> None:
        # (also keeps the machine going when a short game, e.g. a duel, ends early)
        g = self.game
        assert not g.pending() and len(g.result().places) == g.seats
        before = snapshot(g)
        for seat, action in bad_actions(self.rng, g)[:3]:
            with pytest.raises(ActionError):
                g.apply(seat, action)
        assert snapshot(g) == before

    @invariant()
    def notes_are_conserved(self) -> None:
        g = self.game
        held = total_notes(g)
        if self.supply is not None:
            assert g.bank is not None
            assert [h + b for h, b in zip(held, g.bank, strict=True)] == self.supply
        else:
            assert held == [s + p for s, p in zip(self.start_notes, self.payouts, strict=True)]

    @invariant()
    def cards_are_conserved(self) -> None:
        assert total_cards(self.game) == self.cards

    @invariant()
    def observation_never_depends_on_other_wallets(self) -> None:
        g = self.game
        for seat in range(g.seats):
            other = (seat + 1) % g.seats
            w = g.wallets[other]
            src = next((i for i, c in enumerate(w) if c), None)
            if src is None:
                continue
            # observe() only reads the state: a shallow copy with its own wallets is a twin
            twin = copy.copy(g)
            twin.wallets = [list(x) for x in g.wallets]
            dst = (src + 1) % len(w)
            twin.wallets[other][src] -= 1
            twin.wallets[other][dst] += 1  # same note count, different notes
            twin._pending = None
            twin._obs_cache = None  # the twin's public view is built from the twin's state
            assert json.dumps(g.observe(seat).to_json()) == json.dumps(twin.observe(seat).to_json())
            if g.stage == "divide" and seat != g.turn_seat:
                assert g.observe(seat).peek is None  # §11: the peeked card is private
            if g.claims and g.stage == "claim":  # sealed claims of others stay hidden
                obs = g.observe(seat).to_json()
                assert obs["countdown"]["my_claim"] == g.claims.get(seat)
            mine = [g.request_to_json(r) for r in g.pending() if r.seat == seat]
            theirs = [twin.request_to_json(r) for r in twin.pending() if r.seat == seat]
            assert mine == theirs

    @invariant()
    def private_events_stay_with_their_seats(self) -> None:
        for ev in self.game.events():
            if ev.kind in ("payment_notes", "trade_notes", "tie_notes"):
                assert ev.to is not None and len(ev.to) == 2
            if ev.kind in ("peek", "rat_notes", "rat_note_value"):
                assert ev.to is not None and len(ev.to) == 1


# Heavy on a loaded machine (40 games of up to 120 steps, invariants after each): its own timeout.
TestKuhhandelMachine = pytest.mark.timeout(900)(KuhhandelMachine.TestCase)
TestKuhhandelMachine.settings = settings(
    max_examples=40, stateful_step_count=120, deadline=None, suppress_health_check=list(HealthCheck)
)


@settings(max_examples=30, deadline=None)
@given(choice=st.sampled_from(PRESET_SEATS), seed=st.integers(0, 2**31))
def test_s6_3_every_game_ends_and_same_seed_same_game(choice: tuple[str, int], seed: int) -> None:
    name, seats = choice
    records = []
    for _ in range(2):
        g = K.new_game(K.PRESETS[name], seats, seed)
        result = run_match(g, [K.SPEC.bots["random"](seed=seed + i) for i in range(seats)])
        assert g.is_over() and len(result.places) == seats
        records.append(g.record().dumps())
    assert records[0] == records[1]
    ok, why = verify(Record.loads(records[0]))
    assert ok, why


def test_heuristic_and_random_mixed_games_end_and_replay() -> None:
    for seed in range(10):
        g = K.new_game(K.CLASSIC, 4, seed)
        bots = [K.SPEC.bots["heuristic"](seed=seed), K.SPEC.bots["random"](seed=seed)] * 2
        run_match(g, bots)
        ok, why = verify(Record.loads(g.record().dumps()))
        assert ok, why


GOLDEN = Path(__file__).parent / "golden"


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("*.json")), ids=lambda p: p.stem)
def test_golden_records_replay_identically(path: Path) -> None:
    record = Record.load(path)
    ok, why = verify(record)
    assert ok, why
