"""Two people at one private table (issue #20): one reloads the page during a decision and loses
nothing (the same pending decision comes back, no fault is recorded, no house bot answered it);
the other leaves, comes back and takes the seat back before the end. Then both play to the end.

The server's grace period for people (``grace_ms``, 30 s) keeps a person's open decision while
the page reloads; the page says hello with its resume token and resumes.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from browser_helpers import (
    Person,
    WebServer,
    choose,
    cunegonda_step,
    game_id_of,
    next_panel,
    seat_faults,
    sign_in_new,
)

from loopback import LOOPBACK

pytestmark = pytest.mark.timeout(240)

PANEL = ".actions .panel[data-kind], .hand-box .panel[data-kind]"


def _requests(person: Person) -> list[dict[str, Any]]:
    return [m for m in person.tab.messages() if m.get("type") == "request"]


def _seat(server: WebServer, game_id: str, name: str) -> dict[str, Any]:
    view = LOOPBACK.get(f"{server.url}/api/tables/{game_id}/public").json()
    (seat,) = [s for s in view["seats"] if s["name"] == name]
    return dict(seat)


def _play_to_the_end(people: list[Person], limit_s: float) -> None:
    end = time.monotonic() + limit_s
    counts: dict[str, int] = {}
    while time.monotonic() < end:
        if all(p.page.locator(".result").count() for p in people):
            return
        acted = False
        for person in people:
            seen = next_panel(person.page, PANEL, 0)  # one look (the people are driven in turn)
            if seen is None or seen["kind"] is None:
                continue
            kind, panel = seen["kind"], person.page.locator(PANEL).first
            acted = cunegonda_step(person.page, kind, panel, counts) or acted
        if not acted:
            time.sleep(0.05)
    raise AssertionError("the game did not end")


def test_a_reload_costs_nothing_and_a_person_who_left_takes_the_seat_back(
    browser: Any, server: WebServer
) -> None:
    people = [sign_in_new(browser, server, name) for name in ("Rhea", "Leo")]
    try:
        rhea, leo = people
        page = rhea.page
        form = "form[aria-labelledby=priv-h]"
        choose(page, form, "Game", "cunegonda")
        page.locator(form).get_by_label("Rounds in the match").fill("1")
        choose(page, form, "House bot strength", "random")
        page.locator(form).get_by_label("House bots at the table").fill("2")
        page.locator(form).get_by_role("button", name="Create the table").click()
        invite = page.locator(".invite[data-invite]").inner_text()
        leo.page.get_by_label("Invite code", exact=True).fill(invite)
        leo.page.get_by_role("button", name="Join", exact=True).click()
        game_id = game_id_of(rhea.tab)
        assert game_id_of(leo.tab) == game_id

        # -- Rhea reloads while her pass is open: the same decision comes back, no fault
        page.locator(PANEL).first.wait_for(timeout=20000)
        pending = _requests(rhea)[-1]
        assert pending["request"]["kind"] == "pass"
        page.reload()
        page.locator(PANEL).first.wait_for(timeout=20000)
        again = _requests(rhea)[-1]
        assert again["request_id"] == pending["request_id"]
        assert again["request"] == pending["request"]
        hellos = [m for m in rhea.tab.messages(sent=True) if m.get("type") == "hello"]
        assert len(hellos) == 2 and hellos[1].get("token")  # the same person again
        assert not [m for m in rhea.tab.messages() if m.get("type") == "rejected"]
        seat = _seat(server, game_id, "Rhea")
        assert seat["faults"] == 0 and not seat["taken_over"]
        # nobody answered it for her: her pass is still to be chosen
        chosen = [
            m["event"]["data"]["seat"]
            for m in rhea.tab.messages()
            if m.get("type") == "event" and m["event"]["kind"] == "pass_chosen"
        ]
        assert pending["request"]["seat"] not in chosen

        # -- Leo leaves (the house bot plays his seat) and takes it back before the end
        leo.page.locator(PANEL).first.wait_for(timeout=20000)
        leo.page.once("dialog", lambda dialog: dialog.accept())
        leo.page.get_by_role("button", name="Leave the table").click()
        leo.page.get_by_role("button", name="Take my seat back").wait_for()
        left = _seat(server, game_id, "Leo")
        assert left["taken_over"] and left["presence"] == "left", left
        leo.page.wait_for_timeout(500)
        leo.page.get_by_role("button", name="Take my seat back").click()
        leo.page.get_by_role("button", name="Leave the table").wait_for()
        assert not _seat(server, game_id, "Leo")["away"]  # the game is still running

        _play_to_the_end(people, limit_s=150)
        rhea_faults = seat_faults(server, game_id, "Rhea")
        assert rhea_faults["seat"]["faults"] == 0, rhea_faults["detail"].get("faults")
        leo_faults = seat_faults(server, game_id, "Leo")
        codes = [f["code"] for f in leo_faults["detail"]["faults"]]
        # leaving is Leo's choice, no fault (server/presence.py); the reload did not count
        assert codes == [], codes
        for person in people:
            assert not person.tab.errors, person.tab.errors
    finally:
        for person in people:
            person.close()
