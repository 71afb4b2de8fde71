"""The tables of scores read on a phone (390×844): Cunegonda's round-by-round table at the end of
a match and the match table under the board keep every player's name on at most two lines (a
longer name ends in an ellipsis, the whole name is in its tooltip), the house bots' names are
shown whole (they differ only in their last character), each cell's tricks and hearts stay on
at most two lines, and neither the page nor the tables scroll sideways."""

from __future__ import annotations

from typing import Any

import pytest
from browser_helpers import (
    WebServer,
    choose,
    cunegonda_step,
    frames,
    keep_shot,
    open_tab,
    play_until_over,
    sign_in,
    start_game,
)

pytestmark = pytest.mark.timeout(180)

LONG = "Bartholomew Featherstonehaugh"

#: Per name cell of both tables: its text, tooltip, lines shown, whether it is cut short.
NAME_CELLS = """() => [...document.querySelectorAll('table.match thead th .who')].map((el) => {
  const lh = parseFloat(getComputedStyle(el).lineHeight);
  return { table: el.closest('table').className, text: el.textContent, title: el.title,
           lines: Math.round(el.getBoundingClientRect().height / lh),
           cut: el.scrollHeight > el.clientHeight + 1 };
})"""

#: Per score cell of the round-by-round table: the lines of its tricks/hearts/queen line.
DETAIL_LINES = """() => [...document.querySelectorAll('table.rounds-table tbody td .small')]
  .map((el) => Math.round(
    el.getBoundingClientRect().height / parseFloat(getComputedStyle(el).lineHeight)))"""

#: How far (px) each card of the last trick lies from the winner's card it was gathered on.
GATHERED = """() => {
  const won = document.querySelector('.slot.won .card').getBoundingClientRect();
  return [...document.querySelectorAll('.slot.taken .card')].map((c) => {
    const r = c.getBoundingClientRect();
    return Math.max(Math.abs(r.left - won.left), Math.abs(r.top - won.top));
  });
}"""


def test_the_round_table_reads_on_a_phone(browser: Any, server: WebServer) -> None:
    tab = open_tab(browser, width=390, height=844)
    try:
        # the lobby's default strength: "house-heuristic-N", the longest house names
        start_game(tab, server, LONG, "cunegonda", rounds="1", bots="heuristic")
        page = tab.page
        play_until_over(tab, cunegonda_step, limit_s=90)
        page.locator(".result table.rounds-table").wait_for()
        frames(page)
        keep_shot(page, "cunegonda-rounds-phone", full_page=True)
        cells = page.evaluate(NAME_CELLS)
        # four names in each of the two tables
        assert len(cells) == 8, cells
        for cell in cells:
            assert cell["lines"] <= 2, cell
            assert cell["title"] == cell["text"], cell
            if cell["text"].startswith("house-"):
                assert not cell["cut"], cell  # "house-heuristic-1" and "-2" must differ
        long = [c for c in cells if c["title"] == LONG]
        assert len(long) == 2, cells
        assert all(c["cut"] for c in long), long  # two lines and "…", the name in the tooltip
        assert page.locator("table.rounds-table th.me").inner_text().endswith("(you)")
        assert max(page.evaluate(DETAIL_LINES)) <= 2
        # neither the page nor the tables scroll sideways
        wide = page.evaluate(
            """() => [document.documentElement.scrollWidth - window.innerWidth,
               ...[...document.querySelectorAll('.table-wrap')]
                 .map((w) => w.scrollWidth - w.clientWidth)]"""
        )
        assert max(wide) <= 0, wide
        # turned or resized: the last trick, gathered on its winner's card in pixels, is placed
        # again (drawn at 1280 px and kept, it lay 240 px beyond a 390 px page)
        page.set_viewport_size({"width": 1280, "height": 800})
        frames(page)  # the page draws again on a resize (a timer of 0 ms)
        off = page.evaluate(GATHERED)
        assert len(off) == 3 and max(off) <= 16, off
        page.set_viewport_size({"width": 390, "height": 844})
        frames(page)
        wide = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert wide <= 0, wide
        assert not tab.errors, tab.errors
    finally:
        tab.close()


#: Per option of every select in the lobby's forms whose words do not fit the closed select
#: (its width less its padding and the arrow's 20 px), measured in the select's own font.
CUT_OPTIONS = """() => {
  const ctx = document.createElement('canvas').getContext('2d');
  const out = [];
  for (const sel of document.querySelectorAll('main form select')) {
    const st = getComputedStyle(sel);
    ctx.font = `${st.fontWeight} ${st.fontSize} ${st.fontFamily}`;
    const room = sel.clientWidth - parseFloat(st.paddingLeft) - parseFloat(st.paddingRight) - 20;
    for (const o of sel.options) {
      const w = ctx.measureText(o.text).width;
      if (w > room) out.push(`${sel.name}: ${o.text} (${Math.round(w)} > ${Math.round(room)})`);
    }
  }
  return out;
}"""


def test_the_lobby_choices_read_whole_on_a_phone(browser: Any, server: WebServer) -> None:
    """Every choice of the lobby's forms reads whole in its closed select at 390 px ("Normal:
    the bots' moves come one at" was cut), for both games."""
    tab = open_tab(browser, width=390, height=844)
    try:
        sign_in(tab, server, "Selma")
        page = tab.page
        for game in ("kuhhandel", "cunegonda"):
            for form in ("form[aria-labelledby=quick-h]", "form[aria-labelledby=priv-h]"):
                choose(page, form, "Game", game)
            assert page.evaluate(CUT_OPTIONS) == [], game
        assert not tab.errors, tab.errors
    finally:
        tab.close()
