"""What one seat may know (spec §11), as an immutable snapshot.

Public: the deck size, every card and who holds it, every bid, auction and trade outcomes, each
seat's number of notes, note counts of offers and payments, exposed wallets, payouts. Private to
the seat: its own notes (and its own offer while a cow trade is open). Notes that passed between
two seats are in the events those two seats receive, never in anyone else's observation.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, is_dataclass, replace
from types import UnionType
from typing import TYPE_CHECKING, Any, Union, get_args, get_origin, get_type_hints

from cardtable.games.kuhhandel import stages as ST
from cardtable.games.kuhhandel.money import to_notes

if TYPE_CHECKING:
    from cardtable.games.kuhhandel.state import KuhhandelGame


@dataclass(frozen=True)
class AuctionView:
    """The auction under way (public)."""

    auctioneer: int
    card: int
    lot: tuple[int, ...]
    """Every card sold together (two with the ``double_auction`` variant)."""
    high: int
    high_bidder: int | None
    bids: tuple[tuple[int, int], ...]
    """Every answer so far as ``(seat, amount)``; amount 0 is a pass."""
    round: int
    exposed: dict[int, tuple[int, ...]]
    """Seats whose wallets were revealed for this card (§4.7), with the notes shown."""
    caps: dict[int, int]


@dataclass(frozen=True)
class TradeView:
    """The cow trade under way (public, except ``my_offer``)."""

    challenger: int
    opponent: int
    species: int
    cards: int
    offer_count: int | None
    again: bool
    my_offer: tuple[int, ...] | None


@dataclass(frozen=True)
class KuhhandelObservation:
    """A seat's view of the game; ``seat`` is ``None`` for a spectator (then ``wallet`` is too)."""

    seat: int | None
    seats: int
    rules: str
    stage: str
    turn_seat: int
    end_phase: bool
    deck_size: int
    herds: tuple[tuple[int, ...], ...]
    """Cards per species, per seat (public)."""
    note_counts: tuple[int, ...]
    wallet: tuple[int, ...] | None
    """This seat's own notes (face values, smallest first)."""
    bank: tuple[int, ...] | None
    """Counts per note value in the bank; ``None`` when unlimited or (the duel) face down."""
    drawn: tuple[int, ...]
    """Cards of each species drawn so far (so the payouts to come are known)."""
    pedigrees: tuple[tuple[int, ...], ...]
    rats: tuple[int, ...]
    auction: AuctionView | None
    trade: TradeView | None
    payment: dict[str, Any] | None
    turns: int
    over: bool
    countdown: dict[str, Any] | None = None
    """Master pedigree countdown (§9.2): the card, the seats that chose, the claim once known."""
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
        data = asdict(self)
        if self.auction is not None:
            a = data["auction"]
            a["bids"] = [list(b) for b in self.auction.bids]
            a["exposed"] = {str(k): list(v) for k, v in self.auction.exposed.items()}
            a["caps"] = {str(k): v for k, v in self.auction.caps.items()}
        for key in ("herds", "pedigrees"):
            data[key] = [list(h) for h in data[key]]
        if data["auction"] is not None:
            data["auction"]["lot"] = list(data["auction"]["lot"])
        for key in ("note_counts", "wallet", "bank", "drawn", "rats", "reserve"):
            if data[key] is not None:
                data[key] = list(data[key])
        if data["trade"] is not None and data["trade"]["my_offer"] is not None:
            data["trade"]["my_offer"] = list(data["trade"]["my_offer"])
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> KuhhandelObservation:
        """The inverse of :meth:`to_json` (a remote bot gets the same value a local one does).

        Driven by the field types, so a field added later decodes without touching this.
        """
        obs: KuhhandelObservation = _from_json(cls, data)
        # Interned so that ``obs.stage is ST.BID`` holds as it does for a local observation.
        return replace(obs, stage=sys.intern(obs.stage))


def _from_json(hint: Any, value: Any) -> Any:
    """Rebuild a value of type ``hint`` from its ``to_json`` form (lists back to tuples, int
    dict keys back from strings, nested views back to dataclasses)."""
    if value is None:
        return None
    origin = get_origin(hint)
    if origin in (Union, UnionType):
        options = [a for a in get_args(hint) if a is not type(None)]
        return _from_json(options[0], value) if len(options) == 1 else value
    if is_dataclass(hint) and isinstance(hint, type):
        hints = get_type_hints(hint)
        return hint(
            **{
                f.name: _from_json(hints[f.name], value[f.name])
                for f in fields(hint)
                if f.name in value
            }
        )
    if origin is tuple:
        args = get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_from_json(args[0], v) for v in value)
        return tuple(_from_json(a, v) for a, v in zip(args, value, strict=True))
    if origin is dict:
        key, item = get_args(hint)
        return {(int(k) if key is int else k): _from_json(item, v) for k, v in value.items()}
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
        auction = AuctionView(
            auctioneer=game.turn_seat,
            card=game.card,
            lot=tuple(game.lot),
            high=game.high,
            high_bidder=game.high_bidder if game.high_bidder >= 0 else None,
            bids=tuple(game.bids),
            round=game.bid_round,
            exposed=dict(game.exposed),
            caps=dict(game.caps),
        )
    return {
        "seats": game.seats,
        "rules": game.rules.name,
        "stage": stage,
        "turn_seat": game.turn_seat,
        "end_phase": game.end_phase,
        "deck_size": len(game.deck),
        "herds": tuple(tuple(h) for h in game.herds),
        "note_counts": tuple(sum(w) for w in game.wallets),
        # The duel's bank is face down (ten notes left it unseen): not public there.
        "bank": None if game.bank is None or game.rules.duel else tuple(game.bank),
        "drawn": tuple(game.drawn),
        "pedigrees": tuple(tuple(p) for p in game.pedigrees),
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
