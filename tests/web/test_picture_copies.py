"""A Kuhhandel table builds the pictures it puts in the page, not a new copy of every picture at
every draw: counted by the page itself over a stretch of play, never timed.

Each picture (an ``<svg>`` whose ``<use>`` names a drawing in cards/kuhhandel.svg or
cards/notes.svg) is a copy of a model (kuhhandel.js ``copied``), and each copy costs the page a
request to its cache even when the draw throws it away unchanged (dom.js morph keeps the one
in the page). An init script counts the copies made (``cloneNode`` of a picture) and the
pictures that went into the page (a MutationObserver): a seat drawn again for a new tag or a
new count of notes kept its cards and its face-down note in the page, yet built them anew.

In a profile of a whole classic game (a seat and a spectator, December 2026) the requests were
2,657 on the seat's page and 2,275 on the spectator's, 0.35 s and 0.22 s of their main threads
(5 % of each); over 60 decisions the seat copied 879 pictures and put 181 in the page, the
spectator 738 and 143. On main before this test (dd2d96d) both pages copy more than twice the
pictures they show: the test fails there.
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
  const c = window.__pictures = { copied: 0, shown: 0 };
  const clone = Node.prototype.cloneNode;
  Node.prototype.cloneNode = function (deep) {
    if (this.namespaceURI === "http://www.w3.org/2000/svg" && this.querySelector("use")) c.copied++;
    return clone.call(this, deep);
  };
  new MutationObserver((records) => {
    for (const r of records) for (const n of r.addedNodes) {
      if (n.nodeType !== 1) continue;
      c.shown += (n.localName === "use" ? 1 : 0) + n.querySelectorAll("use").length;
    }
  }).observe(document, { subtree: true, childList: true });
})();"""


def test_a_table_copies_only_the_pictures_it_shows(browser: Any, server: WebServer) -> None:
    seat = open_tab(browser)
    seat.page.add_init_script(COUNTERS)
    game_id = start_game(seat, server, "Pia", "kuhhandel", rules="classic", seats="3")
    spectator = open_tab(browser, width=1100, height=860)
    spectator.page.add_init_script(COUNTERS)
    spectator.page.goto(f"{server.url}/watch/{game_id}")
    spectator.page.locator(".board-col .seat").first.wait_for()
    counts = play_until_over(seat, kuhhandel_step, limit_s=150, decisions=40)
    assert sum(counts.values()) >= 40, counts
    for who, tab in (("seat", seat), ("spectator", spectator)):
        got = tab.page.evaluate("window.__pictures")
        # the pictures shown (new cards in herds and lots, panels, flying notes) and a few more
        # (a panel's card built for a request answered at once): far from a copy of every
        # picture of a seat drawn again
        assert got["shown"] >= 20, (who, got, counts)
        assert got["copied"] <= 2 * got["shown"], (who, got, counts)
    assert not seat.errors and not spectator.errors, (seat.errors, spectator.errors)
