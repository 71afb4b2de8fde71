"""A strict checker of server messages against kuh-handel-wire.md §2.2–§2.4.

Stricter than the real client (which ignores unknown fields): every object must have exactly the
fields the spec lists, so a stray or missing field fails a test here first.
"""

from __future__ import annotations

from typing import Any


class ShapeError(AssertionError):
    pass


def _obj(value: Any, keys: set[str], where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ShapeError(f"{where}: expected an object, got {value!r}")
    if set(value) != keys:
        raise ShapeError(f"{where}: keys {sorted(value)} != {sorted(keys)}")
    return value


def _uint(value: Any, where: str) -> int:
    if type(value) is not int or value < 0:
        raise ShapeError(f"{where}: expected a non-negative integer, got {value!r}")
    return value


def _str(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise ShapeError(f"{where}: expected a player id, got {value!r}")
    return value


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise ShapeError(f"{where}: expected a list, got {value!r}")
    return value


def _empty(value: Any, where: str) -> None:
    if value != []:
        raise ShapeError(f"{where}: an empty variant's payload must be [], got {value!r}")


def _variant(value: Any, names: set[str], where: str) -> tuple[str, Any]:
    if not isinstance(value, dict) or len(value) != 1:
        raise ShapeError(f"{where}: expected one of {sorted(names)}, got {value!r}")
    ((name, content),) = value.items()
    if name not in names:
        raise ShapeError(f"{where}: unknown variant {name!r}")
    return name, content


def animal(value: Any, where: str) -> int:
    return _uint(_obj(value, {"value"}, where)["value"], f"{where}.value")


def wallet(value: Any, where: str) -> list[tuple[int, int]]:
    notes = _list(_obj(value, {"bank_notes"}, where)["bank_notes"], f"{where}.bank_notes")
    pairs = []
    for pair in notes:
        if not isinstance(pair, list) or len(pair) != 2:
            raise ShapeError(f"{where}: a wallet entry is [note, count], got {pair!r}")
        pairs.append((_uint(pair[0], where), _uint(pair[1], where)))
        if pairs[-1][1] == 0:
            raise ShapeError(f"{where}: zero counts are left out")
    if [p[0] for p in pairs] != sorted({p[0] for p in pairs}):
        raise ShapeError(f"{where}: wallet pairs must be sorted by note value")
    return pairs


def notes(value: Any, where: str) -> list[int]:
    return [_uint(v, where) for v in _list(value, where)]


def bidding(value: Any, where: str) -> None:
    name, content = _variant(value, {"Bid", "Pass"}, where)
    if name == "Bid":
        _uint(content, where)
    else:
        _empty(content, where)


def auction_round(value: Any, where: str) -> None:
    r = _obj(value, {"animal", "bids", "host"}, where)
    animal(r["animal"], f"{where}.animal")
    _str(r["host"], f"{where}.host")
    for entry in _list(r["bids"], f"{where}.bids"):
        if not isinstance(entry, list) or len(entry) != 2:
            raise ShapeError(f"{where}.bids: entries are [player, Bidding]")
        _str(entry[0], where)
        bidding(entry[1], where)


def animal_set(value: Any, where: str) -> None:
    s = _obj(value, {"animal", "animals", "draw_count", "inflation"}, where)
    v = animal(s["animal"], where)
    cards = [animal(a, where) for a in _list(s["animals"], where)]
    if cards != [v] * len(cards):
        raise ShapeError(f"{where}: animals must all be {v}")
    _uint(s["draw_count"], where)
    if len(notes(s["inflation"], where)) != len(cards):
        raise ShapeError(f"{where}: one inflation entry per card")


def game_update(value: Any, where: str) -> str:
    name, body = _variant(
        value, {"Start", "Inflation", "Auction", "Trade", "ExposePlayer", "End"}, where
    )
    w = f"{where}.{name}"
    if name == "Start":
        b = _obj(body, {"animals", "players_in_turn_order", "wallet"}, w)
        for a in _list(b["animals"], w):
            animal_set(a, w)
        for p in _list(b["players_in_turn_order"], w):
            _str(p, w)
        wallet(b["wallet"], w)
    elif name == "Inflation":
        _uint(body, w)
    elif name == "Auction":
        kind, a = _variant(body, {"NoBiddings", "NormalAuction"}, w)
        if kind == "NoBiddings":
            nb = _obj(a, {"animal", "host_id"}, w)
            animal(nb["animal"], w)
            _str(nb["host_id"], w)
        else:
            na = _obj(a, {"from", "money_transfer", "rounds", "to"}, w)
            _str(na["from"], w)
            _str(na["to"], w)
            auction_round(na["rounds"], f"{w}.rounds")
            t, m = _variant(na["money_transfer"], {"Public", "Private"}, w)
            if t == "Public":
                pub = _obj(m, {"card_amount", "min_value"}, w)
                _uint(pub["card_amount"], w)
                _uint(pub["min_value"], w)
            else:
                notes(_obj(m, {"amount"}, w)["amount"], w)
    elif name == "Trade":
        t = _obj(
            body,
            {"animal", "animal_count", "challenger", "money_trade", "opponent", "receiver"},
            w,
        )
        animal(t["animal"], w)
        _uint(t["animal_count"], w)
        for key in ("challenger", "opponent", "receiver"):
            _str(t[key], w)
        if t["receiver"] not in (t["challenger"], t["opponent"]):
            raise ShapeError(f"{w}: the receiver is one of the two traders")
        kind, m = _variant(t["money_trade"], {"Public", "Private"}, w)
        mt = _obj(m, {"challenger_card_offer", "opponent_card_offer"}, w)
        if kind == "Public":
            _uint(mt["challenger_card_offer"], w)
            if mt["opponent_card_offer"] is not None:
                _uint(mt["opponent_card_offer"], w)
        else:
            notes(mt["challenger_card_offer"], w)
            if mt["opponent_card_offer"] is not None:
                notes(mt["opponent_card_offer"], w)
    elif name == "ExposePlayer":
        e = _obj(body, {"player", "wallet"}, w)
        _str(e["player"], w)
        wallet(e["wallet"], w)
    else:
        e = _obj(body, {"illegal_moves_made", "ranking"}, w)
        for text in _list(e["illegal_moves_made"], w):
            if not isinstance(text, str):
                raise ShapeError(f"{w}: illegal moves are strings")
        points = []
        for entry in _list(e["ranking"], w):
            if not isinstance(entry, list) or len(entry) != 2:
                raise ShapeError(f"{w}: ranking entries are [player, points]")
            _str(entry[0], w)
            points.append(_uint(entry[1], w))
        if points != sorted(points, reverse=True):
            raise ShapeError(f"{w}: the ranking is sorted by points, highest first")
    return name


def state_message(message: Any) -> str:
    """Check one server message; returns its type (``GameUpdate:Variant`` for updates)."""
    m = _obj(message, {"type", "payload"}, "StateMessage")
    kind = m["type"]
    payload = m["payload"]
    if kind in ("DrawOrTrade", "Trade"):
        _empty(payload, kind)
    elif kind in ("ProvideBidding", "BuyOrSell"):
        auction_round(_obj(payload, {"state"}, kind)["state"], f"{kind}.state")
    elif kind == "SendMoney":
        p = _obj(payload, {"amount", "player_id"}, kind)
        _uint(p["amount"], kind)
        _str(p["player_id"], kind)
    elif kind == "RespondToTrade":
        offer = _obj(
            _obj(payload, {"offer"}, kind)["offer"],
            {"animal", "animal_count", "challenger", "challenger_card_offer"},
            kind,
        )
        animal(offer["animal"], kind)
        _uint(offer["animal_count"], kind)
        _str(offer["challenger"], kind)
        _uint(offer["challenger_card_offer"], kind)
    elif kind == "GameUpdate":
        return "GameUpdate:" + game_update(_obj(payload, {"update"}, kind)["update"], kind)
    else:
        raise ShapeError(f"unknown StateMessage type {kind!r}")
    return str(kind)
