"""A page where nothing happens does nothing but what it shows (a person's battery, a phone's
fan, and the browser tests' CPU): counted by the page's own counters, never timed.

An init script wraps ``requestAnimationFrame``, ``setTimeout`` and ``setInterval`` (each
callback that runs is counted), notes every /public read that finished and every text the
seat's clock showed. The window is bounded by events: it starts once the page's motion has
finished, and ends after the page's next read of who holds each seat (every 3 s) and a clock
change after it (a draw that read asked for has run by then), with at least three clock changes.
In it:

- no animation-frame callback ran and no animation runs (an unchanged view draws nothing);
- the timers that ran are about the clock's changes and the reads (one each, a little slack),
  not four a second;
- the clock counted down one second at a time, the seconds its request gives.

On main before this test (bf3496d) the table drew a frame at every read of the holders (the
same view) and polled its clock every 250 ms: it fails on both counts.
"""

from __future__ import annotations

from typing import Any

from browser_helpers import WebServer, open_tab, start_game

from patience import patience

COUNTERS = """(() => {
  const c = window.__idle = { raf: 0, timers: 0, reads: 0, clock: [] };
  const raf = window.requestAnimationFrame.bind(window);
  window.requestAnimationFrame = (cb) => raf((t) => { c.raf++; return cb(t); });
  for (const name of ["setTimeout", "setInterval"]) {
    const native = window[name].bind(window);
    const counted = (cb) => (...x) => { c.timers++; return cb(...x); };
    window[name] = (cb, ...a) => native(typeof cb === "function" ? counted(cb) : cb, ...a);
  }
  const fetch = window.fetch.bind(window);
  window.fetch = (...a) => {
    const got = fetch(...a);
    if (String(a[0]).endsWith("/public")) got.then(() => { c.reads++; }, () => {});
    return got;
  };
  const seen = () => {
    const el = document.querySelector(".clock:not([hidden])");
    const text = el ? el.textContent : null;
    if (text !== c.clock[c.clock.length - 1]) c.clock.push(text);
  };
  new MutationObserver(seen).observe(document,
    { subtree: true, childList: true, characterData: true, attributes: true });
})();"""

#: resolves once the motion under way has finished
SETTLED = """() => Promise.all(document.getAnimations().map((a) => a.finished.catch(() => null)))
  .then(() => true)"""

RESET = """() => { const c = window.__idle; c.raf = 0; c.timers = 0; c.reads = 0;
  c.clock = [c.clock[c.clock.length - 1]]; }"""

#: resolves when the window is over (see the module's docstring), with the counters
WINDOW = """() => new Promise((resolve) => {
  const c = window.__idle;
  let readAt = null;
  const check = () => {
    if (readAt === null && c.reads > 0) readAt = c.clock.length;
    if (readAt !== null && c.clock.length > readAt && c.clock.length > 3) {
      resolve({ raf: c.raf, timers: c.timers, reads: c.reads, clock: [...c.clock],
        running: document.getAnimations().filter((a) => a.playState === "running").length });
    }
  };
  const observer = new MutationObserver(check);
  observer.observe(document, { subtree: true, childList: true, characterData: true });
})"""


def test_an_idle_table_draws_only_its_clock(browser: Any, server: WebServer) -> None:
    tab = open_tab(browser)
    page = tab.page
    page.add_init_script(COUNTERS)
    game_id = start_game(tab, server, "Ida", "cunegonda", rules="short")
    page.locator(".hand-box .panel[data-kind]").first.wait_for(timeout=30000)
    page.locator(".clock:not([hidden])").wait_for()
    request = tab.last_request()
    assert request is not None and request["game_id"] == game_id
    page.evaluate(SETTLED)
    page.evaluate(RESET)
    page.set_default_timeout(patience(20) * 1000)
    got = page.evaluate(WINDOW)
    # nothing moved and no frame was asked for: the reads brought the same view
    assert got["raf"] == 0, got
    assert got["running"] == 0, got
    # a timer a clock change and a read (the holders' interval), two more at most
    changes = len(got["clock"]) - 1
    assert got["timers"] <= changes + got["reads"] + 2, got
    # the clock counted down a second at a time, from at most the request's deadline
    shown = [int(text.split(": ")[1].split(" s")[0]) for text in got["clock"]]
    assert shown == list(range(shown[0], shown[0] - len(shown), -1)), got
    assert shown[0] <= request["deadline_ms"] / 1000, (shown, request["deadline_ms"])
    assert not tab.errors, tab.errors
