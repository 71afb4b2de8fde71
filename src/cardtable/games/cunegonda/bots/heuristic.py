"""The ``heuristic`` Cunegonda bot: plays like a decent Hearts player, adapted to +10 per trick.

Everything it knows comes from its own observation (hand, own pass, cards played this round, who
won each trick); it counts cards and notes which seats showed out of a suit. The strategy:

**Pass.** Each card gets a danger score and the 3 most dangerous go right:

- the queen of spades, unless guarded by 4 or more lower spades;
- the ace and king of spades when the spades are short (fewer than 4 below the queen): they are
  the cards the queen gets dumped on;
- high hearts (8 up, the higher the worse): they win heart tricks;
- otherwise high cards of short clubs/diamonds (a void lets it dump points later); low spades and
  low hearts are kept as safe cards.

**Play.** A clean trick is worth +10, so the bot wins tricks it can win cheaply and ducks the
others:

- *Leading*: cash a sure winner (the highest club/diamond still out, or a spade honour once the
  queen is gone) while every other seat still likely has that suit; otherwise lead the card most
  likely to lose (many higher cards still out), preferring short suits, never spades while holding
  the queen, never a spade honour while the queen is still out (low spades flush the queen).
- *Following suit*: when it is last, or holds the top card still out, it wins if the trick is
  worth more than 0 to it after the points already in and a risk estimate for the seats still to
  play (known voids may dump the queen or hearts; a king or ace of spades under an unseen queen
  is risky). Otherwise it ducks with its highest card that still loses, and drops the queen of
  spades under a higher spade whenever it can.
- *Discarding* (void in the led suit): the queen of spades first (dumped on another seat), then
  its highest heart, then the ace/king of spades while the queen is out, then the highest card of
  its shortest suit.

**Moon.** If one other seat has taken every point card so far and at least 6 of them, it is
shooting the moon: the bot then leads its highest heart, overtakes tricks that hold hearts or
that the shooter is winning, dumps a heart only on a trick the shooter can no longer win, and
gives the shooter no points. With a very strong hand (6+ hearts with the ace, king and queen,
and few low cards elsewhere) the bot tries the moon itself: it passes low cards, plays high to win
every trick, and gives up as soon as another seat takes a point card.
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
MOON_WATCH = 6  # point cards one seat must have taken alone before the bot fights a moon


def _suit(c: int) -> int:
    return c // 13


def _rank(c: int) -> int:
    return c % 13


class Table:
    """What the bot reads from one observation: cards still out, voids, the current trick."""

    def __init__(self, obs: Observation) -> None:
        assert obs.seat is not None
        self.obs = obs
        self.me = obs.seat
        self.hand = obs.hand
        played = obs.played()
        mine = set(obs.hand)
        #: Cards held by the other seats (not played, not in this hand).
        self.out = [c for c in range(52) if c not in played and c not in mine]
        self.out_by_suit: list[list[int]] = [[], [], [], []]
        for c in self.out:
            self.out_by_suit[c // 13].append(c)
        self.qs_out = QS in self.out
        self.voids: list[set[int]] = [set() for _ in range(4)]
        self.taken_points = [0, 0, 0, 0]  # point cards taken this round, per seat
        for t in obs.tricks:
            self._note_voids(t.leader, t.cards)
            self.taken_points[t.winner] += sum(1 for c in t.cards if PENALTY[c])
        trick = obs.trick
        self._note_voids(obs.leader, trick)
        self.after = [(self.me + i) % 4 for i in range(1, 4 - len(trick))]
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

    def _note_voids(self, leader: int, cards: tuple[int, ...]) -> None:
        if not cards:
            return
        led = cards[0] // 13
        for i, c in enumerate(cards):
            if c // 13 != led:
                self.voids[(leader + i) % 4].add(led)

    def is_master(self, c: int) -> bool:
        """No other seat holds a higher card of ``c``'s suit."""
        return all(o < c for o in self.out_by_suit[c // 13])

    def beaters(self, c: int) -> int:
        """How many cards held by others beat ``c`` in its suit."""
        return sum(1 for o in self.out_by_suit[c // 13] if o > c)

    def suit_len(self, suit: int) -> int:
        return sum(1 for c in self.hand if c // 13 == suit)

    def moon_threat(self) -> int | None:
        """The other seat that has taken every point card so far (and enough of them), if any."""
        takers = [s for s in range(4) if self.taken_points[s]]
        if len(takers) != 1 or takers[0] == self.me:
            return None
        x = takers[0]
        in_trick = [c for c in self.obs.trick if PENALTY[c]]
        if in_trick and self.winning != x:
            return None  # points already heading elsewhere in this trick
        return x if self.taken_points[x] >= MOON_WATCH else None

    def risk_after(self, win_card: int) -> float:
        """Expected points the seats still to play may add to a trick ``win_card`` would win."""
        risk = 0.0
        led = self.led
        hearts_out = self.out_by_suit[HEARTS]
        heart_avg = sum(PENALTY[c] for c in hearts_out) / len(hearts_out) if hearts_out else 0.0
        following = len(self.out_by_suit[led])
        for r in self.after:
            if led in self.voids[r]:
                risk += 15.0 if self.qs_out else heart_avg
            elif led == HEARTS:
                risk += min(heart_avg, 6.0)
        # Fewer cards of the suit out than seats to play: someone unknown is void.
        missing = len(self.after) - following
        if missing > 0 and led != HEARTS:
            risk += missing * (12.0 if self.qs_out else heart_avg / 2)
        if led == SPADES and self.qs_out and win_card > QS and self.after:
            risk += 20.0
        return risk


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
            return 20 + 3 * rank if rank >= 6 else rank
        if suit == SPADES:
            return rank - 5
        length = sum(1 for x in hand if _suit(x) == suit)
        return rank + (15 if length <= 2 else 0)

    # -- play -----------------------------------------------------------------------------

    def choose_play(self, obs: Observation, choices: tuple[int, ...]) -> int:
        t = Table(obs)
        if self._moon_round == obs.round:
            if any(t.taken_points[s] for s in range(4) if s != t.me):
                self._moon_round = None
            else:
                return self._moon_play(t, choices)
        threat = t.moon_threat()
        if not obs.trick:
            return self._lead(t, choices, threat)
        if _suit(choices[0]) == t.led:
            return self._follow(t, choices, threat)
        return self._discard(t, choices, threat)

    def _lead(self, t: Table, choices: tuple[int, ...], threat: int | None) -> int:
        if threat is not None:
            hearts = [c for c in choices if _suit(c) == HEARTS]
            if hearts:
                return max(hearts)
        others = [s for s in range(4) if s != t.me]
        cash = []
        for c in choices:
            suit = _suit(c)
            if suit == HEARTS or c == QS or not t.is_master(c):
                continue
            if suit == SPADES and t.qs_out:
                continue
            if any(suit in t.voids[s] for s in others) or len(t.out_by_suit[suit]) < 4:
                continue
            cash.append(c)
        if cash:
            return max(cash, key=lambda c: (len(t.out_by_suit[_suit(c)]), c))

        def lose_score(c: int) -> float:
            suit = _suit(c)
            score = float(t.beaters(c))
            if score == 0:
                score = -20.0  # it would win the trick
            if suit == SPADES:
                if QS in t.hand:
                    score -= 50
                elif c > QS and t.qs_out:
                    score -= 40
                elif t.qs_out:
                    score += 2  # a low spade helps flush the queen
            if suit == HEARTS:
                score -= PENALTY[c] / 2
            score += max(0, 4 - t.suit_len(suit))  # short suits: play toward a void
            return score

        return max(choices, key=lambda c: (lose_score(c), -_rank(c)))

    def _follow(self, t: Table, choices: tuple[int, ...], threat: int | None) -> int:
        best = t.best
        higher = [c for c in choices if c > best]
        lower = [c for c in choices if c < best]
        if threat is not None and higher:
            trick_hearts = any(_suit(c) == HEARTS for c in t.obs.trick)
            if t.winning == threat or trick_hearts or t.led == HEARTS:
                return max(higher)
        last = not t.after
        points_in = t.trick_penalty
        if higher:
            sure = [c for c in higher if last or t.is_master(c)]
            if sure:
                win = min(sure, key=lambda c: (PENALTY[c], -c))
                risk = 0.0 if last else t.risk_after(win)
                if TRICK_POINTS - points_in - PENALTY[win] - risk > 0 or not lower:
                    return win
            elif not lower:
                pick = [c for c in higher if c != QS] or higher
                risk = t.risk_after(max(pick))
                return max(pick) if points_in + risk <= 5 else min(pick)
        if lower:
            if QS in lower:
                return QS
            return max(lower)
        return min(higher, key=lambda c: (PENALTY[c], c))

    def _discard(self, t: Table, choices: tuple[int, ...], threat: int | None) -> int:
        hearts = [c for c in choices if _suit(c) == HEARTS]
        if threat is not None:
            shooter_done = threat in t.played_in_trick and t.winning != threat
            if hearts and shooter_done:
                return max(hearts)
            clean = [c for c in choices if not PENALTY[c]]
            if clean:
                return max(clean, key=lambda c: (c in (ACE_OF_SPADES, KING_OF_SPADES), _rank(c)))
            return min(choices, key=lambda c: PENALTY[c])
        if QS in choices:
            return QS
        if hearts:
            return max(hearts)
        if t.qs_out:
            honours = [c for c in choices if c in (ACE_OF_SPADES, KING_OF_SPADES)]
            if honours:
                return max(honours)
        return max(choices, key=lambda c: (-t.suit_len(_suit(c)), _rank(c)))

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
            return self._discard(t, choices, None)
        clean = [c for c in choices if not PENALTY[c]]
        return min(clean or choices, key=lambda c: (_rank(c), c))


def heuristic_bot(seed: int = 0) -> HeuristicBot:
    return HeuristicBot(seed=seed)
