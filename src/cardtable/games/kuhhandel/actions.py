"""Kuhhandel actions: small immutable values, one class per kind of answer.

Every action encodes to JSON as ``{"kind": ..., **fields}`` (:func:`to_json`) and back
(:func:`from_json`, which raises :class:`~cardtable.core.InvalidAction` for anything malformed).
Notes are always a tuple of face values (``(10, 10, 50)``), never amounts.

======================  ===============  ==============================================
request kind            answered with    meaning
======================  ===============  ==============================================
``turn``                ``AUCTION``,     draw and auction the top card (§4), or
                        ``Challenge``    challenge a seat to a cow trade (§5); in the duel
                        ``DRAW``         ``DRAW`` divides instead of auctioning (§10); after a
                        ``PASS``         super trade, ``PASS`` ends the turn (§9.5)
``bid``                 ``Bid``, ``PASS``  raise the auction / not now (§4.3)
``knock``               ``KNOCK``        open auctions: the auctioneer closes it (§4.3)
``sell_or_buy``         ``SELL``, ``BUY``  the auctioneer's choice (§4.5)
``pay``                 ``Pay``          notes for an amount, no change (§4.6)
``offer``               ``Offer``        the challenger's hidden offer (§5.2)
``respond``             ``ACCEPT``,      take the offer, or counter face down (§5.3)
                        ``Counter``
``claim``               ``Claim``        pedigree countdown: the count to claim at (§9.2)
``preempt``             ``PREEMPT``,     the auctioneer takes the pedigree itself (§9.2)
                        ``RELEASE``
``rat``                 ``TAKE_RAT``,    take the rat and its notes, or place a note (§9.3)
                        ``PlaceNote``
``divide``              ``KEEP``,        the duel: keep the peeked card or give it (§10)
                        ``GIVE``
======================  ===============  ==============================================
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Final

from cardtable.core.contract import InvalidAction


class Action:
    """Base class of every Kuhhandel action; each kind is a frozen dataclass below.

    ``kind`` is set on each class right after it (``Bid.kind = "bid"``), not in its body: in a
    dataclass body the compiled build (mypyc) would take it for a field.
    """

    __slots__ = ()
    kind: ClassVar[str] = ""

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind}

    # Actions are immutable values: a copy is the value itself. So the singletons (``AUCTION``,
    # ``PASS``...) stay themselves in a copied game, where the engine and the random bot find a
    # request's choices by identity (a deep copy used to make new ones, and the random bot then
    # chose differently in the copy).
    def __copy__(self) -> Action:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Action:
        return self

    # Pickling: an action without fields comes back as its singleton (``A.AUCTION`` stays
    # ``A.AUCTION``); one with fields is built again from them (each class below says which).
    # Written out because the compiled build cannot rebuild a frozen dataclass through the
    # default protocol (it would assign the fields of a frozen value).
    def __reduce__(self) -> tuple[Any, ...]:
        return (_singleton, (self.kind,))


@dataclass(frozen=True, slots=True)
class Auction(Action):
    """Draw the top card and put it up for auction."""


Auction.kind = "auction"


@dataclass(frozen=True, slots=True)
class Draw(Action):
    """The duel: draw the top card to divide it (look at it in secret, then keep or give)."""


Draw.kind = "draw"


@dataclass(frozen=True, slots=True)
class Challenge(Action):
    """Start a cow trade against ``opponent`` for ``species`` (an index into the rule set).

    ``opponent`` is the seat challenged (never your own), ``species`` the species index both of
    you own at least one card of; the cards at stake are 2 when both own two, else 1 (the
    request's ``choices`` lists every legal challenge, the ``challenge`` event says how many). In
    Master, ``species == len(rules.species)`` challenges for rats (§9.4). JSON:
    ``{"kind": "challenge", "opponent": 1, "species": 6}``.
    """

    opponent: int
    species: int

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "opponent": self.opponent, "species": self.species}

    def __reduce__(self) -> tuple[Any, ...]:
        return (Challenge, (self.opponent, self.species))


Challenge.kind = "challenge"


@dataclass(frozen=True, slots=True)
class Bid(Action):
    """Bid ``amount`` (an amount, not notes)."""

    amount: int

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "amount": self.amount}

    def __reduce__(self) -> tuple[Any, ...]:
        return (Bid, (self.amount,))


Bid.kind = "bid"


@dataclass(frozen=True, slots=True)
class Pass(Action):
    """Do not bid now (in ``rounds`` auctions a seat that passed is asked again next round)."""


Pass.kind = "pass"


@dataclass(frozen=True, slots=True)
class Knock(Action):
    """Open auctions: the auctioneer closes the auction ("going once, going twice, sold")."""


Knock.kind = "knock"


@dataclass(frozen=True, slots=True)
class Sell(Action):
    """The auctioneer sells to the highest bidder."""


Sell.kind = "sell"


@dataclass(frozen=True, slots=True)
class Buy(Action):
    """The auctioneer pre-empts: pays the highest bid to the highest bidder and keeps the card."""


Buy.kind = "buy"


@dataclass(frozen=True, slots=True)
class _Notes(Action):
    notes: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "notes": list(self.notes)}

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.notes,))


@dataclass(frozen=True, slots=True)
class Pay(_Notes):
    """Pay the requested amount with these notes."""


Pay.kind = "pay"


@dataclass(frozen=True, slots=True)
class Offer(_Notes):
    """The challenger's face-down offer (any of its notes; empty is allowed)."""


Offer.kind = "offer"


@dataclass(frozen=True, slots=True)
class Accept(Action):
    """The opponent takes the offer and hands over the cards at stake."""


Accept.kind = "accept"


@dataclass(frozen=True, slots=True)
class Counter(_Notes):
    """The opponent's face-down counter-offer (any of its notes; empty is allowed)."""


Counter.kind = "counter"


@dataclass(frozen=True, slots=True)
class Claim(Action):
    """Pedigree countdown: claim the card when the count reaches ``count`` (0 = never claim)."""

    count: int

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "count": self.count}

    def __reduce__(self) -> tuple[Any, ...]:
        return (Claim, (self.count,))


Claim.kind = "claim"


@dataclass(frozen=True, slots=True)
class Preempt(Action):
    """The auctioneer takes the pedigree card and gives the claimant the notes."""


Preempt.kind = "preempt"


@dataclass(frozen=True, slots=True)
class Release(Action):
    """The auctioneer lets the claimant have the pedigree card for the notes."""


Release.kind = "release"


@dataclass(frozen=True, slots=True)
class TakeRat(Action):
    """Take the rat together with every note placed beside it."""


TakeRat.kind = "take_rat"


@dataclass(frozen=True, slots=True)
class PlaceNote(Action):
    """Place one note (any value, 0 allowed) face down beside the rat."""

    note: int

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "note": self.note}

    def __reduce__(self) -> tuple[Any, ...]:
        return (PlaceNote, (self.note,))


PlaceNote.kind = "place_note"


@dataclass(frozen=True, slots=True)
class Keep(Action):
    """The duel: keep the peeked card (the opponent gets the next card unseen)."""


Keep.kind = "keep"


@dataclass(frozen=True, slots=True)
class Give(Action):
    """The duel: give the peeked card to the opponent (this seat gets the next card unseen)."""


Give.kind = "give"


AUCTION: Final[Auction] = Auction()
DRAW: Final[Draw] = Draw()
PASS: Final[Pass] = Pass()
KNOCK: Final[Knock] = Knock()
SELL: Final[Sell] = Sell()
BUY: Final[Buy] = Buy()
ACCEPT: Final[Accept] = Accept()
PREEMPT: Final[Preempt] = Preempt()
RELEASE: Final[Release] = Release()
TAKE_RAT: Final[TakeRat] = TakeRat()
KEEP: Final[Keep] = Keep()
GIVE: Final[Give] = Give()

_SINGLETONS: dict[str, Action] = {
    a.kind: a
    for a in (AUCTION, DRAW, PASS, KNOCK, SELL, BUY, ACCEPT, PREEMPT, RELEASE, TAKE_RAT, KEEP, GIVE)
}


def _singleton(kind: str) -> Action:
    """The action without fields of ``kind`` (unpickling, :meth:`Action.__reduce__`)."""
    return _SINGLETONS[kind]


_NOTES: dict[str, type[_Notes]] = {"pay": Pay, "offer": Offer, "counter": Counter}


def _int(data: Mapping[str, Any], key: str) -> int:
    value = data.get(key)
    if type(value) is not int:
        raise InvalidAction(
            f"{data.get('kind')!r} needs an integer {key!r}, got {value!r}",
            "kuhhandel.needs_integer",
            kind=repr(data.get("kind")),
            key=key,
            value=repr(value),
        )
    return value


def not_an_action(value: Any) -> InvalidAction:
    """The one refusal of a value that is no Kuhhandel action at all (the same locally, in the
    arena and through the client library)."""
    return InvalidAction(
        f"not a Kuhhandel action: {value!r} (answer with a value of "
        "cardtable.games.kuhhandel.actions such as A.PASS or A.Bid(20), "
        "or its JSON form, an object with a 'kind')",
        "kuhhandel.not_an_action",
        value=repr(value),
    )


def from_json(data: Any) -> Action:
    """Decode an action; raises :class:`InvalidAction` with a readable reason."""
    if isinstance(data, Action):
        return data
    if not isinstance(data, Mapping):
        raise not_an_action(data)
    kind = data.get("kind")
    single = _SINGLETONS.get(kind)  # type: ignore[arg-type]
    if single is not None:
        return single
    if kind in _NOTES:
        notes = data.get("notes")
        if not isinstance(notes, list | tuple) or not all(type(n) is int and n >= 0 for n in notes):
            raise InvalidAction(
                f"{kind!r} needs 'notes': a list of note values, got {notes!r}",
                "kuhhandel.needs_notes",
                kind=kind,
                value=repr(notes),
            )
        return _NOTES[kind](tuple(sorted(notes)))
    if kind == "bid":
        return Bid(_int(data, "amount"))
    if kind == "challenge":
        return Challenge(_int(data, "opponent"), _int(data, "species"))
    if kind == "claim":
        return Claim(_int(data, "count"))
    if kind == "place_note":
        return PlaceNote(_int(data, "note"))
    raise InvalidAction(f"unknown action kind {kind!r}", "kuhhandel.unknown_kind", kind=repr(kind))


def to_json(action: Action) -> dict[str, Any]:
    return action.to_json()
