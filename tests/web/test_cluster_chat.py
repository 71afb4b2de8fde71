"""Two people chat in Chromium while their pages are connected to two processes of a cluster
(issue 37; ``server/cluster_people.py``).

Two ``cardtable serve`` processes share a fresh PostgreSQL database and a Redis prefix. Ada and
Ben sit at a private Kuhhandel table of ``ca``; Ben's page then opens the table on ``cb`` (his
guest identity carried over, as a reload behind a load balancer would reach another process),
where his seat is relayed. Ben's page shows Ada as here (the public view asked of ``ca``); they
talk both ways; Ben's line over 200 characters is refused with the reason; Ben reports Ada's line
and the operator reads it; Ben mutes Ada: her lines vanish for him only. A spectator's page on
``cb`` has no chat. Skipped with the reason when PostgreSQL or Redis is unreachable.

On the code before, Ben's lines were refused (``chat_off``) and his page could not read who is at
the table (404).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from browser_helpers import Person, choose, game_id_of, open_tab, sign_in_new

from loopback import LOOPBACK
from server.test_cluster import RANDOM_BOTS, cluster, database, redis_prefix

expect = pytest.importorskip("playwright.sync_api", reason="the web extra is not installed").expect
pytestmark = pytest.mark.timeout(300)
__all__ = ["database", "redis_prefix"]  # fixtures

OPERATOR = "cluster-chat-operator"
CONFIG = (
    "[server]\n"
    f'admin_token = "{OPERATOR}"\n'
    "person_deadline_ms = 120000\nperson_time_bank_ms = 120000\n"
    'pace = "instant"\naway_pace = "instant"\n' + RANDOM_BOTS
)
FIELD = "Say something to the table"


def _lines(person: Person) -> Any:
    return person.page.locator(".chat-box .chat-line")


def test_two_people_on_two_processes_chat_in_the_browser(
    browser: Any, database: str, redis_prefix: str, tmp_path: Path
) -> None:
    ca, cb = cluster(["ca", "cb"], database, redis_prefix, tmp_path, CONFIG)
    people: list[Person] = []
    try:
        ca.start()
        cb.start()
        at_ca = SimpleNamespace(url=ca.http)
        ada = sign_in_new(browser, at_ca, "Ada")  # type: ignore[arg-type]
        ben = sign_in_new(browser, at_ca, "Ben")  # type: ignore[arg-type]
        people += [ada, ben]
        form = "form[aria-labelledby=priv-h]"
        choose(ada.page, form, "Game", "kuhhandel")
        ada.page.locator(form).get_by_label("Seats", exact=True).fill("3")
        ada.page.locator(form).locator("summary").click()
        ada.page.locator(form).get_by_label("House bots at the table").fill("1")
        ada.page.locator(form).get_by_role("button", name="Create the table").click()
        invite = ada.page.locator(".invite[data-invite]").inner_text()
        assert re.fullmatch(r"[A-Z2-9]{6}", invite), invite
        ben.page.get_by_label("Invite code", exact=True).fill(invite)
        ben.page.get_by_role("button", name="Join", exact=True).click()
        game_id = game_id_of(ada.tab)
        assert game_id_of(ben.tab) == game_id
        ada.seat = next(m for m in ada.tab.messages() if m.get("type") == "game_start")["seat"]

        # Ben's page moves to cb with his guest identity (localStorage is per origin)
        saved = ben.page.evaluate("JSON.stringify(Object.assign({}, localStorage))")
        ben.page.context.add_init_script(
            f"if (location.port === '{cb.port}' && !localStorage.length) {{"
            f" const s = {json.dumps(saved)}; for (const k in JSON.parse(s))"
            " localStorage.setItem(k, JSON.parse(s)[k]); }"
        )
        ben.page.goto(f"{cb.http}/table/{game_id}")
        ben_box, ada_box = ben.page.locator(".chat-box"), ada.page.locator(".chat-box")
        expect(ben_box).to_be_visible(timeout=30000)
        assert ben.tab.sockets[-1] == f"open {cb.ws}", ben.tab.sockets  # Ben talks to cb
        # cb does not run the table: Ben's page still reads who is there (Ada: here)
        ada_seat = ben.page.locator(".seat", has_text="Ada")
        expect(ada_seat.locator("[data-presence=here]")).to_be_visible(timeout=30000)

        ada_box.get_by_role("button", name="Good luck!").click()
        expect(_lines(ben).last).to_contain_text("Ada: Good luck!")
        ben_box.get_by_placeholder(FIELD).fill("Hi Ada, from the other process")
        ben_box.get_by_placeholder(FIELD).press("Enter")
        expect(_lines(ada).last).to_contain_text("Ben: Hi Ada, from the other process")
        expect(_lines(ben).last).to_contain_text("Ben: Hi Ada, from the other process")

        # the limits answer through the relay: refused with the reason, nobody got it
        ben_box.get_by_placeholder(FIELD).fill("x" * 201)
        ben_box.get_by_role("button", name="Send").click()
        expect(ben_box.locator(".chat-error")).to_contain_text("at most 200 characters")
        expect(_lines(ada).filter(has_text="xxxx")).to_have_count(0)

        # Ben reports Ada's line: the operator reads it on either process
        report = "Report this line of Ada to the operator"
        ben_box.get_by_role("button", name=report).first.click()
        expect(ben_box.get_by_role("button", name=report).first).to_have_text("Reported")
        auth = {"Authorization": f"Bearer {OPERATOR}"}
        for proc in (ca, cb):
            url = f"{proc.http}/api/chat/reports"
            reports = LOOPBACK.get(url, headers=auth).json()["reports"]
            assert [(r["reporter"], r["message"]["from"]) for r in reports] == [("Ben", "Ada")]

        # mute is Ben's own: Ada's lines vanish for him, Ada still sees everything
        ben_box.get_by_role("button", name="Mute Ada").first.click()
        expect(ben_box.locator(f'.chat-line[data-seat="{ada.seat}"]')).to_have_count(0)
        ada_box.get_by_role("button", name="Thanks!").click()
        expect(_lines(ada).last).to_contain_text("Ada: Thanks!")
        expect(_lines(ada)).to_have_count(3)
        expect(ben_box.locator(".chat-muted")).to_contain_text("Ada is muted")
        expect(ben_box.locator(f'.chat-line[data-seat="{ada.seat}"]')).to_have_count(0)

        # a spectator's page on cb: no chat box, no chat frame
        spectator = open_tab(browser)
        people.append(Person(spectator, "spectator"))
        spectator.page.goto(f"{cb.http}/watch/{game_id}")
        spectator.page.locator(".seat", has_text="Ada").first.wait_for(timeout=30000)
        ada_box.get_by_role("button", name="Well played!").click()
        expect(_lines(ada).last).to_contain_text("Ada: Well played!")
        assert spectator.page.locator(".chat-box").count() == 0
        assert not [m for m in spectator.messages() if m.get("type") == "chat"]
        for p in people:
            assert not p.tab.errors, (p.name, p.tab.errors)
    finally:
        for p in people:
            # closed, not given back to the pool (tests/web/profiles.py): Ben's context runs an
            # init script of its own, which a reset would not take away
            p.page.context.close()
        ca.stop()
        cb.stop()
