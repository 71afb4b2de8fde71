"""The bot page and a seat's view at a decision (issue #28), in Chromium on a real server.

A registered bot that raises on every decision (tests/client/faulty_bots.py ``Raises``) plays one
ranked game of classic Kuhhandel through our client against random house bots: its client reports
each exception, the server stores it as a ``raised`` fault with the bot's file and line, and the
fallback plays the rest. The leaderboard links to the bot's page, which shows the bot's rating,
the game (its place counted from 1, a link to the replay) and the faults by kind with the file
and line. A fault links to the replay with that seat's decision open: the page shows the same
request and recorded answer as ``GET /api/games/{id}/decision`` and the command that asks the
bot again locally (run here on the record the page links to, it asks the bot again); choosing
another seat and decision shows that one. Nothing scrolls sideways at 390 px. The screenshots
for docs/web.md are taken here (CARDTABLE_WEB_SHOTS=1 keeps them).
"""

from __future__ import annotations

import functools
import json
import re
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import (
    Tab,
    WebServer,
    open_tab,
    play_as_registered_bot,
    run_server,
    shot,
    shows_number,
)

from cardtable.cli import main
from loopback import LOOPBACK

#: one worker (pytest-xdist) plays the module's games once for all its tests
pytestmark = [pytest.mark.timeout(180), pytest.mark.xdist_group("test_bot_page")]

BOTS = Path(__file__).resolve().parents[1] / "client" / "faulty_bots.py"
NAME = "raiser"


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[WebServer, str]]:
    """A server of its own (random house and fallback bots: quick) and one ranked game of
    classic played by the raising bot; yields the server and the game's id."""
    with run_server(
        tmp_path_factory.mktemp("botpage"),
        house_bots={"kuhhandel": "random"},
        fallback_bot={"kuhhandel": "random"},
    ) as web:
        reports = play_as_registered_bot(
            web, NAME, f"{BOTS}:Raises", game="kuhhandel", rules="classic", version="raiser-v2"
        )
        yield web, reports[0].game_id


def _no_sideways_scrolling(page: Any, where: str) -> None:
    wide = page.evaluate("() => document.documentElement.scrollWidth")
    seen = page.evaluate("() => document.documentElement.clientWidth")
    # what sticks out, to say in the failure
    out = page.evaluate(
        """(seen) => [...document.querySelectorAll("body *")]
            .filter((el) => el.getBoundingClientRect().right > seen + 1)
            .slice(0, 6)
            .map((el) => `${el.tagName.toLowerCase()}.${el.className}: ${
                (el.textContent || "").slice(0, 60)}`)""",
        seen,
    )
    assert wide <= seen, f"{where}: the page is {wide} px wide in a {seen} px window: {out}"


def _ordinal(n: int) -> str:
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n if n < 20 else n % 10, 'th') }"


@functools.cache
def _replay(url: str, game_id: str) -> dict[str, Any]:
    return dict(LOOPBACK.get(f"{url}/api/games/{game_id}/replay").json())


def _check_decision(page: Any, web: WebServer, game_id: str) -> tuple[int, int, dict[str, Any]]:
    """The seat view on the page shows what GET /api/games/{id}/decision gives."""
    out = page.locator(".seat-view .sv-out")
    out.locator(".sv-title").wait_for()
    seat = int(page.locator("#sv-seat").input_value())
    at = int(page.locator("#sv-at").input_value())
    api = LOOPBACK.get(
        f"{web.url}/api/games/{game_id}/decision", params={"seat": seat, "at": at}, timeout=10
    ).json()
    title = out.locator(".sv-title").inner_text()
    # a screen reader hears which decision is shown (one line)
    said = page.locator(".seat-view [role=status]").text_content() or ""
    assert f"decision {at} of {api['decisions']}: {api['request']['kind']}" in said
    assert f"decision {at} of {api['decisions']}" in title and api["request"]["kind"] in title
    shown = json.loads(out.locator("pre.sv-request-json").text_content() or "")
    assert shown == api["request"]
    assert json.loads(out.locator("pre.sv-recorded").inner_text()) == api["recorded"]
    command = out.locator("pre.sv-command").inner_text().strip()
    assert command == (
        f"cardtable replay game-{game_id}.json --seat {seat} --at {at} --ask mybot.py:MyBot"
    )
    # info values that stand for a seat or a card say which, in words
    replay = _replay(web.url, game_id)
    species = [k["name"] for k in replay["rules"]["species"]]
    for key, value in api["request"]["info"].items():
        term = out.locator(".sv-info dt").filter(has_text=re.compile(f"^{key}$"))
        words = term.locator("xpath=..").locator("dd")
        if key in ("high_bidder", "to", "opponent", "challenger") and isinstance(value, int):
            assert f"({replay['names'][value]})" in words.inner_text(), (key, value)
        if key == "card" and value < len(species):
            assert f"({species[value]})" in words.inner_text(), (key, value)
    # a request with choices marks the recorded one
    choices = api["request"]["choices"]
    if choices:
        assert out.locator(".sv-choices li").count() == len(choices)
        picked = out.locator(".sv-choices li.picked code")
        assert picked.count() == (1 if api["recorded"] in choices else 0)
        if api["recorded"] in choices:
            assert json.loads(picked.inner_text()) == api["recorded"]
    # nothing stray (a 'null' where no fault is) between the panel's parts
    stray = out.evaluate("(el) => [...el.childNodes].filter((n) => n.nodeType === 3).length")
    assert stray == 0
    record = out.locator(f"a[download='game-{game_id}.json']").get_attribute("href")
    assert record and record.endswith(f"/api/games/{game_id}/record")
    return seat, at, api


def test_bot_page_and_the_seat_view_at_a_fault(
    browser: Any,
    played: tuple[WebServer, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    web, game_id = played
    stored = LOOPBACK.get(f"{web.url}/api/bots/{NAME}").json()
    (game,) = stored["games"]
    assert stored["fault_counts"] == {"raised": 3}
    (rating,) = [r for r in stored["ratings"] if r["rules"] == "classic"]

    tab: Tab = open_tab(browser, width=1280, height=800)
    page = tab.page
    try:
        # the leaderboard links to the page
        page.goto(f"{web.url}/leaderboard?game=kuhhandel&rules=classic")
        standings = page.locator("table.leaderboard tbody tr")
        standings.first.wait_for()
        # the standings show each bot's faults: the raiser's 3, the house bots' none
        faults = {
            r.locator("th").inner_text().split()[0]: r.locator("td.faults").inner_text()
            for r in standings.all()
        }
        # ... and the games its faults counted as last place
        assert faults.pop(NAME) == "3 · 1 counted last" and set(faults.values()) == {"0"}, faults
        page.locator("table.leaderboard").get_by_role("link", name=NAME, exact=True).click()
        page.wait_for_url(f"**/bots/{NAME}")
        page.locator(".bot-page h1", has_text=NAME).wait_for()
        board = page.locator("table.bot-ratings tr[data-board='kuhhandel/classic']")
        assert shows_number(board.locator("td.rating").inner_text(), rating["rating"])
        row = page.locator(f"table.bot-games tr[data-game='{game_id}']")
        place = row.locator("td.place").inner_text()
        assert place.startswith(f"{_ordinal(game['place'])} of 4")
        # its own faults count it below the three house bots, and the page says so in words
        assert game["placed_last_for_faults"] and game["rating_place"] == 4
        assert "counted as 4th of 4: its own faults place it below every player" in place
        # the version its client sent in hello, and that it may play ranked (it has)
        assert row.locator(".tag.version").inner_text() == "raiser-v2"
        assert "Validated for ranked play: Kuhhandel" in page.locator(".validation").inner_text()
        assert row.locator("td.faults").inner_text().startswith("3")
        assert row.get_by_role("link", name="Replay").get_attribute("href") == f"/replay/{game_id}"
        decisions = row.get_by_role("link", name="Its decisions").get_attribute("href")
        assert decisions == f"/replay/{game_id}?at=0&seat={game['seat']}"
        counts = page.locator(".fault-counts li[data-code=raised]")
        assert counts.inner_text() == "3 raised an exception"
        raised = page.locator(".fault-kind[data-code=raised] li.fault")
        assert raised.count() == 3
        line = stored["faults"][0]["detail"]["exception"]["line"]
        assert f"faulty_bots.py:{line}" in raised.first.locator("code.where").inner_text()
        assert "ValueError: no idea what to do on" in raised.first.inner_text()
        shot(tab, "bot-page-desktop")
        # the count at the top leads to its kind's list, on the same page
        counts.get_by_role("link").click()
        assert page.evaluate("() => document.activeElement.id") == "fault-raised"
        assert page.url.endswith(f"/bots/{NAME}")

        # a fault opens the replay with that seat's decision: the same request as the API gives
        raised.first.get_by_role("link", name="See the decision").click()
        page.wait_for_url(f"**/replay/{game_id}**")
        seat, at, api = _check_decision(page, web, game_id)
        fault = stored["faults"][0]
        # the seat's first decision after the fault was stored (move = moves played then), and
        # the fault's `decision` is that decision's number as `replay --at` counts it (issue 35)
        assert seat == fault["seat"] and api["upto"] >= fault["move"]
        assert at == fault["decision"] and api["decision"] == fault["decision"]
        if at > 1:
            before = LOOPBACK.get(
                f"{web.url}/api/games/{game_id}/decision",
                params={"seat": seat, "at": at - 1},
                timeout=10,
            ).json()
            assert before["upto"] < fault["move"]
        assert page.locator(".sv-fault").get_attribute("data-code") == "raised"
        # the command the page shows runs on the record it links to (the bot that raised is
        # 'mybot.py:MyBot' here): the bot is asked again and raises again
        view = page.locator(".seat-view")
        record = tmp_path / f"game-{game_id}.json"
        href = view.locator("a[download]").get_attribute("href") or ""
        record.write_bytes(LOOPBACK.get(href).content)
        argv = shlex.split(view.locator("pre.sv-command").inner_text())[1:]
        argv[argv.index("mybot.py:MyBot")] = f"{BOTS}:Raises"
        argv[1] = str(record)
        capsys.readouterr()
        assert main(argv) == 0
        asked = capsys.readouterr().out
        assert f"decision {at} of {api['decisions']}" in asked
        assert "the bot raised ValueError: no idea what to do on" in asked
        page.locator(".seat-view").scroll_into_view_if_needed()
        shot(tab, "seat-view-desktop")

        # another seat and decision, chosen on the page
        other = (seat + 1) % 4
        page.locator("#sv-seat").select_option(str(other))
        page.locator("#sv-at").fill("2")
        page.locator(".sv-form").get_by_role("button", name="Show", exact=True).click()
        page.locator(".sv-title", has_text="decision 2 of").wait_for()
        assert _check_decision(page, web, game_id)[:2] == (other, 2)
        # it moves the replay to the position just before that decision
        view.get_by_role("button", name="Show the game just before it").click()
        moved = LOOPBACK.get(
            f"{web.url}/api/games/{game_id}/decision", params={"seat": other, "at": 2}, timeout=10
        ).json()
        page.wait_for_url(f"**?at={moved['upto']}")
        # the first move of the game: a turn request, its choices listed, the recorded one marked
        page.locator("#sv-seat").select_option("0")
        page.locator("#sv-at").fill("1")
        page.locator(".sv-form").get_by_role("button", name="Show", exact=True).click()
        page.locator(".sv-title", has_text="(seat 0), decision 1 of").wait_for()
        first = _check_decision(page, web, game_id)[2]
        assert first["upto"] == 0 and first["request"]["choices"]

        # a game's 'Its decisions' opens the bot's seat at its first decision
        page.goto(f"{web.url}{decisions}")
        assert _check_decision(page, web, game_id)[:2] == (game["seat"], 1)

        # the replay list links the names that have a page
        page.goto(f"{web.url}/replay")
        page.locator("table.games").get_by_role("link", name=NAME).first.wait_for()
        assert not tab.errors, tab.errors
    finally:
        tab.close()

    phone: Tab = open_tab(browser, width=390, height=844)
    page = phone.page
    try:
        page.goto(f"{web.url}/bots/{NAME}")
        page.locator(".fault-kind[data-code=raised]").wait_for()
        _no_sideways_scrolling(page, "bot page")
        shot(phone, "bot-page-phone")
        page.goto(f"{web.url}/replay/{game_id}?at={fault['move']}&seat={fault['seat']}")
        _check_decision(page, web, game_id)
        page.locator(".seat-view .sv-out").scroll_into_view_if_needed()
        _no_sideways_scrolling(page, "replay with a seat's view")
        page.locator(".seat-view .sv-title").scroll_into_view_if_needed()
        shot(phone, "seat-view-phone")
        assert not phone.errors, phone.errors
    finally:
        phone.close()


def test_a_new_bot_and_an_unknown_name(tab: Tab, played: tuple[WebServer, str]) -> None:
    """A bot with no game yet has a page that says so; a name nobody registered (a guest's)
    gets a clear error."""
    web, _game_id = played
    LOOPBACK.post(f"{web.url}/api/bots", json={"name": "fresh-bot"}).raise_for_status()
    page = tab.page
    page.goto(f"{web.url}/bots/fresh-bot")
    page.locator(".bot-page h1", has_text="fresh-bot").wait_for()
    text = page.locator(".bot-page").inner_text()
    assert "No fault." in text and "No game yet." in text and "No ranked game yet" in text
    assert "Not validated yet" in text  # its first ranked join plays a validation game
    page.goto(f"{web.url}/bots/somebody")
    page.locator("main .error").wait_for()
    assert "no bot 'somebody'" in page.locator("main .error").inner_text()
    assert "guests" in page.locator("main").inner_text()
    assert not tab.errors, tab.errors
