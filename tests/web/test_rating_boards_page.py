"""The leaderboard page offers the board of every rated game, by the name the games list gives it
(issue 37 item 7): a person plays a rated one-round Cunegonda match from the lobby, and the
leaderboard's rule set list offers "standard (1 round)", the games list's name for it, with the
person on that board; its rating chart of one game is drawn over a day, its date said once."""

from __future__ import annotations

from typing import Any

import pytest
from browser_helpers import WebServer, choose, cunegonda_step, game_id_of, open_tab, play_until_over
from test_accounts_web import sign_up

from loopback import LOOPBACK

pytestmark = pytest.mark.timeout(180)


def test_a_rated_one_round_match_is_on_a_board_the_leaderboard_offers(
    browser: Any, server: WebServer
) -> None:
    tab = open_tab(browser)
    page = tab.page
    sign_up(tab, server, "Ilse")
    page.locator("form[aria-labelledby=quick-h]").wait_for(timeout=45000)
    form = "form[aria-labelledby=quick-h]"
    choose(page, form, "Game", "cunegonda")
    page.locator(form).get_by_label("Rounds in the match").fill("1")
    choose(page, form, "House bot strength", "random")
    page.locator(form).get_by_label("Rated game", exact=False).check()
    page.locator(form).get_by_role("button", name="Play now").click()
    game_id = game_id_of(tab)
    play_until_over(tab, cunegonda_step, limit_s=120)
    listed = LOOPBACK.get(f"{server.url}/api/games?player=Ilse", timeout=10).json()["games"]
    [game] = [g for g in listed if g["id"] == game_id]
    assert game["rated"] and game["rules_label"] == "standard (1 round)"
    page.goto(f"{server.url}/leaderboard?game=cunegonda")
    rules = page.locator("#lb-rules")
    page.wait_for_function(
        "(name) => [...document.querySelectorAll('#lb-rules option')]"
        ".some((o) => o.value === name)",
        arg=game["rules_label"],
    )
    rules.select_option(game["rules_label"])
    page.locator("table.leaderboard").get_by_role("link", name="Ilse").wait_for()
    assert page.locator("table.leaderboard caption").inner_text().endswith("(1 round)")
    # one rated game each: the chart is drawn over a day with its date once, not a dot on a
    # 2-second axis (issue 37 item 9)
    figure = page.locator("figure.chart-figure")
    figure.wait_for()
    assert "first rated game" in figure.locator("figcaption").inner_text()
    # the date in the page's language (Intl), as the browser writes today's date in it
    day = page.evaluate(
        "() => new Intl.DateTimeFormat(document.documentElement.lang).format(new Date())"
    )
    texts = figure.evaluate(
        "(f) => [...f.querySelectorAll('svg text.axis')].map((t) => t.textContent)"
    )
    axis = [t for t in texts if "/" in t or ":" in t]  # the time axis (the others are ratings)
    assert axis == [day], axis
    assert not tab.errors, tab.errors
