"""A person playing at the terminal: the table in words, the decision as a short menu.

``cardtable play kuhhandel --bots human,heuristic`` seats a person. Before each decision the
seat's view is printed in the game's words (herds by animal with their counts and quartets, your
notes by value, the auction or cow trade in sentences; in Cunegonda your hand by suit, the trick
and the scores), then the decision with its choices numbered. Input is checked against the game
before it is sent (on a private copy), so a mistake is explained and asked again instead of
ending the game.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from cardtable.core.contract import ActionError, Game, GameInfo, Request

Say = Callable[[str], None]


class TerminalPlayer:
    """An agent that asks a person at the terminal."""

    def __init__(self, game_name: str, say: Say = print, lang: str = "en") -> None:
        self.game_name = game_name
        self.lang = lang
        self.game: Game | None = None  # set by the caller so input can be checked first
        self.seat = 0
        self.names: tuple[str, ...] = ()
        self.rules: dict[str, Any] = {}
        self.say = say

    def start(self, seat: int, info: GameInfo) -> None:
        self.seat = seat
        self.names = tuple(info.names) if info.names else ()
        self.rules = _rules_json(info.rules)
        self.say(f"You play seat {seat} ({self._name(seat)}).")

    def _name(self, seat: int | None) -> str:
        if seat is None:
            return "nobody"
        if 0 <= seat < len(self.names) and self.names[seat]:
            return self.names[seat]
        return f"seat {seat}"

    def act(self, observation: Any, request: Request) -> Any:
        data = _observation_json(observation)
        if not self.rules and self.game is not None:  # not started (a test, a caller's own loop)
            self.rules = _rules_json(getattr(self.game, "rules", None))
        if self.game_name == "kuhhandel":
            table = kuhhandel_table(data, self.rules, self.names, request.seat)
            ask, menu = kuhhandel_menu(request, data, self.rules, self.names)
        elif self.game_name == "cunegonda":
            table = cunegonda_table(data, self.names, request.seat)
            ask, menu = cunegonda_menu(request, self.names)
        else:
            table = [f"  {k}: {v}" for k, v in data.items() if v not in (None, [], {})]
            ask, menu = f"Your decision: {request.kind}", [str(c) for c in request.choices or ()]
        self.say("")
        for line in table:
            self.say(line)
        self.say(ask)
        for line in menu_lines(menu):
            self.say(line)
        hint = input_hint(self.game_name, request)
        while True:
            try:
                text = input(f"{hint}> ").strip()
            except EOFError:
                raise SystemExit("input closed") from None
            action = parse(self.game_name, text, request)
            if action is None:
                self.say("  Not understood. Type a choice number, or an action as JSON.")
                continue
            problem = self.check(action, request)
            if problem:
                self.say(f"  Not allowed: {problem}")
                continue
            return action

    def check(self, action: Any, request: Request) -> str | None:
        """Why the engine would refuse ``action`` (tried on a copy of the game), or ``None``."""
        if self.game is None:
            return None
        trial = copy.deepcopy(self.game)
        try:
            if not hasattr(action, "kind") and not isinstance(action, int | tuple):
                action = trial.action_from_json(action)
            trial.apply(request.seat, action)
        except ActionError as exc:
            return exc.reason
        return None


def menu_lines(menu: Sequence[str]) -> list[str]:
    """The numbered choices: one a line, or several a line when there are many short ones
    (a hand of cards, the counts of a pedigree countdown)."""
    items = [f"[{i}] {text}" for i, text in enumerate(menu)]
    if len(items) <= 6 or max(len(t) for t in menu) > 14:
        return [f"  {item}" for item in items]
    per_line = 7 if max(len(t) for t in menu) <= 4 else 4
    return ["  " + "   ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]


def _rules_json(rules: Any) -> dict[str, Any]:
    """The rule set as JSON (species names and payouts), from a rule set or its JSON."""
    if isinstance(rules, Mapping):
        return dict(rules)
    to_json = getattr(rules, "to_json", None)
    return dict(to_json()) if to_json is not None else {}


def _observation_json(observation: Any) -> dict[str, Any]:
    to_json = getattr(observation, "to_json", None)
    if to_json is not None:
        return dict(to_json())
    return dict(observation) if isinstance(observation, Mapping) else {}


# ---------------------------------------------------------------- Kuhhandel in words


def _plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"


def _species(rules: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return list(rules.get("species", ()))


def card_name(rules: Mapping[str, Any], card: int) -> str:
    """A Kuhhandel card by name: an animal, a pedigree card (Master) or a rat."""
    species = _species(rules)
    n = len(species)
    if 0 <= card < n:
        return str(species[card]["name"])
    if n <= card < 2 * n:
        return f"{species[card - n]['name']} pedigree"
    return "Rat" if n else f"card {card}"


def notes_by_value(notes: Sequence[int]) -> str:
    """``[0, 10, 10, 50]`` -> ``0, 2 × 10, 50 (worth 70)``."""
    if not notes:
        return "no notes"
    counts = sorted(Counter(notes).items())
    parts = [f"{n} × {v}" if n > 1 else f"{v}" for v, n in counts]
    return f"{', '.join(parts)} (worth {sum(notes)})"


def herd_words(herd: Sequence[int], rules: Mapping[str, Any]) -> str:
    """``Horse 2 of 4, Cow 4 of 4 (quartet)``: each animal held with its count."""
    parts = []
    species = _species(rules)
    for k, have in enumerate(herd):
        if not have:
            continue
        sp = species[k] if k < len(species) else {"name": f"animal {k}"}
        full = len(sp.get("payouts", ())) or 4
        done = " (quartet)" if have >= full else ""
        parts.append(f"{sp['name']} {have} of {full}{done}")
    return ", ".join(parts) if parts else "no animals"


def kuhhandel_table(
    data: Mapping[str, Any],
    rules: Mapping[str, Any],
    names: Sequence[str],
    me: int,
) -> list[str]:
    """The seat's view of a Kuhhandel table in sentences."""

    def who(seat: Any) -> str:
        if seat == me:
            return "you"
        if isinstance(seat, int) and 0 <= seat < len(names):
            return names[seat]
        return f"seat {seat}"

    def name(card: int) -> str:
        return card_name(rules, card)

    lines = []
    deck = data.get("deck_size", 0)
    head = f"Turn {max(1, data.get('turns', 0))}: {_plural(deck, 'card')} left in the deck."
    if data.get("end_phase"):
        head += " The deck is empty: every turn is a cow trade."
    lines.append(head)
    herds = data.get("herds") or []
    for s, herd in enumerate(herds):
        extra = []
        for p in (data.get("pedigrees") or [[]] * len(herds))[s] or []:
            extra.append(f"{name(len(_species(rules)) + p)} card")
        rats = (data.get("rats") or [0] * len(herds))[s]
        if rats:
            extra.append(_plural(rats, "rat"))
        owner = "You" if s == me else who(s)
        count = (data.get("note_counts") or [0] * len(herds))[s]
        animals = herd_words(herd, rules) + (f"; {', '.join(extra)}" if extra else "")
        lines.append(f"  {owner}: {animals}; {_plural(count, 'note')}.")
    wallet = data.get("wallet")
    if wallet is not None:
        lines.append(f"Your notes: {notes_by_value(wallet)}.")
    a = data.get("auction")
    if a:
        lot = a.get("lot") or [a["card"]]
        what = " and the ".join(name(c) for c in lot)
        line = f"Auction: {who(a['auctioneer'])} auction{'' if a['auctioneer'] == me else 's'}"
        line += f" the {what}. "
        if a.get("high_bidder") is None:
            line += "No bid yet."
        else:
            line += f"Highest bid: {a['high']} from {who(a['high_bidder'])}."
        lines.append(line)
        if a.get("bids"):
            said = ", ".join(
                f"{who(s)} {'passed' if amount == 0 else amount}" for s, amount in a["bids"]
            )
            lines.append(f"  Bids in order: {said}.")
        for s, shown in (a.get("exposed") or {}).items():
            lines.append(f"  {who(int(s))} showed {notes_by_value(shown)} and could not pay.")
    t = data.get("trade")
    if t:
        animal = _plural(t["cards"], name(t["species"]))
        line = f"Cow trade: {who(t['challenger'])} challenge{'' if t['challenger'] == me else 's'}"
        line += f" {who(t['opponent'])} for {animal}."
        if t.get("offer_count") is not None:
            line += f" The offer: {_plural(t['offer_count'], 'note')} face down."
        if t.get("again"):
            line += " It was a tie: this is the second offer."
        lines.append(line)
        if t.get("my_offer") is not None:
            lines.append(f"  You offered {notes_by_value(t['my_offer'])}.")
    p = data.get("payment")
    if p:
        amount = p.get("amount")
        unit = f"{_plural(amount, 'note')}" if p.get("for") == "pedigree" else f"{amount}"
        lines.append(
            f"Payment: {who(p.get('payer'))} pay{'' if p.get('payer') == me else 's'}"
            f" {who(p.get('payee'))} {unit}."
        )
    c = data.get("countdown")
    if c:
        lines.append(f"Pedigree countdown for the {name(c['card'])}, from {c['from']}.")
    if data.get("rat_pile") is not None:
        lines.append(f"A rat: {_plural(data['rat_pile'], 'note')} lie beside it.")
    if data.get("peek") is not None:
        lines.append(f"You looked at the top card: the {name(data['peek'])}.")
    return lines


def kuhhandel_menu(
    request: Request, data: Mapping[str, Any], rules: Mapping[str, Any], names: Sequence[str]
) -> tuple[str, list[str]]:
    """What is asked, in a sentence, and each choice in words."""
    info = dict(request.info or {})

    def who(seat: Any) -> str:
        if isinstance(seat, int) and 0 <= seat < len(names):
            return names[seat]
        return f"seat {seat}"

    def name(card: int) -> str:
        return card_name(rules, card)

    kind = request.kind
    if kind == "turn":
        ask = "Your turn."
    elif kind == "bid":
        top = f", up to {info['max']}" if info.get("max") is not None else ""
        ask = (
            f"Bid for the {name(info['card'])}: at least {info['min']}{top}, or pass"
            f" (your notes are worth {info.get('money', 0)})."
        )
    elif kind == "knock":
        ask = "Knock the auction down now, or wait for more bids."
    elif kind == "sell_or_buy":
        ask = (
            f"{who(info.get('high_bidder'))} bid {info.get('high')} for the "
            f"{name(info['card'])}: sell to them, or buy it yourself by paying them."
        )
    elif kind == "pay":
        unit = (
            f"{_plural(info.get('count', info.get('amount', 0)), 'note')} of any value"
            if info.get("for") == "pedigree"
            else f"{info['amount']} (no change is given)"
        )
        ask = f"Pay {who(info.get('to'))} {unit}: type the notes."
    elif kind == "offer":
        again = " again (it was a tie)" if info.get("again") else ""
        ask = (
            f"Offer notes face down{again} to {who(info.get('opponent'))} for "
            f"{_plural(info['cards'], name(info['species']))}."
        )
    elif kind == "respond":
        ask = (
            f"{who(info.get('challenger'))} offers {_plural(info['offer_notes'], 'note')} face "
            f"down for your {_plural(info['cards'], name(info['species']))}: accept, or counter "
            "with notes."
        )
    elif kind == "claim":
        ask = (
            f"Countdown for the {name(info['card'])} from {info['from']}: claim it at a count"
            " (you pay that many notes), or 0 not to claim."
        )
    elif kind == "preempt":
        ask = (
            f"{who(info.get('claimant'))} claims the {name(info['card'])} at {info['count']}:"
            " pre-empt (you pay them), or let them have it."
        )
    elif kind == "rat":
        ask = (
            f"A rat with {_plural(info.get('pile', 0), 'note')} beside it: take it, or place "
            "a note."
        )
    elif kind == "divide":
        ask = f"You looked at the {info.get('name') or name(info['card'])}: keep it or give it."
    else:
        ask = f"Your decision: {kind.replace('_', ' ')}."
    menu = [kuhhandel_choice(c, rules, names, info) for c in request.choices or ()]
    return ask, menu


def kuhhandel_choice(
    choice: Any, rules: Mapping[str, Any], names: Sequence[str], info: Mapping[str, Any]
) -> str:
    """One choice of a menu in words."""
    to_json = getattr(choice, "to_json", None)
    data: dict[str, Any] = dict(to_json()) if to_json is not None else {"kind": str(choice)}
    kind = data.get("kind")

    def who(seat: Any) -> str:
        return names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else f"seat {seat}"

    words = {
        "auction": "Draw a card and auction it",
        "draw": "Draw the top card and divide it",
        "pass": "Pass",
        "knock": "Knock it down",
        "sell": "Sell to the highest bidder",
        "buy": "Buy it yourself (pay the highest bidder)",
        "accept": "Accept the offer",
        "preempt": "Pre-empt: pay the claimant and keep the card",
        "release": "Let the claimant have it",
        "take_rat": f"Take the rat and the {_plural(info.get('pile', 0), 'note')} beside it",
        "keep": "Keep it",
        "give": "Give it away",
    }
    if kind in words:
        return words[kind]
    if kind == "challenge":
        return f"Cow trade: challenge {who(data['opponent'])} for the " + card_name(
            rules, data["species"]
        )
    if kind == "claim":
        return "Do not claim" if data["count"] == 0 else f"Claim at {data['count']}"
    if kind == "place_note":
        return f"Place a {data['note']} note beside the rat"
    if kind == "bid":
        return f"Bid {data['amount']}"
    if kind in ("pay", "offer", "counter"):
        return f"{kind.capitalize()} {notes_by_value(data.get('notes', []))}"
    return json.dumps(data)


# ---------------------------------------------------------------- Cunegonda in words

_SUIT_ORDER = "CDSH"
_SUIT_WORDS = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
_RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]


def hand_by_suit(cards: Sequence[str]) -> str:
    """``['4C', 'JC', 'QS']`` -> ``clubs 4 J · spades Q``."""
    parts = []
    for suit in _SUIT_ORDER:
        ranks = sorted(
            (c[:-1] for c in cards if c[-1] == suit),
            key=lambda r: _RANKS.index(r) if r in _RANKS else 99,
        )
        if ranks:
            parts.append(f"{_SUIT_WORDS[suit]} {' '.join(ranks)}")
    return " · ".join(parts) if parts else "no cards"


def cunegonda_table(data: Mapping[str, Any], names: Sequence[str], me: int) -> list[str]:
    def who(seat: Any) -> str:
        if seat == me:
            return "you"
        if isinstance(seat, int) and 0 <= seat < len(names):
            return names[seat]
        return f"seat {seat}"

    lines = [f"Round {data.get('round', 0) + 1} of {data.get('rounds', '?')}."]
    lines.append(f"Your hand: {hand_by_suit(data.get('hand') or [])}.")
    if data.get("received"):
        lines.append(
            f"  Passed to you by {who(data.get('received_from'))}: {' '.join(data['received'])}."
        )
    trick = data.get("trick") or []
    if trick:
        played = ", ".join(f"{who(s)} {c}" for s, c in trick)
        lines.append(f"This trick: {played}.")
    elif data.get("phase") == "play":
        lines.append(
            f"A new trick: {who(data.get('leader'))} lead{'' if data.get('leader') == me else 's'}."
        )
    totals = data.get("totals") or []
    points = data.get("round_points") or []
    if totals:
        score = ", ".join(
            f"{who(s)} {points[s] if s < len(points) else 0:+d} (total {t})"
            for s, t in enumerate(totals)
        )
        lines.append(f"Scores this round: {score}.")
    return lines


def cunegonda_menu(request: Request, names: Sequence[str]) -> tuple[str, list[str]]:
    info = dict(request.info or {})
    if request.kind == "pass":
        to = info.get("to")
        whom = names[to] if isinstance(to, int) and 0 <= to < len(names) else f"seat {to}"
        return f"Choose {info.get('count', 3)} cards to pass to {whom}.", []
    from cardtable.games.cunegonda.cards import NAMES

    cards = [NAMES[c] if isinstance(c, int) else str(c) for c in request.choices or ()]
    return "Play a card (its number or its name).", cards


# ---------------------------------------------------------------- reading input


def input_hint(game: str, request: Request) -> str:
    kind = request.kind
    if game == "cunegonda":
        return "cards like 'QS 10H AH' " if kind == "pass" else "a number or a card like 'QS' "
    if kind == "bid":
        return "bid an amount, or 'pass' "
    if kind in ("pay", "offer"):
        return "notes separated by spaces, e.g. '10 10 50' "
    if kind == "respond":
        return "'accept', or notes to counter with "
    return "a number "


def parse(game: str, text: str, request: Request) -> Any:
    """Turn what a person typed into an action (``None`` if not understood)."""
    if text.startswith("{"):
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            return None
    if request.choices and text.isdigit() and int(text) < len(request.choices):
        return request.choices[int(text)]
    for choice in request.choices or ():  # a choice's own word: "sell", "keep", "accept"...
        kind = getattr(choice, "kind", None)
        if kind and text.lower().replace(" ", "_") == kind:
            return choice
    try:
        if game == "cunegonda":
            from cardtable.games.cunegonda.cards import card

            cards = tuple(card(w) for w in text.upper().replace(",", " ").split())
            if request.kind == "pass":
                return cards
            return cards[0] if len(cards) == 1 else None
        if game == "kuhhandel":
            return _parse_kuhhandel(text, request)
    except (ValueError, IndexError):
        return None
    return None


def _parse_kuhhandel(text: str, request: Request) -> Any:
    from cardtable.games.kuhhandel import actions as A

    kind = request.kind
    notes = tuple(sorted(int(w) for w in text.split())) if kind in ("pay", "offer") else ()
    if kind == "bid":
        return A.PASS if text in ("pass", "p", "") else A.Bid(int(text))
    if kind == "pay":
        return A.Pay(notes)
    if kind == "offer":
        return A.Offer(notes)
    if kind == "respond":
        if text in ("accept", "a"):
            return A.ACCEPT
        return A.Counter(tuple(sorted(int(w) for w in text.split())))
    return None


def show_observation(obs: Any) -> None:
    """The raw fields of an observation (for games without words here)."""
    for k, v in _observation_json(obs).items():
        if v not in (None, [], {}):
            print(f"  {k}: {v}")
