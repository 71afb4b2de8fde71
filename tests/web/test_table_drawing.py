"""The table draws move by move without rebuilding itself, in Chromium: the Kuhhandel board is
patched in place (``dom.js`` ``morph``) and the log grows by appending, so what a person looks at
stays put while the game goes on: a seat's box is the same element from move to move (a link in
it keeps the focus, a card flying into it keeps flying), the log's first lines are the same
elements, and a log scrolled back stays where the person left it while new lines arrive below.
The checks fail on the old drawing, which built the board and the log again on every message.

What the drawing costs the browser is measured by ``cardtable bench table`` (docs/performance.md),
not here.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from browser_helpers import (
    Tab,
    WebServer,
    frames,
    open_tab,
    run_server,
)

from cardtable.client.blocking import play
from loopback import LOOPBACK
from patience import patience

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def paced(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    # the people's pace, ten times quicker: the page gets the game move by move
    with run_server(tmp_path_factory.mktemp("drawing"), pace="normal", pace_scale=0.1) as web:
        yield web


@pytest.fixture(scope="module")
def game(paced: WebServer) -> Iterator[str]:
    """A practice game of a random client bot (seated as a guest) against two house bots, watched
    by each test of this module from its own page; it plays to its end (about 40 s)."""
    game_id, player = bot_game(paced, "drawer")
    yield game_id
    # the tests have seen what they watch for: the rest of the game plays without pacing (the
    # table reads the server's pace_scale at every move) instead of keeping the tear-down
    # waiting for half a minute of paced moves nobody looks at
    paced.settings.pace_scale = 0.0
    player.join(timeout=patience(60))
    assert not player.is_alive(), "the bot's game did not end"


def bot_game(server: WebServer, guest: str) -> tuple[str, threading.Thread]:
    url = server.url.replace("http", "ws", 1) + "/ws"
    thread = threading.Thread(
        target=play,
        args=(url, None, None, "random"),
        kwargs={
            "guest": guest,
            "lobby": "practice",
            "game": "kuhhandel",
            "seats": 3,
            "opponents": "heuristic",
        },
        daemon=True,
    )
    thread.start()
    end = time.monotonic() + patience(30)
    while time.monotonic() < end:
        reply = LOOPBACK.get(
            f"{server.url}/api/games", params={"status": "running", "player": guest}
        )
        if reply.status_code == 200 and reply.json()["games"]:
            return str(reply.json()["games"][0]["id"]), thread
        time.sleep(0.1)
    raise AssertionError(f"no game of {guest} started")


def log_count(page: Any) -> int:
    return int(page.evaluate("document.querySelectorAll('.log li').length"))


def wait_for_more_lines(page: Any, than: int, more: int = 15) -> None:
    page.wait_for_function(
        f"document.querySelectorAll('.log li').length >= {than + more}", timeout=60_000
    )


def test_the_watched_board_and_log_are_patched_not_rebuilt(
    browser: Any, paced: WebServer, game: str
) -> None:
    spectator: Tab = open_tab(browser, width=1280, height=800)
    page = spectator.page
    page.goto(f"{paced.url}/watch/{game}")
    page.locator(".kh-board .seat").first.wait_for()
    page.locator(".log li").first.wait_for()
    # keep the elements on screen now, and focus a link of the page's own (the title bar's)
    page.evaluate(
        "window.__kept = {board: document.querySelector('.kh-board'),"
        " seats: [...document.querySelectorAll('.kh-board .seat')],"
        " center: document.querySelector('.kh-center'),"
        " firstLine: document.querySelector('.log li'), list: document.querySelector('.log')}"
    )
    before = log_count(page)
    wait_for_more_lines(page, before)
    kept = page.evaluate(
        "({board: window.__kept.board.isConnected,"
        " seats: window.__kept.seats.map((s) => s.isConnected),"
        " center: window.__kept.center.isConnected,"
        " firstLine: window.__kept.firstLine.isConnected,"
        " list: window.__kept.list.isConnected})"
    )
    assert kept["board"] and kept["center"], f"the board was built again: {kept}"
    assert all(kept["seats"]) and len(kept["seats"]) == 3, f"a seat was built again: {kept}"
    assert kept["list"] and kept["firstLine"], f"the log was built again: {kept}"
    # what the page shows is still the game as it is: the deck count is the newest draw's
    end = time.monotonic() + 10
    while True:
        deck = page.locator(".kh-center .deck-count").inner_text()
        draws = [e["data"]["deck"] for e in spectator.events() if e["kind"] == "draw"]
        if (draws and deck == str(draws[-1])) or time.monotonic() > end:
            break
        page.wait_for_timeout(50)
    assert draws and deck == str(draws[-1]), (deck, draws[-1:])
    assert not spectator.errors, spectator.errors


#: scrolls the log to ``top`` (a number or "end") and tells the page in the same task. The browser
#: dispatches a scroll event at its next frame; a line landing before that frame is drawn as if the
#: person had not scrolled (a one-frame window for a person; beside stress --cpu 2 a frame took
#: long enough for a line to land in it: "scrollTop 745"). The test checks what the page does once
#: it knows of the scroll, not how soon the browser's frame comes.
SCROLL_LOG = (
    "(top) => { const l = document.querySelector('.log');"
    " l.scrollTop = top === 'end' ? l.scrollHeight : top;"
    " l.dispatchEvent(new Event('scroll')); }"
)


def test_a_log_scrolled_back_stays_put_while_lines_arrive(
    browser: Any, paced: WebServer, game: str
) -> None:
    spectator = open_tab(browser, width=1280, height=800)
    page = spectator.page
    page.goto(f"{paced.url}/watch/{game}")
    # enough lines for the log to scroll, and it follows the newest line meanwhile
    page.wait_for_function(
        "(() => { const l = document.querySelector('.log');"
        " return l && l.scrollHeight > l.clientHeight + 200; })()",
        timeout=60_000,
    )
    follows = page.evaluate(
        "(() => { const l = document.querySelector('.log');"
        " return l.scrollTop + l.clientHeight >= l.scrollHeight - 20; })()"
    )
    assert follows, "the log did not keep its newest line in view"
    # the person scrolls back to the top and reads
    page.evaluate(SCROLL_LOG, 0)
    first = page.evaluate("document.querySelector('.log li').textContent")
    before = log_count(page)
    wait_for_more_lines(page, before, more=10)
    after = page.evaluate(
        "(() => { const l = document.querySelector('.log');"
        " return {top: l.scrollTop, first: l.querySelector('li').textContent}; })()"
    )
    assert after["top"] == 0, f"the log jumped while it was being read: scrollTop {after['top']}"
    assert after["first"] == first
    # scrolled to the bottom again, it follows the newest line again
    page.evaluate(SCROLL_LOG, "end")
    again = log_count(page)
    wait_for_more_lines(page, again, more=5)
    frames(page)  # the newest lines are drawn (and scrolled to) in the same frame
    follows = page.evaluate(
        "(() => { const l = document.querySelector('.log');"
        " return l.scrollTop + l.clientHeight >= l.scrollHeight - 20; })()"
    )
    assert follows, "scrolled back down, the log no longer followed the newest line"
    assert not spectator.errors, spectator.errors
