"""What the ``expert`` bot believes about hidden Kuhhandel information, and sampled worlds.

Hidden from a seat (spec §11): the other seats' notes, the order of the deck, the notes inside
other seats' cow-trade offers and beside a rat. :class:`Belief` follows the events the seat
receives (the ``event`` hook) and keeps, per seat, an estimate of its money: start money, donkey
payouts, public payment amounts, exposed wallets, and for cow trades between other seats the note
counts times that seat's average note (the values are not shown). Payments and trades this seat
took part in are corrected to the exact notes it saw.

:func:`sample_world` turns an observation plus a belief into a :class:`~.sim.Sim`: every card and
note count it shows is kept, the unseen cards are shuffled into the deck, and the other seats'
notes are dealt so that each seat holds exactly its public note count and about its estimated
money (with a finite bank the notes outside the bank and this seat's wallet are exactly the other
seats' notes, so only who holds which is guessed). Nothing else is read: no engine, no records.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from cardtable.core.contract import Event
from cardtable.games.kuhhandel.bots.sim import Model, Sim
from cardtable.games.kuhhandel.observe import KuhhandelObservation

ALLOCATION_TRIES = 4


class Belief:
    """Money estimates per seat, kept up to date from the events a seat sees."""

    def __init__(self, model: Model, me: int) -> None:
        self.m = model
        self.me = me
        self.money = [float(model.start_money)] * model.n
        self.notes = [sum(model.start_wallet)] * model.n
        self.my_rat_notes: list[int] = []  # notes this seat placed beside the current rat
        self.pile_value = 0.0  # estimated value beside the current rat
        self._pending_trade: tuple[int, int] | None = None
        self._last_payment: tuple[int, int, float] | None = None

    def avg(self, s: int) -> float:
        return self.money[s] / self.notes[s] if self.notes[s] > 0 else 0.0

    def _shift(self, a: int, b: int, value: float) -> None:
        self.money[a] = max(0.0, self.money[a] - value)
        self.money[b] += value

    def event(self, ev: Event) -> None:
        kind, d = ev.kind, ev.data
        if kind == "payout":
            for s in d["seats"]:
                self.money[s] += d["note"]
                self.notes[s] += 1
        elif kind == "payment":
            a, b, count = d["from"], d["to"], d["count"]
            value = d["amount"] if d.get("for") != "pedigree" else count * self.avg(a)
            self._shift(a, b, value)
            self.notes[a] -= count
            self.notes[b] += count
            self._last_payment = (a, b, value)
        elif kind == "payment_notes":
            a, b = d["from"], d["to"]
            exact = float(sum(d["notes"]))
            last = self._last_payment
            if last is not None and last[0] == a and last[1] == b:
                self._shift(a, b, exact - last[2])
        elif kind in ("trade", "tie"):
            c, o = d["challenger"], d["opponent"]
            if kind == "trade":
                oc, cc = d["offer_count"], d["counter_count"] or 0
                accepted = d["counter_count"] is None
            else:
                oc, cc = d["count"]
                accepted = False
            self.notes[c] += cc - oc
            self.notes[o] += oc - cc
            if self.me in (c, o):
                self._pending_trade = (c, o)  # the exact notes follow in trade_notes/tie_notes
            else:
                vo = oc * self.avg(c)
                vc = 0 if accepted else cc * self.avg(o)
                self._shift(c, o, vo)
                self._shift(o, c, vc)
        elif kind in ("trade_notes", "tie_notes"):
            c, o = d["challenger"], d["opponent"]
            offer = float(sum(d["offer"]))
            counter = float(sum(d["counter"] or ()))
            self._shift(c, o, offer)
            self._shift(o, c, counter)
            self._pending_trade = None
        elif kind == "exposed":
            self.money[d["seat"]] = float(d["value"])
            self.notes[d["seat"]] = len(d["notes"])
        elif kind == "rat":
            self.my_rat_notes = []
            self.pile_value = 0.0
        elif kind == "rat_note":
            s = d["seat"]
            v = self.avg(s) * 0.5  # the heuristic places its smallest note
            self.money[s] = max(0.0, self.money[s] - v)
            self.notes[s] -= 1
            self.pile_value += v
        elif kind == "rat_note_value":
            # our own note: correct the estimate made by the public rat_note just before
            s = d["seat"]
            self.my_rat_notes.append(int(d["note"]))
            self.money[s] = max(0.0, self.money[s] + self.avg(s) * 0.5 - d["note"])
        elif kind == "rat_taken":
            s = d["seat"]
            self.money[s] += self.pile_value
            self.notes[s] += d["count"]
            self.pile_value = 0.0
            self.my_rat_notes = []

    def sync(self, obs: KuhhandelObservation) -> None:
        """Take the exact public figures of an observation (note counts, this seat's money)."""
        self.notes = list(obs.note_counts)
        if obs.wallet is not None and obs.seat is not None:
            self.money[obs.seat] = float(sum(obs.wallet))


def counts_of(notes: Sequence[int], values: Sequence[int]) -> list[int]:
    index = {v: i for i, v in enumerate(values)}
    out = [0] * len(values)
    for v in notes:
        out[index[v]] += 1
    return out


def unseen_cards(obs: KuhhandelObservation, m: Model) -> list[int]:
    """Every card not in a hand and not on the table: what the deck may hold."""
    left: list[int] = []
    in_play: list[int] = []
    if obs.auction is not None:
        in_play.extend(obs.auction.lot)
    if obs.countdown is not None:
        in_play.append(int(obs.countdown["card"]))
    if obs.peek is not None:
        in_play.append(obs.peek)
    if obs.stage == "rat":
        in_play.append(m.rat_card)
    for k in range(m.K):
        held = sum(h[k] for h in obs.herds) + in_play.count(k)
        left.extend([k] * max(0, m.size[k] - held))
    if m.pedigrees:
        peds_held = {p for ps in obs.pedigrees for p in ps}
        for k in range(m.K):
            if k not in peds_held and m.K + k not in in_play:
                left.append(m.K + k)
    rats_left = m.rats_total - sum(obs.rats) - in_play.count(m.rat_card)
    left.extend([m.rat_card] * max(0, rats_left))
    return left


def sample_world(
    obs: KuhhandelObservation,
    m: Model,
    belief: Belief,
    rng: random.Random,
    fixed: Mapping[int, Sequence[int]] | None = None,
) -> Sim:
    """A full game state consistent with ``obs``; ``fixed`` gives seats' notes known exactly."""
    assert obs.seat is not None
    me = obs.seat
    sim = Sim(m)
    sim.herds = [list(h) for h in obs.herds]
    sim.peds = [list(p) for p in obs.pedigrees]
    sim.rats = list(obs.rats)
    sim.drawn = list(obs.drawn)
    sim.turn = obs.turn_seat
    sim.turns = obs.turns
    sim.end_phase = obs.end_phase
    cards = unseen_cards(obs, m)
    rng.shuffle(cards)
    sim.deck = cards[: obs.deck_size]
    if m.duel:
        sim.bank = None if obs.reserve is None else list(obs.reserve)
    else:
        sim.bank = None if obs.bank is None else list(obs.bank)
    sim.wallets = [[0] * len(m.notes) for _ in range(m.n)]
    sim.wallets[me] = counts_of(obs.wallet or (), m.notes)
    known: dict[int, Sequence[int]] = dict(fixed or {})
    if obs.auction is not None:
        for s, shown in obs.auction.exposed.items():
            known.setdefault(s, shown)
    fixed = known
    for s, notes in fixed.items():
        if s != me:
            sim.wallets[s] = counts_of(notes, m.notes)
    others = [s for s in range(m.n) if s != me and s not in fixed]
    if m.supply is not None and not m.duel and obs.bank is not None:
        _deal_pool(obs, m, belief, rng, sim, others, fixed)
    else:
        for s in others:
            sim.wallets[s] = _synthesize(m, obs.note_counts[s], belief.money[s], rng)
    sim.recount()
    sim.rng = random.Random(rng.getrandbits(32))
    return sim


def _deal_pool(
    obs: KuhhandelObservation,
    m: Model,
    belief: Belief,
    rng: random.Random,
    sim: Sim,
    others: list[int],
    fixed: Mapping[int, Sequence[int]],
) -> None:
    """Finite bank: the other seats' notes are exactly supply - bank - known notes."""
    assert m.supply is not None and obs.bank is not None and obs.seat is not None
    pool_counts = [
        sup - bank - mine
        for sup, bank, mine in zip(m.supply, obs.bank, sim.wallets[obs.seat], strict=True)
    ]
    for s in fixed:
        if s != obs.seat:
            for i, c in enumerate(sim.wallets[s]):
                pool_counts[i] -= c
    for v in belief.my_rat_notes:
        pool_counts[m.index[v]] -= 1
    pool = [m.notes[i] for i, c in enumerate(pool_counts) for _ in range(max(0, c))]
    pile_others = 0
    if obs.rat_pile is not None:
        pile_others = max(0, obs.rat_pile - len(belief.my_rat_notes))
    need = sum(obs.note_counts[s] for s in others) + pile_others
    if len(pool) < need:  # should not happen; keep the counts public figures say
        pool += [m.notes[0]] * (need - len(pool))
    best: list[list[int]] | None = None
    best_err = float("inf")
    for _ in range(ALLOCATION_TRIES):
        rng.shuffle(pool)
        pos = 0
        wallets = []
        err = 0.0
        for s in others:
            c = obs.note_counts[s]
            notes = pool[pos : pos + c]
            pos += c
            wallets.append(notes)
            err += (sum(notes) - belief.money[s]) ** 2
        if err < best_err:
            best_err, best = err, wallets
    assert best is not None
    for s, notes in zip(others, best, strict=True):
        sim.wallets[s] = counts_of(notes, m.notes)


def _synthesize(m: Model, count: int, money: float, rng: random.Random) -> list[int]:
    """``count`` notes worth about ``money`` (unlimited bank, or the duel's hidden bank)."""
    out = [0] * len(m.notes)
    rest = money
    for left in range(count, 0, -1):
        target = rest / left * rng.uniform(0.6, 1.4)
        i = min(range(len(m.notes)), key=lambda j: abs(m.notes[j] - target))
        out[i] += 1
        rest -= m.notes[i]
    return out


def model_for(rules: Mapping[str, Any], seats: int) -> Model:
    return Model(rules, seats)
