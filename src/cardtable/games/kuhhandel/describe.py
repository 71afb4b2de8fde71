"""Plain-words lines for Kuhhandel events (the play log in the terminal and the browser)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cardtable.core.contract import Event


def _notes(count: int) -> str:
    return f"{count} {'note' if count == 1 else 'notes'}"


#: Animal names whose plural is not made by the rule of :func:`plural_name`.
_PLURALS = {"Goose": "Geese", "Sheep": "Sheep", "Mouse": "Mice", "Ox": "Oxen", "Deer": "Deer"}


def plural_name(name: str) -> str:
    """An animal's plural as a person says it: ``Dog`` -> ``Dogs``, ``Goose`` -> ``Geese``,
    ``Sheep`` -> ``Sheep``, ``Horse`` -> ``Horses``, ``Fox`` -> ``Foxes``, ``Pony`` -> ``Ponies``
    (describe.js's ``pluralName`` does the same)."""
    if name in _PLURALS:
        return _PLURALS[name]
    if name.endswith(("s", "x", "z", "ch", "sh")):
        return name + "es"
    if len(name) > 1 and name.endswith("y") and name[-2] not in "aeiou":
        return name[:-1] + "ies"
    return name + "s"


def animals(count: int, name: str) -> str:
    """A number of cards of one animal: ``1 Goose``, ``2 Geese``."""
    return f"{count} {name if count == 1 else plural_name(name)}"


def note_values(notes: Any, total: bool = True) -> str:
    """Note values as a person counts them, not a list: ``[10, 10, 50]`` -> ``2 × 10 + 50 = 70``
    (equal notes grouped, smallest first; the total after several notes unless ``total=False``)."""
    if not notes:
        return "no notes"
    values = sorted(notes)
    groups = [(v, values.count(v)) for v in dict.fromkeys(values)]
    words = " + ".join(str(v) if n == 1 else f"{n} \u00d7 {v}" for v, n in groups)
    return f"{words} = {sum(values)}" if total and len(values) > 1 else words


def describe_event(event: Event, names: tuple[str, ...] = ()) -> str:
    """One line for people; an empty string for events not worth a line."""
    d = event.data

    def who(seat: object) -> str:
        if isinstance(seat, int) and 0 <= seat < len(names):
            return names[seat]
        return f"seat {seat}"

    k = event.kind
    if k == "start":
        return (
            f"A game for {d['seats']} seats begins; {who(d['first'])} starts; "
            f"{d['deck']} cards in the deck."
        )
    if k == "turn":
        return ""
    if k == "end_phase":
        return "The deck is empty: every turn is now a cow trade."
    if k == "draw":
        return f"{who(d['seat'])} draws the {d['name']} ({d['deck']} left)."
    if k == "laid":
        return f"  The {d['name']} is laid face up in front of {who(d['seat'])}."
    if k == "payout":
        return f"Donkey! The bank pays a {d['note']} note to {len(d['seats'])} seats."
    if k == "auction":
        return ""
    if k == "bid":
        return f"  {who(d['seat'])} bids {d['amount']}."
    if k == "pass":
        return ""
    if k == "knock":
        return f"  {who(d['seat'])} knocks the auction down."
    if k == "no_bid":
        return f"  Nobody bids: {who(d['seat'])} takes the {d['name']} for free."
    if k == "closed":
        return f"  Going once, going twice, sold: {d['high']} from {who(d['high_bidder'])}."
    if k == "decision":
        if d.get("for") == "pedigree":
            what = (
                "keeps the card and pays the claimant" if d["buy"] else "lets the claimant have it"
            )
            return f"  {who(d['seat'])} {what}."
        what = (
            "keeps the card and pays the highest bid" if d["buy"] else "sells to the highest bidder"
        )
        return f"  {who(d['seat'])} {what}."
    if k == "exposed":
        return (
            f"  {who(d['seat'])} cannot pay and shows {note_values(d['notes'], False)} "
            f"(worth {d['value']}); the auction is repeated."
        )
    if k == "payment":
        return f"  {who(d['from'])} pays {d['amount']} to {who(d['to'])} ({_notes(d['count'])})."
    if k == "payment_notes":
        return f"  (notes: {note_values(d['notes'])})"
    if k == "card":
        return f"  {who(d['seat'])} gets the {d['name']}."
    if k == "challenge":
        return (
            f"{who(d['seat'])} challenges {who(d['opponent'])} to a cow trade for "
            f"{animals(d['cards'], d['name'])}."
        )
    if k == "offer":
        return f"  {who(d['seat'])} offers {_notes(d['count'])} face down."
    if k == "accept":
        return f"  {who(d['seat'])} accepts."
    if k == "counter":
        return f"  {who(d['seat'])} counters with {_notes(d['count'])}."
    if k == "tie":
        return "  A tie! The offers are exchanged and the challenger offers again."
    if k == "tie_notes":
        return f"  (offers: {note_values(d['offer'])} against {note_values(d['counter'])})"
    if k == "trade":
        return f"  {who(d['winner'])} wins {animals(d['cards'], d['name'])}."
    if k == "trade_notes":
        if d["counter"] is None:  # the opponent accepted: there was no counter-offer
            return f"  (offer {note_values(d['offer'])}; accepted, no counter-offer)"
        return f"  (offer {note_values(d['offer'])}; counter {note_values(d['counter'])})"
    if k == "skip":
        return f"{who(d['seat'])} cannot trade and is skipped."
    if k == "countdown":
        return f"{who(d['seat'])} counts down from {d['from']} for the pedigree card."
    if k == "claim_chosen":
        return ""
    if k == "claimed":
        return f"  {who(d['seat'])} claims it at {d['count']}!"
    if k == "no_claim":
        return f"  Nobody claims: {who(d['seat'])} keeps the {d['name']} for free."
    if k == "rat":
        return f"A rat! Starting left of {who(d['seat'])}, each takes it or places a note."
    if k == "rat_note":
        return f"  {who(d['seat'])} places a note beside the rat ({_notes(d['count'])} there)."
    if k == "rat_note_value":
        return f"  ({who(d['seat'])} placed {d['note']})"
    if k == "rat_taken":
        return f"  {who(d['seat'])} takes the rat and {_notes(d['count'])}."
    if k == "rat_notes":
        return f"  (the notes: {note_values(d['notes'])})"
    if k == "super_trade":
        return f"  Super trade: {who(d['seat'])} may still hold an auction."
    if k == "divide":
        return f"{who(d['seat'])} looks at the top card to divide it."
    if k == "peek":
        return f"  ({who(d['seat'])} sees the {d['name']})"
    if k == "divided":
        return f"  {who(d['seat'])} {'keeps it' if d['keep'] else 'gives it away'}."
    if k == "end":
        return f"The game ends: {d['reason']}."
    if k == "wallets":
        return ""
    return f"{k}: {dict(d)}"


def describe_view(obs: Any, rules: Mapping[str, Any], names: tuple[str, ...] = ()) -> list[str]:
    """Plain-words lines for a :class:`KuhhandelObservation`: what its seat may know now.

    Herds, every seat's number of notes and the seat's own notes (never another seat's), the
    auction, cow trade or payment under way. ``rules`` is the rule set as JSON (species names).
    """
    species = [s["name"] for s in rules.get("species", ())]

    def who(seat: object) -> str:
        if isinstance(seat, int) and 0 <= seat < len(names):
            return f"{names[seat]} (seat {seat})"
        return f"seat {seat}"

    def name(card: int) -> str:
        return species[card] if 0 <= card < len(species) else f"card {card}"

    me = obs.seat
    lines = [
        f"Seen by {'a spectator' if me is None else who(me)}: stage {obs.stage}, turn {obs.turns}"
        f", {who(obs.turn_seat)}'s turn; {obs.deck_size} cards in the deck"
        + ("; end phase (cow trades only)" if obs.end_phase else ""),
        "Herds and notes:",
    ]
    for s, herd in enumerate(obs.herds):
        cards = ", ".join(animals(n, name(k)) for k, n in enumerate(herd) if n) or "no animals"
        if s == me and obs.wallet is not None:
            notes = f"notes {list(obs.wallet)} = {sum(obs.wallet)} (yours)"
        else:
            notes = f"{_notes(obs.note_counts[s])} (values hidden)"
        lines.append(f"  {who(s)}: {cards}; {notes}")
    a = obs.auction
    if a is not None:
        lot = " + ".join(name(c) for c in a.lot) if len(a.lot) > 1 else name(a.card)
        high = (
            "no bid yet"
            if a.high_bidder is None
            else f"high bid {a.high} from {who(a.high_bidder)}"
        )
        lines.append(f"Auction: {who(a.auctioneer)} auctions the {lot}; {high}, round {a.round}")
        if a.bids:
            said = ", ".join(
                f"{who(s)} {'passes' if amount == 0 else amount}" for s, amount in a.bids
            )
            lines.append(f"  bids so far: {said}")
        for s, shown in a.exposed.items():
            cap = a.caps.get(s)
            lines.append(
                f"  {who(s)} showed {list(shown)}"
                + (f", may bid at most {cap}" if cap is not None else "")
            )
    t = obs.trade
    if t is not None:
        offer = "no offer yet" if t.offer_count is None else f"offer of {_notes(t.offer_count)}"
        lines.append(
            f"Cow trade: {who(t.challenger)} challenges {who(t.opponent)} for "
            f"{animals(t.cards, name(t.species) if t.species < len(species) else 'Rat')}; {offer}"
            + ("; again after a tie" if t.again else "")
        )
        if t.my_offer is not None:
            lines.append(f"  your offer: {list(t.my_offer)}")
    p = obs.payment
    if p is not None:
        what = f"{p['amount']}" if p.get("for") != "pedigree" else f"{_notes(p['amount'])}"
        lines.append(f"Payment: {who(p['payer'])} pays {who(p['payee'])} {what} ({p['for']})")
    if obs.countdown is not None:
        lines.append(f"Pedigree countdown: {obs.countdown}")
    if obs.peek is not None:
        lines.append(f"You looked at: {name(obs.peek)}")
    drawn = ", ".join(animals(n, name(k)) for k, n in enumerate(obs.drawn) if n)
    lines.append(f"Drawn so far: {drawn or 'nothing'}")
    return lines
