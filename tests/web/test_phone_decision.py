"""Kuhhandel on a phone (390×844) while deciding (issue 37 item 6): the lot, the high bid and
whose turn it is stay in view together with the decision panel, as Board Game Arena's action
bar keeps them, and notes flying between seats pass under the panel, never over it."""

from __future__ import annotations

from typing import Any

import pytest
from browser_helpers import (
    TAKE_SHOTS,
    WebServer,
    keep_shot,
    kuhhandel_step,
    open_tab,
    play_until_over,
    settle,
    start_game,
)

pytestmark = pytest.mark.timeout(180)

#: The boxes (viewport coordinates) of the visible lot pictures, high-bid lines and whose-turn
#: lines, of the open decision panel, and the viewport's size.
BOXES = """() => {
  const box = (el) => { const r = el.getBoundingClientRect(); return {top: r.top, bottom: r.bottom,
    left: r.left, right: r.right, text: el.textContent.trim().slice(0, 80)}; };
  const shown = (sel) => [...document.querySelectorAll(sel)]
    .filter((el) => el.getClientRects().length && getComputedStyle(el).visibility !== 'hidden')
    .map(box);
  return { lots: shown('.lot .kcard'), highs: shown('.high'), turns: shown('[data-whose-turn]'),
           panel: shown('.actions .panel[data-kind]'), width: innerWidth, height: innerHeight };
}"""

#: Over the panel, the element painted on top at each point of a flying note's box: true when
#: that is the panel (a note passing under it), false when it is the note.
UNDER = """() => {
  const panel = document.querySelector('.decision');
  const out = [];
  for (const note of document.querySelectorAll('.flying')) {
    const n = note.getBoundingClientRect(), p = panel.getBoundingClientRect();
    const x = (Math.max(n.left, p.left) + Math.min(n.right, p.right)) / 2;
    const y = (Math.max(n.top, p.top) + Math.min(n.bottom, p.bottom)) / 2;
    if (x < Math.max(n.left, p.left) || y < Math.max(n.top, p.top)) continue;
    note.style.pointerEvents = 'auto';  // elementFromPoint skips what ignores the pointer
    const top = document.elementFromPoint(x, y);
    note.style.pointerEvents = 'none';
    out.push(!!top && panel.contains(top));
  }
  return out;
}"""


def _inside(b: dict[str, Any], width: int, height: int) -> bool:
    return b["top"] >= 0 and b["left"] >= 0 and b["bottom"] <= height and b["right"] <= width


def test_the_lot_the_high_bid_and_the_decision_are_seen_together_on_a_phone(
    browser: Any, server: WebServer
) -> None:
    tab = open_tab(browser, width=390, height=844)
    page = tab.page
    start_game(tab, server, "Pia", "kuhhandel", seats="4", bots="heuristic")
    seen = 0
    for _ in range(6):  # several bid decisions (a scroll by the person is kept between them)
        play_until_over(tab, kuhhandel_step, limit_s=90, stop_at="bid")
        assert not page.locator(".result").count(), "the game ended before a bid decision"
        panel = page.locator(".actions .panel[data-kind=bid]").first
        panel.wait_for()
        boxes = page.evaluate(BOXES)
        w, hgt = boxes["width"], boxes["height"]
        if not boxes["panel"]:
            continue  # answered by the page meanwhile (the game moved on)
        assert any(_inside(b, w, hgt) for b in boxes["panel"]), boxes
        assert any(_inside(b, w, hgt) for b in boxes["lots"]), boxes
        assert any(_inside(b, w, hgt) for b in boxes["highs"]), boxes
        assert any(_inside(b, w, hgt) for b in boxes["turns"]), boxes
        # flying notes, if any right now, go under the panel
        assert all(page.evaluate(UNDER))
        if seen == 1 and TAKE_SHOTS:  # scrolled down to the herds: docs/web.md, and desktop size
            keep_shot(page, "phone-decision-phone")
            page.set_viewport_size({"width": 1280, "height": 800})
            page.evaluate("window.scrollTo(0, 0)")
            settle(page, 300)
            keep_shot(page, "phone-decision")
            page.set_viewport_size({"width": 390, "height": 844})
        seen += 1
        # the person scrolls down to look at the herds: the panel stays with the lot
        page.mouse.wheel(0, 600)
        page.wait_for_function("() => scrollY > 0 || document.body.scrollHeight <= innerHeight")
        kuhhandel_step(page, "bid", panel, {"bid": 1})
        if seen >= 3:
            break
    assert seen >= 1
    assert not tab.errors, tab.errors
