"""The note picker of offers and counters, and the note art (issue #20, "cards are words").

The picker is the page's own ``notePicker`` (static/kuhhandel.js), mounted in a real page of a
real server: one row per note value with a stepper (− n +), keyboard-operable, touch targets of
at least 44 px, never more of a value than held; axe-core finds no serious violation in it. The
note sprite (static/cards/notes.svg) draws every note value of every preset and a back, and the
pictures really render in Chromium. A cow trade's offer and counter fly face down between the
traders (the page's own ``afterDraw``), and not at all with prefers-reduced-motion.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import Tab, WebServer, open_tab, pick_notes
from test_accessibility import axe_violations

from cardtable.games import kuhhandel

pytestmark = pytest.mark.timeout(60)

NOTES_SVG = Path(__file__).resolve().parents[2] / "src/cardtable/server/web/static/cards/notes.svg"

MOUNT = """async (wallet) => {
  const k = await import("/static/kuhhandel.js");
  document.querySelector("main")?.remove();
  const box = document.createElement("main");
  box.id = "picker-test";
  box.innerHTML = "<h1>Picker</h1>";
  window.sent = null;
  box.appendChild(k.notePicker(wallet, "Offer", (notes) => { window.sent = notes; }));
  const shown = document.createElement("p");
  shown.className = "notes";
  for (const v of [...new Set(wallet), 1000]) shown.appendChild(k.noteArt(v));
  shown.appendChild(k.noteBack());
  box.appendChild(shown);
  document.body.appendChild(box);
}"""


def mount(tab: Tab, server: WebServer, wallet: list[int]) -> Any:
    page = tab.page
    page.goto(server.url + "/")
    page.locator("html[data-ready]").wait_for(state="attached")  # catalog loaded
    page.evaluate(MOUNT, wallet)
    return page.locator("#picker-test")


def test_the_sprite_draws_every_note_value_of_every_preset_and_a_back() -> None:
    ids = {el.get("id") for el in ET.parse(NOTES_SVG).getroot().iter() if el.get("id")}
    values = {v for rules in kuhhandel.PRESETS.values() for v in rules.notes}
    assert {f"n{v}" for v in values} | {"back", "nother"} <= ids


def test_the_picker_groups_notes_by_value_with_steppers(tab: Tab, server: WebServer) -> None:
    wallet = [0, 0, 10, 10, 10, 50, 500]
    box = mount(tab, server, wallet)
    page = tab.page
    rows = box.locator(".note-step")
    assert rows.count() == 4  # one row per value, not one button per note
    assert [r.get_attribute("data-value") for r in rows.all()] == ["0", "10", "50", "500"]
    # touch targets: every stepper button is at least 44 × 44 px
    for button in box.locator("button.stepper").all():
        b = button.bounding_box()
        assert b and b["width"] >= 44 and b["height"] >= 44, b
    send = box.locator("button[data-picker-send]")
    assert send.inner_text() == "Offer no notes"
    less10, more10 = box.locator('[data-note-remove="10"]'), box.locator('[data-note-add="10"]')
    assert less10.is_disabled() and not more10.is_disabled()
    # the keyboard: focus "+" and press Enter and Space; never more than held
    more10.focus()
    page.keyboard.press("Enter")
    page.keyboard.press("Space")
    page.keyboard.press("Enter")
    assert more10.is_disabled()
    assert box.locator('.note-step[data-value="10"] output').inner_text() == "3"
    assert rows.nth(1).get_attribute("aria-label") == "10 notes: 3 of 3 chosen"
    less10.focus()
    page.keyboard.press("Enter")
    assert send.inner_text() == "Offer 2 notes (20)"
    assert "Chosen: 2 notes, worth 20" in box.inner_text()
    send.click()
    assert page.evaluate("window.sent") == [10, 10]
    assert not axe_violations(tab, "note picker")
    # the notes' pictures render (the sprite loads; the value is drawn in it)
    art = page.evaluate(
        """() => [...document.querySelectorAll('#picker-test p.notes .note')].map((n) => {
             const r = n.getBoundingClientRect();
             return [n.dataset.value || 'back', Math.round(r.width), Math.round(r.height)]; })"""
    )
    assert len(art) == 6, art
    assert all(w >= (30 if v == "back" else 44) and h >= 14 for v, w, h in art), art
    other = page.locator('#picker-test p.notes .note.other[data-value="1000"]')
    assert other.inner_text() == "1000"
    response = page.request.get(server.url + "/static/cards/notes.svg")
    assert response.ok and 'id="n500"' in response.text()


def test_the_test_helper_picks_single_notes(tab: Tab, server: WebServer) -> None:
    box = mount(tab, server, [0, 10, 10, 200])
    assert pick_notes(box, [0, 10, 200])
    assert tab.page.evaluate("window.sent") == [0, 10, 200]
    box = mount(tab, server, [0, 10])
    assert not pick_notes(box, [10, 10])  # a second 10 is not held: the helper says so


FLY = """async () => {
  const k = await import("/static/kuhhandel.js");
  const root = document.createElement("div");
  root.innerHTML = `<div class="seat" data-seat="0"><div class="seat-notes">A</div></div>
    <div style="height: 300px"></div>
    <div class="seat" data-seat="1"><div class="seat-notes">B</div></div>`;
  document.body.appendChild(root);
  const events = [[0, { kind: "challenge", data: { seat: 0, opponent: 1 } }],
                  [1, { kind: "offer", data: { seat: 0, count: 3 } }],
                  [2, { kind: "counter", data: { seat: 1, count: 7 } }]];
  k.afterDraw(root, { movedUpTo: -1 }, events);
  return document.querySelectorAll(".note.back.flying").length;
}"""


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_a_cow_trades_offers_fly_face_down_unless_motion_is_reduced(
    tab: Tab, server: WebServer, motion: str
) -> None:
    """The offer (3 notes) flies to the opponent, the counter (7, drawn as 5) back; with
    prefers-reduced-motion nothing moves."""
    page = tab.page
    page.emulate_media(reduced_motion=motion)
    page.goto(server.url + "/")
    page.locator("html[data-ready]").wait_for(state="attached")  # catalog loaded
    flying = page.evaluate(FLY)
    assert flying == (0 if motion == "reduce" else 3 + 5), flying


PHONE_MOUNT = """async (wallet) => {
  const k = await import("/static/kuhhandel.js");
  const main = document.querySelector("main");
  main.replaceChildren();
  const panel = document.createElement("section");
  panel.className = "panel";
  panel.setAttribute("aria-label", "Counter-offer");
  panel.appendChild(k.notePicker(wallet, "Counter", () => {}));
  main.appendChild(panel);
}"""


def test_on_a_phone_six_note_values_are_two_rows_of_three(browser: Any, server: WebServer) -> None:
    """A wallet of every classic note value in a panel of a 390 px page: a 3 × 2 grid of tiles
    (not six stacked rows), each tile's stepper buttons still 44 px, nothing wider than the page."""
    tab = open_tab(browser, width=390, height=844)
    try:
        page = tab.page
        page.goto(server.url + "/")
        page.locator("html[data-ready]").wait_for(state="attached")  # catalog loaded
        page.evaluate(
            PHONE_MOUNT, [0, 0, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 50, 100, 200, 500]
        )
        tiles = page.locator(".note-step")
        assert tiles.count() == 6
        boxes = [t.bounding_box() for t in tiles.all()]
        tops = sorted({round(b["y"]) for b in boxes if b})
        lefts = sorted({round(b["x"]) for b in boxes if b})
        assert len(tops) == 2 and len(lefts) == 3, (tops, lefts)
        for button in page.locator("button.stepper").all():
            b = button.bounding_box()
            assert b and b["width"] >= 44 and b["height"] >= 44, b
        more10 = page.locator('[data-note-add="10"]')
        for _ in range(11):
            more10.click()
        assert page.locator('.note-step[data-value="10"] output').inner_text() == "11"
        assert more10.is_disabled()
        assert all(
            b and b["x"] + b["width"] <= 390 for b in (t.bounding_box() for t in tiles.all())
        )
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        assert not axe_violations(tab, "note picker on a phone")
    finally:
        tab.close()
