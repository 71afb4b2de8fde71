"""A page whose connection was closed for good says so and gets its seat back on a click.

The server closes a connection with 1008 after an error ("replaced": the same identity said
hello on another connection; a flood), and the page does not reconnect by itself then (two tabs
would take the seat from each other forever). Before, the page kept its decision panel, said
"reconnecting…" and sent nothing, whatever was clicked. Now it says that it is not connected and
why, and "Play here" connects again and resumes the seat, with its open decision.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from browser_helpers import (
    Tab,
    WebServer,
    cunegonda_step,
    open_tab,
    play_until_over,
    seat_faults,
    shot_pair,
    start_game,
)

pytestmark = pytest.mark.timeout(180)


def socket_story(tab: Tab, length: int) -> list[str]:
    """What happened to the page's sockets ("open", "closed"), once ``length`` things did (the
    browser tells Playwright a moment after the page itself knows)."""
    end = time.monotonic() + 10
    while len(tab.sockets) < length and time.monotonic() < end:
        tab.page.wait_for_timeout(50)
    return [s.split()[0] for s in tab.sockets]


def actions_sent(tab: Tab) -> list[dict[str, Any]]:
    return [m for m in tab.messages(sent=True) if m.get("type") == "action"]


def quick_match(tab: Tab, server: WebServer, name: str) -> str:
    """A 1-round Cunegonda match against random house bots, started from the lobby."""
    return start_game(tab, server, name, "cunegonda", rounds="1", bots="random")


def test_a_page_whose_seat_another_tab_took_says_so_and_plays_on(
    tab: Tab, server: WebServer
) -> None:
    game_id = quick_match(tab, server, "Otto")
    page = tab.page
    panel = page.locator('.hand-box .panel[data-kind="pass"]')
    panel.wait_for()
    # another tab of this browser opens the table: the same identity says hello, and the
    # server closes this page's connection ("replaced", then 1008)
    other = page.context.new_page()
    try:
        other.goto(f"{server.url}/table/{game_id}")
        other.locator('.hand-box .panel[data-kind="pass"]').wait_for()
        lost = page.locator(".connection-lost")
        lost.wait_for()
        assert "another tab" in lost.inner_text(), lost.inner_text()
        assert socket_story(tab, 2) == ["open", "closed"], tab.sockets
        # the person goes back to the first tab (a background tab draws no frames, and the
        # table draws on animation frames): the panel is still on screen; passing from it says
        # why nothing happens
        page.bring_to_front()
        cunegonda_step(page, "pass", panel, {})
        # polled by time, not by animation frames (the other tab may take the front again)
        page.wait_for_function(
            "() => (window.__toasts || []).some((t) => t.includes('reconnect first'))",
            polling=100,
        )
        assert not actions_sent(tab)
        shot_pair(tab, "connection-lost")
    finally:
        other.close()
    page.get_by_role("button", name="Play here").click()
    lost.wait_for(state="detached")
    assert socket_story(tab, 3) == ["open", "closed", "open"], tab.sockets
    # the seat's open decision is back on this page: the match goes on to the end from here
    play_until_over(tab, cunegonda_step, limit_s=90)
    passes = [m for m in actions_sent(tab) if "pass" in m["action"]]
    assert len(passes) == 1, passes
    assert seat_faults(server, game_id, "Otto")["seat"]["faults"] == 0
    assert not tab.errors, tab.errors


def test_a_page_that_reconnects_after_the_game_ended_says_so(tab: Tab, server: WebServer) -> None:
    """The other tab plays the match to its end; *Play here* on the first page then connects,
    finds no game waiting for it and says so (no decision panel left to click)."""
    game_id = quick_match(tab, server, "Olga")
    page = tab.page
    page.locator('.hand-box .panel[data-kind="pass"]').wait_for()
    other = page.context.new_page()
    try:
        other.goto(f"{server.url}/table/{game_id}")
        page.locator(".connection-lost").wait_for()
        play_until_over(Tab(other), cunegonda_step, limit_s=90)
    finally:
        other.close()
    page.get_by_role("button", name="Play here").click()
    page.get_by_text("this game no longer waits for you").wait_for()
    assert page.locator(".panel[data-kind]").count() == 0
    assert not actions_sent(tab)
    assert not tab.errors, tab.errors


def test_a_slow_account_answer_does_not_open_a_second_connection(
    tab: Tab, server: WebServer
) -> None:
    """The lobby asks ``/api/account`` who is signed in before it connects a saved identity. On
    a loaded machine the answer came after the person had already signed in as a guest, and the
    lobby then said hello a second time with the identity just saved: the server replaced the
    first connection (seen in CI as three hellos where a reload should make two). Here the
    answer is held until the guest is in."""
    page = tab.page
    held: list[Any] = []
    page.route("**/api/account", lambda route: held.append(route))
    page.goto(server.url + "/")
    page.get_by_label("Display name").fill("Ines")
    page.get_by_role("button", name="Play as a guest").click()
    page.get_by_text("Playing as Ines").wait_for()
    end = time.monotonic() + 10
    while not held and time.monotonic() < end:
        page.wait_for_timeout(50)
    assert held, "the lobby did not ask /api/account"
    for route in held:
        route.continue_()
    page.unroute("**/api/account")
    page.wait_for_timeout(1500)  # the lobby's answer arrives and is acted on
    hellos = [m for m in tab.messages(sent=True) if m.get("type") == "hello"]
    assert len(hellos) == 1, hellos
    assert socket_story(tab, 1) == ["open"], tab.sockets
    page.locator("form[aria-labelledby=priv-h]").wait_for()
    assert not tab.errors, tab.errors


@pytest.mark.parametrize("width,height", [(1280, 800), (390, 844)])
def test_the_lobby_does_not_move_when_the_account_answer_comes(
    browser: Any, server: WebServer, width: int, height: int
) -> None:
    """The lobby's forms stay where they are when ``/api/account`` answers: a line of about the
    answer's length holds its place. Before, the answer pushed the forms down by a line or two
    as it came, and a click made at that moment (CI: on the bot sign-in's summary) landed
    elsewhere. Desktop and phone width (where the answer takes two lines)."""
    tab = open_tab(browser, width=width, height=height)
    page = tab.page
    held: list[Any] = []
    page.route("**/api/account", lambda route: held.append(route))
    page.goto(server.url + "/")
    summary = page.get_by_text("Play with a registered bot's name and token")
    summary.wait_for()
    end = time.monotonic() + 10
    while not held and time.monotonic() < end:
        page.wait_for_timeout(50)
    assert held, "the lobby did not ask /api/account"
    before = summary.bounding_box()
    for route in held:
        route.continue_()
    page.unroute("**/api/account")
    page.get_by_text("Sign in or create an account").wait_for()
    after = summary.bounding_box()
    assert before is not None and after is not None
    assert after["y"] == before["y"], f"the forms moved by {after['y'] - before['y']} px"
    assert not tab.errors, tab.errors
    tab.close()
