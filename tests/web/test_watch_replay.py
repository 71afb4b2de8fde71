"""The spectator's page holds no private notes or hands (DOM and WebSocket frames), a person who
leaves is replaced by the house bot, and the replay viewer steps through the stored game."""

from __future__ import annotations

from typing import Any

import pytest
from browser_helpers import (
    Tab,
    WebServer,
    cunegonda_step,
    frames,
    kuhhandel_step,
    play_until_over,
    shot,
    start_game,
    watch,
)

pytestmark = pytest.mark.timeout(180)

#: Events only some seats receive (engine ``Event.to``): a spectator must never get one.
PRIVATE_KINDS = {
    "kuhhandel": {
        "payment_notes",
        "trade_notes",
        "tie_notes",
        "rat_note_value",
        "rat_notes",
        "peek",
    },
    "cunegonda": {"deal", "pass"},
}


def assert_spectator_saw_nothing_private(spectator: Tab, game: str) -> None:
    messages = spectator.messages()
    kinds = {m.get("type") for m in messages}
    assert "game_start" in kinds and "event" in kinds, kinds
    assert "request" not in kinds  # requests carry a seat's observation
    welcome = next(m for m in messages if m["type"] == "welcome")
    assert welcome["you"]["kind"] == "spectator"
    start = next(m for m in messages if m["type"] == "game_start")
    assert start["seat"] is None
    leaked = [
        m for m in messages if m["type"] == "event" and m["event"]["kind"] in PRIVATE_KINDS[game]
    ]
    assert not leaked, leaked[:3]
    assert spectator.public_views, "the spectator page never read the public view"
    for view in spectator.public_views:
        obs = view["observation"]
        assert obs["seat"] is None
        if game == "kuhhandel":
            assert obs["wallet"] is None
        else:
            assert obs["hand"] == [] and obs["passed"] is None and obs["received"] is None


def test_spectator_sees_no_private_notes_and_the_replay_steps_through(
    tab: Tab, browser: Any, server: WebServer
) -> None:
    game_id = start_game(tab, server, "Bea", "kuhhandel", rules="classic", seats="3", bots="random")
    spectator = watch(browser, server, game_id)
    try:
        spectator.page.locator(".kh-board").wait_for()
        # the person plays a while: notes change hands (private payment events to the person)
        play_until_over(tab, kuhhandel_step, limit_s=60, decisions=30)
        mine = [
            m
            for m in tab.messages()
            if m.get("type") == "event" and m["event"]["kind"] in PRIVATE_KINDS["kuhhandel"]
        ]
        assert mine, "the person should have received private events by now"
        frames(spectator.page)  # what arrived meanwhile is drawn
        shot(spectator, "spectator")
        dom = spectator.page.locator("main")
        assert dom.locator(".kh-mine").count() == 0
        # nobody's wallet is shown while playing (notes a bidder had to show when it could not
        # pay are public, "Shown: ..." under the seat, and may be there)
        assert dom.locator(".seat .seat-notes .notes").count() == 0
        assert "Your notes" not in dom.inner_text()
        assert dom.locator(".actions").count() == 0
        # the person's own wallet is on the person's page, and never in the spectator's page
        own = tab.page.locator(".kh-mine").inner_text()
        assert "Your notes" in own
        html = spectator.page.content()
        assert "kh-mine" not in html and "data-picker-send" not in html

        # the person leaves: a house bot plays the seat and the game goes on to the end (the
        # page offers the seat back until then; the house bot may finish a short rest of the
        # game before a loaded page shows that: CI saw the game end right after the leave)
        tab.page.once("dialog", lambda dialog: dialog.accept())
        tab.page.get_by_role("button", name="Leave the table").click()
        back = tab.page.get_by_role("button", name="Take my seat back")
        back.or_(tab.page.locator(".result")).first.wait_for()
        spectator.page.locator(".result").wait_for(timeout=60000)
        assert_spectator_saw_nothing_private(spectator, "kuhhandel")
        assert not spectator.errors, spectator.errors

        # the replay: step, scrub, play and pause; everything is revealed now
        spectator.page.get_by_role("link", name="Watch the replay").first.click()
        viewer = spectator.page
        viewer.get_by_text("Move 0 of").wait_for()
        step_text = viewer.locator(".step")
        last = int(step_text.inner_text().split(" of ")[1].split(".")[0])
        assert last > 50
        for _ in range(3):
            viewer.get_by_role("button", name="Next move").click()
        assert step_text.inner_text().startswith("Move 3 of")
        viewer.get_by_role("button", name="Step back").click()
        assert step_text.inner_text().startswith("Move 2 of")
        assert viewer.locator(".log li").count() >= 2
        # every seat's notes are shown in the replay
        assert viewer.locator(".seat .seat-notes .notes").count() == 3
        viewer.eval_on_selector(
            "#scrub", "el => { el.value = 60; el.dispatchEvent(new Event('input')); }"
        )
        assert step_text.inner_text().startswith("Move 60 of")
        viewer.locator("#speed").select_option("16")
        viewer.get_by_role("button", name="Play").click()
        # playing moves on by itself (a loaded machine may take longer than the 16x pace)
        viewer.wait_for_function(
            "() => parseInt(document.querySelector('.step').textContent.split(' ')[1], 10) > 62",
            timeout=15000,
        )
        viewer.get_by_role("button", name="Pause").click()
        now = int(step_text.inner_text().split()[1])
        assert now > 62, now
        viewer.eval_on_selector(
            "#scrub", "el => { el.value = 120; el.dispatchEvent(new Event('input')); }"
        )
        shot(spectator, "replay")
        viewer.get_by_role("button", name="Last step").click()
        assert step_text.inner_text().startswith(f"Move {last} of {last}")
        assert "Final scores" in viewer.locator(".result").inner_text()
        assert not spectator.errors, spectator.errors
    finally:
        spectator.close()


def test_cunegonda_spectator_sees_no_hand(tab: Tab, browser: Any, server: WebServer) -> None:
    game_id = start_game(tab, server, "Dora", "cunegonda", rounds="1", bots="random")
    spectator = watch(browser, server, game_id)
    try:
        spectator.page.locator(".cu-board").wait_for()
        play_until_over(tab, cunegonda_step, limit_s=60, decisions=6)
        frames(spectator.page)  # what arrived meanwhile is drawn
        dom = spectator.page.locator("main")
        assert dom.locator(".hand").count() == 0
        assert dom.locator(".mini-hand").count() == 0
        # the person's hand is on the person's page only
        assert tab.page.locator(".hand .card").count() > 0
        play_until_over(tab, cunegonda_step, limit_s=60)
        spectator.page.locator(".result").wait_for(timeout=30000)
        assert_spectator_saw_nothing_private(spectator, "cunegonda")
        assert not spectator.errors, spectator.errors
    finally:
        spectator.close()
