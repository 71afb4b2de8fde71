"""Accessibility (issue #20): axe-core, injected into the real pages, reports no serious or
critical violation on the lobby, a Kuhhandel table, a Cunegonda table, a replay and the
leaderboard, and (issue #28) a bot's page and a replay with a seat's view at a decision open.

axe-core is vendored (tests/web/vendor/axe.min.js, version and licence in vendor/README.md), so
the test runs offline."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browser_helpers import (
    Tab,
    WebServer,
    choose,
    frames,
    game_id_of,
    in_thread,
    open_tab,
    sign_in,
)

from cardtable.client import play
from loopback import LOOPBACK

pytestmark = pytest.mark.timeout(180)

AXE = Path(__file__).resolve().parent / "vendor" / "axe.min.js"
#: The impacts that fail the test (axe's scale: minor, moderate, serious, critical).
FAILING = ("serious", "critical")


def axe_violations(tab: Tab, where: str) -> list[str]:
    """Run axe-core on the page as it is now; one line per serious or critical violation."""
    page = tab.page
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(path=str(AXE))
    results = page.evaluate(
        """async () => {
            const r = await axe.run(document, { resultTypes: ["violations"] });
            return r.violations.map((v) => ({
                id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.map((n) => n.target.join(" ") + " :: " + n.failureSummary)
                    .slice(0, 4),
            }));
        }"""
    )
    return [
        f"{where}: {v['impact']} {v['id']} ({v['help']}): {v['nodes']}"
        for v in results
        if v["impact"] in FAILING
    ]


def test_axe_lobby_and_leaderboard(tab: Tab, server: WebServer) -> None:
    page = tab.page
    page.goto(server.url + "/")
    page.locator("#you-h").wait_for()
    found = axe_violations(tab, "lobby (signed out)")
    sign_in(tab, server, "Axel", go=False)  # on the page checked signed out (no second load)
    page.locator("form[aria-labelledby=quick-h]").wait_for()
    found += axe_violations(tab, "lobby")
    page.goto(server.url + "/leaderboard")
    page.locator("#lb-rules option").first.wait_for(state="attached")
    # the board is drawn (the address names it then) and, when it has entries, its chart
    page.wait_for_function(
        "() => new URLSearchParams(location.search).has('rules')"
        " && (document.querySelector('.chart-box').childElementCount > 0"
        " || !document.querySelector('table.leaderboard'))"
    )
    found += axe_violations(tab, "leaderboard")
    page.goto(server.url + "/register")
    page.get_by_label("Bot name").wait_for()
    found += axe_violations(tab, "register")
    page.goto(server.url + "/docs-pages/web")
    page.locator("article h1").wait_for()
    found += axe_violations(tab, "docs")
    assert not found, "\n".join(found)


def _practice(tab: Tab, server: WebServer, name: str, game: str) -> str:
    sign_in(tab, server, name)
    page = tab.page
    form = "form[aria-labelledby=quick-h]"
    choose(page, form, "Game", game)
    choose(page, form, "House bot strength", "random")
    if game == "cunegonda":
        page.locator(form).get_by_label("Rounds in the match").fill("1")
    page.locator(form).get_by_role("button", name="Play now").click()
    return game_id_of(tab)


def test_axe_kuhhandel_table_and_its_replay(browser: Any, server: WebServer) -> None:
    tab = open_tab(browser)
    page = tab.page
    try:
        game_id = _practice(tab, server, "Axa", "kuhhandel")
        page.locator(".actions .panel").first.wait_for()
        frames(page)
        found = axe_violations(tab, "Kuhhandel table")
        page.goto(f"{server.url}/watch/{game_id}")
        page.locator(".kh-board").wait_for()
        found += axe_violations(tab, "Kuhhandel spectator")
        assert not found, "\n".join(found)
    finally:
        tab.close()


def test_axe_cunegonda_table(browser: Any, server: WebServer) -> None:
    tab = open_tab(browser)
    page = tab.page
    try:
        _practice(tab, server, "Axo", "cunegonda")
        page.locator(".hand-box button").first.wait_for()
        frames(page)
        found = axe_violations(tab, "Cunegonda table")
        assert not found, "\n".join(found)
    finally:
        tab.close()


def test_axe_replay(tab: Tab, server: WebServer) -> None:
    """A replay of any ended game on this server (the web tests play several), else one played
    by our client now."""
    games = LOOPBACK.get(f"{server.url}/api/games?status=finished&limit=5").json()
    if not games["games"]:
        in_thread(
            lambda: play(
                server.url.replace("http", "ws") + "/ws",
                None,
                None,
                "random",
                lobby="practice",
                game="cunegonda",
                rules="short",
                seats=4,
                opponents="random",
                guest="axe-guest",
            )
        )
        games = LOOPBACK.get(f"{server.url}/api/games?status=finished&limit=5").json()
    page = tab.page
    page.goto(server.url + "/replay")
    page.locator("table.games").wait_for()
    found = axe_violations(tab, "replay list")
    page.goto(f"{server.url}/replay/{games['games'][0]['id']}?at=12")
    page.locator("nav[aria-label=Moves] [aria-current=step]").wait_for()
    found += axe_violations(tab, "replay")
    page.locator("body").press("End")
    found += axe_violations(tab, "replay at the end")
    assert not found, "\n".join(found)


def test_axe_bot_page_and_a_seats_view(tab: Tab, server: WebServer) -> None:
    """The bot page of a bot with faults (it raises on every decision; practice, so its
    client's fallback answers) and its replay with the seat's view at a fault open."""
    bots = Path(__file__).resolve().parents[1] / "client" / "faulty_bots.py"
    name = "axe-raiser"
    token = LOOPBACK.post(f"{server.url}/api/bots", json={"name": name}).json()["token"]
    in_thread(
        lambda: play(
            server.url.replace("http", "ws") + "/ws",
            name,
            token,
            f"{bots}:Raises",
            lobby="practice",
            game="kuhhandel",
            rules="classic",
            seats=3,
            opponents="random",
        )
    )
    page = tab.page
    page.goto(f"{server.url}/bots/{name}")
    page.locator(".fault-kind[data-code=raised] li.fault").first.wait_for()
    found = axe_violations(tab, "bot page")
    page.locator(".fault-kind li.fault").first.get_by_role("link", name="See the decision").click()
    page.locator(".seat-view .sv-fault").wait_for()
    found += axe_violations(tab, "replay with a seat's view")
    assert not found, "\n".join(found)
