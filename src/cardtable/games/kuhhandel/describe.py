"""What Kuhhandel events and views say, as messages in no language (the play log in the terminal
and the browser).

Each line is a :class:`~cardtable.core.message.Message`: a key of the catalogs
(``src/cardtable/i18n/catalogs/*.json``) and its arguments; ``cardtable.i18n.render`` makes it a
sentence in a person's language. The browser's ``describe.js`` builds the same keys from the same
event data.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from cardtable.core.contract import Event
from cardtable.core.message import Arg, Joined, Message, msg


def animal(name: str, count: int = 1) -> Message:
    """An animal by its English species name: the catalog's ``animal.goose`` (counted, for the
    plural), or the name itself for a species the catalogs do not know (a custom rule set)."""
    slug = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
    return Message(f"animal.{slug}", {"count": count}, default=name)


def card(name: str, count: int = 1) -> Message:
    """A Kuhhandel card by the name its events carry: ``"Goose"``, ``"Goose pedigree"``,
    ``"Rat"``."""
    if name == "Rat":
        return msg("card.rat", count=count)
    if name.endswith(" pedigree"):
        return msg("card.pedigree", animal=animal(name.removesuffix(" pedigree")))
    return animal(name, count)


def animals(count: int, name: str) -> Message:
    """A number of cards of one animal: ``1 Goose``, ``2 Geese``."""
    return msg("count.animals", count=count, animal=card(name, count))


def notes(count: int) -> Message:
    """``1 note``, ``3 notes``."""
    return msg("count.notes", count=count)


def note_values(values: Any, total: bool = True) -> Message:
    """Note values as a person counts them, not a list: ``[10, 10, 50]`` -> ``2 × 10 + 50 = 70``
    (equal notes grouped, smallest first; the total after several notes unless ``total=False``)."""
    if not values:
        return msg("notes.none")
    ordered = sorted(values)
    groups = [(v, ordered.count(v)) for v in dict.fromkeys(ordered)]
    terms: tuple[Arg, ...] = tuple(
        v if n == 1 else msg("notes.group", count=n, value=v) for v, n in groups
    )
    if total and len(ordered) > 1:
        return msg("notes.sum", terms=Joined(terms, " + "), total=sum(ordered))
    return msg("notes.list", terms=Joined(terms, " + "))


def describe_event(event: Event, names: tuple[str, ...] = ()) -> Message | None:
    """The message of one event, with seat names from ``names``; ``None`` for events not worth a
    line."""
    d = event.data

    def who(seat: object) -> Arg:
        if isinstance(seat, int) and 0 <= seat < len(names):
            return names[seat]
        return msg("log.kuhhandel.seat", seat=str(seat))

    k = event.kind
    key = f"log.kuhhandel.{k}"
    if k in ("turn", "auction", "pass", "claim_chosen", "wallets"):
        return None
    if k == "start":
        return msg(key, seats=d["seats"], first=who(d["first"]), deck=d["deck"])
    if k in ("end_phase",):
        return msg(key)
    if k == "tie":
        return msg(key, 1)
    if k in ("draw",):
        return msg(key, who=who(d["seat"]), card=card(d["name"]), deck=d["deck"])
    if k in ("laid", "no_bid", "card", "no_claim"):
        return msg(key, 1, who=who(d["seat"]), card=card(d["name"]))
    if k == "payout":
        return msg(key, note=d["note"], seats=len(d["seats"]))
    if k == "bid":
        return msg(key, 1, who=who(d["seat"]), amount=d["amount"])
    if k in ("knock", "accept"):
        return msg(key, 1, who=who(d["seat"]))
    if k in ("skip", "divide", "rat"):
        return msg(key, who=who(d["seat"]))
    if k == "super_trade":
        return msg(key, 1, who=who(d["seat"]))
    if k == "closed":
        return msg(key, 1, high=d["high"], who=who(d["high_bidder"]))
    if k == "decision":
        if d.get("for") == "pedigree":
            how = "preempt" if d["buy"] else "release"
        else:
            how = "buy" if d["buy"] else "sell"
        return msg(f"{key}.{how}", 1, who=who(d["seat"]))
    if k == "exposed":
        return msg(
            key, 1, who=who(d["seat"]), notes=note_values(d["notes"], False), value=d["value"]
        )
    if k == "payment":
        return msg(
            key, 1, payer=who(d["from"]), amount=d["amount"], payee=who(d["to"]), count=d["count"]
        )
    if k in ("payment_notes", "rat_notes"):
        return msg(key, 1, notes=note_values(d["notes"]))
    if k == "challenge":
        return msg(
            key,
            who=who(d["seat"]),
            opponent=who(d["opponent"]),
            animals=animals(d["cards"], d["name"]),
        )
    if k in ("offer", "counter", "rat_note", "rat_taken"):
        return msg(key, 1, who=who(d["seat"]), count=d["count"])
    if k == "tie_notes":
        return msg(key, 1, offer=note_values(d["offer"]), counter=note_values(d["counter"]))
    if k == "trade":
        return msg(key, 1, who=who(d["winner"]), animals=animals(d["cards"], d["name"]))
    if k == "trade_notes":
        if d["counter"] is None:  # the opponent accepted: there was no counter-offer
            return msg(f"{key}.accepted", 1, offer=note_values(d["offer"]))
        return msg(key, 1, offer=note_values(d["offer"]), counter=note_values(d["counter"]))
    if k == "countdown":
        return msg(key, who=who(d["seat"]), start=d["from"])
    if k == "claimed":
        return msg(key, 1, who=who(d["seat"]), count=d["count"])
    if k == "rat_note_value":
        return msg(key, 1, who=who(d["seat"]), note=d["note"])
    if k == "peek":
        return msg(key, 1, who=who(d["seat"]), card=card(d["name"]))
    if k == "divided":
        return msg(f"{key}.{'keep' if d['keep'] else 'give'}", 1, who=who(d["seat"]))
    if k == "end":
        return msg(key, termination=str(d.get("termination")), reason=str(d["reason"]))
    return msg("log.unknown", kind=k, data=str(dict(d)))


def describe_view(obs: Any, rules: Mapping[str, Any], names: tuple[str, ...] = ()) -> list[Message]:
    """The messages of a :class:`KuhhandelObservation`: what its seat may know now.

    Herds, every seat's number of notes and the seat's own notes (never another seat's), the
    auction, cow trade or payment under way. ``rules`` is the rule set as JSON (species names).
    """
    species = [str(s["name"]) for s in rules.get("species", ())]

    def who(seat: object) -> Arg:
        if isinstance(seat, int) and 0 <= seat < len(names):
            return msg("view.seat", name=names[seat], seat=str(seat))
        return msg("log.kuhhandel.seat", seat=str(seat))

    def name(c: int, count: int = 1) -> Message:
        if 0 <= c < len(species):
            return animal(species[c], count)
        return msg("card.number", card=str(c))

    def counted(count: int, c: int) -> Message:
        if 0 <= c < len(species):
            return animals(count, species[c])
        return msg("count.animals", count=count, animal=card("Rat", count))

    me = obs.seat
    lines = [
        msg(
            "view.kuhhandel.head",
            viewer=msg("view.spectator") if me is None else who(me),
            stage=str(obs.stage),
            turns=obs.turns,
            turn_seat=who(obs.turn_seat),
            deck=obs.deck_size,
            end_phase="yes" if obs.end_phase else "no",
        ),
        msg("view.kuhhandel.herds"),
    ]
    for s, herd in enumerate(obs.herds):
        held = tuple(counted(n, k) for k, n in enumerate(herd) if n)
        cards: Arg = Joined(held) if held else msg("view.kuhhandel.no_animals")
        if s == me and obs.wallet is not None:
            mine: Message = msg(
                "view.kuhhandel.own_notes", notes=str(list(obs.wallet)), total=sum(obs.wallet)
            )
        else:
            mine = msg("view.kuhhandel.hidden_notes", count=obs.note_counts[s])
        lines.append(msg("view.kuhhandel.herd", 1, who=who(s), cards=cards, notes=mine))
    a = obs.auction
    if a is not None:
        lot: Arg = Joined(tuple(name(c) for c in a.lot), " + ") if len(a.lot) > 1 else name(a.card)
        high = (
            msg("view.kuhhandel.no_bid")
            if a.high_bidder is None
            else msg("view.kuhhandel.high_bid", high=a.high, who=who(a.high_bidder))
        )
        lines.append(
            msg(
                "view.kuhhandel.auction",
                auctioneer=who(a.auctioneer),
                lot=lot,
                high=high,
                round=a.round,
            )
        )
        if a.bids:
            said = tuple(
                msg("view.kuhhandel.bid_passed", who=who(s))
                if amount == 0
                else msg("view.kuhhandel.bid", who=who(s), amount=amount)
                for s, amount in a.bids
            )
            lines.append(msg("view.kuhhandel.bids", 1, bids=Joined(said)))
        for s, shown in a.exposed.items():
            cap = a.caps.get(s)
            if cap is None:
                lines.append(msg("view.kuhhandel.showed", 1, who=who(s), notes=str(list(shown))))
            else:
                lines.append(
                    msg(
                        "view.kuhhandel.showed_capped",
                        1,
                        who=who(s),
                        notes=str(list(shown)),
                        cap=cap,
                    )
                )
    t = obs.trade
    if t is not None:
        offer = (
            msg("view.kuhhandel.no_offer")
            if t.offer_count is None
            else msg("view.kuhhandel.offer", count=t.offer_count)
        )
        lines.append(
            msg(
                "view.kuhhandel.trade",
                challenger=who(t.challenger),
                opponent=who(t.opponent),
                animals=counted(t.cards, t.species),
                offer=offer,
                again="yes" if t.again else "no",
            )
        )
        if t.my_offer is not None:
            lines.append(msg("view.kuhhandel.my_offer", 1, notes=str(list(t.my_offer))))
    p = obs.payment
    if p is not None:
        amount: Arg = p["amount"] if p.get("for") != "pedigree" else notes(p["amount"])
        lines.append(
            msg(
                "view.kuhhandel.payment",
                payer=who(p["payer"]),
                payee=who(p["payee"]),
                amount=amount,
                reason=str(p["for"]),
            )
        )
    if obs.countdown is not None:
        lines.append(msg("view.kuhhandel.countdown", count=obs.countdown))
    if obs.peek is not None:
        lines.append(msg("view.kuhhandel.peek", card=name(obs.peek)))
    drawn = tuple(counted(n, k) for k, n in enumerate(obs.drawn) if n)
    lines.append(
        msg("view.kuhhandel.drawn", cards=Joined(drawn) if drawn else msg("view.kuhhandel.nothing"))
    )
    return lines
