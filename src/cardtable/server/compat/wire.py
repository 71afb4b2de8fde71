"""The Kuh-Handel reference wire format (``../shared/spec/kuh-handel-wire.md`` §2).

Server → client: :func:`state` builds a ``StateMessage`` and :func:`update` a ``GameUpdate``; both
are dicts that :func:`dumps` turns into the exact text the reference server sends (compact, keys
sorted, ``"payload": []`` for every variant without fields, wallets as ``[value, count]`` pairs).

Client → server: :func:`parse_reply` checks one ``ActionMessage`` against the reply type the
question fixed and returns a small Python value (or raises :class:`BadReply`). Nothing here knows
the game engine; :mod:`cardtable.server.compat.match` maps between the two.

:func:`debug` writes a decision the way the reference's ``illegal_moves_made`` strings do (Rust
``Debug`` formatting), e.g. ``Bid(10)``, ``Amount([10, 10])``, ``Trade(InitialTrade { … })``.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

#: The reply ``type`` each question expects (§2.4).
REPLY_TYPE = {
    "DrawOrTrade": "PlayerTurnDecision",
    "Trade": "InitialTrade",
    "ProvideBidding": "Bidding",
    "BuyOrSell": "AuctionDecision",
    "SendMoney": "SendMoney",
    "RespondToTrade": "TradeOpponentDecision",
    "GameUpdate": "NoAction",
}

#: Largest integer the reference's ``u32`` money and counts can hold.
U32_MAX = 2**32 - 1

EMPTY: list[Any] = []


class BadReply(ValueError):
    """A reply that is JSON but not the ``ActionMessage`` the question asked for (§4.2)."""


def dumps(message: Mapping[str, Any]) -> str:
    """The text of one frame: compact JSON with sorted keys, as the reference server sends it."""
    return json.dumps(message, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


# --------------------------------------------------------------------------- nested types


def animal(value: int) -> dict[str, int]:
    return {"value": value}


def wallet(notes: Iterable[int]) -> dict[str, list[list[int]]]:
    """A wallet as the reference writes it: ``[note, count]`` pairs by value, no zero counts."""
    counts = Counter(notes)
    return {"bank_notes": [[v, counts[v]] for v in sorted(counts) if counts[v]]}


def animal_set(value: int, payouts: Sequence[int], drawn: int = 0) -> dict[str, Any]:
    return {
        "animal": animal(value),
        "animals": [animal(value) for _ in payouts],
        "draw_count": drawn,
        "inflation": list(payouts),
    }


def bidding(amount: int) -> dict[str, Any]:
    """``{"Bid": amount}``, or ``{"Pass": []}`` for an amount of 0."""
    return {"Bid": amount} if amount > 0 else {"Pass": []}


def auction_round(host: str, value: int, bids: Sequence[tuple[str, int]]) -> dict[str, Any]:
    return {
        "animal": animal(value),
        "bids": [[name, bidding(amount)] for name, amount in bids],
        "host": host,
    }


# --------------------------------------------------------------------------- server → client


def state(kind: str, payload: Any = None) -> dict[str, Any]:
    """A ``StateMessage``; ``payload=None`` writes the empty variant's ``[]``."""
    if kind not in REPLY_TYPE:
        raise ValueError(f"no StateMessage {kind!r}")
    return {"type": kind, "payload": EMPTY if payload is None else payload}


def update(variant: str, content: Any) -> dict[str, Any]:
    """``GameUpdate`` ``{"update": {variant: content}}``."""
    return state("GameUpdate", {"update": {variant: content}})


def start(
    animals: Sequence[dict[str, Any]], players: Sequence[str], notes: Iterable[int]
) -> dict[str, Any]:
    return update(
        "Start",
        {"animals": list(animals), "players_in_turn_order": list(players), "wallet": wallet(notes)},
    )


def inflation(note: int) -> dict[str, Any]:
    return update("Inflation", note)


def no_biddings(host: str, value: int) -> dict[str, Any]:
    return update("Auction", {"NoBiddings": {"animal": animal(value), "host_id": host}})


def normal_auction(
    payer: str,
    payee: str,
    rounds: dict[str, Any],
    *,
    notes: Sequence[int] | None = None,
    count: int = 0,
    amount: int = 0,
) -> dict[str, Any]:
    """The auction's result: ``Private`` with the exact ``notes`` for payer and payee, else
    ``Public`` with the number of notes and the winning bid."""
    transfer = (
        {"Private": {"amount": list(notes)}}
        if notes is not None
        else {"Public": {"card_amount": count, "min_value": amount}}
    )
    return update(
        "Auction",
        {
            "NormalAuction": {
                "from": payer,
                "money_transfer": transfer,
                "rounds": rounds,
                "to": payee,
            }
        },
    )


def trade(
    challenger: str,
    opponent: str,
    receiver: str,
    value: int,
    count: int,
    *,
    offer: Sequence[int] | int,
    counter: Sequence[int] | int | None,
) -> dict[str, Any]:
    """A cow trade's result; ``offer``/``counter`` are note lists (Private) or counts (Public)."""
    if isinstance(offer, int):
        money: dict[str, Any] = {
            "Public": {"challenger_card_offer": offer, "opponent_card_offer": counter}
        }
    else:
        money = {
            "Private": {
                "challenger_card_offer": list(offer),
                "opponent_card_offer": None if counter is None else list(counter),  # type: ignore[arg-type]
            }
        }
    return update(
        "Trade",
        {
            "animal": animal(value),
            "animal_count": count,
            "challenger": challenger,
            "money_trade": money,
            "opponent": opponent,
            "receiver": receiver,
        },
    )


def expose(player: str, notes: Iterable[int]) -> dict[str, Any]:
    return update("ExposePlayer", {"player": player, "wallet": wallet(notes)})


def end(ranking: Sequence[tuple[str, int]], illegal_moves: Sequence[str]) -> dict[str, Any]:
    return update(
        "End",
        {
            "illegal_moves_made": list(illegal_moves),
            "ranking": [[name, points] for name, points in ranking],
        },
    )


def provide_bidding(rounds: dict[str, Any]) -> dict[str, Any]:
    return state("ProvideBidding", {"state": rounds})


def buy_or_sell(rounds: dict[str, Any]) -> dict[str, Any]:
    return state("BuyOrSell", {"state": rounds})


def send_money(payee: str, amount: int) -> dict[str, Any]:
    return state("SendMoney", {"amount": amount, "player_id": payee})


def respond_to_trade(challenger: str, value: int, count: int, notes: int) -> dict[str, Any]:
    return state(
        "RespondToTrade",
        {
            "offer": {
                "animal": animal(value),
                "animal_count": count,
                "challenger": challenger,
                "challenger_card_offer": notes,
            }
        },
    )


# --------------------------------------------------------------------------- client → server


@dataclass(frozen=True)
class InitialTrade:
    """A challenger's trade as the client sends it (§2.6): everything is only a wish."""

    opponent: str
    animal: int
    animal_count: int
    amount: tuple[int, ...]


#: Parsed decisions: ``("Draw",)``, ``("Trade", InitialTrade)``, ``("Bid", n)``, ``("Pass",)``,
#: ``("Buy",)``, ``("Sell",)``, ``("Amount", notes)``, ``("WasBluff",)``, ``("Accept",)``,
#: ``("CounterOffer", notes)``, ``("Ok",)``, or an :class:`InitialTrade` for ``InitialTrade``.
Decision = Any


def _uint(value: Any, what: str) -> int:
    if type(value) is not int or not 0 <= value <= U32_MAX:
        raise BadReply(f"{what} must be a non-negative integer, got {value!r}")
    return value


def _notes(value: Any, what: str) -> tuple[int, ...]:
    if not isinstance(value, list):
        raise BadReply(f"{what} must be a list of notes, got {value!r}")
    return tuple(_uint(v, what) for v in value)


def _variant(value: Any, names: Sequence[str]) -> tuple[str, Any]:
    """An externally tagged enum value: ``{"Name": content}`` (or a bare ``"Name"``)."""
    if isinstance(value, str) and value in names:
        return value, EMPTY
    if not isinstance(value, dict) or len(value) != 1:
        raise BadReply(f"expected one of {', '.join(names)}, got {value!r}")
    ((name, content),) = value.items()
    if name not in names:
        raise BadReply(f"expected one of {', '.join(names)}, got {name!r}")
    return name, content


def _unit(content: Any, name: str) -> None:
    if content not in ([], None):
        raise BadReply(f"{name} takes no content, got {content!r}")


def _initial_trade(value: Any) -> InitialTrade:
    if not isinstance(value, dict):
        raise BadReply(f"an InitialTrade is an object, got {value!r}")
    opponent = value.get("opponent")
    if not isinstance(opponent, str):
        raise BadReply(f"InitialTrade.opponent must be a player id, got {opponent!r}")
    beast = value.get("animal")
    if not isinstance(beast, dict):
        raise BadReply(f"InitialTrade.animal must be {{'value': n}}, got {beast!r}")
    return InitialTrade(
        opponent,
        _uint(beast.get("value"), "animal.value"),
        _uint(value.get("animal_count"), "animal_count"),
        _notes(value.get("amount"), "amount"),
    )


def parse_reply(text: str | bytes, expected: str) -> Decision:
    """Parse one client frame as the reply of type ``expected``.

    Raises ``ValueError`` (``json.JSONDecodeError``) for text that is not JSON and
    :class:`BadReply` for JSON that is not the right ``ActionMessage``. Unknown fields are ignored
    at every level, as the reference's serde does.
    """
    try:
        data = json.loads(text)
    except RecursionError:  # valid JSON, but deeper than the decoder goes: a bad reply
        raise BadReply("the reply is nested too deeply") from None
    if not isinstance(data, dict):
        raise BadReply("an ActionMessage is a JSON object")
    kind = data.get("type")
    if kind != expected:
        raise BadReply(f"expected a {expected} reply, got type {kind!r}")
    payload = data.get("payload")
    if not isinstance(payload, dict) or "decision" not in payload:
        raise BadReply(f"{expected} needs payload {{'decision': …}}, got {payload!r}")
    decision = payload["decision"]
    if expected == "InitialTrade":
        return _initial_trade(decision)
    if expected == "PlayerTurnDecision":
        name, content = _variant(decision, ("Draw", "Trade"))
        if name == "Draw":
            _unit(content, name)
            return ("Draw",)
        return ("Trade", _initial_trade(content))
    if expected == "Bidding":
        name, content = _variant(decision, ("Bid", "Pass"))
        if name == "Pass":
            _unit(content, name)
            return ("Pass",)
        return ("Bid", _uint(content, "Bid"))
    if expected == "AuctionDecision":
        name, content = _variant(decision, ("Buy", "Sell"))
        _unit(content, name)
        return (name,)
    if expected == "SendMoney":
        name, content = _variant(decision, ("Amount", "WasBluff"))
        if name == "WasBluff":
            _unit(content, name)
            return ("WasBluff",)
        return ("Amount", _notes(content, "Amount"))
    if expected == "TradeOpponentDecision":
        name, content = _variant(decision, ("Accept", "CounterOffer"))
        if name == "Accept":
            _unit(content, name)
            return ("Accept",)
        return ("CounterOffer", _notes(content, "CounterOffer"))
    if expected == "NoAction":
        name, content = _variant(decision, ("Ok",))
        return ("Ok",)
    raise BadReply(f"no reply type {expected!r}")


# --------------------------------------------------------------------------- Rust Debug text


def _rust_str(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _rust_list(notes: Sequence[int]) -> str:
    return "[" + ", ".join(str(n) for n in notes) + "]"


def debug(decision: Decision) -> str:
    """A decision in the reference's Rust ``Debug`` form (for ``illegal_moves_made``)."""
    if isinstance(decision, InitialTrade):
        return (
            f"InitialTrade {{ opponent: {_rust_str(decision.opponent)}, animal: Animal {{ value: "
            f"{decision.animal} }}, animal_count: {decision.animal_count}, amount: "
            f"{_rust_list(decision.amount)} }}"
        )
    name = decision[0]
    if len(decision) == 1:
        return str(name)
    content = decision[1]
    if isinstance(content, InitialTrade):
        return f"{name}({debug(content)})"
    if isinstance(content, tuple):
        return f"{name}({_rust_list(content)})"
    return f"{name}({content})"


def same(a: Decision, b: Decision) -> bool:
    """The reference's lenient equality (§4.4): empty or all-zero money lists are equal, and
    ``WasBluff`` equals an ``Amount`` worth 0."""

    def nothing(notes: Sequence[int]) -> bool:
        return not any(notes)

    def money_eq(x: Sequence[int], y: Sequence[int]) -> bool:
        return (nothing(x) and nothing(y)) or Counter(x) == Counter(y)

    if isinstance(a, InitialTrade) and isinstance(b, InitialTrade):
        return (
            a.opponent == b.opponent
            and a.animal == b.animal
            and a.animal_count == b.animal_count
            and money_eq(a.amount, b.amount)
        )
    if isinstance(a, InitialTrade) or isinstance(b, InitialTrade):
        return False
    bluff = {("WasBluff",)}
    if a in bluff or b in bluff:
        other = b if a in bluff else a
        return other in bluff or (other[0] == "Amount" and sum(other[1]) == 0)
    if a[0] != b[0] or len(a) != len(b):
        return False
    if len(a) == 1:
        return True
    x, y = a[1], b[1]
    if isinstance(x, InitialTrade):
        return same(x, y)
    if isinstance(x, tuple):
        return money_eq(x, y)
    return bool(x == y)


def rectified(player: str, original: Decision, corrected: Decision) -> str:
    """One entry of ``illegal_moves_made`` (§4.4)."""
    return f"rectified action of:{player}, {debug(original)}, {debug(corrected)}"


def rust_float(value: float) -> str:
    """A float as Rust's ``Display`` writes it: ``NaN``, ``inf``, ``3`` for 3.0, no exponent."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if value == int(value) and abs(value) < 1e16:
        return str(int(value))
    text = repr(value)
    if "e" in text or "E" in text:
        text = f"{value:.17f}".rstrip("0").rstrip(".")
    return text
