"""An engine's refusal reaches a person in the person's language (issue 38), through Chromium.

The engines refuse an action with a rule and its numbers (``ActionError.rule``/``details``); the
server sends them beside its English reason in ``rejected`` (``rule``, ``args``) and the page
says the catalog's ``refusal.{rule}``. A French person's page passes three cards it does not hold
(a hostile or stale page could; the panel itself offers only the hand): the toast reads the French
sentence, never the English reason. A refused hello (a guest name a bot has) reads German too.
"""

from __future__ import annotations

from typing import Any

import pytest
from browser_helpers import Tab, WebServer, open_tab, shot_pair
from test_languages import catalog, start_in

from cardtable.games.cunegonda.cards import NAMES
from cardtable.i18n import translate

pytestmark = pytest.mark.timeout(180)

#: every socket the page opens, so the test can send on it as a page could
KEEP_SOCKETS = (
    "const Kept = window.WebSocket; window.__sockets = [];"
    "window.WebSocket = class extends Kept { constructor(...a) { super(...a);"
    " window.__sockets.push(this); } };"
)


def first_request(tab: Tab, kind: str) -> dict[str, Any]:
    for _ in range(600):
        for m in tab.messages():
            if m.get("type") == "request" and m["request"]["kind"] == kind:
                return m
        tab.page.wait_for_timeout(100)
    raise AssertionError(f"no {kind} request came")


def toasts(tab: Tab) -> list[str]:
    seen: list[str] = tab.page.evaluate("window.__toasts || []")
    return seen


def test_a_refused_pass_reads_french(browser: Any, server: WebServer) -> None:
    fr = catalog("fr")
    tab = open_tab(browser, locale="fr-FR")
    tab.page.add_init_script(KEEP_SOCKETS)
    try:
        page = tab.page
        start_in(tab, server, "Fanny", fr, game="cunegonda", rounds="1")
        page.locator('.hand-box .panel[data-kind="pass"]').wait_for()
        ask = first_request(tab, "pass")
        hand = set(ask["observation"]["hand"])
        not_held = [name for name in NAMES if name not in hand][:3]
        frame = {
            "type": "action",
            "game_id": ask["game_id"],
            "request_id": ask["request_id"],
            "action": {"pass": not_held},
        }
        page.evaluate(
            "(f) => window.__sockets.filter((s) => s.readyState === 1).at(-1)"
            ".send(JSON.stringify(f))",
            frame,
        )
        first = sorted(not_held, key=NAMES.index)[0]
        why = translate(
            "fr",
            "refusal.cunegonda.not_in_hand",
            rank=first[:-1],
            suit=first[-1],
            seat=ask["request"]["seat"],
        )
        page.wait_for_function(
            "(w) => (window.__toasts || []).some((t) => t.includes(w))", arg=why, polling=100
        )
        rejected = [m for m in tab.messages() if m.get("type") == "rejected"]
        assert rejected and rejected[-1]["rule"] == "cunegonda.not_in_hand", rejected
        english = rejected[-1]["reason"].split(";")[0]
        assert not any(english in t for t in toasts(tab)), toasts(tab)
        # the page's message line says it too, inside the catalog's "not accepted" sentence
        line = page.locator(".error", has_text=why).first
        line.wait_for()
        shot_pair(tab, "lang-fr-refused")
        assert not tab.errors, tab.errors
    finally:
        tab.close()


def test_a_refused_hello_reads_german(browser: Any, server: WebServer) -> None:
    de, en = catalog("de"), catalog("en")
    tab = open_tab(browser, locale="de-DE")
    try:
        page = tab.page
        page.goto(server.url + "/")
        # a guest may not take a house bot's name: the server refuses the hello (bad_name)
        page.get_by_label(de["web.lobby.display_name"]).fill("house-heuristic")
        page.get_by_role("button", name=de["web.lobby.play_guest"]).click()
        page.wait_for_function(
            "(w) => (window.__toasts || []).some((t) => t.includes(w))",
            arg=de["web.error.bad_name"],
            polling=100,
        )
        shot_pair(tab, "lang-de-hello-refused")
        errors = [m for m in tab.messages() if m.get("type") == "error"]
        assert errors and errors[-1]["code"] == "bad_name", errors
        assert not any(errors[-1]["reason"] in t for t in toasts(tab)), toasts(tab)
        assert not any(en["web.error.bad_name"] in t for t in toasts(tab))
    finally:
        tab.close()
