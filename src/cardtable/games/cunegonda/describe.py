"""Plain-words lines for Cunegonda events (what ``cardtable play`` prints)."""

from __future__ import annotations

from collections.abc import Sequence

from cardtable.core.contract import Event
from cardtable.games.cunegonda.cards import card, long_name
from cardtable.games.cunegonda.scoring import PENALTY, QUEEN_PENALTY

_PLACE_WORDS = ("1st", "2nd", "3rd", "4th")


def _who(seat: int, names: Sequence[str]) -> str:
    if 0 <= seat < len(names) and names[seat]:
        return names[seat]
    return f"Seat {seat}"


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
            costs.append(f"hearts {' '.join(d['hearts'])} -{heart_points}")
        return line + (f" ({', '.join(costs)})" if costs else "")
    if kind == "round_start":
        return f"Round {d['round'] + 1} of {d['rounds']}: {_who(d['leader'], names)} leads"
    if kind == "deal":
        return f"{_who(d['seat'], names)} is dealt {' '.join(d['cards'])}"
    if kind == "pass_chosen":
        return f"{_who(d['seat'], names)} has chosen 3 cards to pass"
    if kind == "pass":
        return f"{_who(d['seat'], names)} passes {' '.join(d['cards'])} to {_who(d['to'], names)}"
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
        return f"Match over after {d['rounds']} rounds: {standing}"
    if kind == "aborted":
        return f"The match was stopped: {d['reason']}"
    return f"{kind}: {dict(d)}"
