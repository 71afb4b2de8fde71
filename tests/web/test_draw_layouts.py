"""A table's draw lays the page out once: counted by the page itself over a stretch of play,
never timed.

An init script wraps what reads the layout (``scrollHeight`` and the other sizes,
``getBoundingClientRect``, ``focus``, which lays the page out to see what can take the focus);
a read is a forced layout when the page was written since the last read (a MutationObserver's
pending records). A task (a draw; a microtask closes it) that forces two has laid the page out
twice, where one layout after every write would have done.

A draw that put in a new decision panel focused its first control right away, with the board,
the bar and the panel just written (a layout of all of it), then appended to the log and read the
log's height to scroll it (a layout again). In a profile of a whole classic game, ``focus`` was
0.5-0.6 s of the seat page's main thread, the log's read 0.35-0.46 s. On main before this test
(26dab7c) 35 of 90 draws over 40 decisions laid the page out twice; the focus now comes after the
log's read: it fails there.
"""

from __future__ import annotations

from typing import Any

from browser_helpers import (
    WebServer,
    kuhhandel_step,
    open_tab,
    play_until_over,
    start_game,
)

COUNTERS = """(() => {
  const c = window.__forced = { reads: 0, forced: 0, tasks: 0, twice: 0 };
  let open = false;
  let inTask = 0;
  const writes = new MutationObserver(() => {});
  const count = () => {
    if (!open) {
      open = true;
      inTask = 0;
      queueMicrotask(() => {
        open = false;
        if (inTask) c.tasks++;
        if (inTask > 1) c.twice++;
      });
    }
    c.reads++;
    if (writes.takeRecords().length) { c.forced++; inTask++; }
  };
  const wrap = (proto, prop) => {
    const d = Object.getOwnPropertyDescriptor(proto, prop);
    Object.defineProperty(proto, prop, { ...d, get() { count(); return d.get.call(this); } });
  };
  for (const p of ["scrollHeight", "clientHeight", "scrollTop", "clientWidth", "scrollWidth"]) {
    wrap(Element.prototype, p);
  }
  for (const p of ["offsetHeight", "offsetWidth", "offsetTop", "offsetLeft"]) {
    wrap(HTMLElement.prototype, p);
  }
  const rect = Element.prototype.getBoundingClientRect;
  Element.prototype.getBoundingClientRect = function () { count(); return rect.call(this); };
  const focus = HTMLElement.prototype.focus;
  HTMLElement.prototype.focus = function (o) { count(); return focus.call(this, o); };
  document.addEventListener("DOMContentLoaded", () => writes.observe(document,
    { subtree: true, childList: true, attributes: true, characterData: true }));
})();"""


def test_a_draw_lays_the_page_out_once(browser: Any, server: WebServer) -> None:
    tab = open_tab(browser)
    tab.page.add_init_script(COUNTERS)
    start_game(tab, server, "Lia", "kuhhandel", rules="classic", seats="3")
    counts = play_until_over(tab, kuhhandel_step, limit_s=150, decisions=40)
    assert sum(counts.values()) >= 40, counts
    got = tab.page.evaluate("window.__forced")
    # every decision panel came with a draw that forced a layout (the log's read, or the focus)
    assert got["tasks"] >= 40, (got, counts)
    # a draw that forces two is rare (a read of the log's scroll after a note landed): a few
    assert got["twice"] <= 5, (got, counts)
    assert not tab.errors, tab.errors
