"""A person playing at the terminal: shows what the seat may see, lists the legal choices."""

from __future__ import annotations

import json
from typing import Any

from cardtable.core import game_spec
from cardtable.core.contract import Event, GameInfo, InvalidAction, Request


class TerminalPlayer:
    """An agent that asks a person. Bad input is explained and asked again."""

    def __init__(self, game: str) -> None:
        self.game = game
        self.seat = 0
        self.names: tuple[str, ...] = ()

    def start(self, seat: int, info: GameInfo) -> None:
        self.seat = seat
        self.names = info.names
        print(f"You play seat {seat} ({info.names[seat] if info.names else ''}).")

    def act(self, observation: Any, request: Request) -> Any:
        spec = game_spec(self.game)
        show_observation(observation)
        info = dict(request.info or {})
        info.pop("wallet", None)
        print(f"\nYour decision: {request.kind} {json.dumps(info) if info else ''}")
        if request.choices:
            for i, choice in enumerate(request.choices):
                print(f"  [{i}] {choice}")
        hint = money_hint(request)
        while True:
            try:
                text = input(f"{hint}> ").strip()
            except EOFError:
                raise SystemExit("input closed") from None
            action = parse(text, request)
            if action is None:
                print("  Not understood. Type a choice number, or an action as JSON.")
                continue
            try:
                game = spec  # validation happens in the engine; decode errors show here
                del game
                return action
            except InvalidAction as exc:
                print(f"  {exc.reason}")


def money_hint(request: Request) -> str:
    kind = request.kind
    if kind == "bid":
        return "bid an amount, or 'pass' "
    if kind in ("pay", "offer"):
        return "notes separated by spaces, e.g. '10 10 50' "
    if kind == "respond":
        return "'accept', or notes to counter with "
    return ""


def parse(text: str, request: Request) -> Any:
    from cardtable.games.kuhhandel import actions as A

    if request.choices and text.isdigit() and int(text) < len(request.choices):
        return request.choices[int(text)]
    kind = request.kind
    words = text.split()
    try:
        if kind == "bid":
            return A.PASS if text in ("pass", "p", "") else A.Bid(int(text))
        if kind in ("pay", "offer", "counter"):
            notes = tuple(sorted(int(w) for w in words))
            return A.Pay(notes) if kind == "pay" else A.Offer(notes)
        if kind == "respond":
            if text in ("accept", "a"):
                return A.ACCEPT
            return A.Counter(tuple(sorted(int(w) for w in words)))
        if text.startswith("{"):
            return json.loads(text)
    except ValueError:
        return None
    return None


def show_observation(obs: Any) -> None:
    to_json = getattr(obs, "to_json", None)
    if to_json is None:
        return
    data = to_json()
    keys = (
        "wallet",
        "herds",
        "note_counts",
        "hand",
        "trick",
        "scores",
        "auction",
        "trade",
        "deck_size",
    )
    for k in keys:
        if k in data and data[k] not in (None, [], {}):
            print(f"  {k}: {data[k]}")


def _unused(ev: Event) -> None:  # pragma: no cover
    pass
