"""The JSON examples of docs/writing-a-bot.md (and the observation in docs/protocol.md) are real.

Every request kind of Kuhhandel has an example in the docs, marked ``<!-- example: NAME -->``
before its ```json block. This test plays real games, takes a real request of each kind and a
real observation, and checks that each example has the same shape (kind, choices or not, the
same ``info`` keys, the same observation fields) and that the page names every field. Run this
file as a script to print fresh examples: ``python tests/games/kuhhandel/test_docs_examples.py``.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re
from pathlib import Path
from typing import Any

from cardtable.core import load_bot
from cardtable.games import kuhhandel as K
from cardtable.games.kuhhandel.observe import AuctionView, KuhhandelObservation, TradeView

DOCS = Path(__file__).resolve().parents[3] / "docs"
MARKER = re.compile(r"<!-- example: ([a-z_-]+) -->\s*```json\n(.*?)```", re.S)

#: (example name, rule set, seats, request kind, info key that tells the variant apart or None)
GAMES: tuple[tuple[str, K.RuleSet, int], ...] = (
    ("classic", K.CLASSIC, 3),
    ("open", dataclasses.replace(K.CLASSIC, auction_style="open"), 3),
    ("master", K.MASTER, 4),
    ("master-duel", K.MASTER_DUEL, 2),
)


def _name(request: dict[str, Any]) -> str:
    if request["kind"] == "pay" and "count" in request["info"]:
        return "pay-pedigree"
    return str(request["kind"])


@functools.cache
def real_examples() -> dict[str, Any]:
    """The first request of each kind (and a bidder's observation) from seeded games."""
    found: dict[str, Any] = {}
    for _label, rules, seats in GAMES:
        for seed in range(4):
            game = K.new_game(rules, seats, seed)
            bots = [load_bot("kuhhandel", "heuristic", seed=i) for i in range(seats)]
            steps = 0
            while not game.is_over() and steps < 400:
                steps += 1
                pending = game.pending()
                for request in pending:
                    data = game.request_to_json(request)
                    found.setdefault(_name(data), data)
                    if data["kind"] == "bid" and game.observe(request.seat).auction.bids:
                        found.setdefault("observation", game.observe_json(request.seat))
                    if data["kind"] == "respond":
                        found.setdefault("observation-trade", game.observe_json(request.seat))
                request = pending[0]
                game.apply(
                    request.seat, bots[request.seat].act(game.observe(request.seat), request)
                )
    return found


def documented(page: str) -> dict[str, Any]:
    text = (DOCS / page).read_text()
    return {name: json.loads(body) for name, body in MARKER.findall(text)}


def test_every_request_kind_has_a_true_example() -> None:
    real = real_examples()
    docs = documented("writing-a-bot.md")
    kinds = {name for name in real if not name.startswith("observation")}
    every = {"turn", "bid", "knock", "sell_or_buy", "pay", "pay-pedigree", "offer", "respond"}
    every |= {"claim", "preempt", "rat", "divide"}
    assert kinds == every, f"the games did not reach {sorted(every - kinds)}"
    assert kinds <= set(docs), f"no example for {sorted(kinds - set(docs))}"
    assert set(docs) <= kinds | {"observation", "observation-trade"}
    for name in kinds:
        shown, actual = docs[name], real[name]
        assert set(shown) == {"seat", "kind", "choices", "info"}, name
        assert shown["kind"] == actual["kind"], name
        assert (shown["choices"] is None) == (actual["choices"] is None), name
        assert set(shown["info"]) == set(actual["info"]), (name, shown["info"], actual["info"])
        for key, value in actual["info"].items():
            assert (
                type(shown["info"][key]) is type(value)
                or value is None
                or shown["info"][key] is None
            ), (name, key)


def _shape(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _shape(v) for k, v in value.items() if not k.isdigit()}
    return type(value).__name__ if value is not None else None


def test_the_observation_examples_are_true() -> None:
    real = real_examples()
    for page in ("writing-a-bot.md", "protocol.md"):
        docs = documented(page)
        for name in ("observation", "observation-trade"):
            if name not in docs:
                assert page == "protocol.md" and name == "observation-trade"
                continue
            assert _shape(docs[name]) == _shape(real[name]), (page, name)
    auction = documented("writing-a-bot.md")["observation"]["auction"]
    assert auction["high_bidder"] is not None  # the example shows a running auction


def test_the_page_names_every_field() -> None:
    text = (DOCS / "writing-a-bot.md").read_text()
    real = real_examples()
    for name, request in real.items():
        if name.startswith("observation"):
            continue
        for key in request["info"]:
            assert f"`{key}`" in text, (name, key)
    for view in (KuhhandelObservation, AuctionView, TradeView):
        for field in dataclasses.fields(view):
            assert f"`{field.name}`" in text, (view.__name__, field.name)
    for key in K.CLASSIC.to_json():
        assert f"`{key}`" in text, ("rules", key)


if __name__ == "__main__":
    for name, value in real_examples().items():
        print(f"<!-- example: {name} -->\n```json\n{json.dumps(value)}\n```\n")
