"""Bot registration (the token shown once), the leaderboard with its rating chart after real
ranked games, the docs pages, a phone-sized table and playing by keyboard only."""

from __future__ import annotations

import re
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import (
    Tab,
    WebServer,
    choose,
    frames,
    game_id_of,
    open_tab,
    shot,
    sign_in,
    wait_until,
)
from playwright.sync_api import expect

from cardtable.client import play
from loopback import LOOPBACK

pytestmark = pytest.mark.timeout(180)

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_register_then_leaderboard_shows_the_rating_history(tab: Tab, server: WebServer) -> None:
    page = tab.page
    page.goto(server.url + "/register")
    page.get_by_label("Bot name").fill("web-bot-a")
    page.get_by_role("button", name="Register").click()
    token = page.locator("#bot-token").inner_text()
    assert len(token) >= 20
    assert "shown only this once" in page.locator(".token-box").inner_text()
    # the same name again is refused with a readable reason
    page.get_by_label("Bot name").fill("web-bot-a")
    page.get_by_role("button", name="Register").click()
    page.locator(".error").wait_for()
    assert "Not registered" in page.locator(".error").inner_text()
    assert page.locator("#bot-token").count() == 0  # the token is never shown again

    reply = LOOPBACK.post(f"{server.url}/api/bots", json={"name": "web-bot-b"})
    token_b = reply.json()["token"]
    ws = server.url.replace("http", "ws") + "/ws"
    errors: list[BaseException] = []

    def run(name: str, secret: str, seed: int) -> None:
        try:
            play(ws, name, secret, "random", game="kuhhandel", rules="classic", games=3, seed=seed)
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [
        threading.Thread(target=run, args=("web-bot-a", token, 1)),
        threading.Thread(target=run, args=("web-bot-b", token_b, 2)),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors

    page.goto(server.url + "/leaderboard")
    choose(page, "form", "Game", "kuhhandel")
    choose(page, "form", "Rule set", "classic")
    page.locator("table.leaderboard").wait_for()
    board = page.locator("table.leaderboard").inner_text()
    assert "web-bot-a" in board and "web-bot-b" in board
    chart = page.locator("svg.chart")
    # one point per ranked game (retried: each choice above starts a load that draws the chart)
    expect(chart.locator('g[data-bot="web-bot-a"] circle')).to_have_count(3)
    points = chart.locator('g[data-bot="web-bot-a"] polyline').get_attribute("points") or ""
    assert len(points.split()) == 3
    page.locator(".legend").wait_for()
    shot(tab, "leaderboard")
    assert not tab.errors, tab.errors


def test_a_late_answer_for_an_earlier_choice_does_not_replace_the_board(
    tab: Tab, server: WebServer
) -> None:
    """The board and the address show the last rule set chosen even when the answer for the one
    chosen before it arrives last (a slow network, a busy server)."""
    page = tab.page
    held: list[Any] = []
    classic = re.compile(r"/api/leaderboard\?.*rules=classic")
    page.route(classic, lambda route: route.continue_() if held else held.append(route))
    page.goto(server.url + "/leaderboard?game=kuhhandel&rules=classic")
    wait_until(page, lambda: bool(held), seconds=10, what="the classic board's request")
    choose(page, "form", "Rule set", "competition")
    page.wait_for_url(re.compile(r"rules=competition"))
    board = page.locator("main [aria-live=polite]")
    expect(board).not_to_contain_text("Loading")
    shown = board.inner_text()
    with page.expect_response(lambda r: "rules=classic" in r.url):
        held[0].continue_()
    page.unroute(classic)
    page.wait_for_timeout(500)  # the page's own handling of the late answer
    assert "rules=competition" in page.url
    assert board.inner_text() == shown
    assert not tab.errors, tab.errors


def test_docs_pages_render_the_project_docs(tab: Tab, server: WebServer) -> None:
    page = tab.page
    page.goto(server.url + "/docs-pages")
    links = page.locator(".doc-nav a[href^='/docs-pages/']")
    links.first.wait_for()
    names = [a.get_attribute("href") for a in links.all()]
    assert "/docs-pages/protocol" in names and "/docs-pages/web" in names
    page.goto(server.url + "/docs-pages/web")
    page.locator("article h1").wait_for()
    assert "browser" in page.locator("article h1").inner_text().lower()
    # every screenshot docs/web.md references is shown and served
    referenced = re.findall(r"!\[[^\]]*\]\(screenshots/([^)]+)\)", (DOCS / "web.md").read_text())
    assert len(referenced) >= 10
    images = page.locator("article img.shot")
    assert images.count() == len(referenced)
    for src in [img.get_attribute("src") for img in images.all()]:
        assert LOOPBACK.get(server.url + str(src)).status_code == 200, src
    assert not tab.errors, tab.errors


def test_the_screenshots_of_the_docs_are_in_the_repository() -> None:
    """A fresh checkout has every screenshot docs/web.md shows: the tests take no screenshots
    unless asked (CARDTABLE_WEB_SHOTS=1 into docs/screenshots), so nothing the docs test
    reads may come from an earlier test run."""
    referenced = re.findall(r"!\[[^\]]*\]\(screenshots/([^)]+)\)", (DOCS / "web.md").read_text())
    try:
        listed = subprocess.run(
            ["git", "ls-files", "docs/screenshots"],
            cwd=DOCS.parent,
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        ).stdout.split()
    except (OSError, subprocess.SubprocessError):
        pytest.skip("not a git checkout")
    tracked = {Path(name).name for name in listed}
    assert referenced and set(referenced) <= tracked, set(referenced) - tracked


def sent_actions(tab: Tab) -> int:
    return len([m for m in tab.messages(sent=True) if m.get("type") == "action"])


def test_phone_sized_table_fits_and_plays_by_keyboard(browser: Any, server: WebServer) -> None:
    phone = open_tab(browser, width=390, height=844)
    try:
        sign_in(phone, server, "Gus")
        page = phone.page
        form = "form[aria-labelledby=quick-h]"
        choose(page, form, "Game", "kuhhandel")
        choose(page, form, "House bot strength", "random")
        page.locator(form).get_by_role("button", name="Play now").click()
        game_id_of(phone)
        panel = page.locator(".actions .panel")
        panel.wait_for()
        # no sideways scrolling on a phone
        width = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
        assert width[0] <= width[1], width
        shot(phone, "phone-table")
        # keyboard only: the new decision has the focus; Enter answers it
        for _ in range(6):
            panel = page.locator(".actions .panel").first
            panel.wait_for()
            kind = panel.get_attribute("data-kind")
            focused = page.evaluate("() => document.activeElement?.closest('.actions') != null")
            where = page.evaluate("() => document.activeElement?.outerHTML.slice(0, 120)")
            assert focused, f"the {kind} decision did not take the focus ({where})"
            before = sent_actions(phone)
            amount = panel.locator("input[type=number]")
            if kind == "bid" and amount.count():
                # the bid field has the focus, empty (Enter alone bids nothing): type and Enter
                page.keyboard.type(amount.get_attribute("placeholder") or "")
            page.keyboard.press("Enter")
            wait_until(  # the frame goes out asynchronously
                page,
                lambda before=before: sent_actions(phone) > before,
                seconds=5,
                what=f"the {kind} answer",
            )
            frames(page)  # and nothing more goes out with it
            after = sent_actions(phone)
            assert after == before + 1, (kind, before, after)
        assert not [m for m in phone.messages() if m.get("type") == "rejected"]
        phone.page.once("dialog", lambda dialog: dialog.accept())
        page.get_by_role("button", name="Leave the table").click()
        assert not phone.errors, phone.errors
    finally:
        phone.close()
