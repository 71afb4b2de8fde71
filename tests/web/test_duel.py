"""The Master duel (spec §10) through the page: a person against a house bot divides cards
(draw, peek, keep or give) to the end of the game while a spectator watches. The peeked card is
shown to the dividing seat only: never in the other seat's frames, nor the spectator's frames,
public views or DOM.

A small duel deck (3 species, one of them a donkey, their pedigrees and 2 rats) keeps the game
short; the person's policy (alternately keep and give; whoever holds more wins a cow trade) was
first run offline on the engine against the random bot (seeds 0..14): every game ends normally
after 25 to 40 decisions with 5 to 7 divisions by the person.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import pytest
from browser_helpers import (
    Person,
    Tab,
    WebServer,
    assert_only_offered_choices,
    choose,
    click_offered,
    drive,
    game_id_of,
    keep_public_views,
    offered,
    open_tab,
    own_notes,
    pick_notes,
    seat_faults,
    shot,
    sign_in_new,
    walk_key,
)

pytestmark = pytest.mark.timeout(180)

SMALL_DUEL = {
    "preset": "master-duel",
    "species": [
        {"name": "Cow", "value": 800, "payouts": [0, 0, 0, 0]},
        {"name": "Dog", "value": 160, "payouts": [0, 0, 0, 0]},
        {"name": "Donkey", "value": 500, "payouts": [50, 100, 200, 500]},
    ],
    "rats": 2,
}
SPECIES = 3


@dataclass
class DuelPlan:
    spectator: Tab
    routes: list[Any] = field(default_factory=list)  # the spectator's WebSocket, both ends
    engine: Any = None  # the server's game: what the page shows as the seat's own notes
    divisions: int = 0
    checked: bool = False


def duel_policy(plan: DuelPlan, person: Person, kind: str, panel: Any) -> bool:
    msg = person.tab.last_request(kind)
    assert msg is not None
    info = msg["request"]["info"]
    if kind == "turn":
        actions = offered(panel)
        if not actions:
            return False  # read while the page draws the panel again: look again
        draws = [a for a in actions if a["kind"] == "draw"]
        trades = [a for a in actions if a["kind"] == "challenge" and a["species"] < SPECIES]
        return click_offered(panel, (draws or trades or actions)[0])
    if kind == "divide":
        if not plan.checked:
            check_peek(plan, person, panel, info)
        # counted once it is sent (a read while the panel is drawn again sends nothing)
        sent = click_offered(panel, {"kind": "give" if plan.divisions % 2 else "keep"})
        plan.divisions += sent
        return sent
    if kind == "offer":
        return pick_notes(panel, [])
    if kind == "respond":
        obs = msg["observation"]
        sp, challenger = info["species"], info["challenger"]
        holds = obs["rats"] if sp == SPECIES else [h[sp] for h in obs["herds"]]
        positive = [v for v in own_notes(person.page) if v > 0]
        if holds[person.seat] >= holds[challenger] and positive:
            return pick_notes(panel, positive[:1])
        return click_offered(panel, {"kind": "accept"})
    raise AssertionError(f"unexpected panel {kind} in the duel")


def check_peek(plan: DuelPlan, person: Person, panel: Any, info: dict[str, Any]) -> None:
    """The dividing seat sees its card; the spectator, at the same moment, does not."""
    plan.checked = True
    assert own_notes(person.page) == sorted(plan.engine.observe_json(person.seat)["wallet"])
    name = info["name"]
    title = panel.locator("h3").inner_text()
    assert title == f"You look at the top card: the {name}", title
    assert panel.get_by_role("button", name=f"Keep the {name}").count() == 1
    assert panel.get_by_role("button", name=f"Give the {name} away").count() == 1
    peeks = [e for e in person.tab.events() if e["kind"] == "peek"]
    assert peeks and peeks[-1]["data"]["name"] == name
    person.page.locator(".log li.private", has_text=f"sees the {name}").wait_for(timeout=5000)
    shot(person.tab, "duel")
    watcher = plan.spectator.page
    watcher.locator(".kh-center", has_text="divides the top card").wait_for(timeout=5000)
    text = watcher.locator("main").inner_text()
    assert "sees the" not in text and "look at the top card" not in text
    # the spectator's connection drops here: its page opens it again and watches on
    for end in plan.routes[-1]:
        end.close(code=4000, reason="cut by the test")


def test_duel_peek_keep_or_give_to_the_end(browser: Any, server: WebServer) -> None:
    person = sign_in_new(browser, server, "Dee")
    spectator = open_tab(browser, width=1100, height=860)
    try:
        page = person.page
        form = "form[aria-labelledby=priv-h]"
        choose(page, form, "Game", "kuhhandel")
        choose(page, form, "Rule set", "master-duel")
        page.locator(form).locator("summary").click()
        page.locator(form).get_by_label("Rule set as JSON", exact=False).fill(
            json.dumps(SMALL_DUEL)
        )
        choose(page, form, "House bot strength", "random")
        page.locator(form).get_by_label("House bots at the table").fill("1")
        page.locator(form).get_by_role("button", name="Create the table").click()
        game_id = game_id_of(person.tab)
        start = next(m for m in person.tab.messages() if m.get("type") == "game_start")
        person.seat = start["seat"]
        assert start["rules"]["duel"] and start["seats"] == 2
        plan = DuelPlan(spectator, engine=server.app.state.hub.tables[game_id].game)
        spectator.page.route_web_socket(
            re.compile(r".*/ws$"), lambda ws: plan.routes.append((ws.connect_to_server(), ws))
        )
        keep_public_views(spectator)
        spectator.page.goto(f"{server.url}/watch/{game_id}")
        spectator.page.locator(".kh-board").wait_for()

        drive([person], lambda p, kind, panel: duel_policy(plan, p, kind, panel), limit_s=120)
        spectator.page.locator(".result").wait_for(timeout=15000)

        info = seat_faults(server, game_id, "Dee")
        assert info["detail"]["termination"] == "normal"
        assert info["seat"]["faults"] == 0 and not info["seat"]["taken_over"]
        assert plan.checked and plan.divisions >= 3, plan
        assert not [m for m in person.tab.messages() if m.get("type") == "rejected"]
        assert not person.tab.errors, person.tab.errors
        assert_only_offered_choices(person.tab)

        # the person saw its own peeks only; the bot's divisions came without the card
        divides = [e for e in person.tab.events() if e["kind"] == "divide"]
        peeks = [e for e in person.tab.events() if e["kind"] == "peek"]
        assert {e["data"]["seat"] for e in peeks} == {person.seat}
        assert len(peeks) == plan.divisions
        assert len(divides) > len(peeks), "the house bot divided too"
        assert all(v is None for m in person.tab.messages() for v in _other_peeks(m, person))

        # the spectator watched on after its connection dropped
        assert len(plan.routes) == 2
        hellos = [m for m in spectator.messages(sent=True) if m.get("type") == "hello"]
        assert [m["spectate"] for m in hellos] == [game_id, game_id]
        # the spectator: no peek event, no peeked card in any observation, nothing in the DOM
        assert not [e for e in spectator.events() if e["kind"] == "peek"]
        assert all(v is None for v in walk_key(spectator.messages(), "peek"))
        assert spectator.public_views
        for view in spectator.public_views:
            assert view["observation"]["peek"] is None
            assert view["observation"]["wallet"] is None
        text = spectator.page.locator("main").inner_text()
        assert "sees the" not in text
        assert spectator.page.locator(".kh-mine").count() == 0
        assert not spectator.errors, spectator.errors
    finally:
        person.close()
        spectator.close()


def _other_peeks(message: dict[str, Any], person: Person) -> list[Any]:
    """``peek`` fields of observations addressed to this seat while another seat divides
    (there must be none with a card)."""
    out = []
    for obs in walk_key(message, "observation"):
        divide = isinstance(obs, dict) and obs.get("stage") == "divide"
        if divide and obs.get("turn_seat") != person.seat:
            out.append(obs.get("peek"))
    return out
