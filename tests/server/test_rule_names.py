"""One name per rule set everywhere (issue #20): GameSpec.rules_label names a preset by its
preset name and any other rule set by the nearest preset and what differs, and the HTTP reads
the pages use (games, replays, tables) carry that name."""

from __future__ import annotations

import json

import pytest

from cardtable.core import game_spec
from cardtable.games.kuhhandel.rules import random_rules
from cardtable.server.store.db import rules_label

KH = game_spec("kuhhandel")
CU = game_spec("cunegonda")


@pytest.mark.parametrize("name", sorted(KH.presets))
def test_a_kuhhandel_preset_is_called_by_its_preset_name(name: str) -> None:
    assert KH.rules_label(KH.resolve_rules(name)) == name
    # the same rules sent as JSON are still the preset
    assert KH.rules_label(KH.rules_from_json(KH.presets[name].to_json())) == name


def test_three_rounds_of_cunegonda_are_the_short_preset() -> None:
    assert CU.rules_label(CU.resolve_rules({"rounds": 3})) == "short"
    assert CU.rules_label(CU.resolve_rules({"rounds": 10})) == "standard"
    assert CU.rules_label(CU.resolve_rules({"rounds": 5})) == "standard (5 rounds)"
    assert CU.rules_label(CU.resolve_rules({"rounds": 1})) == "standard (1 round)"


def test_an_open_classic_auction_is_named_after_classic_not_custom() -> None:
    rules = KH.resolve_rules({"preset": "classic", "auction_style": "open"})
    assert KH.rules_label(rules) == "classic (open auction)"
    # without naming the preset: the nearest preset (classic differs only in the auction)
    assert KH.rules_label(KH.resolve_rules({"auction_style": "open"})) == "classic (open auction)"
    master = KH.resolve_rules({"preset": "master", "rats": 0, "auction_style": "open"})
    assert KH.rules_label(master) == "master (open auction, 0 rats)"


def test_many_changes_are_counted_not_listed() -> None:
    label = KH.rules_label(random_rules(7))
    assert "(" in label and label.split(" (")[0] in KH.presets
    assert "custom" not in label


def test_the_store_names_a_stored_rule_set_the_same_way() -> None:
    open_classic = json.dumps({**KH.presets["classic"].to_json(), "auction_style": "open"})
    assert rules_label("kuhhandel", open_classic, None) == "classic (open auction)"
    assert rules_label("cunegonda", json.dumps({"rounds": 3}), None) == "short"
    # rules that no longer load keep their stored name, never an error
    assert rules_label("kuhhandel", json.dumps({"bogus": 1}), "old") == "old"
    assert rules_label("nogame", "{}", None) == "custom"
