"""The ``heuristic`` Cunegonda bot: plays like a decent Hearts player, adapted to +10 per trick.

Everything it knows comes from its own observation: its hand, the cards it passed (so it knows
where they are), every card played this round and who won each trick. From those it counts the
cards still out, notes which seat showed out of which suit, and estimates, for each card it could
play, the chance that it wins the trick and what the trick would then cost.

**Pass.** Each card gets a danger score and the 3 most dangerous go right:

- the queen of spades, unless guarded by 4 or more lower spades;
- the ace and king of spades when the spades are short (fewer than 4 below the queen): they are
  the cards the queen gets dumped on;
- high hearts (8 up, the higher the worse): they win heart tricks;
- then the cards of a club or diamond suit of 1-2 cards (a void lets it dump points later), low
  ones first; high clubs and diamonds are kept, since a clean trick is worth +10, and so are low
  spades (they guard) and low hearts (they duck).

**Play.** A trick is worth +10 minus its points, so the bot values each legal card as
``P(win) * (10 - points in the trick - its own penalty - expected dumps) + P(lose) * shed`` and
plays the best one:

- ``P(win)`` is 1 for the last seat with the highest card of the led suit, 0 for a card that is
  already beaten, else the chance that no seat still to play holds a higher card of the suit (the
  cards out are spread over the other hands by their sizes; a seat that showed out holds none;
  the cards it passed are with the receiver).
- *Expected dumps*: a seat still to play that is (probably) void may throw the queen of spades or a
  heart on the winner; on a heart lead every follower adds a heart.
- *Shed* is what getting rid of a card is worth when the trick goes elsewhere: most for the
  queen of spades (dumped on another seat), then high hearts, then the ace/king of spades while the
  queen is still out; slightly negative for high clubs and diamonds (kept to win clean tricks).

So it ducks tricks with points (playing the card it most wants to lose), drops the queen of
spades under a higher spade, wins clean tricks it is likely to win (an ace while the others still
follow), and when void throws the queen, then its highest heart, then a spade honour.

**Moon.** If one other seat has taken every point card so far and at least 6 of them, it is
shooting the moon: the bot then leads its highest heart, overtakes tricks that hold hearts or that
the shooter is winning, dumps a heart only on a trick the shooter can no longer win, and gives the
shooter no points. With a very strong hand (6+ hearts with the ace, king and queen, and few low
cards elsewhere) the bot tries the moon itself: it passes low cards, plays high to win every
trick, and gives up as soon as another seat takes a point card.
"""

from __future__ import annotations

from cardtable.core.contract import Request
from cardtable.games.cunegonda.cards import (
    ACE_OF_SPADES,
    HEARTS,
    KING_OF_SPADES,
    QUEEN_OF_SPADES,
    SPADES,
)
from cardtable.games.cunegonda.observe import Observation
from cardtable.games.cunegonda.scoring import PENALTY, TRICK_POINTS

QS = QUEEN_OF_SPADES
# The numbers below were tuned by playing one-round matches against the random bot and against
# an earlier rule-only version of this bot (see docs/cunegonda.md for the measurements).

MOON_WATCH = 6  # point cards one seat must have taken alone before the bot fights a moon
#: The chance that a seat holding a higher card of the led suit plays it over ours (careful
#: players duck, random ones pick any card).
OVERTAKE = 0.6
#: Weight of the expected dumps by seats that may be void (the estimate counts the worst case).
DUMP_WEIGHT = 0.5
#: What seeing a card go into someone else's trick is worth: the queen, per heart point, a spade
#: honour while the queen is out, and per rank of any other card (negative: high clubs and
#: diamonds win clean tricks later, so the bot keeps them).
SHED_QS, SHED_HEART, SHED_HONOUR, SHED_RANK = 22.0, 0.6, 9.0, -0.4
#: Pass scores: a bonus for the cards of a suit of 1-2 cards (toward a void), per rank for other
#: clubs/diamonds (negative: pass low ones, keep winners), hearts from this rank (8) up count high.
PASS_SHORT_BONUS, PASS_RANK, PASS_HEART_FROM = 15, -1, 6


def _suit(c: int) -> int:
    return c // 13


def _rank(c: int) -> int:
    return c % 13


class Table:
    """What the bot reads from one observation: cards still out and where they may be."""

    def __init__(self, obs: Observation) -> None:
        assert obs.seat is not None
        self.obs = obs
        self.me = me = obs.seat
        self.hand = obs.hand
        played = obs.played()
        mine = set(obs.hand)
        #: Cards held by the other seats (not played, not in this hand), by suit.
        self.out_by_suit: list[list[int]] = [[], [], [], []]
        for c in range(52):
            if c not in played and c not in mine:
                self.out_by_suit[c // 13].append(c)
        self.qs_out = QS not in played and QS not in mine
        self.voids: list[set[int]] = [set() for _ in range(4)]
        self.taken_points = [0, 0, 0, 0]  # point cards taken this round, per seat
        cards_left = [13, 13, 13, 13]
        for t in obs.tricks:
            self._note(t.leader, t.cards, cards_left)
            self.taken_points[t.winner] += sum(1 for c in t.cards if PENALTY[c])
        trick = obs.trick
        self._note(obs.leader, trick, cards_left)
        self.cards_left = cards_left
        # Cards this seat passed and nobody has played yet are in the receiver's hand.
        self.pass_to = obs.pass_to if obs.pass_to is not None else (me - 1) % 4
        self.known_with_receiver = {c for c in (obs.passed or ()) if c not in played}
        self.after = [(me + i) % 4 for i in range(1, 4 - len(trick))]
        self.others = [s for s in range(4) if s != me]
        if trick:
            self.led = trick[0] // 13
            best_i = 0
            for i, c in enumerate(trick):
                if c // 13 == self.led and c > trick[best_i]:
                    best_i = i
            self.best = trick[best_i]
            self.winning = (obs.leader + best_i) % 4
            self.trick_penalty = sum(PENALTY[c] for c in trick)
            self.played_in_trick = {(obs.leader + i) % 4 for i in range(len(trick))}
        else:
            self.led, self.best, self.winning, self.trick_penalty = -1, -1, -1, 0
            self.played_in_trick = set()
        hearts_out = self.out_by_suit[HEARTS]
        self.heart_avg = sum(PENALTY[c] for c in hearts_out) / len(hearts_out) if hearts_out else 0

    def _note(self, leader: int, cards: tuple[int, ...], cards_left: list[int]) -> None:
        if not cards:
            return
        led = cards[0] // 13
        for i, c in enumerate(cards):
            seat = (leader + i) % 4
            cards_left[seat] -= 1
            if c // 13 != led:
                self.voids[seat].add(led)

    # -- where the cards are ------------------------------------------------------------------

    def p_at(self, c: int, seat: int) -> float:
        """The chance that another seat ``seat`` holds card ``c`` (which is out)."""
        if c in self.known_with_receiver:
            return 1.0 if seat == self.pass_to else 0.0
        suit = c // 13
        if suit in self.voids[seat]:
            return 0.0
        slots = 0
        mine = 0
        for s in self.others:
            if suit in self.voids[s]:
                continue
            free = self.cards_left[s]
            if s == self.pass_to:
                free -= len(self.known_with_receiver)
            free = max(free, 0)
            slots += free
            if s == seat:
                mine = free
        return mine / slots if slots else 0.0

    def p_none(self, cards: list[int], seat: int) -> float:
        """The chance that ``seat`` holds none of ``cards``."""
        p = 1.0
        for c in cards:
            p *= 1.0 - self.p_at(c, seat)
        return p

    def is_master(self, c: int) -> bool:
        """No other seat holds a higher card of ``c``'s suit."""
        return all(o < c for o in self.out_by_suit[c // 13])

    def suit_len(self, suit: int) -> int:
        return sum(1 for c in self.hand if c // 13 == suit)

    # -- what a card is worth -----------------------------------------------------------------

    def p_win(self, c: int, seats: list[int], led: int) -> float:
        """The chance that ``c`` (of the led suit, above the trick so far) is not overtaken."""
        higher = [o for o in self.out_by_suit[led] if o > c]
        p = 1.0
        for r in seats:
            p *= 1.0 - OVERTAKE * (1.0 - self.p_none(higher, r))
        return p

    def dumps(self, seats: list[int], led: int, win_card: int) -> float:
        """Expected points that ``seats`` (still to play) add to a trick ``win_card`` wins."""
        total = 0.0
        suit_out = self.out_by_suit[led]
        for r in seats:
            void = self.p_none(suit_out, r)
            if led == HEARTS:
                total += (1 - void) * self.heart_avg
            elif led == SPADES and win_card > QS and self.qs_out:
                total += 26 * self.p_at(QS, r)  # the queen drops under a king or ace
            dump = 0.0
            if self.qs_out:
                dump += 26 * self.p_at(QS, r)
            if self.out_by_suit[HEARTS]:
                dump += 8
            total += void * dump * DUMP_WEIGHT
        return total

    def shed(self, c: int) -> float:
        """What it is worth to see ``c`` leave this hand into a trick someone else wins."""
        if c == QS:
            return SHED_QS
        if _suit(c) == HEARTS:
            return PENALTY[c] * SHED_HEART
        if c in (ACE_OF_SPADES, KING_OF_SPADES) and self.qs_out:
            return SHED_HONOUR
        return _rank(c) * SHED_RANK

    def moon_threat(self) -> int | None:
        """The other seat that has taken every point card so far (and enough of them), if any."""
        takers = [s for s in range(4) if self.taken_points[s]]
        if len(takers) != 1 or takers[0] == self.me:
            return None
        x = takers[0]
        if self.trick_penalty and self.winning != x:
            return None  # points already heading elsewhere in this trick
        return x if self.taken_points[x] >= MOON_WATCH else None


class HeuristicBot:
    """A rule-based Cunegonda player (see the module docstring for its strategy)."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed  # the strategy is deterministic; the seed is accepted for the factory API
        self._moon_round: int | None = None

    def act(self, observation: Observation, request: Request) -> object:
        if request.kind == "pass":
            count = int(request.info["count"]) if request.info else 3
            return self.choose_pass(observation, count)
        choices = request.choices or ()
        if len(choices) == 1:
            return choices[0]
        return self.choose_play(observation, tuple(choices))

    # -- pass -----------------------------------------------------------------------------

    def choose_pass(self, obs: Observation, count: int = 3) -> tuple[int, ...]:
        hand = obs.hand
        if self._strong_for_moon(hand):
            self._moon_round = obs.round
            low = sorted(
                (c for c in hand if _suit(c) != HEARTS and c != QS), key=lambda c: (_rank(c), c)
            )
            if len(low) >= count:
                return tuple(sorted(low[:count]))
        self._moon_round = None
        ranked = sorted(hand, key=lambda c: (-self._danger(c, hand), -c))
        return tuple(sorted(ranked[:count]))

    @staticmethod
    def _strong_for_moon(hand: tuple[int, ...]) -> bool:
        hearts = [c for c in hand if _suit(c) == HEARTS]
        top_hearts = {HEARTS * 13 + 12, HEARTS * 13 + 11, HEARTS * 13 + 10}
        if len(hearts) < 6 or not top_hearts <= set(hearts):
            return False
        low_others = sum(1 for c in hand if _suit(c) != HEARTS and _rank(c) < 9)
        return low_others <= 3

    @staticmethod
    def _danger(c: int, hand: tuple[int, ...]) -> int:
        suit, rank = _suit(c), _rank(c)
        low_spades = sum(1 for x in hand if _suit(x) == SPADES and x < QS)
        if c == QS:
            return 100 if low_spades < 4 else 10
        if c in (ACE_OF_SPADES, KING_OF_SPADES):
            return 80 + rank if low_spades < 4 else 15
        if suit == HEARTS:
            return 20 + 3 * rank if rank >= PASS_HEART_FROM else rank
        if suit == SPADES:
            return rank - 5
        length = sum(1 for x in hand if _suit(x) == suit)
        return rank * PASS_RANK + (PASS_SHORT_BONUS if length <= 2 else 0)

    # -- play -----------------------------------------------------------------------------

    def choose_play(self, obs: Observation, choices: tuple[int, ...]) -> int:
        t = Table(obs)
        if self._moon_round == obs.round:
            if any(t.taken_points[s] for s in t.others):
                self._moon_round = None
            else:
                return self._moon_play(t, choices)
        threat = t.moon_threat()
        if threat is not None:
            stop = self._stop_moon(t, choices, threat)
            if stop is not None:
                return stop
        return max(choices, key=lambda c: (self._value(t, c), -c))

    @staticmethod
    def _value(t: Table, c: int) -> float:
        """Expected worth of playing ``c`` now (see the module docstring)."""
        if t.led < 0:  # leading
            led = _suit(c)
            p = t.p_win(c, t.others, led)
            gain = TRICK_POINTS - PENALTY[c] - t.dumps(t.others, led, c)
        elif _suit(c) != t.led or c < t.best:
            return t.shed(c)
        else:
            p = t.p_win(c, t.after, t.led)
            gain = TRICK_POINTS - t.trick_penalty - PENALTY[c] - t.dumps(t.after, t.led, c)
        return p * gain + (1 - p) * t.shed(c)

    @staticmethod
    def _stop_moon(t: Table, choices: tuple[int, ...], shooter: int) -> int | None:
        """A card that keeps ``shooter`` from taking every point card, or ``None``."""
        hearts = [c for c in choices if _suit(c) == HEARTS]
        if t.led < 0:
            return max(hearts) if hearts else None
        if _suit(choices[0]) == t.led:
            higher = [c for c in choices if c > t.best]
            trick_hearts = any(_suit(c) == HEARTS for c in t.obs.trick)
            if higher and (t.winning == shooter or trick_hearts or t.led == HEARTS):
                return max(higher)
            return None
        # Void: a heart only on a trick the shooter can no longer win; else no points for it.
        if hearts and shooter in t.played_in_trick and t.winning != shooter:
            return max(hearts)
        clean = [c for c in choices if not PENALTY[c]]
        if clean:
            return max(clean, key=lambda c: (c in (ACE_OF_SPADES, KING_OF_SPADES), _rank(c)))
        return min(choices, key=lambda c: PENALTY[c])

    def _moon_play(self, t: Table, choices: tuple[int, ...]) -> int:
        if not t.obs.trick:
            masters = [c for c in choices if t.is_master(c)]
            pool = masters or [c for c in choices if _suit(c) == HEARTS] or list(choices)
            return max(pool, key=lambda c: (_rank(c), c))
        if _suit(choices[0]) == t.led:
            higher = [c for c in choices if c > t.best]
            return max(higher) if higher else min(choices)
        # Void: this trick is lost; if it already holds points the moon is gone.
        if t.trick_penalty:
            self._moon_round = None
            return max(choices, key=lambda c: (t.shed(c), -c))
        clean = [c for c in choices if not PENALTY[c]]
        return min(clean or choices, key=lambda c: (_rank(c), c))


def heuristic_bot(seed: int = 0) -> HeuristicBot:
    return HeuristicBot(seed=seed)
