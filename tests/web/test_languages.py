"""The table in the players' languages (issue 38), through real Chromium.

- A person whose browser asks for German (``Accept-Language: de-DE``) plays a whole classic
  Kuhhandel game on a phone-sized page: the page, its panels, the log and the score breakdown
  read German, no catalog key shows, and nothing scrolls sideways at 390 px.
- A person whose browser asks for French plays a whole Cunegonda match (one round).
- Two people at one table, one German and one Dutch, each read the log in their own language:
  the server sends codes, each page words them.
- The switcher in the header changes the language and the browser remembers it.
- A wrong password on the sign-in page reads German for a German person (the server sends a
  code, the page words it), and so does the sign-in throttle with its seconds (screenshots
  docs/screenshots/lang-de-signin-refused*.png).
- Screenshots of the table in each language, desktop and phone (docs/screenshots/lang-*.png).
- A finished game's replay read in German (its controls, moves, step line and a seat's view at a
  decision), and a bot's page in French (its faults, places and games); the replay's screenshots
  (docs/screenshots/lang-de-replay*.png).

The words the tests look for come from the catalogs, never from the tests.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import (
    Tab,
    WebServer,
    cunegonda_step,
    game_id_of,
    kuhhandel_step,
    open_tab,
    play_as_registered_bot,
    play_until_over,
    run_server,
    seat_faults,
    shot_pair,
)

pytestmark = pytest.mark.timeout(240)

CATALOGS = Path(__file__).resolve().parents[2] / "src/cardtable/i18n/catalogs"
FAULTY = Path(__file__).resolve().parents[1] / "client" / "faulty_bots.py"
QUICK = "form[aria-labelledby=quick-h]"
PRIVATE = "form[aria-labelledby=priv-h]"
#: a catalog key on the page means a message the catalog lacks
KEY_SHOWN = re.compile(
    r"\b(?:web|log|card|count|notes|animal|ruleset|analysis|refusal)\.[a-z_]+(?:\.[a-z_]+)*\b"
)


def catalog(lang: str) -> dict[str, str]:
    words: dict[str, str] = json.loads((CATALOGS / f"{lang}.json").read_text())
    return words


def pattern(message: str) -> re.Pattern[str]:
    """A regular expression for the sentences an ICU message makes: every ``{…}`` part (an
    argument, a plural) may be any text."""
    out, depth, i = "", 0, 0
    while i < len(message):
        c = message[i]
        if c == "{":
            if depth == 0:
                out += ".+?"
            depth += 1
        elif c == "}":
            depth -= 1
        elif depth == 0:
            out += re.escape(c)
        i += 1
    return re.compile(f"^{out}$")


def sign_in_as(tab: Tab, server: WebServer, name: str, words: dict[str, str]) -> None:
    page = tab.page
    page.goto(server.url + "/")
    page.get_by_label(words["web.lobby.display_name"]).fill(name)
    page.get_by_role("button", name=words["web.lobby.play_guest"]).click()
    page.get_by_text(f"{words['web.lobby.playing_as']} {name}").wait_for()
    page.locator("form[aria-labelledby=priv-h]").wait_for(timeout=45000)


def start_in(
    tab: Tab, server: WebServer, name: str, words: dict[str, str], *, shots: str = "", **fields: str
) -> str:
    """Sign in as a guest and start a quick game from the lobby, reading its labels in the
    person's language (``shots``: keep the lobby's screenshots under that name); returns the
    game id."""
    sign_in_as(tab, server, name, words)
    if shots:
        shot_pair(tab, shots)
    form = tab.page.locator(QUICK)
    form.get_by_label(words["web.lobby.game"], exact=True).select_option(fields["game"])
    if "rules" in fields:
        form.get_by_label(words["web.lobby.rule_set"], exact=True).select_option(fields["rules"])
    seats = form.get_by_label(words["web.lobby.seats"], exact=True)
    if "seats" in fields and seats.is_enabled():
        seats.fill(fields["seats"])
    if "rounds" in fields:
        form.get_by_label(words["web.lobby.rounds"]).fill(fields["rounds"])
    form.get_by_label(words["web.lobby.strength"]).select_option("heuristic")
    form.get_by_role("button", name=words["web.lobby.play_now"]).click()
    return game_id_of(tab)


def log_lines(tab: Tab) -> list[str]:
    lines: list[str] = tab.page.locator(".log-box li").evaluate_all(
        "els => els.map(e => e.textContent)"
    )
    return lines


def no_sideways_scroll(tab: Tab) -> None:
    wide = tab.page.evaluate("document.documentElement.scrollWidth")
    assert wide <= 390, f"the page scrolls sideways: {wide} px at 390 px"


def no_key_shown(tab: Tab) -> None:
    text = tab.page.evaluate("document.body.innerText")
    keys = KEY_SHOWN.findall(text)
    assert not keys, keys


def says(lines: list[str], words: dict[str, str], key: str) -> bool:
    """Some line of ``lines`` is the message ``key`` of this catalog."""
    rx = pattern(words[key])
    return any(rx.match(line.strip()) for line in lines)


def test_a_person_plays_a_whole_classic_game_in_german_on_a_phone(
    browser: Any, server: WebServer
) -> None:
    de, en = catalog("de"), catalog("en")
    # a whole game, its motion not what is checked (open_tab)
    tab = open_tab(browser, width=390, height=844, locale="de-DE", still=True)
    try:
        page = tab.page
        game_id = start_in(tab, server, "Greta", de, game="kuhhandel", rules="classic", seats="3")
        assert page.evaluate("document.documentElement.lang") == "de"
        # the first decisions, then a look at the page in German at phone width
        play_until_over(tab, kuhhandel_step, limit_s=60, decisions=3)
        no_sideways_scroll(tab)
        no_key_shown(tab)
        counts = play_until_over(tab, kuhhandel_step, limit_s=200)
        assert counts, "the person made no decision"
        page.locator(".result .breakdown").wait_for()
        result = page.locator(".result")
        assert result.locator("caption").inner_text().startswith(de["web.kh.score.final"])
        assert de["web.kh.score.how"] in result.locator("thead").inner_text()
        lines = log_lines(tab)
        for key in ("log.kuhhandel.draw", "log.kuhhandel.bid"):
            assert says(lines, de, key), (key, lines[-10:])
            assert not says(lines, en, key), key  # the English sentence is not there
        no_sideways_scroll(tab)
        no_key_shown(tab)
        assert not tab.errors, tab.errors
        info = seat_faults(server, game_id, "Greta")
        assert info["seat"]["faults"] == 0
    finally:
        tab.close()


def test_a_person_plays_a_cunegonda_match_in_french(browser: Any, server: WebServer) -> None:
    fr, en = catalog("fr"), catalog("en")
    tab = open_tab(browser, locale="fr-FR")
    try:
        page = tab.page
        start_in(tab, server, "Firmin", fr, game="cunegonda", rounds="1")
        assert page.evaluate("document.documentElement.lang") == "fr"
        play_until_over(tab, cunegonda_step, limit_s=200)
        page.locator(".result .rounds-table").wait_for()
        assert (
            page.locator(".result .rounds-table caption").inner_text()
            == fr["web.cu.rounds_caption"]
        )
        lines = log_lines(tab)
        for key in ("log.cunegonda.play", "log.cunegonda.round_start"):
            assert says(lines, fr, key), (key, lines[-10:])
            assert not says(lines, en, key), key
        no_key_shown(tab)
        assert not tab.errors, tab.errors
    finally:
        tab.close()


def test_two_people_at_one_table_read_the_log_each_in_their_language(
    browser: Any, server: WebServer
) -> None:
    de, nl = catalog("de"), catalog("nl")
    hanna = open_tab(browser, locale="de-DE")
    joost = open_tab(browser, locale="nl-NL")
    try:
        sign_in_as(hanna, server, "Hanna", de)
        sign_in_as(joost, server, "Joost", nl)
        form = hanna.page.locator(PRIVATE)
        form.get_by_label(de["web.lobby.game"], exact=True).select_option("cunegonda")
        form.get_by_label(de["web.lobby.rule_set"], exact=True).select_option("short")
        form.get_by_label(de["web.lobby.house_bots"]).fill("2")
        form.get_by_role("button", name=de["web.lobby.create"]).click()
        invite = hanna.page.locator(".invite[data-invite]").inner_text()
        joost.page.get_by_label(nl["web.lobby.invite_code_label"], exact=True).fill(invite)
        joost.page.get_by_role("button", name=nl["web.lobby.join"], exact=True).click()
        game = game_id_of(hanna)
        assert game_id_of(joost) == game
        for me in (hanna, joost):
            me.page.locator(".hand-box .panel[data-kind]").first.wait_for(timeout=20000)
        # the same events, two languages: each page words the codes the server sent
        for me, words, other in ((hanna, de, nl), (joost, nl, de)):
            lines = log_lines(me)
            assert says(lines, words, "log.cunegonda.round_start"), lines[:5]
            assert says(lines, words, "log.cunegonda.deal"), lines[:5]
            assert not says(lines, other, "log.cunegonda.round_start"), lines[:5]
            heading = me.page.locator(".hand-box .panel h3").first.inner_text()
            assert pattern(words["web.cu.choose_3_to"]).match(heading), heading
            no_key_shown(me)
        frames = [m for m in hanna.messages() + joost.messages() if m.get("type") == "event"]
        assert frames and all("text" not in m and "line" not in m for m in frames)
        for me in (hanna, joost):
            me.page.once("dialog", lambda dialog: dialog.accept())
            me.page.locator(".table-head button").first.click()
        assert not hanna.errors and not joost.errors, (hanna.errors, joost.errors)
    finally:
        hanna.close()
        joost.close()


def test_the_switcher_changes_the_language_and_the_browser_remembers_it(
    browser: Any, server: WebServer
) -> None:
    it, en = catalog("it"), catalog("en")
    tab = open_tab(browser, locale="en-GB")
    try:
        page = tab.page
        page.goto(server.url + "/")
        page.get_by_role("link", name=en["web.nav.leaderboard"]).wait_for()
        assert page.evaluate("document.documentElement.lang") == "en"
        page.locator("#lang-switch").select_option("it")
        page.get_by_role("link", name=it["web.nav.leaderboard"]).wait_for()
        assert page.evaluate("document.documentElement.lang") == "it"
        page.goto(server.url + "/")  # a new visit: the choice stays (the cookie and storage)
        page.get_by_role("heading", name=it["web.lobby.you"]).wait_for()
        assert page.locator("#lang-switch").input_value() == "it"
        no_key_shown(tab)
    finally:
        tab.close()


def test_a_wrong_password_reads_german_for_a_german_person(browser: Any, tmp_path: Path) -> None:
    de, en = catalog("de"), catalog("en")
    # its own server: the wrong password makes the name wait (30 s) from this address
    with run_server(tmp_path, sign_in_backoff_s=30.0) as web:
        tab = open_tab(browser, width=390, height=844, locale="de-DE")
        try:
            page = tab.page
            page.goto(web.url + "/signin")
            form = page.locator("form[aria-labelledby=signin-h]")
            form.locator("input[name=name]").fill("Niemand")
            form.locator("input[name=password]").fill("nicht das Passwort")
            form.locator("button[type=submit]").click()
            alert = page.locator(".account-page [role=alert]")
            alert.get_by_text(de["web.error.wrong_password"], exact=True).wait_for()
            assert en["web.error.wrong_password"] not in alert.inner_text()
            form.locator("button[type=submit]").click()  # again: throttled, in German too
            throttled = pattern(de["web.error.sign_in_throttled"])
            page.wait_for_function(
                "([el, rx]) => new RegExp(rx).test(el.textContent.trim())",
                arg=[alert.element_handle(), throttled.pattern],
            )
            assert "try again" not in alert.inner_text()
            shot_pair(tab, "lang-de-signin-refused")
            no_key_shown(tab)
            no_sideways_scroll(tab)
            assert not tab.errors, tab.errors
        finally:
            tab.close()


@pytest.mark.parametrize("lang", ["en", "de", "fr", "nl", "it"])
def test_the_table_in_each_language_desktop_and_phone(
    browser: Any, server: WebServer, lang: str
) -> None:
    words = catalog(lang)
    tab = open_tab(browser, width=1280, height=800, locale=lang)
    try:
        page = tab.page
        start_in(
            tab,
            server,
            f"Lang{lang.upper()}",
            words,
            shots=f"lang-{lang}-lobby",
            game="kuhhandel",
            rules="classic",
            seats="4",
        )
        play_until_over(tab, kuhhandel_step, limit_s=60, decisions=4)
        page.locator(".actions .panel[data-kind]").first.wait_for(timeout=30000)
        shot_pair(tab, f"lang-{lang}-table")
        page.set_viewport_size({"width": 390, "height": 844})
        no_sideways_scroll(tab)
        no_key_shown(tab)
        assert page.evaluate("document.documentElement.lang") == lang
        assert not tab.errors, tab.errors
    finally:
        tab.close()


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[WebServer, str]]:
    """A server of its own (random house and fallback bots: quick) where the registered bot
    "raiser" (raises on every decision: faults) played one ranked game of classic Kuhhandel;
    yields the server and the game's id."""
    with run_server(
        tmp_path_factory.mktemp("lang-played"),
        house_bots={"kuhhandel": "random"},
        fallback_bot={"kuhhandel": "random"},
    ) as web:
        reports = play_as_registered_bot(
            web, "raiser", f"{FAULTY}:Raises", game="kuhhandel", rules="classic"
        )
        yield web, reports[0].game_id


@pytest.mark.xdist_group("lang_played")
def test_a_replay_read_in_german(browser: Any, played: tuple[WebServer, str]) -> None:
    de, en = catalog("de"), catalog("en")
    web, game_id = played
    tab = open_tab(browser, width=1280, height=800, locale="de-DE")
    try:
        page = tab.page
        page.goto(f"{web.url}/replay/{game_id}?at=12")
        step = page.locator(".replay .step")
        step.wait_for()
        assert pattern(de["web.replay.step_group"]).match(step.inner_text()), step.inner_text()
        assert pattern(de["web.replay.heading"]).match(page.locator("h1").inner_text())
        assert page.locator(".keys-help").inner_text() == de["web.replay.keys_turn"]
        controls = page.get_by_role("toolbar", name=de["web.replay.controls"])
        controls.get_by_role("button", name=de["web.replay.forward_label"]).click()
        page.wait_for_url("**?at=13")
        # the move list words every move in German, none in English
        moves = page.locator(".moves button.move").evaluate_all(
            "els => els.map(e => e.textContent)"
        )
        move_keys = [k for k in de if k.startswith("web.replay.move.")]
        assert all(any(says([m], de, k) for k in move_keys) for m in moves), moves[:10]
        assert not any(says(moves, en, k) for k in move_keys if en[k] != de[k])
        heads = page.locator(".move-groups .group-head").evaluate_all(
            "els => els.map(e => e.textContent)"
        )
        assert any(h.split(". ", 1)[1].startswith(de["web.replay.turn.auction"]) for h in heads)
        # a seat's view at a decision, in German
        view = page.locator(".seat-view")
        assert view.locator("h2").inner_text() == de["web.seatview.heading"]
        view.get_by_role("button", name=de["web.seatview.show"], exact=True).click()
        title = view.locator(".sv-title")
        title.wait_for()
        assert pattern(de["web.seatview.title"]).match(title.inner_text().split(" · ")[0])
        assert view.locator("h4").first.inner_text() == de["web.seatview.request"]
        no_key_shown(tab)
        page.evaluate("window.scrollTo(0, 0)")
        shot_pair(tab, "lang-de-replay")
        page.set_viewport_size({"width": 390, "height": 844})
        no_sideways_scroll(tab)
        assert not tab.errors, tab.errors
    finally:
        tab.close()


@pytest.mark.xdist_group("lang_played")
def test_the_bot_page_in_french(browser: Any, played: tuple[WebServer, str]) -> None:
    fr, en = catalog("fr"), catalog("en")
    web, _ = played
    tab = open_tab(browser, width=390, height=844, locale="fr-FR")
    try:
        page = tab.page
        page.goto(f"{web.url}/bots/raiser")
        page.locator(".bot-page").wait_for()
        assert page.locator("#bp-faults-h").inner_text() == fr["web.botpage.faults"]
        assert page.locator("#bp-games-h").inner_text() == fr["web.botpage.games"]
        raised = fr["web.botpage.fault.raised"]
        counts = page.locator(".fault-counts li[data-code=raised]").inner_text()
        assert counts == f"3 × {raised}", counts
        heading = page.locator(".fault-kind[data-code=raised] h3").inner_text()
        assert heading == f"{raised[0].upper()}{raised[1:]} (3)", heading
        lead = page.locator(".lead").inner_text()
        assert pattern(fr["web.botpage.lead_counts"]).search(lead.split(". ", 1)[1]), lead
        # the place, an ordinal in French ("1er sur 4", "3e sur 4")
        place = page.locator(".bot-games td.place").first.inner_text().splitlines()[0]
        assert re.fullmatch(r"\d+(?:er|e) sur \d+", place), place
        tag = page.locator(".bot-page h1 .tag").inner_text()
        assert tag == fr["web.botpage.kind.bot"]
        body = page.evaluate("document.body.innerText")
        for key in ("web.botpage.faults", "web.botpage.why", "web.botpage.see_decision"):
            assert en[key] not in body, key
        no_key_shown(tab)
        no_sideways_scroll(tab)
        assert not tab.errors, tab.errors
    finally:
        tab.close()
