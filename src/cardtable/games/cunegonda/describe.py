"""What Cunegonda events and views say, as messages in no language (what ``cardtable play``
prints and the browser's log shows).

Each line is a :class:`~cardtable.core.message.Message` (a key of the catalogs in
``src/cardtable/i18n/catalogs/`` and its arguments); ``cardtable.i18n.render`` makes it a sentence
in a person's language. Cards in a row are written with suit symbols (``6♣ Q♠``), the same in
every language.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from cardtable.core.contract import Event
from cardtable.core.message import Arg, Joined, Message, Signed, msg
from cardtable.games.cunegonda.cards import NAMES, card
from cardtable.games.cunegonda.scoring import PENALTY, QUEEN_PENALTY


def _who(seat: int, names: Sequence[str]) -> Arg:
    if 0 <= seat < len(names) and names[seat]:
        return names[seat]
    return msg("log.cunegonda.seat", seat=str(seat))


#: Suit symbols, as on the table's card faces (``"QS"`` is written ``"Q♠"``).
_SUIT_SYMBOLS = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}


def cards_in_symbols(codes: Sequence[str]) -> str:
    """Cards as a person reads them: ``["6C", "QS"]`` -> ``"6♣ Q♠"`` (not engine codes)."""
    return " ".join(c[:-1] + _SUIT_SYMBOLS[c[-1]] for c in codes)


def long_name(code: str) -> Message:
    """``"QS"`` -> the catalog's ``the queen of spades`` (rank and suit as codes for ``select``)."""
    return msg("card.cunegonda.long", rank=code[:-1], suit=code[-1])


def describe_event(event: Event, names: tuple[str, ...] = ()) -> Message | None:
    """The message of ``event``, with seat names from ``names`` when given.

    Rounds and tricks are counted from 1 here (the event data counts from 0).
    """
    d = event.data
    kind = event.kind
    key = f"log.cunegonda.{kind}"
    if kind == "play":
        return msg(key, who=_who(d["seat"], names), card=long_name(d["card"]))
    if kind == "trick":
        costs: list[Arg] = []
        if d["queen"]:
            costs.append(msg("log.cunegonda.cost.queen", points=QUEEN_PENALTY))
        if d["hearts"]:
            heart_points = sum(PENALTY[card(h)] for h in d["hearts"])
            costs.append(
                msg(
                    "log.cunegonda.cost.hearts",
                    cards=cards_in_symbols(d["hearts"]),
                    points=heart_points,
                )
            )
        args: dict[str, Arg] = {
            "who": _who(d["winner"], names),
            "trick": d["trick"] + 1,
            "card": long_name(d["card"]),
            "value": Signed(d["value"]),
        }
        if costs:
            return Message(f"{key}.costs", {**args, "costs": Joined(tuple(costs))})
        return Message(key, args)
    if kind == "round_start":
        return msg(key, round=d["round"] + 1, rounds=d["rounds"], who=_who(d["leader"], names))
    if kind == "deal":
        return msg(key, who=_who(d["seat"], names), cards=cards_in_symbols(d["cards"]))
    if kind == "pass_chosen":
        return msg(key, who=_who(d["seat"], names), count=3)
    if kind == "pass":
        return msg(
            key,
            who=_who(d["seat"], names),
            cards=cards_in_symbols(d["cards"]),
            to=_who(d["to"], names),
        )
    if kind == "moon":
        return msg(key, who=_who(d["seat"], names))
    if kind == "round_end":
        scores = tuple(
            msg("log.cunegonda.seat_points", who=_who(s, names), points=Signed(v))
            for s, v in enumerate(d["scores"])
        )
        totals = tuple(
            msg("log.cunegonda.seat_points", who=_who(s, names), points=v)
            for s, v in enumerate(d["totals"])
        )
        return msg(key, round=d["round"] + 1, scores=Joined(scores), totals=Joined(totals))
    if kind == "match_end":
        order = sorted(range(len(d["totals"])), key=lambda s: (d["places"][s], s))
        standing = tuple(
            msg(
                "log.cunegonda.standing",
                place=d["places"][s] + 1,
                who=_who(s, names),
                total=d["totals"][s],
            )
            for s in order
        )
        return msg(key, rounds=d["rounds"], standing=Joined(standing))
    if kind == "aborted":
        return msg(key, reason=str(d["reason"]))
    return msg("log.unknown", kind=kind, data=str(dict(d)))


def describe_view(obs: Any, rules: Mapping[str, Any], names: tuple[str, ...] = ()) -> list[Message]:
    """The messages of a Cunegonda observation: the seat's hand, the trick, the scores."""

    def who(seat: int) -> Message:
        return msg("view.seat", name=_who(seat, names), seat=str(seat))

    def short(cards: Sequence[int]) -> str:
        return " ".join(NAMES[c] for c in cards)

    me = obs.seat
    viewer = msg("view.spectator") if me is None else who(me)
    head = {"viewer": viewer, "round": obs.round + 1, "rounds": obs.rounds, "phase": str(obs.phase)}
    lines = [
        Message("view.cunegonda.head", head)
        if obs.turn is None
        else Message("view.cunegonda.head_turn", {**head, "turn": who(obs.turn)}),
        msg("view.cunegonda.hand", cards=short(obs.hand) or msg("view.cunegonda.empty")),
    ]
    if obs.passed is not None:
        lines.append(msg("view.cunegonda.passed", cards=short(obs.passed), who=who(obs.pass_to)))
    if obs.received is not None:
        lines.append(
            msg("view.cunegonda.received", cards=short(obs.received), who=who(obs.received_from))
        )
    if obs.trick:
        played = tuple(
            msg(
                "view.cunegonda.played",
                who=_who((obs.leader + i) % len(obs.totals), names),
                card=NAMES[c],
            )
            for i, c in enumerate(obs.trick)
        )
        lines.append(msg("view.cunegonda.trick", played=Joined(played)))
    lines.append(msg("view.cunegonda.tricks_done", count=len(obs.tricks)))
    lines.append(
        msg(
            "view.cunegonda.round_points",
            points=Joined(
                tuple(
                    msg("log.cunegonda.seat_points", who=_who(s, names), points=Signed(p))
                    for s, p in enumerate(obs.round_points)
                )
            ),
        )
    )
    lines.append(
        msg(
            "view.cunegonda.totals",
            points=Joined(
                tuple(
                    msg("log.cunegonda.seat_points", who=_who(s, names), points=Signed(t))
                    for s, t in enumerate(obs.totals)
                )
            ),
        )
    )
    return lines
