"""What one seat may know (spec §11), as an immutable snapshot.

Public: the deck size, every card and who holds it, every bid, auction and trade outcomes, each
seat's number of notes, note counts of offers and payments, exposed wallets, payouts. Private to
the seat: its own notes (and its own offer while a cow trade is open). Notes that passed between
two seats are in the events those two seats receive, never in anyone else's observation.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, is_dataclass, replace
from functools import cache
from types import UnionType
from typing import TYPE_CHECKING, Any, Union, get_args, get_origin, get_type_hints

from cardtable.games.kuhhandel import stages as ST
from cardtable.games.kuhhandel.money import to_notes

if TYPE_CHECKING:
    from cardtable.games.kuhhandel.state import KuhhandelGame


@dataclass(frozen=True)
class AuctionView:
    """The auction under way (public). JSON: the same fields; dict keys become strings."""

    auctioneer: int
    """The seat holding the auction (it sells, or buys the card itself)."""
    card: int
    """The card auctioned: a species index ``k`` (``n + k`` a pedigree card, ``2n`` a rat)."""
    lot: tuple[int, ...]
    """Every card sold together (two with the ``double_auction`` variant)."""
    high: int
    """The highest bid so far, 0 before the first bid."""
    high_bidder: int | None
    """The seat of the highest bid, ``None`` before the first bid."""
    bids: tuple[tuple[int, int], ...]
    """Every answer so far as ``(seat, amount)``; amount 0 is a pass."""
    round: int
    """The bidding round (from 1; rounds-style auctions ask every bidder once per round)."""
    exposed: dict[int, tuple[int, ...]]
    """Seats whose wallets were revealed for this card (§4.7), with the notes shown."""
    caps: dict[int, int]
    """The most each exposed seat may bid now (its money when shown)."""


@dataclass(frozen=True)
class TradeView:
    """The cow trade under way (public, except ``my_offer``)."""

    challenger: int
    """The seat that challenged (it offers first)."""
    opponent: int
    """The challenged seat (it accepts or counters)."""
    species: int
    """The species traded for (``len(rules.species)``: the rats, in Master)."""
    cards: int
    """Cards at stake: 2 when both own two cards of it, else 1."""
    offer_count: int | None
    """How many notes the challenger offered (face down), ``None`` before the offer."""
    again: bool
    """True when the offers were equal and the challenger offers again (§5.5)."""
    my_offer: tuple[int, ...] | None
    """The challenger's own offer, in the challenger's observation only."""


@dataclass(frozen=True)
class KuhhandelObservation:
    """A seat's view of the game; ``seat`` is ``None`` for a spectator (then ``wallet`` is too).

    Seats are numbered from 0, species are indices into ``rules.species``, notes are face values.
    ``to_json()`` gives the same fields (tuples as lists, dict keys as strings).
    """

    seat: int | None
    """The seat this view belongs to (``None``: a spectator)."""
    seats: int
    """Number of seats."""
    rules: str
    """The rule set's name (``"classic"``...); the full rule set is ``GameInfo.rules``."""
    stage: str
    """What the game waits for: ``turn``, ``bid``, ``sell_or_buy``, ``pay``, ``offer``,
    ``respond``, ``claim``, ``preempt``, ``rat``, ``divide`` or ``over``."""
    turn_seat: int
    """The seat whose turn it is (the auctioneer or challenger during its auction or trade)."""
    end_phase: bool
    """True once the deck is empty: every turn is then a cow trade (§6)."""
    deck_size: int
    """Cards left in the deck."""
    herds: tuple[tuple[int, ...], ...]
    """Cards per species, per seat (public)."""
    note_counts: tuple[int, ...]
    """How many notes each seat holds (values hidden, except your own ``wallet``)."""
    wallet: tuple[int, ...] | None
    """This seat's own notes (face values, smallest first)."""
    bank: tuple[int, ...] | None
    """Counts per note value in the bank; ``None`` when unlimited or (the duel) face down."""
    drawn: tuple[int, ...]
    """Cards of each species drawn so far (so the payouts to come are known)."""
    pedigrees: tuple[tuple[int, ...], ...]
    """Master: pedigree cards per species, per seat (empty lists without pedigrees)."""
    rats: tuple[int, ...]
    """Master: rats held per seat (all zero without rats)."""
    auction: AuctionView | None
    """The auction under way (during ``bid``, ``sell_or_buy`` and its payment), else ``None``."""
    trade: TradeView | None
    """The cow trade under way (during ``offer`` and ``respond``), else ``None``."""
    payment: dict[str, Any] | None
    """The payment under way: ``payer``, ``payee``, ``amount`` (a note count for a pedigree)
    and ``for`` (``"auction"`` or ``"pedigree"``), else ``None``."""
    turns: int
    """Turns played so far."""
    over: bool
    """True once the game has ended."""
    countdown: dict[str, Any] | None = None
    """Master pedigree countdown (§9.2): ``card``, ``from`` (the count it starts at), ``chosen``
    (seats that chose their claim), ``claimant`` and ``count`` once known, ``my_claim`` (this
    seat's own choice), else ``None``."""
    rat_pile: int | None = None
    """Master rat round (§9.3): how many notes lie face down beside the rat (values hidden)."""
    peek: int | None = None
    """The duel (§10): the card this seat looked at, only while it decides."""
    reserve: tuple[int, ...] | None = None
    """The duel: payout notes laid aside openly (counts per note value)."""

    @property
    def money(self) -> int:
        """Total value of this seat's notes (0 for a spectator)."""
        return sum(self.wallet) if self.wallet else 0

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = _encoder(KuhhandelObservation)(self)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> KuhhandelObservation:
        """The inverse of :meth:`to_json` (a remote bot gets the same value a local one does).

        Driven by the field types, so a field added later decodes without touching this.
        """
        obs: KuhhandelObservation = _from_json(cls, data)
        # Interned so that ``obs.stage is ST.BID`` holds as it does for a local observation.
        return replace(obs, stage=sys.intern(obs.stage))


@cache
def _encoder(hint: Any) -> Callable[[Any], Any]:
    """The function that turns values of type ``hint`` into JSON values (tuples to lists, int
    dict keys to strings, views to dicts), worked out once per type like :func:`_decoder`."""
    origin = get_origin(hint)
    if origin in (Union, UnionType):
        options = [a for a in get_args(hint) if a is not type(None)]
        return _encoder(options[0]) if len(options) == 1 else _plain
    if is_dataclass(hint) and isinstance(hint, type):
        hints = get_type_hints(hint)
        parts = tuple((f.name, _encoder(hints[f.name])) for f in fields(hint))
        return lambda value: (
            None if value is None else {name: part(getattr(value, name)) for name, part in parts}
        )
    if origin is tuple:
        args = get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            item = _encoder(args[0])
            return lambda value: None if value is None else [item(v) for v in value]
        items = tuple(_encoder(a) for a in args)
        return lambda value: (
            None if value is None else [e(v) for e, v in zip(items, value, strict=True)]
        )
    if origin is dict:
        item = _encoder(get_args(hint)[1])
        return lambda value: (
            None if value is None else {str(k): item(v) for k, v in value.items()}
        )
    if hint is Any:
        return _plain
    return _as_is


def _plain(value: Any) -> Any:
    """A JSON copy of a value of no declared shape (``payment``, ``countdown``)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return value


def _from_json(hint: Any, value: Any) -> Any:
    """Rebuild a value of type ``hint`` from its ``to_json`` form (lists back to tuples, int
    dict keys back from strings, nested views back to dataclasses)."""
    return _decoder(hint)(value)


@cache
def _decoder(hint: Any) -> Callable[[Any], Any]:
    """The function that rebuilds values of type ``hint``, worked out once per type: reading
    the annotations (``get_type_hints``, ``get_origin``) costs far more than the decoding."""
    origin = get_origin(hint)
    if origin in (Union, UnionType):
        options = [a for a in get_args(hint) if a is not type(None)]
        if len(options) != 1:
            return _as_is
        return _decoder(options[0])
    if is_dataclass(hint) and isinstance(hint, type):
        view = hint
        hints = get_type_hints(view)
        parts = tuple((f.name, _decoder(hints[f.name])) for f in fields(view))

        def build(value: Any) -> Any:
            if value is None:
                return None
            return view(**{name: part(value[name]) for name, part in parts if name in value})

        return build
    if origin is tuple:
        args = get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            item = _decoder(args[0])
            return lambda value: None if value is None else tuple(item(v) for v in value)
        items = tuple(_decoder(a) for a in args)
        return lambda value: (
            None if value is None else tuple(d(v) for d, v in zip(items, value, strict=True))
        )
    if origin is dict:
        key, item_hint = get_args(hint)
        item = _decoder(item_hint)
        if key is int:
            return lambda value: (
                None if value is None else {int(k): item(v) for k, v in value.items()}
            )
        return lambda value: None if value is None else {k: item(v) for k, v in value.items()}
    return _as_is


def _as_is(value: Any) -> Any:
    return value


def observe(game: KuhhandelGame, seat: int | None) -> KuhhandelObservation:
    """``seat``'s observation. The public part is built once per game state and shared."""
    key = (len(game._history), len(game._log))
    cache = game._obs_cache
    if cache is None or cache[0] != key:
        public = _public(game)
        game._obs_cache = (key, public)
    else:
        public = cache[1]
    data = dict(public)
    data["seat"] = seat
    data.update(_private(game, seat))
    obs: KuhhandelObservation = _quick(KuhhandelObservation, data)
    return obs


def _quick(cls: type[Any], values: dict[str, Any]) -> Any:
    """Build a frozen dataclass from checked engine state without its ``__init__``.

    The generated ``__init__`` sets each field with ``object.__setattr__``; observations are asked
    for on most decisions, so this sets them all at once. Every field must be given.
    """
    obj = object.__new__(cls)
    obj.__dict__.update(values)
    return obj


def _public(game: KuhhandelGame) -> dict[str, Any]:
    stage = game.stage
    auction = None
    if stage in (ST.BID, ST.SELL_OR_BUY) or (stage is ST.PAY and game.pay_reason == "auction"):
        auction = _quick(
            AuctionView,
            {
                "auctioneer": game.turn_seat,
                "card": game.card,
                "lot": tuple(game.lot),
                "high": game.high,
                "high_bidder": game.high_bidder if game.high_bidder >= 0 else None,
                "bids": tuple(game.bids),
                "round": game.bid_round,
                "exposed": dict(game.exposed),
                "caps": dict(game.caps),
            },
        )
    return {
        "seats": game.seats,
        "rules": game.rules.name,
        "stage": stage,
        "turn_seat": game.turn_seat,
        "end_phase": game.end_phase,
        "deck_size": len(game.deck),
        "herds": tuple(map(tuple, game.herds)),
        "note_counts": tuple(sum(w) for w in game.wallets),
        # The duel's bank is face down (ten notes left it unseen): not public there.
        "bank": None if game.bank is None or game.rules.duel else tuple(game.bank),
        "drawn": tuple(game.drawn),
        "pedigrees": tuple(map(tuple, game.pedigrees)),
        "rats": tuple(game.rats),
        "auction": auction,
        "turns": game.turns,
        "over": game.is_over(),
        "rat_pile": len(game.rat_pile) if stage is ST.RAT else None,
        "reserve": None if game.reserve is None else tuple(game.reserve),
    }


def _private(game: KuhhandelGame, seat: int | None) -> dict[str, Any]:
    """The fields that differ per seat (the seat's own notes, offer, claim, peeked card)."""
    stage = game.stage
    trade = None
    if stage in (ST.OFFER, ST.RESPOND):
        trade = _quick(
            TradeView,
            {
                "challenger": game.challenger,
                "opponent": game.opponent,
                "species": game.trade_species,
                "cards": game.stake,
                "offer_count": None if game.offer is None else len(game.offer),
                "again": game.tie_rounds > 0,
                "my_offer": game.offer
                if seat == game.challenger and game.offer is not None
                else None,
            },
        )
    countdown = None
    if stage in (ST.CLAIM, ST.PREEMPT) or (stage is ST.PAY and game.pay_reason == "pedigree"):
        countdown = {
            "card": game.card,
            "from": game.rules.countdown_from,
            "chosen": sorted(game.claims) if stage is ST.CLAIM else [],
            "claimant": None if stage is ST.CLAIM else game.claimant,
            "count": None if stage is ST.CLAIM else game.claim_count,
            "my_claim": game.claims.get(seat) if seat is not None and stage is ST.CLAIM else None,
        }
    payment = None
    if stage is ST.PAY:
        payment = {
            "payer": game.payer,
            "payee": game.payee,
            "amount": game.amount,
            "for": game.pay_reason,
        }
    return {
        "wallet": None if seat is None else to_notes(game.wallets[seat], game.rules.notes),
        "trade": trade,
        "countdown": countdown,
        "payment": payment,
        "peek": game.peek if stage is ST.DIVIDE and seat == game.turn_seat else None,
    }
