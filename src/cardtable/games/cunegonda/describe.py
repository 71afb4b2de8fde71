"""Plain-words lines for Cunegonda events (what ``cardtable play`` prints)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from cardtable.core.contract import Event
from cardtable.games.cunegonda.cards import NAMES, card, long_name
from cardtable.games.cunegonda.scoring import PENALTY, QUEEN_PENALTY

_PLACE_WORDS = ("1st", "2nd", "3rd", "4th")


def _who(seat: int, names: Sequence[str]) -> str:
    if 0 <= seat < len(names) and names[seat]:
        return names[seat]
    return f"Seat {seat}"


#: Suit symbols, as on the table's card faces (``"QS"`` is written ``"Q♠"``).
_SUIT_SYMBOLS = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}


def _cards(codes: Sequence[str]) -> str:
    """Cards as a person reads them: ``["6C", "QS"]`` -> ``"6♣ Q♠"`` (not engine codes)."""
    return " ".join(c[:-1] + _SUIT_SYMBOLS[c[-1]] for c in codes)


def _signed(n: int) -> str:
    return f"{n:+d}"


def describe_event(event: Event, names: tuple[str, ...] = ()) -> str:
    """One line that says what ``event`` means, with seat names from ``names`` when given.

    Rounds and tricks are counted from 1 here (the event data counts from 0).
    """
    d = event.data
    kind = event.kind
    if kind == "play":
        return f"{_who(d['seat'], names)} plays {long_name(card(d['card']))}"
    if kind == "trick":
        who = _who(d["winner"], names)
        line = (
            f"{who} wins trick {d['trick'] + 1} with {long_name(card(d['card']))}: "
            f"{_signed(d['value'])}"
        )
        costs = []
        if d["queen"]:
            costs.append(f"queen of spades -{QUEEN_PENALTY}")
        if d["hearts"]:
            heart_points = sum(PENALTY[card(h)] for h in d["hearts"])
            costs.append(f"hearts {_cards(d['hearts'])} -{heart_points}")
        return line + (f" ({', '.join(costs)})" if costs else "")
    if kind == "round_start":
        return f"Round {d['round'] + 1} of {d['rounds']}: {_who(d['leader'], names)} leads"
    if kind == "deal":
        return f"{_who(d['seat'], names)} is dealt {_cards(d['cards'])}"
    if kind == "pass_chosen":
        return f"{_who(d['seat'], names)} has chosen 3 cards to pass"
    if kind == "pass":
        return f"{_who(d['seat'], names)} passes {_cards(d['cards'])} to {_who(d['to'], names)}"
    if kind == "moon":
        return (
            f"{_who(d['seat'], names)} shoots the moon: all 13 hearts and the queen of spades "
            f"(+60, -20 for each other seat)"
        )
    if kind == "round_end":
        scores = ", ".join(f"{_who(s, names)} {_signed(v)}" for s, v in enumerate(d["scores"]))
        totals = ", ".join(f"{_who(s, names)} {v}" for s, v in enumerate(d["totals"]))
        return f"Round {d['round'] + 1} scores: {scores}; totals: {totals}"
    if kind == "match_end":
        order = sorted(range(len(d["totals"])), key=lambda s: (d["places"][s], s))
        standing = ", ".join(
            f"{_PLACE_WORDS[d['places'][s]]} {_who(s, names)} {d['totals'][s]}" for s in order
        )
        rounds = f"{d['rounds']} round" + ("" if d["rounds"] == 1 else "s")
        return f"Match over after {rounds}: {standing}"
    if kind == "aborted":
        return f"The match was stopped: {d['reason']}"
    return f"{kind}: {dict(d)}"


def describe_view(obs: Any, rules: Mapping[str, Any], names: tuple[str, ...] = ()) -> list[str]:
    """Plain-words lines for a Cunegonda observation: the seat's hand, the trick, the scores."""

    def who(seat: int) -> str:
        return f"{_who(seat, names)} (seat {seat})"

    me = obs.seat
    lines = [
        f"Seen by {'a spectator' if me is None else who(me)}: round {obs.round + 1} of "
        f"{obs.rounds}, {obs.phase}" + ("" if obs.turn is None else f", {who(obs.turn)} to play"),
        "Your hand: " + (" ".join(NAMES[c] for c in obs.hand) or "empty"),
    ]
    if obs.passed is not None:
        lines.append(f"You passed {' '.join(NAMES[c] for c in obs.passed)} to {who(obs.pass_to)}")
    if obs.received is not None:
        lines.append(
            f"You received {' '.join(NAMES[c] for c in obs.received)} from {who(obs.received_from)}"
        )
    if obs.trick:
        played = ", ".join(
            f"{_who((obs.leader + i) % len(obs.totals), names)} {NAMES[c]}"
            for i, c in enumerate(obs.trick)
        )
        lines.append(f"This trick: {played}")
    lines.append(f"Tricks done this round: {len(obs.tricks)}")
    lines.append(
        "Round points: "
        + ", ".join(f"{_who(s, names)} {p:+d}" for s, p in enumerate(obs.round_points))
    )
    lines.append(
        "Match totals: " + ", ".join(f"{_who(s, names)} {t:+d}" for s, t in enumerate(obs.totals))
    )
    return lines
