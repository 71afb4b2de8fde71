"""A person plays whole games through the page against house bots, to the end.

The driver below only clicks what the page offers (buttons of the open decision panel), so a
game that ends with no fault on the person's seat shows that every offered choice was legal and
that the page always showed what could be done next.
"""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest
from browser_helpers import Tab, WebServer, shot

pytestmark = pytest.mark.timeout(240)


def sign_in(tab: Tab, server: WebServer, name: str) -> None:
    page = tab.page
    page.goto(server.url + "/")
    page.get_by_label("Display name").fill(name)
    page.get_by_role("button", name="Play as a guest").click()
    page.get_by_text(f"Playing as {name}").wait_for()


def choose(page: Any, form: str, label: str, value: str) -> None:
    page.locator(form).get_by_label(label, exact=True).select_option(value)


def game_id_of(tab: Tab) -> str:
    tab.page.wait_for_url("**/table/*")
    return tab.page.url.rsplit("/", 1)[1]


def _click(locator: Any) -> bool:
    """Click if the control is still there (a panel can vanish when the game moves on)."""
    try:
        locator.click(timeout=1500)
        return True
    except Exception:
        return False


def kuhhandel_step(page: Any, kind: str, panel: Any, counts: dict[str, int]) -> bool:
    """One decision of a simple but complete player, using only what the panel offers."""
    counts[kind] = counts.get(kind, 0) + 1
    if kind == "turn":
        auction = panel.locator('button[data-action*="auction"], button[data-action*="draw"]')
        if auction.count():
            return _click(auction.first)
        return _click(panel.locator("button.trade-choice").first)
    if kind == "bid":
        quick = panel.locator('button[data-action*="\\"bid\\""]')
        if quick.count() and counts[kind] % 3 == 0:
            return _click(quick.first)
        return _click(panel.get_by_role("button", name="Pass", exact=True))
    if kind in ("offer", "respond"):
        if kind == "respond" and counts[kind] % 2 == 0:
            return _click(panel.locator("button.primary").first)
        toggles = panel.locator("button.note.toggle")
        if toggles.count():
            _click(toggles.last)
        return _click(panel.locator("button[data-picker-send]"))
    if kind == "claim":
        return _click(panel.get_by_role("button", name="Don't claim"))
    if kind == "rat":
        return _click(panel.locator("button").first)
    return _click(panel.locator("button.primary").first)


def play_until_over(tab: Tab, step: Any, *, limit_s: float, shots: dict[str, str] | None = None):
    """Answer every decision panel until the result shows; returns the decision counts."""
    page = tab.page
    counts: dict[str, int] = {}
    shots = dict(shots or {})
    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        if page.locator(".result").count():
            return counts
        panel = page.locator(".actions .panel, .hand-box .panel[data-kind]").first
        try:
            panel.wait_for(timeout=3000)
        except Exception:
            continue
        kind = panel.get_attribute("data-kind") or ""
        if kind in shots:
            page.wait_for_timeout(300)
            shot(tab, shots.pop(kind))
        step(page, kind, panel, counts)
    raise AssertionError(f"the game did not end within {limit_s} s; decisions so far {counts}")


def assert_only_offered_choices(tab: Tab) -> None:
    """Every action the page sent answers an open request of this seat, and when the request
    listed its choices, the action is one of them."""
    requests = {m["request_id"]: m for m in tab.messages() if m.get("type") == "request"}
    actions = [m for m in tab.messages(sent=True) if m.get("type") == "action"]
    assert actions
    for m in actions:
        req = requests[m["request_id"]]["request"]
        if req["choices"] is not None:
            assert m["action"] in req["choices"], (m["action"], req)


def seat_faults(server: WebServer, game_id: str, name: str) -> dict[str, Any]:
    detail = httpx.get(f"{server.url}/api/games/{game_id}", timeout=10).json()
    assert detail["status"] == "finished", detail["status"]
    (seat,) = [s for s in detail["seats_detail"] if s["name"] == name]
    return {"detail": detail, "seat": seat}


def test_a_person_plays_a_whole_classic_kuhhandel_game(tab: Tab, server: WebServer) -> None:
    sign_in(tab, server, "Ann")
    page = tab.page
    form = "form[aria-labelledby=quick-h]"
    choose(page, form, "Game", "kuhhandel")
    choose(page, form, "Rule set", "classic")
    page.locator(form).get_by_label("Seats").fill("3")
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


def cunegonda_step(page: Any, kind: str, panel: Any, counts: dict[str, int]) -> bool:
    counts[kind] = counts.get(kind, 0) + 1
    if kind == "pass":
        cards = panel.locator("button.card-button")
        for i in range(3):
            _click(cards.nth(i))
        return _click(panel.locator("button[data-pass-send]"))
    if kind == "play":
        playable = panel.locator("button.card-button:not([disabled])")
        return _click(playable.first)
    return False


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
