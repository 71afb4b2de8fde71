"""A person playing at the terminal: the table in words, the decision as a short menu.

``cardtable play kuhhandel --bots human,heuristic`` seats a person. Before each decision the
seat's view is printed in the game's words (herds by animal with their counts and quartets, your
notes by value, the auction or cow trade in sentences; in Cunegonda your hand by suit, the trick
and the scores), then the decision with its choices numbered. Input is checked against the game
before it is sent (on a private copy), so a mistake is explained and asked again instead of
ending the game. Everything is said in the seat's language (``--lang de`` or ``LANG=de_DE.UTF-8``;
the catalogs of ``cardtable.i18n``).
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from cardtable.core.contract import ActionError, Game, GameInfo, Request
from cardtable.core.message import Message, Signed, msg
from cardtable.games.kuhhandel import describe
from cardtable.i18n import refusal, render, translate

Say = Callable[[str], None]


class TerminalPlayer:
    """An agent that asks a person at the terminal, in the language ``lang`` (a catalog of
    ``cardtable.i18n``)."""

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
        self.say(translate(self.lang, "human.you_play", seat=str(seat), name=self._name(seat)))

    def _name(self, seat: int | None) -> str:
        if seat is None:
            return translate(self.lang, "human.nobody")
        if 0 <= seat < len(self.names) and self.names[seat]:
            return self.names[seat]
        return translate(self.lang, "human.seat", seat=str(seat))

    def act(self, observation: Any, request: Request) -> Any:
        data = _observation_json(observation)
        lang = self.lang
        if not self.rules and self.game is not None:  # not started (a test, a caller's own loop)
            self.rules = _rules_json(getattr(self.game, "rules", None))
        if self.game_name == "kuhhandel":
            table = kuhhandel_table(data, self.rules, self.names, request.seat, lang)
            ask, menu = kuhhandel_menu(request, data, self.rules, self.names, lang)
        elif self.game_name == "cunegonda":
            table = cunegonda_table(data, self.names, request.seat, lang)
            ask, menu = cunegonda_menu(request, self.names, lang)
        else:
            table = [f"  {k}: {v}" for k, v in data.items() if v not in (None, [], {})]
            ask = translate(lang, "human.ask.other", kind=request.kind)
            menu = [str(c) for c in request.choices or ()]
        self.say("")
        for line in table:
            self.say(line)
        self.say(ask)
        for line in menu_lines(menu):
            self.say(line)
        hint = input_hint(self.game_name, request, lang)
        while True:
            try:
                text = input(f"{hint}> ").strip()
            except EOFError:
                raise SystemExit("input closed") from None
            action = parse(self.game_name, text, request, lang)
            if action is None:
                self.say("  " + translate(lang, "human.not_understood"))
                continue
            problem = self.check(action, request)
            if problem:
                self.say("  " + translate(lang, "human.not_allowed", problem=problem))
                continue
            return action

    def check(self, action: Any, request: Request) -> str | None:
        """Why the engine would refuse ``action`` (tried on a copy of the game), in the seat's
        language, or ``None``."""
        if self.game is None:
            return None
        trial = copy.deepcopy(self.game)
        try:
            if not hasattr(action, "kind") and not isinstance(action, int | tuple):
                action = trial.action_from_json(action)
            trial.apply(request.seat, action)
        except ActionError as exc:
            return refusal(self.lang, exc)
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


def _seat_words(names: Sequence[str], lang: str, me: int | None = None) -> Callable[[Any], str]:
    """A seat as a person reads it: "you" for ``me``, the seat's name, else "seat 3"."""

    def who(seat: Any) -> str:
        if me is not None and seat == me:
            return translate(lang, "human.you")
        if isinstance(seat, int) and 0 <= seat < len(names):
            return names[seat]
        return translate(lang, "human.seat", seat=str(seat))

    return who


# ---------------------------------------------------------------- Kuhhandel in words


def _species(rules: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return list(rules.get("species", ()))


def card_message(rules: Mapping[str, Any], card: int, count: int = 1) -> Message:
    """A Kuhhandel card: an animal, a pedigree card (Master) or a rat, as a message."""
    species = _species(rules)
    n = len(species)
    if 0 <= card < n:
        return describe.card(str(species[card]["name"]), count)
    if n <= card < 2 * n:
        return describe.card(f"{species[card - n]['name']} pedigree")
    if n:
        return describe.card("Rat", count)
    return msg("card.number", card=str(card))


def card_name(rules: Mapping[str, Any], card: int, lang: str = "en") -> str:
    """A Kuhhandel card by name: an animal, a pedigree card (Master) or a rat."""
    return render(lang, card_message(rules, card))


def _animals(rules: Mapping[str, Any], count: int, card: int, lang: str) -> str:
    return render(lang, msg("count.animals", count=count, animal=card_message(rules, card, count)))


def notes_by_value(notes: Sequence[int], lang: str = "en") -> str:
    """``[0, 10, 10, 50]`` -> ``0, 2 × 10, 50 (worth 70)``."""
    if not notes:
        return translate(lang, "notes.none")
    counts = sorted(Counter(notes).items())
    parts = [
        translate(lang, "notes.group", count=n, value=v)
        if n > 1
        else render(lang, msg("notes.list", terms=v))
        for v, n in counts
    ]
    return translate(lang, "human.notes_worth", notes=", ".join(parts), total=sum(notes))


def herd_words(herd: Sequence[int], rules: Mapping[str, Any], lang: str = "en") -> str:
    """``Horse 2 of 4, Cow 4 of 4 (quartet)``: each animal held with its count."""
    parts = []
    species = _species(rules)
    for k, have in enumerate(herd):
        if not have:
            continue
        sp = species[k] if k < len(species) else {"name": f"animal {k}"}
        full = len(sp.get("payouts", ())) or 4
        key = "human.herd_quartet" if have >= full else "human.herd_animal"
        parts.append(translate(lang, key, animal=card_name(rules, k, lang), have=have, full=full))
    return ", ".join(parts) if parts else translate(lang, "human.no_animals")


def kuhhandel_table(
    data: Mapping[str, Any],
    rules: Mapping[str, Any],
    names: Sequence[str],
    me: int,
    lang: str = "en",
) -> list[str]:
    """The seat's view of a Kuhhandel table in sentences."""
    who = _seat_words(names, lang, me)

    def t(key: str, **args: Any) -> str:
        return translate(lang, f"human.kh.{key}", **args)

    def name(card: int) -> str:
        return card_name(rules, card, lang)

    lines = []
    deck = data.get("deck_size", 0)
    head = t("head", turn=max(1, data.get("turns", 0)), deck=deck)
    if data.get("end_phase"):
        head += " " + t("end_phase")
    lines.append(head)
    herds = data.get("herds") or []
    for s, herd in enumerate(herds):
        extra = []
        for p in (data.get("pedigrees") or [[]] * len(herds))[s] or []:
            extra.append(t("pedigree_card", card=name(len(_species(rules)) + p)))
        rats = (data.get("rats") or [0] * len(herds))[s]
        if rats:
            extra.append(t("rats", count=rats))
        owner = translate(lang, "human.you_capital") if s == me else who(s)
        count = (data.get("note_counts") or [0] * len(herds))[s]
        animals = herd_words(herd, rules, lang)
        if extra:
            line = t(
                "herd_extra", owner=owner, animals=animals, extra=", ".join(extra), notes=count
            )
        else:
            line = t("herd", owner=owner, animals=animals, notes=count)
        lines.append("  " + line)
    wallet = data.get("wallet")
    if wallet is not None:
        lines.append(t("your_notes", notes=notes_by_value(wallet, lang)))
    a = data.get("auction")
    if a:
        lot = a.get("lot") or [a["card"]]
        what = t("lot_and").join(name(c) for c in lot)
        mine = a["auctioneer"] == me
        line = (
            t("auction_mine", lot=what)
            if mine
            else t("auction", who=who(a["auctioneer"]), lot=what)
        )
        if a.get("high_bidder") is None:
            line += " " + t("no_bid")
        else:
            line += " " + t("high_bid", high=a["high"], who=who(a["high_bidder"]))
        lines.append(line)
        if a.get("bids"):
            said = ", ".join(
                t("bid_passed", who=who(s)) if amount == 0 else t("bid", who=who(s), amount=amount)
                for s, amount in a["bids"]
            )
            lines.append("  " + t("bids", bids=said))
        for s, shown in (a.get("exposed") or {}).items():
            lines.append("  " + t("exposed", who=who(int(s)), notes=notes_by_value(shown, lang)))
    tr = data.get("trade")
    if tr:
        animal = _animals(rules, tr["cards"], tr["species"], lang)
        if tr["challenger"] == me:
            line = t("trade_mine", opponent=who(tr["opponent"]), animals=animal)
        else:
            line = t(
                "trade", who=who(tr["challenger"]), opponent=who(tr["opponent"]), animals=animal
            )
        if tr.get("offer_count") is not None:
            line += " " + t("trade_offer", count=tr["offer_count"])
        if tr.get("again"):
            line += " " + t("trade_again")
        lines.append(line)
        if tr.get("my_offer") is not None:
            lines.append("  " + t("my_offer", notes=notes_by_value(tr["my_offer"], lang)))
    p = data.get("payment")
    if p:
        amount = p.get("amount")
        unit = (
            translate(lang, "count.notes", count=amount)
            if p.get("for") == "pedigree"
            else translate(lang, "human.amount", amount=amount)
        )
        if p.get("payer") == me:
            lines.append(t("payment_mine", payee=who(p.get("payee")), unit=unit))
        else:
            lines.append(
                t("payment", payer=who(p.get("payer")), payee=who(p.get("payee")), unit=unit)
            )
    c = data.get("countdown")
    if c:
        lines.append(t("countdown", card=name(c["card"]), start=c["from"]))
    if data.get("rat_pile") is not None:
        lines.append(t("rat_pile", count=data["rat_pile"]))
    if data.get("peek") is not None:
        lines.append(t("peek", card=name(data["peek"])))
    return lines


def kuhhandel_menu(
    request: Request,
    data: Mapping[str, Any],
    rules: Mapping[str, Any],
    names: Sequence[str],
    lang: str = "en",
) -> tuple[str, list[str]]:
    """What is asked, in a sentence, and each choice in words."""
    info = dict(request.info or {})
    who = _seat_words(names, lang)

    def t(key: str, **args: Any) -> str:
        return translate(lang, f"human.kh.ask.{key}", **args)

    def name(card: int) -> str:
        return card_name(rules, card, lang)

    kind = request.kind
    if kind == "turn":
        ask = t("turn")
    elif kind == "bid":
        money = info.get("money", 0)
        if info.get("max") is not None:
            ask = t(
                "bid_max", card=name(info["card"]), min=info["min"], max=info["max"], money=money
            )
        else:
            ask = t("bid", card=name(info["card"]), min=info["min"], money=money)
    elif kind == "knock":
        ask = t("knock")
    elif kind == "sell_or_buy":
        ask = t(
            "sell_or_buy",
            who=who(info.get("high_bidder")),
            high=info.get("high"),
            card=name(info["card"]),
        )
    elif kind == "pay":
        if info.get("for") == "pedigree":
            ask = t(
                "pay_pedigree",
                who=who(info.get("to")),
                count=info.get("count", info.get("amount", 0)),
            )
        else:
            ask = t("pay", who=who(info.get("to")), amount=info["amount"])
    elif kind == "offer":
        animals = _animals(rules, info["cards"], info["species"], lang)
        key = "offer_again" if info.get("again") else "offer"
        ask = t(key, who=who(info.get("opponent")), animals=animals)
    elif kind == "respond":
        animals = _animals(rules, info["cards"], info["species"], lang)
        ask = t(
            "respond", who=who(info.get("challenger")), count=info["offer_notes"], animals=animals
        )
    elif kind == "claim":
        ask = t("claim", card=name(info["card"]), start=info["from"])
    elif kind == "preempt":
        ask = t(
            "preempt", who=who(info.get("claimant")), card=name(info["card"]), count=info["count"]
        )
    elif kind == "rat":
        ask = t("rat", count=info.get("pile", 0))
    elif kind == "divide":
        ask = t("divide", card=name(info["card"]))
    else:
        ask = translate(lang, "human.ask.other", kind=kind.replace("_", " "))
    menu = [kuhhandel_choice(c, rules, names, info, lang) for c in request.choices or ()]
    return ask, menu


#: The menu's words for choices without arguments (``human.kh.choice.<kind>``).
PLAIN_CHOICES = (
    "auction",
    "draw",
    "pass",
    "knock",
    "sell",
    "buy",
    "accept",
    "preempt",
    "release",
    "keep",
    "give",
)


def kuhhandel_choice(
    choice: Any,
    rules: Mapping[str, Any],
    names: Sequence[str],
    info: Mapping[str, Any],
    lang: str = "en",
) -> str:
    """One choice of a menu in words."""
    to_json = getattr(choice, "to_json", None)
    data: dict[str, Any] = dict(to_json()) if to_json is not None else {"kind": str(choice)}
    kind = data.get("kind")
    who = _seat_words(names, lang)

    def t(key: str, **args: Any) -> str:
        return translate(lang, f"human.kh.choice.{key}", **args)

    if kind in PLAIN_CHOICES:
        return t(str(kind))
    if kind == "take_rat":
        return t("take_rat", count=info.get("pile", 0))
    if kind == "challenge":
        return t(
            "challenge", who=who(data["opponent"]), card=card_name(rules, data["species"], lang)
        )
    if kind == "claim":
        return t("no_claim") if data["count"] == 0 else t("claim", count=data["count"])
    if kind == "place_note":
        return t("place_note", note=data["note"])
    if kind == "bid":
        return t("bid", amount=data["amount"])
    if kind in ("pay", "offer", "counter"):
        return t(str(kind), notes=notes_by_value(data.get("notes", []), lang))
    return json.dumps(data)


# ---------------------------------------------------------------- Cunegonda in words

_SUIT_ORDER = "CDSH"
_RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]


def hand_by_suit(cards: Sequence[str], lang: str = "en") -> str:
    """``['4C', 'JC', 'QS']`` -> ``clubs 4 J · spades Q``."""
    parts = []
    for suit in _SUIT_ORDER:
        ranks = sorted(
            (c[:-1] for c in cards if c[-1] == suit),
            key=lambda r: _RANKS.index(r) if r in _RANKS else 99,
        )
        if ranks:
            parts.append(f"{translate(lang, 'card.cunegonda.suit', suit=suit)} {' '.join(ranks)}")
    return " · ".join(parts) if parts else translate(lang, "human.cu.no_cards")


def cunegonda_table(
    data: Mapping[str, Any], names: Sequence[str], me: int, lang: str = "en"
) -> list[str]:
    who = _seat_words(names, lang, me)

    def t(key: str, **args: Any) -> str:
        return translate(lang, f"human.cu.{key}", **args)

    lines = [t("round", round=data.get("round", 0) + 1, rounds=data.get("rounds", "?"))]
    lines.append(t("hand", hand=hand_by_suit(data.get("hand") or [], lang)))
    if data.get("received"):
        lines.append(
            "  "
            + t("received", who=who(data.get("received_from")), cards=" ".join(data["received"]))
        )
    trick = data.get("trick") or []
    if trick:
        played = ", ".join(t("played", who=who(s), card=c) for s, c in trick)
        lines.append(t("trick", played=played))
    elif data.get("phase") == "play":
        leader = data.get("leader")
        lines.append(t("new_trick_mine") if leader == me else t("new_trick", who=who(leader)))
    totals = data.get("totals") or []
    points = data.get("round_points") or []
    if totals:
        score = ", ".join(
            t(
                "score",
                who=who(s),
                points=Signed(points[s] if s < len(points) else 0),
                total=total,
            )
            for s, total in enumerate(totals)
        )
        lines.append(t("scores", scores=score))
    return lines


def cunegonda_menu(
    request: Request, names: Sequence[str], lang: str = "en"
) -> tuple[str, list[str]]:
    info = dict(request.info or {})
    who = _seat_words(names, lang)
    if request.kind == "pass":
        return translate(
            lang, "human.cu.ask.pass", count=info.get("count", 3), who=who(info.get("to"))
        ), []
    from cardtable.games.cunegonda.cards import NAMES

    cards = [NAMES[c] if isinstance(c, int) else str(c) for c in request.choices or ()]
    return translate(lang, "human.cu.ask.play"), cards


# ---------------------------------------------------------------- reading input


def input_hint(game: str, request: Request, lang: str = "en") -> str:
    kind = request.kind
    if game == "cunegonda":
        key = "cu_pass" if kind == "pass" else "cu_play"
    elif kind in ("bid", "respond"):
        key = kind
    elif kind in ("pay", "offer"):
        key = "notes"
    else:
        key = "number"
    return translate(lang, f"human.hint.{key}") + " "


def parse(game: str, text: str, request: Request, lang: str = "en") -> Any:
    """Turn what a person typed into an action (``None`` if not understood). Besides the choice's
    number, its English word (``pass``, ``accept``, ``sell``) and the word of ``lang``
    (``human.word.*``: ``passen``, ``annehmen``) are understood."""
    for word in ("pass", "accept"):
        if lang != "en" and text.lower() == translate(lang, f"human.word.{word}").lower():
            text = word
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
