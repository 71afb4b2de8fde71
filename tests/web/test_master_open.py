"""Master's pedigree countdown (a click at count c sends Claim(c)) and the open auction of a
private table (live bids, "going once, going twice, sold" when nobody bids for the quiet period
chosen in the lobby)."""

from __future__ import annotations

from typing import Any

import pytest
from browser_helpers import (
    Tab,
    WebServer,
    choose,
    game_id_of,
    kuhhandel_step,
    play_until_over,
    shot,
    sign_in,
    start_game,
)

pytestmark = pytest.mark.timeout(180)


def test_master_pedigree_countdown_claims_at_the_clicked_count(tab: Tab, server: WebServer) -> None:
    start_game(tab, server, "Eve", "kuhhandel", rules="master", seats="3", bots="random")
    page = tab.page
    play_until_over(tab, kuhhandel_step, limit_s=90, stop_at="claim")
    panel = page.locator(".actions .panel[data-kind=claim]")
    panel.wait_for()
    request = [m for m in tab.messages() if m.get("type") == "request"][-1]["request"]
    assert request["kind"] == "claim"
    most = max(c["count"] for c in request["choices"])
    start = request["info"]["from"]
    count = panel.locator(".count")
    assert count.inner_text() == str(start)
    # the count goes down once a second; wait until a count this seat may claim at
    target = min(most, start - 2)
    assert target >= 1, "the seat holds no note to claim with"
    page.wait_for_function(
        "t => Number(document.querySelector('.panel[data-kind=claim] .count').textContent) <= t",
        arg=target,
        timeout=15000,
    )
    shot(tab, "master-countdown")
    button = panel.locator("button[data-claim='1']")
    shown = int(count.inner_text())
    button.click()
    claims = [
        m["action"]
        for m in tab.messages(sent=True)
        if m.get("type") == "action" and m["action"].get("kind") == "claim"
    ]
    assert claims and claims[-1]["kind"] == "claim"
    # sent at the count shown when clicked (or the next tick, if the click raced the second)
    assert claims[-1]["count"] in (shown, shown - 1), (claims[-1], shown)
    assert 1 <= claims[-1]["count"] <= most
    page.locator(".actions .panel[data-kind=claim]").wait_for(state="detached")
    assert not [m for m in tab.messages() if m.get("type") == "rejected"]
    tab.page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Leave the table").click()
    assert not tab.errors, tab.errors


def test_open_auction_goes_once_twice_sold_after_the_quiet_period(
    tab: Tab, server: WebServer, browser: Any
) -> None:
    sign_in(tab, server, "Finn")
    page = tab.page
    form = "form[aria-labelledby=priv-h]"
    choose(page, form, "Game", "kuhhandel")
    choose(page, form, "Rule set", "classic")
    page.locator(form).get_by_label("Seats", exact=True).fill("3")
    choose(page, form, "House bot strength", "random")
    page.locator(form).get_by_label("Open auction", exact=False).check()
    page.locator(form).get_by_label("Auction quiet period (seconds)").fill("3")
    page.locator(form).get_by_label("House bots at the table").fill("2")
    page.locator(form).get_by_role("button", name="Create the table").click()
    game_id_of(tab)
    # wait for an auction where the person may bid (a bot auctions) and let it close by itself
    end_phase = False
    for _ in range(40):
        play_until_over(tab, kuhhandel_step, limit_s=30, stop_at="bid")
        panel = page.locator(".actions .panel[data-kind=bid]")
        if panel.count():
            break
        end_phase = True
    assert not end_phase or panel.count()
    going = page.locator(".going-line")
    going.wait_for()
    page.wait_for_function(
        "() => /Going (once|twice)/.test(document.querySelector('.going-line').textContent)",
        timeout=5000,
    )
    shot(tab, "open-auction")
    # nobody bids: the server's quiet clock closes the auction; the log says so
    page.wait_for_function(
        "() => [...document.querySelectorAll('.log li')].some("
        "li => /Going once, going twice, sold|Nobody bids/.test(li.textContent))",
        timeout=10000,
    )
    starts = [m for m in tab.messages() if m.get("type") == "game_start"]
    assert starts[-1]["rules"]["auction_style"] == "open"
    optional = [m for m in tab.messages() if m.get("type") == "request" and m.get("optional")]
    assert optional and optional[0]["deadline_ms"] == 3000
    assert not tab.errors, tab.errors
    tab.page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Leave the table").click()
