"""Two people chat at a private table, in real Chromium (issue 37, item 4).

The rules tested: a preset quick message and a typed line reach the other person as plain text
(HTML stays text); a line over 200 characters and a flood (a 6th line within 10 s) are refused
with a clear message and reach nobody; muting a person hides their lines for the muter only,
also after a reload (remembered for the table); a reported line reaches the operator's API; a
line that comes while the chat is out of view (a phone) is announced, and a tap shows the chat.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from browser_helpers import (
    Person,
    WebServer,
    choose,
    game_id_of,
    shot_pair,
    sign_in_new,
)
from test_accessibility import axe_violations

from loopback import LOOPBACK

# the browser fixture skips the tests when Playwright is missing; so does this module
expect = pytest.importorskip("playwright.sync_api", reason="the web extra is not installed").expect

OPERATOR = "chat-operator-token"


def _private_table(ada: Person, ben: Person) -> str:
    """Ada opens a private Kuhhandel table (3 seats, 1 house bot); Ben joins by its code."""
    page = ada.page
    form = "form[aria-labelledby=priv-h]"
    choose(page, form, "Game", "kuhhandel")
    page.locator(form).get_by_label("Seats", exact=True).fill("3")
    page.locator(form).locator("summary").click()
    page.locator(form).get_by_label("House bots at the table").fill("1")
    page.locator(form).get_by_role("button", name="Create the table").click()
    invite = page.locator(".invite[data-invite]").inner_text()
    assert re.fullmatch(r"[A-Z2-9]{6}", invite), invite
    ben.page.get_by_label("Invite code", exact=True).fill(invite)
    ben.page.get_by_role("button", name="Join", exact=True).click()
    game_id = game_id_of(ada.tab)
    assert game_id_of(ben.tab) == game_id
    for p in (ada, ben):
        start = next(m for m in p.tab.messages() if m.get("type") == "game_start")
        p.seat = start["seat"]
        assert start["chat"] is True
    return game_id


def _lines(person: Person) -> Any:
    return person.page.locator(".chat-box .chat-line")


def test_two_people_chat_with_limits_mute_and_report(
    browser: Any, server: WebServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(server.settings, "admin_token", OPERATOR)
    ada = sign_in_new(browser, server, "Ada")
    ben = sign_in_new(browser, server, "Ben")
    game_id = _private_table(ada, ben)
    ada_box, ben_box = ada.page.locator(".chat-box"), ben.page.locator(".chat-box")
    expect(ada_box).to_be_visible()
    expect(ben_box).to_be_visible()

    # a preset quick message (a button: one tap on a phone) and a typed line
    ada_box.get_by_role("button", name="Good luck!").click()
    expect(_lines(ben).last).to_contain_text("Ada: Good luck!")
    ada_box.get_by_placeholder("Say something to the table").fill("<img src=x onerror=alert(1)> hi")
    ada_box.get_by_role("button", name="Send").click()
    expect(_lines(ben).last).to_contain_text("Ada: <img src=x onerror=alert(1)> hi")
    assert ben_box.locator("img").count() == 0  # text, never HTML
    expect(ada_box.get_by_placeholder("Say something to the table")).to_have_value("")

    # Ben answers; Ada's screen at desktop and phone size (docs/web.md)
    ben_box.get_by_placeholder("Say something to the table").fill("Hi Ada, good luck too")
    ben_box.get_by_placeholder("Say something to the table").press("Enter")
    expect(_lines(ada).last).to_contain_text("Ben: Hi Ada, good luck too")
    shot_pair(ada.tab, "chat")
    assert not axe_violations(ada.tab, "table chat")

    # too long: refused with the reason, the text stays to be shortened, nobody gets it
    field = ada_box.get_by_placeholder("Say something to the table")
    field.fill("x" * 201)
    expect(ada_box.locator(".chat-count")).to_have_text("201/200")
    ada_box.get_by_role("button", name="Send").click()
    expect(ada_box.locator(".chat-error")).to_contain_text("at most 200 characters")
    expect(field).to_have_value("x" * 201)

    # a flood: quick messages one after the other until one is refused (the 6th line within
    # 10 s; lines said earlier may have left the window on a slow machine, so the count of
    # lines that passed is read, not assumed); the refused ones reach nobody
    mine = ada_box.locator(".chat-line.mine")
    clicks = 0
    while clicks < 12:
        clicks += 1
        before = mine.count()
        ada_box.get_by_role("button", name="Thanks!").click()
        ada.page.wait_for_function(
            """(n) => document.querySelectorAll('.chat-box .chat-line.mine').length > n
                || document.querySelector('.chat-box .chat-error').textContent !== ''""",
            arg=before,
        )
        if ada_box.locator(".chat-error").inner_text():
            break
    expect(ada_box.locator(".chat-error")).to_contain_text("too many lines")
    said = mine.count()
    thanks = mine.filter(has_text="Thanks!").count()
    assert thanks == clicks - 1, (clicks, thanks)  # every click but the refused one
    ben_sees_ada = ben_box.locator(f'.chat-line[data-seat="{ada.seat}"]')
    expect(ben_sees_ada).to_have_count(said)
    expect(ben_sees_ada.filter(has_text="Thanks!")).to_have_count(thanks)
    expect(_lines(ben).filter(has_text="xxxx")).to_have_count(0)
    toasts = ada.page.evaluate("window.__toasts")
    assert not [t for t in toasts if "chat" in t], toasts  # said in the chat box, not a toast

    # mute: Ada's lines vanish for Ben only, and stay muted after Ben reloads the table
    ben_box.get_by_role("button", name="Mute Ada").first.click()
    expect(ben_box.locator(f'.chat-line[data-seat="{ada.seat}"]')).to_have_count(0)
    expect(ben_box.locator(".chat-muted")).to_contain_text("Ada is muted")
    expect(_lines(ada)).to_have_count(said + 1)  # Ada still sees everything
    ben.page.reload()
    ben_box = ben.page.locator(".chat-box")
    expect(ben_box.locator(".chat-line").filter(has_text="Hi Ada")).to_have_count(1)  # replayed
    expect(ben_box.locator(f'.chat-line[data-seat="{ada.seat}"]')).to_have_count(0)
    expect(ben_box.locator(".chat-muted")).to_contain_text("Ada is muted")

    # report: Ada reports Ben's line; the operator's API lists it
    ada_box.get_by_role("button", name="Report this line of Ben to the operator").click()
    expect(
        ada_box.get_by_role("button", name="Report this line of Ben to the operator")
    ).to_have_text("Reported")
    auth = {"Authorization": f"Bearer {OPERATOR}"}
    reports = LOOPBACK.get(f"{server.url}/api/chat/reports", headers=auth).json()["reports"]
    mine = [r for r in reports if r["game_id"] == game_id]
    assert len(mine) == 1, reports
    assert mine[0]["reporter"] == "Ada"
    assert mine[0]["message"]["from"] == "Ben"
    assert mine[0]["message"]["text"] == "Hi Ada, good luck too"
    assert LOOPBACK.get(f"{server.url}/api/chat/reports").status_code == 401

    # unmute: Ada's lines are back for Ben
    ben_box.get_by_role("button", name="Unmute").click()
    expect(ben_box.locator(f'.chat-line[data-seat="{ada.seat}"]')).to_have_count(said)

    # on a phone deciding above the chat, a line from the other person is announced at the
    # bottom of the screen; a tap brings the chat into view
    ada.page.set_viewport_size({"width": 390, "height": 420})
    ada.page.evaluate("window.scrollTo(0, 0)")
    ada.page.wait_for_function(
        "() => document.querySelector('.chat-lines').getBoundingClientRect().top > innerHeight"
    )
    # two frames: the page's IntersectionObserver has seen the chat leave the screen
    ada.page.evaluate(
        "() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))"
    )
    ben_box.get_by_placeholder("Say something to the table").fill("Your turn, Ada")
    ben_box.get_by_role("button", name="Send").click()
    note = ada.page.locator(".chat-new")
    expect(note).to_have_text("New in the table chat: Ben: Your turn, Ada")
    note.click()
    expect(note).to_be_hidden()
    expect(_lines(ada).last).to_be_in_viewport()
    for p in (ada, ben):
        assert not p.tab.errors, p.tab.errors
