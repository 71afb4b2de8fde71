"""The Cunegonda JSON examples of docs/writing-a-bot.md are real.

Each request kind (``pass``, ``play``) and the observation has an example marked
``<!-- cunegonda-example: NAME -->`` before its ```json block. This test plays real games, takes a
real request of each kind and a real observation during a trick, and checks that each example
has the same shape and that the page names every field of the observation.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re
from pathlib import Path
from typing import Any

from cardtable.core import load_bot
from cardtable.games import cunegonda as C

DOCS = Path(__file__).resolve().parents[3] / "docs"
MARKER = re.compile(r"<!-- cunegonda-example: ([a-z_-]+) -->\s*```json\n(.*?)```", re.S)


@functools.cache
def real_examples() -> dict[str, Any]:
    """The first request of each kind, and an observation with a trick under way."""
    found: dict[str, Any] = {}
    game = C.new_game(C.STANDARD, 4, 3)
    bots = [load_bot("cunegonda", "heuristic", seed=i) for i in range(4)]
    for _ in range(60):
        pending = game.pending()
        for request in pending:
            data = game.request_to_json(request)
            found.setdefault(data["kind"], data)
            if data["kind"] == "play" and game.observe(request.seat).trick:
                found.setdefault("observation", game.observe_json(request.seat))
        request = pending[0]
        game.apply(request.seat, bots[request.seat].act(game.observe(request.seat), request))
    return found


def documented() -> dict[str, Any]:
    text = (DOCS / "writing-a-bot.md").read_text()
    return {name: json.loads(body) for name, body in MARKER.findall(text)}


def _shape(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _shape(v) for k, v in value.items()}
    if isinstance(value, list):
        return "list"
    return type(value).__name__ if value is not None else None


def test_every_cunegonda_request_kind_has_a_true_example() -> None:
    real, docs = real_examples(), documented()
    assert {"pass", "play", "observation"} <= set(real)
    assert set(docs) == {"pass", "play", "observation"}
    for kind in ("pass", "play"):
        shown, actual = docs[kind], real[kind]
        assert set(shown) == set(actual) == {"seat", "kind", "choices", "info"}, kind
        assert shown["kind"] == actual["kind"]
        assert (shown["choices"] is None) == (actual["choices"] is None), kind
        assert set(shown["info"]) == set(actual["info"]), (kind, shown["info"], actual["info"])
    assert all(set(c) == {"play"} for c in docs["play"]["choices"])


def test_the_cunegonda_observation_example_is_true() -> None:
    shown, actual = documented()["observation"], real_examples()["observation"]
    assert _shape(shown) == _shape(actual)
    # the example decodes into the same kind of value a bot gets
    assert C.Observation.from_json(shown).trick


def test_the_page_names_every_cunegonda_field() -> None:
    text = (DOCS / "writing-a-bot.md").read_text()
    section = text[text.index("### Cunegonda: every request") :]
    for field in dataclasses.fields(C.Observation):
        assert f"`{field.name}`" in section, field.name
    for key in real_examples()["pass"]["info"]:
        assert f"`{key}`" in section, key
