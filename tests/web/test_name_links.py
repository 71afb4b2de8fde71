"""Names lead to their pages in the lobby (issue #28): a registered bot's name in the lobby's
list of tables (open seats and running games) links to its page; a guest, who has no page, is
plain text. At the table too (seats and the score table at the end, for a player and a
spectator), opening in a new tab. (The leaderboard, the replay list and header and the bot
page link names too: test_bot_page.py; a tournament's standings: test_tournament_page.py.)"""

from __future__ import annotations

import threading
from typing import Any

import pytest
from browser_helpers import (
    WebServer,
    choose,
    cunegonda_step,
    game_id_of,
    open_tab,
    play_until_over,
    sign_in_new,
)

from cardtable.client import play
from loopback import LOOPBACK

pytestmark = pytest.mark.timeout(120)

BOT = "linked-bot"


def test_the_lobby_links_a_bots_name_to_its_page(browser: Any, server: WebServer) -> None:
    token = LOOPBACK.post(f"{server.url}/api/bots", json={"name": BOT}).json()["token"]
    host = sign_in_new(browser, server, "Lina")
    watcher = open_tab(browser)
    errors: list[BaseException] = []
    thread: threading.Thread | None = None
    try:
        page = host.page
        form = "form[aria-labelledby=priv-h]"
        choose(page, form, "Game", "cunegonda")
        page.locator(form).get_by_label("Rounds in the match").fill("1")
        choose(page, form, "House bot strength", "random")
        page.locator(form).get_by_label("House bots at the table").fill("2")
        page.locator(form).get_by_label("List the open seats in the lobby").check()
        page.locator(form).get_by_role("button", name="Create the table").click()
        invite = page.locator(".invite[data-invite]").inner_text()
        lobby = watcher.page
        lobby.goto(server.url + "/")
        waiting = lobby.locator("ul.tables li", has_text=invite)
        waiting.wait_for()  # the lobby reads /api/tables every 3 s
        assert "Lina" in waiting.inner_text()
        assert waiting.get_by_role("link", name="Lina", exact=True).count() == 0  # no page

        def seat_the_bot() -> None:
            try:
                play(
                    server.url.replace("http", "ws") + "/ws",
                    BOT,
                    token,
                    "random",
                    lobby="private",
                    game="cunegonda",
                    invite=invite,
                )
            except BaseException as exc:  # said below
                errors.append(exc)

        thread = threading.Thread(target=seat_the_bot, daemon=True)
        thread.start()
        game_id = game_id_of(host.tab)
        running = lobby.locator("ul.tables li", has=lobby.locator(f'a[href="/watch/{game_id}"]'))
        link = running.get_by_role("link", name=BOT, exact=True)
        link.wait_for(timeout=15000)
        assert link.get_attribute("href") == f"/bots/{BOT}"
        assert "Lina (person)" in running.inner_text()
        assert running.get_by_role("link", name="Lina", exact=True).count() == 0
        link.click()
        lobby.wait_for_url(f"**/bots/{BOT}")
        lobby.get_by_role("heading", name=BOT).wait_for()
        # at the table: the bot's name on its seat leads to its page in a new tab (following
        # it never leaves the game); the guest's name is plain
        at_table = page.locator(f'.cu-seat .seat-head a[href="/bots/{BOT}"]')
        at_table.wait_for(timeout=15000)
        assert at_table.inner_text() == BOT
        assert at_table.get_attribute("target") == "_blank"
        assert "noopener" in (at_table.get_attribute("rel") or "")
        assert page.locator(".cu-seat .seat-head", has_text="Lina").locator("a").count() == 0
        # a spectator sees the same links, on the board and in the score table at the end
        lobby.goto(f"{server.url}/watch/{game_id}")
        lobby.locator(f'.cu-seat .seat-head a[href="/bots/{BOT}"]').wait_for(timeout=15000)
        assert not watcher.errors and not host.tab.errors, (watcher.errors, host.tab.errors)
        # Lina leaves: the house bot plays her seat and the game ends (no table left running)
        page.once("dialog", lambda dialog: dialog.accept())
        page.get_by_role("button", name="Leave the table").click()
        thread.join(timeout=60)
        assert not thread.is_alive(), "the bot's game did not end"
        assert not errors, errors
        scores = lobby.locator(".result table")
        scores.wait_for(timeout=30000)
        in_scores = scores.locator(f'thead a[href="/bots/{BOT}"]')
        assert in_scores.inner_text() == BOT
        assert in_scores.get_attribute("target") == "_blank"
        assert scores.locator("thead th", has_text="Lina").locator("a").count() == 0
        assert not watcher.errors, watcher.errors
    finally:
        host.close()
        watcher.close()


def test_the_replay_links_names_as_the_table_does(browser: Any, server: WebServer) -> None:
    """The replay's board, its result, its header and the seat's view link each name to the
    page ``game_start.pages`` gave it at the table: a person with an account to /players/NAME
    (the header linked it to /bots/NAME before), a guest or an unrated house bot to none."""
    tab = open_tab(browser)
    try:
        page = tab.page
        page.goto(server.url + "/signin")
        signup = page.locator("form[aria-labelledby=signup-h]")
        signup.get_by_label("Name").fill("Ottilie")
        signup.get_by_label("Password").fill("Rhea plays hearts")
        signup.get_by_role("button", name="Create the account").click()
        page.get_by_text("Playing as Ottilie").wait_for()
        form = "form[aria-labelledby=quick-h]"
        page.locator(form).wait_for(timeout=45000)
        choose(page, form, "Game", "cunegonda")
        page.locator(form).get_by_label("Rounds in the match").fill("1")
        choose(page, form, "House bot strength", "random")
        page.locator(form).get_by_role("button", name="Play now").click()
        game_id = game_id_of(tab)
        play_until_over(tab, cunegonda_step, limit_s=90)
        start = next(m for m in tab.messages() if m.get("type") == "game_start")
        pages = start["pages"]
        me = start["seat"]
        assert pages[me] == "/players/Ottilie", pages
        linked = {s: p for s, p in enumerate(pages) if p}
        page.goto(f"{server.url}/replay/{game_id}")
        page.get_by_text("Move 0 of").wait_for()

        def board_links() -> dict[int, str]:
            return {
                int(s): href
                for s, href in page.locator(".cu-seat").evaluate_all(
                    """els => els.map(e => [e.dataset.seat,
                         e.querySelector('.seat-head a')?.getAttribute('href')])"""
                )
                if href
            }

        assert board_links() == linked
        on_board = page.locator(f'.cu-seat[data-seat="{me}"] .seat-head a')
        assert on_board.get_attribute("target") == "_blank"
        assert "noopener" in (on_board.get_attribute("rel") or "")
        header = page.locator(".table-head p a", has_text="Ottilie")
        assert header.get_attribute("href") == "/players/Ottilie"
        # the end, explained as at the table (round by round), in the game's words
        page.get_by_role("button", name="Last step").click()
        result = page.locator(".result table.rounds-table")
        result.wait_for()
        assert result.locator('a[href="/players/Ottilie"]').inner_text() == "Ottilie"
        assert result.locator("a").count() == len(linked)
        assert "normal" not in page.locator(".result").inner_text()
        assert page.locator("table.match:not(.rounds-table) thead a").count() == len(linked)
        # the seat's view: its title and the board it draws
        page.locator("#sv-seat").select_option(str(me))
        page.locator(".seat-view").get_by_role("button", name="Show", exact=True).click()
        title = page.locator(".sv-title")
        title.wait_for()
        assert title.locator("a").get_attribute("href") == "/players/Ottilie"
        seen = page.locator(f'.sv-board .cu-seat[data-seat="{me}"] .seat-head a')
        assert seen.get_attribute("href") == "/players/Ottilie"
        assert not tab.errors, tab.errors
    finally:
        tab.close()
