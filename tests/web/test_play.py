"""A person plays whole games through the page against house bots, to the end.

The driver (browser_helpers.py) only clicks what the page offers (the buttons of the open
decision panel), so a game that ends with no fault on the person's seat shows that every offered
choice was legal and that the page always showed what could be done next.
"""

from __future__ import annotations

import pytest
from browser_helpers import (
    Tab,
    WebServer,
    assert_only_offered_choices,
    choose,
    cunegonda_step,
    game_id_of,
    kuhhandel_step,
    play_until_over,
    seat_faults,
    shot,
    sign_in,
)

pytestmark = pytest.mark.timeout(240)


def test_a_person_plays_a_whole_classic_kuhhandel_game(tab: Tab, server: WebServer) -> None:
    sign_in(tab, server, "Ann")
    page = tab.page
    form = "form[aria-labelledby=quick-h]"
    choose(page, form, "Game", "kuhhandel")
    choose(page, form, "Rule set", "classic")
    page.locator(form).get_by_label("Seats", exact=True).fill("3")
    choose(page, form, "House bot strength", "heuristic")
    shot(tab, "lobby")
    page.locator(form).get_by_role("button", name="Play now").click()
    game_id = game_id_of(tab)
    counts = play_until_over(
        tab, kuhhandel_step, limit_s=150, shots={"bid": "kuhhandel-auction", "respond": "cow-trade"}
    )
    page.locator(".result").wait_for()
    assert "Final result" in page.locator(".result").inner_text()
    # the whole game was played by the person: many decisions of the main kinds
    assert counts.get("turn", 0) >= 5 and counts.get("bid", 0) >= 5, counts
    info = seat_faults(server, game_id, "Ann")
    assert info["detail"]["termination"] == "normal"
    assert info["seat"]["faults"] == 0, info["detail"].get("faults")
    assert not info["seat"]["taken_over"]
    # no rejection reached the page, and no script error happened
    assert not [m for m in tab.messages() if m.get("type") == "rejected"]
    assert not tab.errors, tab.errors
    assert_only_offered_choices(tab)
    # the log tells the game in plain words
    log = page.locator(".log").inner_text()
    assert "The game ends" in log


def test_a_person_plays_a_whole_cunegonda_match(tab: Tab, server: WebServer) -> None:
    sign_in(tab, server, "Cleo")
    page = tab.page
    form = "form[aria-labelledby=quick-h]"
    choose(page, form, "Game", "cunegonda")
    page.locator(form).get_by_label("Rounds in the match").fill("2")
    choose(page, form, "House bot strength", "heuristic")
    page.locator(form).get_by_role("button", name="Play now").click()
    game_id = game_id_of(tab)
    counts = play_until_over(tab, cunegonda_step, limit_s=120, shots={"play": "cunegonda"})
    assert counts == {"pass": 2, "play": 26}, counts
    table = page.locator("table.match").inner_text()
    assert "Total" in table
    info = seat_faults(server, game_id, "Cleo")
    assert info["seat"]["faults"] == 0
    assert info["detail"]["result"]["termination"] == "normal"
    assert not [m for m in tab.messages() if m.get("type") == "rejected"]
    assert not tab.errors, tab.errors
    assert_only_offered_choices(tab)
