"""The catalogs (issue 38): every key in every language, every entry ICU MessageFormat with the
English entry's arguments, plurals as CLDR says (Babel), the games' own words per language, and
every line the engines say renders in every language."""

from __future__ import annotations

import json
from typing import Any

import pytest
from babel import Locale

from cardtable.core import load_bot, run_match
from cardtable.core.message import Message
from cardtable.games import cunegonda, kuhhandel
from cardtable.i18n import (
    SUPPORTED,
    catalog,
    event_line,
    from_environment,
    icu,
    missing,
    negotiate,
    problems,
    render,
    translate,
)

OTHERS = [lang for lang in SUPPORTED if lang != "en"]


@pytest.mark.parametrize("lang", SUPPORTED)
def test_every_key_is_in_every_catalog(lang: str) -> None:
    assert set(catalog(lang)) == set(catalog("en"))
    assert missing(lang) == []


@pytest.mark.parametrize("lang", SUPPORTED)
def test_every_entry_parses_with_the_english_arguments(lang: str) -> None:
    assert problems(lang) == []
    for key, text in catalog(lang).items():
        english = icu.arguments(icu.parse(catalog("en")[key]))
        mine = icu.arguments(icu.parse(text))
        assert set(mine) == set(english), key
        for name, how in english.items():  # a select of English is a select everywhere
            if how == "select":
                assert mine[name] == "select", (lang, key, name)


def test_the_check_finds_a_broken_entry() -> None:
    with pytest.raises(icu.PatternError):
        icu.parse("{count, plural, one {# note}")  # no other, not closed
    with pytest.raises(icu.PatternError):
        icu.parse("{count, plural, one {# note} }")  # no other
    assert set(icu.arguments(icu.parse("{who} bids {amount}."))) == {"who", "amount"}


def _categories(lang: str, n: float) -> str:
    pattern = icu.parse(
        "{n, plural, zero {zero} one {one} two {two} few {few} many {many} other {other}}"
    )
    return icu.format_nodes(
        pattern,
        {"n": n},
        icu.Rules(Locale.parse(lang).plural_form, Locale.parse(lang).ordinal_form, str, str),
    )


@pytest.mark.parametrize("lang", SUPPORTED)
def test_plural_categories_are_cldr_s(lang: str) -> None:
    locale = Locale.parse(lang)
    for n in [*range(0, 120), 1000, 1_000_000, 2_000_000]:
        assert _categories(lang, n) == locale.plural_form(n)


def test_plurals_per_language() -> None:
    # French counts 0 and 1 as "one"; English, German, Dutch and Italian say 0 in the plural
    assert translate("fr", "count.notes", count=0) == "0 billet"
    assert translate("fr", "count.notes", count=1) == "1 billet"
    assert translate("fr", "count.notes", count=2) == "2 billets"
    assert translate("en", "count.notes", count=0) == "0 notes"
    assert translate("en", "count.notes", count=1) == "1 note"
    assert translate("de", "count.notes", count=1) == "1 Geldkarte"
    assert translate("de", "count.notes", count=0) == "0 Geldkarten"
    assert translate("nl", "count.notes", count=3) == "3 geldkaarten"
    assert translate("it", "count.notes", count=1) == "1 banconota"
    # numbers as each language writes them (CLDR, Babel): French groups with a narrow space
    assert translate("en", "log.kuhhandel.bid", who="Ann", amount=1010) == "Ann bids 1,010."
    assert translate("de", "log.kuhhandel.bid", who="Ann", amount=1010) == "Ann bietet 1.010."
    assert (
        translate("fr", "log.kuhhandel.bid", who="Ann", amount=1010) == "Ann enchérit 1\u202f010."
    )
    # French "many" (a million) falls back to "other"
    assert translate("fr", "count.notes", count=1_000_000).endswith("billets")


def test_ordinals_and_exact_cases() -> None:
    places = [
        translate("en", "log.cunegonda.standing", place=p, who="A", total=1)
        for p in (1, 2, 3, 4, 11, 21, 22, 23)
    ]
    assert [p.split()[0] for p in places] == [
        "1st",
        "2nd",
        "3rd",
        "4th",
        "11th",
        "21st",
        "22nd",
        "23rd",
    ]
    assert translate("fr", "log.cunegonda.standing", place=1, who="A", total=1).startswith("1er ")
    assert translate("fr", "log.cunegonda.standing", place=2, who="A", total=1).startswith("2e ")
    exact = icu.parse("{n, plural, =0 {none} one {# one} other {# more}}")
    rules = icu.Rules(Locale.parse("en").plural_form, Locale.parse("en").ordinal_form, str, str)
    assert icu.format_nodes(exact, {"n": 0}, rules) == "none"
    assert icu.format_nodes(exact, {"n": 1}, rules) == "1 one"


def test_apostrophes_follow_icu() -> None:
    rules = icu.Rules(Locale.parse("en").plural_form, Locale.parse("en").ordinal_form, str, str)
    assert icu.format_nodes(icu.parse("l'enchère de {who}"), {"who": "Ann"}, rules) == (
        "l'enchère de Ann"
    )
    assert icu.format_nodes(icu.parse("'{who}' is ''{who}''"), {"who": "Ann"}, rules) == (
        "{who} is 'Ann'"
    )
    assert icu.format_nodes(icu.parse("type 'QS'"), {}, rules) == "type 'QS'"


def test_the_games_own_words() -> None:
    german = [translate("de", f"animal.{a}", count=1) for a in ANIMALS]
    assert german == [
        "Huhn",
        "Gans",
        "Katze",
        "Hund",
        "Schaf",
        "Ziege",
        "Esel",
        "Schwein",
        "Kuh",
        "Pferd",
    ]
    french = [translate("fr", f"animal.{a}", count=1) for a in ANIMALS]
    assert french == [
        "Coq",
        "Oie",
        "Chat",
        "Chien",
        "Mouton",
        "Chèvre",
        "Âne",
        "Cochon",
        "Vache",
        "Cheval",
    ]
    assert translate("de", "animal.goose", count=2) == "Gänse"
    assert translate("en", "animal.goose", count=2) == "Geese"
    classic = {lang: translate(lang, "ruleset.kuhhandel.classic") for lang in SUPPORTED}
    assert classic == {
        "en": "You're Bluffing!",
        "de": "Kuhhandel",
        "fr": "Koehandel",
        "nl": "Koehandel",
        "it": "Kuhhandel",
    }
    assert translate("de", "ruleset.kuhhandel.master") == "Kuhhandel Master"


ANIMALS = ("chicken", "goose", "cat", "dog", "sheep", "goat", "donkey", "pig", "cow", "horse")


def test_a_missing_key_falls_back() -> None:
    assert translate("de", "no.such.key") == "no.such.key"
    assert render("de", Message("animal.unicorn", {"count": 2}, default="Unicorn")) == "Unicorn"
    assert translate("xx", "count.notes", count=2) == "2 notes"  # an unknown language: English


def test_negotiate_reads_accept_language() -> None:
    assert negotiate("de-CH,de;q=0.9,en;q=0.8") == "de"
    assert negotiate("fr-BE;q=0.5, nl") == "nl"
    assert negotiate("es, it;q=0.3") == "it"
    assert negotiate("") == "en" and negotiate(None) == "en"
    assert negotiate("xx-YY, *;q=0.1") == "en"
    assert negotiate("de;q=abc, <script>, fr") == "fr"
    assert negotiate("de;q=0, fr;q=0.1") == "fr"
    assert negotiate("x" * 100_000 + ",de") == "en"  # only the head of a huge header is read


def test_the_terminal_language_comes_from_the_environment() -> None:
    assert from_environment({"LANG": "de_DE.UTF-8"}) == "de"
    assert from_environment({"LC_ALL": "fr_BE.UTF-8", "LANG": "de_DE.UTF-8"}) == "fr"
    assert from_environment({"LANGUAGE": "nl:en", "LANG": "de_DE.UTF-8"}) == "nl"
    assert from_environment({"LANG": "C.UTF-8"}) == "en"
    assert from_environment({"LANG": "ja_JP.UTF-8"}) == "en"
    assert from_environment({}) == "en"


def _played() -> list[tuple[Any, tuple[str, ...], list[Any]]]:
    out = []
    for preset, seats in (("classic", 4), ("competition", 5), ("master", 4), ("master-duel", 2)):
        game = kuhhandel.new_game(kuhhandel.PRESETS[preset], seats, 1)
        bots = ["heuristic", "random"] * seats
        run_match(game, [load_bot("kuhhandel", bots[s], seed=s) for s in range(seats)])
        out.append((kuhhandel.SPEC, ("Ann", "Bob", "Cy", "Di", "Ed")[:seats], list(game.events())))
    game = cunegonda.new_game(cunegonda.CunegondaRules(rounds=1), 4, 0)
    run_match(game, [load_bot("cunegonda", "heuristic", seed=s) for s in range(4)])
    out.append((cunegonda.SPEC, ("Ann", "Bob", "Cy", "Di"), list(game.events())))
    return out


@pytest.fixture(scope="module")
def played() -> list[tuple[Any, tuple[str, ...], list[Any]]]:
    return _played()


@pytest.mark.parametrize("lang", SUPPORTED)
def test_every_event_line_renders_in_every_language(lang: str, played: Any) -> None:
    english_words = 0
    for spec, names, events in played:
        for event in events:
            message = spec.describe_event(event, names)
            if message is None:
                continue
            assert isinstance(message, Message)
            assert message.key in catalog("en"), message.key
            line = event_line(lang, spec, event, names)
            assert line and "{" not in line and "log." not in line, (event.kind, line)
            english_words += " the " in f" {line} "
    if lang != "en":
        assert english_words == 0  # no English left in the other languages' log


def test_a_german_log_says_german_words(played: Any) -> None:
    lines = [event_line("de", spec, e, n) for spec, n, events in played for e in events]
    text = "\n".join(lines)
    assert "bietet" in text and "Kuhhandel" in text and "Geldkarte" in text
    assert any(animal in text for animal in ("Huhn", "Gans", "Pferd", "Kuh"))
    assert "Pik-Dame" in text or "spielt" in text


def test_catalogs_are_flat_json_of_strings() -> None:
    from cardtable.i18n import CATALOGS

    for lang in SUPPORTED:
        data = json.loads((CATALOGS / f"{lang}.json").read_text(encoding="utf-8"))
        assert all(isinstance(v, str) for v in data.values())


def test_the_missing_command_counts_per_language(capsys: pytest.CaptureFixture[str]) -> None:
    from cardtable.cli import main

    assert main(["i18n", "check"]) == 0
    out = capsys.readouterr().out
    total = len(catalog("en"))
    for lang in OTHERS:
        assert f"{lang}: {total} of {total} strings translated, 0 missing" in out
    assert main(["i18n", "missing", "de", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"missing": {"de": []}}
