"""The board after a Kuhhandel game is over speaks of the end, not of a game going on (issue 37,
item 9): a seat that ended without an animal reads "no animals", never "no animals yet".

A private table of five seats plays a custom rule set with one species (four chickens): five
seats, four cards, so at least one seat ends the game with no animal, whatever the bots do. The
person plays through the page (Chromium), a guest on the wire and three house bots fill the
table. On the code before (``kuhhandel.js`` wrote "no animals yet" whatever the phase), the
final board said "no animals yet" under every seat left without one.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest
from browser_helpers import Tab, WebServer, game_id_of, kuhhandel_step, play_until_over, sign_in

from cardtable.core import game_spec
from patience import patience
from server.wire import Wire, play_until_end

pytestmark = pytest.mark.timeout(240)


def four_chickens() -> dict[str, Any]:
    """The classic rule set with one species: four chickens, one auction each."""
    rules = game_spec("kuhhandel").resolve_rules("classic").to_json()
    rules["species"] = rules["species"][:1]
    rules["name"] = "four chickens"
    return dict(rules)


def test_the_final_board_says_no_animals_not_no_animals_yet(tab: Tab, server: WebServer) -> None:
    ws = server.url.replace("http://", "ws://") + "/ws"
    with Wire(ws) as host:
        host.hello_guest("Hosta")
        create = {"rules": four_chickens(), "seats": 5, "bots": ["random"] * 3}
        host.send({"type": "join", "lobby": "private", "game": "kuhhandel", "create": create})
        invite = host.expect("table")["invite"]
        page = tab.page
        sign_in(tab, server, "Nina")
        page.get_by_label("Invite code", exact=True).fill(invite)
        page.get_by_role("button", name="Join", exact=True).click()
        game_id = game_id_of(tab)
        ended: list[dict[str, Any]] = []
        player = threading.Thread(
            target=lambda: ended.append(play_until_end(host, "kuhhandel", timeout=120))
        )
        player.start()
        play_until_over(tab, kuhhandel_step, limit_s=120)
        player.join(patience(130))
        assert ended and ended[0]["game_id"] == game_id, ended
    # five seats, four chickens: someone ended without an animal, and the board says so as the
    # end of the game, not as a game still going on
    page.locator(".result").wait_for()
    page.get_by_text("no animals", exact=True).first.wait_for(timeout=10000)
    assert page.get_by_text("no animals yet").count() == 0, page.inner_text("body")
    assert not tab.errors, tab.errors
