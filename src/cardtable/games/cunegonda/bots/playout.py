"""Fast simulation of the rest of a Cunegonda round, for the ``expert`` bot's search.

Everything here works on bare ints and lists (cards as in :mod:`..cards`), never on the engine: a
playout is a few hundred list operations, so the expert can afford hundreds of them per decision.

- :func:`sample_hands` deals the cards a seat cannot see to the other seats, consistently with
  what that seat saw (hand sizes, suits a seat showed out of, the cards it passed itself).
- :func:`rollout_card` picks a card by quick Hearts rules of thumb (duck point tricks, win clean
  ones late, dump the queen of spades and high hearts when void); every seat of a playout uses it.
- :func:`playout` plays the round to its end and returns the round scores (moon included).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from cardtable.games.cunegonda.cards import ACE_OF_SPADES, KING_OF_SPADES, QUEEN_OF_SPADES
from cardtable.games.cunegonda.scoring import MOON_GAIN, MOON_LOSS, PENALTY, TRICK_POINTS

QS = QUEEN_OF_SPADES
HEARTS_LOW, HEARTS_HIGH = 26, 38  # the 2 and the ace of hearts
SEATS = 4


def rollout_card(hand: Sequence[int], trick: Sequence[int], qs_live: bool) -> int:
    """A legal card for a playout: cheap rules, deterministic (no randomness needed)."""
    if not trick:
        best_lead = -1
        best_key = 99
        for c in hand:
            s, r = c // 13, c % 13
            if s == 2:
                key = 40 + r  # hearts only when nothing else
            elif s == 3 and qs_live and c >= QS:
                key = 60 + r  # never lead the queen or a spade honour while she is out
            else:
                key = r
            if key < best_key:
                best_key, best_lead = key, c
        return best_lead
    led = trick[0] // 13
    follow = [c for c in hand if c // 13 == led]
    if not follow:
        if QS in hand:
            return QS
        hearts = [c for c in hand if HEARTS_LOW <= c <= HEARTS_HIGH]
        if hearts:
            return hearts[-1]
        if qs_live:
            for honour in (ACE_OF_SPADES, KING_OF_SPADES):
                if honour in hand:
                    return honour
        return max(hand, key=lambda c: c % 13)
    best = max(c for c in trick if c // 13 == led)
    points = 0
    for c in trick:
        points += PENALTY[c]
    if led == 3 and QS in follow and best > QS:
        return QS  # drop the queen under a higher spade
    under = [c for c in follow if c < best]
    last = len(trick) == SEATS - 1
    if last:
        higher = [c for c in follow if c > best and c != QS]
        if higher and (not under or TRICK_POINTS - points > 0):
            return higher[-1]  # a clean enough trick: win it and shed the highest card
        return under[-1] if under else follow[-1]
    risky = points > 0 or led == 2 or (led == 3 and qs_live)
    if risky:
        if under:
            return under[-1]
        safe = [c for c in follow if c != QS]
        return safe[0] if safe else follow[0]
    safe = [c for c in follow if c != QS]
    return safe[-1] if safe else follow[-1]


def playout(
    hands: list[list[int]],
    leader: int,
    trick: list[int],
    points: list[int],
    taken: list[int],
    qs_live: bool,
) -> list[int]:
    """Play the round to its end from the given position and return the round scores.

    ``hands`` (mutated) hold each seat's cards, ascending; ``trick`` the cards of the current
    trick, the first by ``leader``; ``points`` the trick values so far and ``taken`` the number of
    point cards each seat took (both mutated). Scores follow the spec: +10 per trick minus hearts
    and the queen, or +60/-20 when one seat took all 14 point cards.
    """
    trick = list(trick)
    seat = (leader + len(trick)) % SEATS
    while hands[seat] or trick:
        if len(trick) == SEATS:
            led = trick[0] // 13
            win_i = 0
            best = trick[0]
            value = TRICK_POINTS
            pcards = 0
            for i, c in enumerate(trick):
                if c // 13 == led and c > best:
                    best, win_i = c, i
                pen = PENALTY[c]
                if pen:
                    value -= pen
                    pcards += 1
                    if c == QS:
                        qs_live = False
            winner = (leader + win_i) % SEATS
            points[winner] += value
            taken[winner] += pcards
            leader = seat = winner
            trick = []
            if not hands[seat]:
                break
            continue
        hand = hands[seat]
        c = rollout_card(hand, trick, qs_live)
        hand.remove(c)
        trick.append(c)
        seat = (seat + 1) % SEATS
    for s in range(SEATS):
        if taken[s] == 14:
            return [MOON_GAIN if x == s else MOON_LOSS for x in range(SEATS)]
    return points


def sample_hands(
    rng: random.Random,
    me: int,
    unknown: Sequence[int],
    sizes: Sequence[int],
    voids: Sequence[set[int]],
    known: dict[int, list[int]],
) -> list[list[int]] | None:
    """Deal ``unknown`` cards to the seats other than ``me``.

    ``sizes[s]`` is how many cards seat ``s`` must get in total (``known[s]`` included: cards
    known to be there, like the ones this seat passed to it); a seat gets no card of a suit in
    ``voids[s]``. Cards with the fewest possible seats go first; returns ``None`` when no deal
    fits after a few tries (the caller then relaxes the voids).
    """
    for _attempt in range(12):
        hands: list[list[int]] = [list(known.get(s, ())) for s in range(SEATS)]
        room = [sizes[s] - len(hands[s]) if s != me else 0 for s in range(SEATS)]
        cards = list(unknown)
        rng.shuffle(cards)
        options = {
            c: [s for s in range(SEATS) if s != me and c // 13 not in voids[s]] for c in cards
        }
        cards.sort(key=lambda c: len(options[c]))
        ok = True
        for c in cards:
            seats = [s for s in options[c] if room[s] > 0]
            if not seats:
                ok = False
                break
            total = sum(room[s] for s in seats)
            pick = rng.random() * total
            chosen = seats[-1]
            for s in seats:
                pick -= room[s]
                if pick < 0:
                    chosen = s
                    break
            hands[chosen].append(c)
            room[chosen] -= 1
        if ok:
            for h in hands:
                h.sort()
            return hands
    return None
