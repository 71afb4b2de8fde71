"""Scoring of Cunegonda (spec: cunegonda-rules.md, section "Scoring (per round)")."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from cardtable.games.cunegonda.cards import HEARTS, QUEEN_OF_SPADES

TRICK_POINTS = 10
QUEEN_PENALTY = 26
MOON_GAIN = 60
MOON_LOSS = -20

#: ``PENALTY[card]``: what the card costs the seat that wins it (hearts at face value 2..14,
#: J 11, Q 12, K 13, A 14; the queen of spades 26; every other card 0).
PENALTY: tuple[int, ...] = tuple(
    (c % 13 + 2) if c // 13 == HEARTS else QUEEN_PENALTY if c == QUEEN_OF_SPADES else 0
    for c in range(52)
)


def trick_value(cards: Iterable[int]) -> int:
    """What a trick is worth to its winner: +10 minus the heart values minus 26 for the QS."""
    return TRICK_POINTS - sum(PENALTY[c] for c in cards)


def is_point_card(c: int) -> bool:
    """A heart or the queen of spades."""
    return PENALTY[c] > 0


def round_scores(points: Sequence[int], taken: Sequence[Iterable[int]]) -> tuple[list[int], int]:
    """Final scores of a round and the seat that shot the moon (or -1).

    ``points`` are the summed trick values per seat; ``taken`` the cards each seat won. If one seat
    took all 13 hearts and the queen of spades, the round's points are replaced: +60 for it, -20
    for each other seat.
    """
    for seat, cards in enumerate(taken):
        if sum(1 for c in cards if PENALTY[c]) == 14:
            return [MOON_GAIN if s == seat else MOON_LOSS for s in range(len(points))], seat
    return list(points), -1
