"""The lobby keeps a player's choices (issue #20). The lobby is drawn again whenever the session
changes (signed in, signed out, a table opened); before this, a redraw between choosing a rule set
and pressing "Play now" put the form back at its defaults, and a person who chose the duel found
themselves in a classic game (CI saw it: 67 bids and no division in "a whole duel"). The choices
also come back on the next visit, as Board Game Arena's table options do."""

from __future__ import annotations

import pytest
from browser_helpers import Tab, WebServer, choose, sign_in

pytestmark = pytest.mark.timeout(120)

QUICK = "form[aria-labelledby=quick-h]"
PRIVATE = "form[aria-labelledby=priv-h]"


def _values(tab: Tab, form: str) -> dict[str, str]:
    f = tab.page.locator(form)
    return {
        "game": f.get_by_label("Game", exact=True).input_value(),
        "rules": f.get_by_label("Rule set", exact=True).input_value(),
        "seats": f.get_by_label("Seats", exact=True).input_value(),
        "strength": f.get_by_label("House bot strength", exact=True).input_value(),
    }


def test_lobby_choices_survive_a_redraw_and_a_reload(tab: Tab, server: WebServer) -> None:
    sign_in(tab, server, "Greta")
    page = tab.page
    defaults = _values(tab, QUICK)
    assert defaults["rules"] == "classic", defaults
    choose(page, QUICK, "Rule set", "master-duel")
    choose(page, QUICK, "House bot strength", "random")
    assert _values(tab, QUICK)["seats"] == "2"  # the duel has two seats
    choose(page, PRIVATE, "Rule set", "master")
    page.locator(PRIVATE).get_by_label("Seats", exact=True).fill("5")
    chosen = _values(tab, QUICK), _values(tab, PRIVATE)

    # a redraw: signing out and in again draws both forms anew
    page.get_by_role("button", name="Sign out").click()
    sign_in(tab, server, "Greta")
    assert (_values(tab, QUICK), _values(tab, PRIVATE)) == chosen

    # and the next visit
    page.reload()
    page.locator(PRIVATE).wait_for(timeout=45000)
    assert (_values(tab, QUICK), _values(tab, PRIVATE)) == chosen
    duel = {"game": "kuhhandel", "rules": "master-duel", "seats": "2", "strength": "random"}
    assert chosen[0] == duel
    assert chosen[1]["rules"] == "master" and chosen[1]["seats"] == "5"

    # a choice the server no longer offers falls back to the default instead of breaking the form
    page.evaluate(
        """() => localStorage.setItem("cardtable.lobby.choices",
             JSON.stringify({quick: {game: "chess", rules: "blitz", strength: "deep-blue"}}))"""
    )
    page.reload()
    page.locator(PRIVATE).wait_for(timeout=45000)
    after = _values(tab, QUICK)
    assert after["game"] == "kuhhandel" and after["rules"] == "classic", after
    assert after["strength"] == defaults["strength"], after
    assert not tab.errors, tab.errors
