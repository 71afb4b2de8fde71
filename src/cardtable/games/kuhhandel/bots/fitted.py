"""Each other seat's bid limit and acceptance curve, fitted online to its observed decisions.

The ``expert``'s playouts let every seat play the ``heuristic`` strategy. This module learns,
per other seat and within one game, how that seat's decisions depart from it, and gives its
playouts (:class:`~.sim.Model`) what it learned:

**Bid limit.** At each ``auction`` event, for every seat but the auctioneer (and this seat), it
computes three features from the public state (:meth:`~.sim.Sim.limit_features`): the
heuristic's bid limit for it, the card's worth to it in points (its holdings and the others'
count) and its money (the belief's estimate). The seat's limit ``L`` is bracketed by what it
does: a seat that passed while the minimum bid was ``low`` after bidding at most ``top`` has
``top <= L < low``; the winner has ``L >= price``. The bracket enters as the current prediction
moved into it (it passed at 20 after bidding 10: 19 if the fit said more; it won at 300 though
the fit said 200: 300); a bracket wider than two raises that already holds the prediction (it
won at 10, the fit said 60) says nothing and is left out. Three *shapes* are fitted to these
limits, each ``L = slope * feature + intercept`` by weighted ridge regression (each auction
weighted by ``1 / (heuristic limit + 20)^2``: errors count relative to the seat's limits, which
grow with its money): the heuristic's shape with the prior ``slope 1, intercept 0`` worth
:data:`PRIOR_AUCTIONS` auctions, and the worth and money shapes with a weak prior toward 0. The
shape with the least weighted squared error is the seat's, the heuristic's unless another beats
it by :data:`SHAPE_PENALTY`. So a seat is the heuristic until its auctions say otherwise: a
minimum bidder becomes a small constant, a value-table bidder a multiple of the worth, a
price-blind one its money, one that bids more or less than the heuristic a scaled heuristic.

**Acceptance curve.** Each ``trade`` answered by another seat is an observation: the offer
against its price to the answering seat (:meth:`~.sim.Sim.answer_price`, the heuristic's: the
card's worth to it in money terms), accepted or countered. The offer is its public note count
times the money per note the heuristic's rule assumes (``Sim.average_note``: the answering
seat's money and 18 per note of every other seat, over all notes), the estimate the playouts
compare too: a seat that judges offers by their count of notes (the heuristic, which offers
padded with small notes exploit) and one that judges their money are fitted in the same terms.
The curve ``P(accept) = 1 / (1 + exp(-SLOPE * (log(offer / price) - t)))`` has one parameter,
the log threshold ``t``, with a normal prior at ``log 1.3`` (the heuristic's rule) of standard
deviation :data:`PRIOR_SD`; ``t`` is its maximum a posteriori value. A playout seat then accepts
an offer of at least ``exp(t)`` times its price (``Model.accept_ratio``), else counters like the
heuristic (or with the multiple of the offer this seat saw it counter with).

**Offer sizes** against the stake are learned by :class:`~.opponents.OpponentModel` from the
offers made to this seat (``offer_worth``) and drawn in sampled worlds as before.

Read: the events the seat is given (``auction``, ``bid``, ``pass``, ``closed``, ``card``,
``trade``; no trade notes) and the belief's money estimates and note counts, which come from
the same events. Nothing hidden: tests check that hidden events do not change it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from cardtable.core.contract import Event
from cardtable.games.kuhhandel.bots.belief import Belief
from cardtable.games.kuhhandel.bots.sim import Model, Sim

#: The prior's weight in auctions: the heuristic's shape (slope 1, intercept 0); the other
#: shapes' (slope 0, intercept 0) is weak. Another shape is chosen when its weighted squared
#: error is smaller than the heuristic shape's by SHAPE_PENALTY (about two auctions off by half).
PRIOR_AUCTIONS = 4.0
WEAK_PRIOR = 0.5
SHAPE_PENALTY = 0.5
#: The prior of the acceptance threshold: log 1.3 (the heuristic), standard deviation 0.7.
PRIOR_THRESHOLD = math.log(1.3)
PRIOR_SD = 0.7
#: The slope of the acceptance curve in log(offer / price).
SLOPE = 3.0
#: Auctions and answers seen before a fit replaces the heuristic in playouts.
MIN_AUCTIONS = 3
#: Added to the heuristic's limit to give an auction's weight: errors count relative to it.
SPREAD = 20.0
MIN_ANSWERS = 2
PRIOR_COEF = (1.0, 0.0, 0.0, 0.0)
F = len(PRIOR_COEF)  # the features: heuristic limit, worth, money, 1
Coef = tuple[float, float, float, float]


@dataclass
class SeatFit:
    """The sufficient statistics of one seat's fits."""

    auctions: int = 0
    xx: list[float] = field(default_factory=lambda: [0.0] * F * F)  # sum of w x x^T (by rows)
    xy: list[float] = field(default_factory=lambda: [0.0] * F)  # sum of w x L
    yy: float = 0.0  # sum of w L^2
    coef: Coef = PRIOR_COEF
    shape: int = 0  # the bid-limit shape chosen: 0 heuristic, 1 worth, 2 money
    answers: list[tuple[float, bool]] = field(default_factory=list)  # (log offer/price, accepted)
    threshold: float = PRIOR_THRESHOLD

    def state(self) -> tuple[float, ...]:
        stats = (*self.xx, *self.xy, self.yy, *self.coef, self.threshold)
        flat = [round(v, 6) for v in stats]
        flat += [round(z, 6) + (1000.0 if y else 0.0) for z, y in self.answers]
        return (self.auctions, self.shape, *flat)

    def predict(self, x: tuple[float, float, float]) -> float:
        a, b, c, d = self.coef
        return a * x[0] + b * x[1] + c * x[2] + d

    def add_limit(self, features: tuple[float, float, float], limit: float) -> None:
        self.auctions += 1
        x = (*features, 1.0)
        # relative errors: a limit's spread grows with the seat's money (the heuristic's limit)
        w = 1.0 / (features[0] + SPREAD) ** 2
        for i in range(F):
            self.xy[i] += w * x[i] * limit
            for j in range(F):
                self.xx[F * i + j] += w * x[i] * x[j]
        self.yy += w * limit * limit
        self._select()

    def fit_shape(self, j: int) -> tuple[float, float, float]:
        """Shape ``j``'s ridge fit ``L = slope * feature j + intercept`` and the weighted squared
        error it leaves: ``(slope, intercept, error)``."""
        n = max(1, self.auctions)
        sxx, sx1, s11 = self.xx[F * j + j], self.xx[F * j + 3], self.xx[F * 3 + 3]
        sxy, s1y = self.xy[j], self.xy[3]
        kappa = PRIOR_AUCTIONS if j == 0 else WEAK_PRIOR
        slope0 = 1.0 if j == 0 else 0.0
        lam_x, lam_1 = kappa * sxx / n + 1e-12, kappa * s11 / n + 1e-12
        a11, a12, a22 = sxx + lam_x, sx1, s11 + lam_1
        b1, b2 = sxy + lam_x * slope0, s1y
        det = a11 * a22 - a12 * a12
        if abs(det) < 1e-18:
            return slope0, 0.0, math.inf
        slope = (b1 * a22 - a12 * b2) / det
        icpt = (a11 * b2 - a12 * b1) / det
        error = self.yy - 2 * (slope * sxy + icpt * s1y)
        error += slope * slope * sxx + 2 * slope * icpt * sx1 + icpt * icpt * s11
        return slope, icpt, error

    def _select(self) -> None:
        best, best_cost, best_fit = 0, math.inf, (1.0, 0.0)
        for j in range(3):
            slope, icpt, error = self.fit_shape(j)
            cost = error + (0.0 if j == 0 else SHAPE_PENALTY)
            if cost < best_cost:
                best, best_cost, best_fit = j, cost, (slope, icpt)
        coef = [0.0, 0.0, 0.0, best_fit[1]]
        coef[best] = best_fit[0]
        self.shape = best
        self.coef = (coef[0], coef[1], coef[2], coef[3])

    def add_answer(self, z: float, accepted: bool) -> None:
        self.answers.append((z, accepted))
        t = self.threshold
        for _ in range(20):  # Newton on the concave log posterior of t
            grad = -(t - PRIOR_THRESHOLD) / PRIOR_SD**2
            hess = -1.0 / PRIOR_SD**2
            for zi, yi in self.answers:
                p = 1.0 / (1.0 + math.exp(-SLOPE * (zi - t)))
                grad -= SLOPE * ((1.0 if yi else 0.0) - p)
                hess -= SLOPE * SLOPE * p * (1.0 - p)
            step = grad / hess
            t = max(-4.0, min(4.0, t - step))
            if abs(step) < 1e-6:
                break
        self.threshold = t


class FittedOpponents:
    """Per other seat, the fits of the module docstring, from the events one seat sees."""

    def __init__(self, model: Model, belief: Belief) -> None:
        self.m = model
        self.belief = belief
        self.me = belief.me
        self.seats = [SeatFit() for _ in range(model.n)]
        self.herds = [[0] * model.K for _ in range(model.n)]  # public: cards given and traded
        self._features: dict[int, tuple[float, float, float]] = {}
        self._top: dict[int, int] = {}
        self._passed: dict[int, int] = {}  # seat -> the minimum bid when it passed
        self._high = 0

    def _public(self) -> Sim:
        """The public state as a model game: herds, and money as the belief estimates it."""
        sim = Sim(self.m)
        sim.herds = [h[:] for h in self.herds]
        sim.cash = [int(v) for v in self.belief.money]
        sim.herd_stats()
        return sim

    def event(self, ev: Event) -> None:
        kind, d = ev.kind, ev.data
        m = self.m
        if kind == "auction":
            self._top, self._passed, self._high = {}, {}, 0
            self._features = {}
            card = d["card"]
            if 0 <= card < m.K:
                sim = self._public()
                for s in range(m.n):
                    if s != d["seat"] and s != self.me:
                        self._features[s] = sim.limit_features(s, card)
        elif kind == "bid":
            s, amount = d["seat"], d["amount"]
            self._high = amount
            self._top[s] = max(amount, self._top.get(s, 0))
        elif kind == "pass":
            s = d["seat"]
            if s not in self._passed:
                self._passed[s] = self._high + m.raise_ if self._high else m.raise_
        elif kind == "closed":
            winner = d.get("high_bidder")
            price = d.get("high") or 0
            for s, x in self._features.items():
                fit = self.seats[s]
                pred = fit.predict(x)
                if s == winner:
                    lo, hi = float(price), math.inf
                elif s in self._passed:
                    lo, hi = float(self._top.get(s, 0)), float(self._passed[s] - 1)
                else:
                    continue
                if lo <= pred <= hi and hi - lo > 2 * m.raise_:
                    continue  # a wide bracket the prediction agrees with: nothing learnt
                fit.add_limit(x, min(max(pred, lo), max(lo, hi)))
            self._features = {}
        elif kind == "card":
            card = d["card"]
            if 0 <= card < m.K:
                self.herds[d["seat"]][card] += 1
        elif kind == "trade":
            c, o, k, cards = d["challenger"], d["opponent"], d["species"], d["cards"]
            if 0 <= k < m.K:
                if o != self.me:
                    price = self._public().answer_price(o, k, cards)
                    if price > 0:
                        # the offer as the heuristic's rule (and the playouts) estimate it from
                        # its note count: the answering seat's money and every other seat's
                        # notes at 18 each, over all notes (``Sim.average_note``)
                        notes = self.belief.notes
                        others = sum(notes) - notes[o]
                        per = (self.belief.money[o] + 18 * others) / max(1, sum(notes))
                        self._answer(o, d["offer_count"] * per, price, d["counter_count"] is None)
                winner = d["winner"]
                loser = o if winner == c else c
                self.herds[winner][k] += cards
                self.herds[loser][k] = max(0, self.herds[loser][k] - cards)

    def _answer(self, o: int, offer: float, price: float, accepted: bool) -> None:
        z = math.log(max(offer, 1.0) / price)
        self.seats[o].add_answer(max(-5.0, min(5.0, z)), accepted)

    def apply(self) -> None:
        """Give the fits to the playout model (the seats with enough evidence; never this
        seat's own)."""
        m = self.m
        for s, fit in enumerate(self.seats):
            if s == self.me:
                m.limit_coef[s] = None
                m.accept_ratio[s] = -1.0
                continue
            m.limit_coef[s] = fit.coef if fit.auctions >= MIN_AUCTIONS else None
            m.accept_ratio[s] = math.exp(fit.threshold) if len(fit.answers) >= MIN_ANSWERS else -1.0

    def state(self) -> tuple[tuple[float, ...], ...]:
        """Everything fitted (tests compare it between games)."""
        return tuple(f.state() for f in self.seats)
