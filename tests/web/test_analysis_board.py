"""The analysis as a board (issue 37 item 8): the board, the move list and the value graph in one
view; a tap on a mistake's dot shows that position on the board without the page scrolling, with
the expert's better answer on the board (as lichess shows its best move); the dots are touch
targets of at least 24 px on a phone. Desktop (1280×800) and phone (390×844)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from browser_helpers import WebServer, keep_shot, open_tab, random_cunegonda_match

from loopback import LOOPBACK

pytestmark = pytest.mark.timeout(240)

NAME = "wanderer"

#: Viewport boxes of what the test looks at, and the page's scroll.
BOXES = """() => {
  const box = (sel) => { const el = document.querySelector(sel); if (!el) return null;
    const r = el.getBoundingClientRect();
    return {top: r.top, bottom: r.bottom, left: r.left, right: r.right, width: r.width,
            height: r.height}; };
  return { board: box('.board-col'), graph: box('.an-plot'), moves: box('.moves-box'),
           note: box('.board-col .an-on-board'), scroll: scrollY, height: innerHeight,
           width: innerWidth };
}"""

#: The mistake dots no other dot covers at their centre: [step, width, height] each.
FREE_DOTS = """() => [...document.querySelectorAll('.an-plot .an-dot')].map((d) => {
  const r = d.getBoundingClientRect();
  const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return top === d ? [Number(d.dataset.step), r.width, r.height] : null;
}).filter(Boolean)"""


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[WebServer, str, int]]:
    with random_cunegonda_match(tmp_path_factory.mktemp("analysis-board"), NAME) as match:
        yield match


def _in_view(b: dict[str, Any] | None, height: float, *, whole: bool = True) -> bool:
    if b is None:
        return False
    if whole:
        return b["top"] >= 0 and b["bottom"] <= height
    return b["top"] >= 0 and b["top"] < height - 120  # its top part at least


@pytest.mark.parametrize("size", [(1280, 800), (390, 844)], ids=["desktop", "phone"])
def test_a_mistake_is_shown_on_the_board_in_one_view(
    browser: Any, played: tuple[WebServer, str, int], size: tuple[int, int]
) -> None:
    web, game_id, seat = played
    width, height = size
    tab = open_tab(browser, width=width, height=height)
    page = tab.page
    page.goto(f"{web.url}/replay/{game_id}")
    panel = page.locator("section.analysis")
    panel.wait_for(timeout=20000)
    panel.locator("#an-seat").select_option(str(seat))
    if not page.locator("section.analysis[data-state=done]").count():
        panel.locator("[data-control=analyse]").click()  # a second run may find it cached
    page.wait_for_selector("section.analysis[data-state=done]", timeout=120000)
    page.evaluate("window.scrollTo(0, 0)")  # the page as it opened
    result = LOOPBACK.get(f"{web.url}/api/games/{game_id}/analysis?seat={seat}", timeout=10)
    reviews = {r["index"] + 1: r for r in result.json()["result"]["reviews"]}
    # the first view (the page as it opened): the board, the graph and (desktop) the moves
    first = page.evaluate(BOXES)
    assert _in_view(first["graph"], height), first
    if width >= 960:  # a phone's head is a screen tall: the board is under the graph there
        assert _in_view(first["board"], height, whole=False), first
        # its first line at least: how far down it starts depends on the summary above it,
        # whose length the game's mistakes decide (a fresh-clone run: top 735 of 800)
        assert first["moves"]["top"] < height - 40, first
    # every dot a finger can hit: at least 24 × 24 px
    sizes = page.evaluate(
        "() => [...document.querySelectorAll('.an-plot .an-dot')]"
        ".map((d) => [d.getBoundingClientRect().width, d.getBoundingClientRect().height])"
    )
    assert sizes and min(min(s) for s in sizes) >= 24, sizes
    # tap a dot (one no other dot covers): the board shows that position, the page stays put
    # (on a phone, where the board lies under the graph, the graph goes to the top with it)
    free = page.evaluate(FREE_DOTS)
    assert free, "every dot is covered by another"
    step = free[len(free) // 2][0]
    before = page.evaluate(BOXES)
    page.locator(f'.an-plot .an-dot[data-step="{step}"]').click()
    page.wait_for_function("(s) => location.search.includes(`at=${s}`)", arg=step)
    page.locator(".board-col .an-on-board").wait_for()
    after = page.evaluate(BOXES)
    if width >= 960:  # beside the board: nothing scrolls
        assert after["scroll"] == before["scroll"], (before, after)
    assert _in_view(after["graph"], height), after
    assert _in_view(after["note"], height), after
    assert _in_view(after["board"], height, whole=False), after
    # the expert's better answer is on the board, as the API has it
    review = reviews[step]
    note = page.locator(".board-col .an-on-board")
    assert note.get_attribute("data-best") == review["best_label"]
    if review["best_at"] != review["taken_at"]:
        assert review["best_label"] in note.inner_text()
    suffix = "" if width >= 960 else "-phone"
    keep_shot(page, f"analysis-board{suffix}")
    assert not tab.errors, tab.errors
    tab.close()
