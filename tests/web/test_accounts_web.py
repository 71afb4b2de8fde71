"""People as first-class players through the page (issue #21): two people sign up in two
browser contexts, the session cookie is out of JavaScript's reach, one creates a rated private
table (one round of Cunegonda) with two house bots and the other joins it by the invite link,
both play it to the end, both see their new rating on their profile and on the leaderboard
(filtered to people), "play again" seats them together at a new table, and the stored ratings
equal ``cardtable ratings recompute``. axe-core finds no serious or critical violation on the
sign-in page and the profile; nothing scrolls sideways at 390 px. Screenshots: sign-in, profile,
the end of a game with play again (desktop and phone)."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from browser_helpers import (
    Tab,
    WebServer,
    cunegonda_step,
    frames,
    next_panel,
    open_tab,
    run_server,
    shot_pair,
    shows_number,
)
from sqlalchemy import select
from test_accessibility import axe_violations

from cardtable.server.store.models import players, ratings
from loopback import LOOPBACK
from patience import patience

pytestmark = pytest.mark.timeout(240)
CARDTABLE = str(Path(sys.executable).with_name("cardtable"))
#: The rated game is one round of Cunegonda (a rule set with one change, so it has a board of
#: its own): what the test checks (a rated match to its end, the ratings it leaves on the
#: profile, the leaderboard and in ``ratings recompute``, play again with the same rules) comes
#: once per match, and the short preset's three rounds tripled the ~40 decisions the two pages
#: answer (three quarters of the test's time: 92 of 131 s at load 20)
BOARD = "standard (1 round)"


@pytest.fixture
def web(tmp_path: Path) -> Any:
    """A server of this test's own (its ratings start empty), pace instant."""
    with run_server(tmp_path) as running:
        yield running


def sign_up(tab: Tab, web: WebServer, name: str) -> None:
    page = tab.page
    page.goto(web.url + "/signin")
    form = page.locator("form[aria-labelledby=signup-h]")
    form.get_by_label("Name").fill(name)
    form.get_by_label("Password").fill(f"{name} plays cows")
    form.get_by_role("button", name="Create the account").click()
    page.wait_for_url(web.url + "/")
    page.get_by_text(f"Playing as {name}").wait_for()


def no_sideways_scrolling(page: Any, where: str) -> None:
    wide = page.evaluate("() => document.documentElement.scrollWidth")
    assert wide <= 390, f"{where} scrolls sideways at 390 px ({wide} px wide)"


def play_both(tabs: list[Tab], limit_s: float = 150) -> None:
    """Answer every open Cunegonda panel of both pages until both show the result."""
    counts: list[dict[str, int]] = [{} for _ in tabs]
    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        acted = False
        over = 0
        for tab, count in zip(tabs, counts, strict=True):
            where = ".hand-box .panel[data-kind]"
            seen = next_panel(tab.page, where, 0)  # one look (both pages are driven in turn)
            if seen is None:
                continue
            over += bool(seen["over"])  # the page shows the result
            if seen["kind"] is None:
                continue
            kind, panel = seen["kind"], tab.page.locator(where).first
            if kind in ("pass", "play"):
                acted = cunegonda_step(tab.page, kind, panel, count) or acted
        if over == len(tabs):
            return
        if not acted:
            time.sleep(0.05)
    raise AssertionError(f"the game did not end within {limit_s} s: {counts}")


def stored_ratings(web: WebServer) -> dict[tuple[str, str, str], tuple[Any, ...]]:
    store = web.app.state.store
    with store.engine.connect() as conn:
        rows = conn.execute(
            select(
                players.c.name,
                ratings.c.game,
                ratings.c.rules,
                ratings.c.mu,
                ratings.c.sigma,
                ratings.c.games,
                ratings.c.wins,
            ).join(players, players.c.id == ratings.c.player_id)
        ).all()
    return {(r[0], r[1], r[2]): tuple(r[3:]) for r in rows}


def test_two_people_play_rated_then_play_again(browser: Any, web: WebServer) -> None:
    ada, bea = open_tab(browser), open_tab(browser)
    try:
        ada.page.goto(web.url + "/signin")
        ada.page.locator("form[aria-labelledby=signup-h]").wait_for()
        found = axe_violations(ada, "sign-in page")
        shot_pair(ada, "signin")
        sign_up(ada, web, "Ada")
        sign_up(bea, web, "Bea")
        # the session cookie: HttpOnly (JavaScript cannot read it), SameSite=Strict
        cookies = {c["name"]: c for c in ada.page.context.cookies()}
        session = cookies["ct_session"]
        assert session["httpOnly"] is True and session["sameSite"] == "Strict"
        readable = ada.page.evaluate("() => document.cookie")
        assert "ct_session" not in readable and session["value"] not in readable
        assert "ct_csrf" in readable  # the double-submit token is meant to be read
        # Ada opens a rated private table: Cunegonda, one round, two house bots
        page = ada.page
        form = page.locator("form[aria-labelledby=priv-h]")
        form.get_by_label("Game", exact=True).select_option("cunegonda")
        form.get_by_label("Rounds in the match").fill("1")
        form.get_by_label("House bots at the table").fill("2")
        form.get_by_label("House bot strength").select_option("random")
        form.get_by_label("List the open seats in the lobby").uncheck()
        form.get_by_label("Rated game", exact=False).check()
        form.get_by_role("button", name="Create the table").click()
        waiting = page.locator(".waiting-table")
        waiting.get_by_text("rated", exact=True).wait_for()
        link = waiting.locator("a[data-invite-link]").get_attribute("href")
        assert link and "/?invite=" in link
        # Bea follows the invite link: the lobby connects her and joins the table
        bea.page.goto(link)
        ada.page.wait_for_url("**/table/*")
        bea.page.wait_for_url("**/table/*")
        first = ada.page.url.rsplit("/", 1)[1]
        assert bea.page.url.endswith(first)
        play_both([ada, bea])
        ada.page.locator("[data-again]").wait_for()
        shot_pair(ada, "play-again")
        detail = LOOPBACK.get(f"{web.url}/api/games/{first}").json()
        assert detail["rated"] is True and detail["status"] == "finished"
        seats = {s["name"]: s for s in detail["seats_detail"]}
        assert seats["Ada"]["kind"] == "person" and seats["Ada"]["rating_after"] is not None
        # play again: Ada asks, the page says it waits for Bea; Bea confirms; a new table
        ada.page.locator("[data-again]").click()
        ada.page.get_by_text("Waiting for 1 more player").wait_for()
        bea.page.locator("[data-again]").click()
        ada.page.wait_for_url(lambda url: "/table/" in url and not url.endswith(first))
        bea.page.wait_for_url(lambda url: "/table/" in url and not url.endswith(first))
        second = ada.page.url.rsplit("/", 1)[1]
        assert bea.page.url.endswith(second)
        again = LOOPBACK.get(f"{web.url}/api/games/{second}").json()
        assert sorted(again["names"]) == sorted(detail["names"])
        assert again["rated"] is True and again["rules_label"] == BOARD
        assert again["rules"] == detail["rules"]  # (a preset's name: none here)
        # a reload at the new table: the page says hello as Bea (the cookie) and resumes
        welcomes = len([m for m in bea.messages() if m.get("type") == "welcome"])
        bea.page.reload()
        deadline = time.monotonic() + patience(15)
        while len([m for m in bea.messages() if m.get("type") == "welcome"]) == welcomes:
            assert time.monotonic() < deadline, "no welcome after the reload"
            bea.page.wait_for_timeout(100)
        welcome = [m for m in bea.messages() if m.get("type") == "welcome"][-1]
        assert welcome["you"] == {"name": "Bea", "kind": "person"}
        assert welcome["games"] == [second]
        # the page sends its resume after it read the welcome: an idle run read the sent frames
        # between the two (the resume was in them a moment later)
        while not any(m.get("type") == "resume" for m in bea.messages(sent=True)):
            assert time.monotonic() < deadline, "no resume after the welcome"
            bea.page.wait_for_timeout(50)
        # both see their new rating on their profile and on the leaderboard
        for tab, name in ((ada, "Ada"), (bea, "Bea")):
            rating = seats[name]["rating_after"]
            tab.page.goto(f"{web.url}/players/{name}")
            row = tab.page.locator(f'tr[data-board="cunegonda/{BOARD}"]')
            row.wait_for()
            shown = row.locator("td.rating").inner_text()
            assert re.fullmatch(r"-?\d+\.\d\d", shown) and shows_number(shown, rating), shown
            assert tab.page.locator("svg.chart").count() == 1
            assert tab.page.locator(".win-share li").count() == 1
            tab.page.goto(f"{web.url}/leaderboard?game=cunegonda&rules={quote(BOARD)}&kind=people")
            entry = tab.page.locator("table.leaderboard tbody tr", has_text=name)
            entry.wait_for()
            assert shows_number(entry.inner_text(), rating), (rating, entry.inner_text())
            assert tab.page.locator("table.leaderboard tbody tr").count() == 2  # people only
        page = ada.page
        page.goto(f"{web.url}/players/Ada")
        page.locator(".win-share").wait_for()
        frames(page)
        found += axe_violations(ada, "profile")
        shot_pair(ada, "profile")
        page.set_viewport_size({"width": 390, "height": 844})
        frames(page)
        no_sideways_scrolling(page, "profile")
        page.goto(web.url + "/signin")
        page.locator("#out-h").wait_for()
        found += axe_violations(ada, "account page")
        no_sideways_scrolling(page, "account page")
        assert not found, "\n".join(found)
        assert not ada.errors and not bea.errors, ada.errors + bea.errors
    finally:
        ada.close()
        bea.close()
    # stored ratings of people == `cardtable ratings recompute`. The second game cannot end
    # meanwhile: each of its tricks waits for both people, whose pages left it (the server keeps
    # a person's open decision for the grace period, 30 s, before the house bot answers)
    before = stored_ratings(web)
    assert ("Ada", "cunegonda", BOARD) in before
    done = subprocess.run(
        [CARDTABLE, "ratings", "recompute", "--db", web.settings.db],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert stored_ratings(web) == before


def test_sign_in_refuses_and_throttles_in_the_page(browser: Any, tmp_path: Path) -> None:
    # a wrong password makes the name wait 30 s from this address: the right one is refused
    with run_server(tmp_path, sign_in_backoff_s=30.0) as web:
        tab = open_tab(browser, width=390, height=844)
        try:
            sign_up(tab, web, "Carla")
            page = tab.page
            page.goto(web.url + "/signin")
            page.get_by_role("button", name="Sign out", exact=True).click()
            page.wait_for_url(web.url + "/")
            page.goto(web.url + "/signin")
            form = page.locator("form[aria-labelledby=signin-h]")
            form.get_by_label("Name").fill("Carla")
            form.get_by_label("Password").fill("not the password")
            form.get_by_role("button", name="Sign in").click()
            page.get_by_text("unknown name or wrong password").wait_for()
            form.get_by_label("Password").fill("Carla plays cows")
            form.get_by_role("button", name="Sign in").click()
            page.get_by_text("Too many wrong passwords: try again in").wait_for()
            no_sideways_scrolling(page, "sign-in page")
            assert not tab.errors, tab.errors
        finally:
            tab.close()
