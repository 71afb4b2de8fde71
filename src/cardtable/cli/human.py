"""A person playing at the terminal: shows what the seat may see, lists the legal choices.

Input is checked against the game before it is sent (on a private copy), so a mistake is
explained and asked again instead of ending the game.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from cardtable.core.contract import ActionError, Game, GameInfo, Request


class TerminalPlayer:
    """An agent that asks a person at the terminal."""

    def __init__(self, game_name: str) -> None:
        self.game_name = game_name
        self.game: Game | None = None  # set by the caller so input can be checked first
        self.seat = 0

    def start(self, seat: int, info: GameInfo) -> None:
        self.seat = seat
        name = info.names[seat] if info.names else f"seat {seat}"
        print(f"You play seat {seat} ({name}).")

    def act(self, observation: Any, request: Request) -> Any:
        show_observation(observation)
        info = dict(request.info or {})
        info.pop("wallet", None)
        print(f"\nYour decision: {request.kind} {json.dumps(info) if info else ''}")
        for i, choice in enumerate(request.choices or ()):
            print(f"  [{i}] {choice}")
        hint = input_hint(self.game_name, request)
        while True:
            try:
                text = input(f"{hint}> ").strip()
            except EOFError:
                raise SystemExit("input closed") from None
            action = parse(self.game_name, text, request)
            if action is None:
                print("  Not understood. Type a choice number, or an action as JSON.")
                continue
            problem = self.check(action, request)
            if problem:
                print(f"  Not allowed: {problem}")
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


def input_hint(game: str, request: Request) -> str:
    kind = request.kind
    if game == "cunegonda":
        return "cards like 'QS 10H AH' " if kind == "pass" else "a card like 'QS' "
    if kind == "bid":
        return "bid an amount, or 'pass' "
    if kind in ("pay", "offer"):
        return "notes separated by spaces, e.g. '10 10 50' "
    if kind == "respond":
        return "'accept', or notes to counter with "
    return ""


def parse(game: str, text: str, request: Request) -> Any:
    """Turn what a person typed into an action (``None`` if not understood)."""
    if text.startswith("{"):
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            return None
    if request.choices and text.isdigit() and int(text) < len(request.choices):
        return request.choices[int(text)]
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
    to_json = getattr(obs, "to_json", None)
    if to_json is None:
        return
    data = to_json()
    keys = ("wallet", "herds", "note_counts", "hand", "trick", "scores", "auction", "trade")
    for k in keys:
        if k in data and data[k] not in (None, [], {}):
            print(f"  {k}: {data[k]}")
