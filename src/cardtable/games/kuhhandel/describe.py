"""Plain-words lines for Kuhhandel events (the play log in the terminal and the browser)."""

from __future__ import annotations

from cardtable.core.contract import Event


def _notes(count: int) -> str:
    return f"{count} {'note' if count == 1 else 'notes'}"


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
            what = "pre-empts and pays the claimant" if d["buy"] else "lets the claimant have it"
            return f"  {who(d['seat'])} {what}."
        return f"  {who(d['seat'])} {'buys it (pre-emption)' if d['buy'] else 'sells'}."
    if k == "exposed":
        return (
            f"  {who(d['seat'])} cannot pay and shows {d['notes']} (worth {d['value']}); "
            "the auction is repeated."
        )
    if k == "payment":
        return f"  {who(d['from'])} pays {who(d['to'])} {_notes(d['count'])} for {d['amount']}."
    if k == "payment_notes":
        return f"  (notes: {d['notes']})"
    if k == "card":
        return f"  {who(d['seat'])} gets the {d['name']}."
    if k == "challenge":
        return (
            f"{who(d['seat'])} challenges {who(d['opponent'])} to a cow trade for "
            f"{d['cards']} {d['name']}."
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
        return f"  (offers: {d['offer']} against {d['counter']})"
    if k == "trade":
        return f"  {who(d['winner'])} wins {d['cards']} {d['name']}."
    if k == "trade_notes":
        counter = "accepted" if d["counter"] is None else str(d["counter"])
        return f"  (offer {d['offer']}, counter {counter})"
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
        return f"  (the notes: {d['notes']})"
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
