"""Cards of Cunegonda: a standard 52-card deck, ace high, as small ints.

A card is ``suit * 13 + rank`` with suits clubs 0, diamonds 1, hearts 2, spades 3 and ranks
0 (the 2) .. 12 (the ace). Within one suit a larger int is a higher card, so comparing two cards
of the same suit is comparing ints. Names are short and readable: ``"2C"``, ``"10H"``, ``"QS"``,
``"AH"``.
"""

from __future__ import annotations

from collections.abc import Iterable

CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
SUITS = "CDHS"
SUIT_WORDS = ("clubs", "diamonds", "hearts", "spades")
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
RANK_WORDS = (*RANKS[:9], "jack", "queen", "king", "ace")

DECK_SIZE = 52
QUEEN_OF_SPADES = SPADES * 13 + 10
ACE_OF_SPADES = SPADES * 13 + 12
KING_OF_SPADES = SPADES * 13 + 11

#: ``NAMES[card]`` is the short name of a card.
NAMES: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
_BY_NAME: dict[str, int] = {name: card for card, name in enumerate(NAMES)}
# "T" is a common spelling of the ten.
_BY_NAME.update({"T" + s: i * 13 + 8 for i, s in enumerate(SUITS)})


def card(name: object) -> int:
    """The card named ``name`` (``"QS"``, ``"10h"``, ``"TH"``); raises ``ValueError`` otherwise
    (also for a name that is not a string: ``object``, so that the compiled build refuses it
    with the same error instead of a ``TypeError``)."""
    try:
        if not isinstance(name, str):
            raise KeyError(name)
        return _BY_NAME[name.strip().upper()]
    except KeyError:
        raise ValueError(f"not a card: {name!r} (cards are named like 2C, 10H, QS, AD)") from None


def suit_of(c: int) -> int:
    return c // 13


def rank_of(c: int) -> int:
    """0 for the 2 .. 12 for the ace."""
    return c % 13


def long_name(c: int) -> str:
    """``"the queen of spades"``, ``"the 7 of hearts"``."""
    return f"the {RANK_WORDS[c % 13]} of {SUIT_WORDS[c // 13]}"


def names(cards: Iterable[int]) -> list[str]:
    """Short names of ``cards``, in the order given."""
    return [NAMES[c] for c in cards]
