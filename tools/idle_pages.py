"""What the pages burn while nothing happens: for each page state the browser tests spend time
in, the renderer's main-thread CPU over an idle window and what fired in it.

    PYTHONPATH=src CARDTABLE_ENGINE=plain .venv/bin/python tools/idle_pages.py [--seconds 10]

A real server (tests/web/browser_helpers.run_server) and Debian's Chromium, headless, with the
tests' flags. The states, all open at once and measured in the same window:

- ``lobby``: a guest signed in on the lobby (it reads /api/tables every 3 s);
- ``kh deciding``: a Kuhhandel seat (classic, against house bots) whose own clock runs;
- ``cu deciding`` / ``cu other``: two people at a private Cunegonda table with two house
  bots, one whose turn it is (its clock runs) and the other (waiting for that move, or
  deciding too where both choose at once);
- ``watch``: a spectator of the Kuhhandel game (nothing moves while its person thinks);
- ``replay``: the replay of a finished game, not playing;
- ``bot page``, ``leaderboard``: a profile page and the leaderboard.

Per state: the page's own figures from Chromium's Performance domain (``TaskDuration``,
``ScriptDuration``, ``LayoutCount``, ``RecalcStyleCount`` over the window), the callbacks that
ran (requestAnimationFrame, setTimeout, setInterval, wrapped by an init script), the DOM
mutations, the fetches, and the Web/CSS animations running at the end; and the CPU of all of
Chromium's renderer processes over the window (``/proc``). Not a test: it measures time
(tests/web/test_idle_pages.py counts instead).

What it found (December 2026, see the commits): no idle page runs a CSS animation or a
requestAnimationFrame loop; a table drew itself again at every read of who holds each seat (the
same view every 3 s) and polled its clock every 250 ms, the lobby built its list anew every 3 s.
Now an idle table writes only its clock, once a second, and the lobby nothing.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "web")]

from browser_helpers import (  # noqa: E402
    CHROMIUM,
    Tab,
    open_tab,
    run_server,
    sign_in,
    start_game,
    two_at_a_private_table,
)

COUNTERS = """(() => {
  const c = window.__idle = { raf: 0, timeout: 0, interval: 0, mutations: 0, fetches: 0 };
  const raf = window.requestAnimationFrame.bind(window);
  window.requestAnimationFrame = (cb) => raf((t) => { c.raf++; return cb(t); });
  for (const [name, key] of [["setTimeout", "timeout"], ["setInterval", "interval"]]) {
    const native = window[name].bind(window);
    const counted = (cb) => (...x) => { c[key]++; return cb(...x); };
    window[name] = (cb, ...a) => native(typeof cb === "function" ? counted(cb) : cb, ...a);
  }
  const f = window.fetch.bind(window);
  window.fetch = (...a) => { c.fetches++; return f(...a); };
  new MutationObserver((records) => { c.mutations += records.length; })
    .observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
})();"""

RESET = "() => { for (const k of Object.keys(window.__idle)) window.__idle[k] = 0; }"
READ = """() => ({ ...window.__idle,
  animations: document.getAnimations().filter((a) => a.playState === "running").map((a) => {
    const el = a.effect && a.effect.target;
    const what = a.animationName || a.transitionProperty || "web";
    return `${what} on ${el ? el.className || el.tagName : "?"}`;
  }),
  clock: (document.querySelector(".clock:not([hidden])") || {}).textContent || null })"""

METRICS = ("TaskDuration", "ScriptDuration", "LayoutCount", "RecalcStyleCount", "LayoutDuration")


def renderer_cpu() -> float:
    """The CPU seconds of every Chromium renderer process now."""
    tick = 100.0
    total = 0.0
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            line = (proc / "cmdline").read_bytes()
            if b"chrom" not in line or b"--type=renderer" not in line:
                continue
            fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / tick
    return total


def metrics(cdp: Any) -> dict[str, float]:
    got = cdp.send("Performance.getMetrics")["metrics"]
    return {m["name"]: m["value"] for m in got if m["name"] in METRICS}


def tab_with_counters(browser: Any, **kw: Any) -> Tab:
    tab = open_tab(browser, **kw)
    tab.page.add_init_script(COUNTERS)
    return tab


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with (
        tempfile.TemporaryDirectory() as tmp,
        run_server(Path(tmp)) as server,
        sync_playwright() as p,
    ):
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
            headless=True,
        )
        states: dict[str, Tab] = {}
        # a finished game for the replay: a short Cunegonda match left to the house bots
        dan = tab_with_counters(browser)
        done = start_game(dan, server, "Dan", "cunegonda", rules="short")
        dan.page.locator(".hand-box .panel[data-kind]").first.wait_for(timeout=30000)
        dan.page.once("dialog", lambda d: d.accept())
        dan.page.get_by_role("button", name="Leave the table").click()
        dan.page.locator("[data-again]").wait_for(timeout=120000)

        kh = tab_with_counters(browser)
        kh_id = start_game(kh, server, "Kim", "kuhhandel", rules="classic", seats="3")
        kh.page.locator(".panel[data-kind]").first.wait_for(timeout=30000)
        states["kh deciding"] = kh

        ada, bea = tab_with_counters(browser), tab_with_counters(browser)
        sign_in(ada, server, "Ada")
        sign_in(bea, server, "Bea")
        two_at_a_private_table(ada, bea)
        for t in (ada, bea):
            t.page.wait_for_url("**/table/*")
        deadline = time.monotonic() + 60
        while True:
            panel = ".hand-box .panel[data-kind]"
            deciding = [t for t in (ada, bea) if t.page.locator(panel).count()]
            if deciding:
                break
            assert time.monotonic() < deadline, "nobody's turn"
            ada.page.wait_for_timeout(100)
        states["cu deciding"] = deciding[0]
        states["cu other"] = bea if deciding[0] is ada else ada

        watcher = tab_with_counters(browser, width=1100, height=860)
        watcher.page.goto(f"{server.url}/watch/{kh_id}")
        watcher.page.locator(".board-col .seat, .board-col [data-seat]").first.wait_for()
        states["watch"] = watcher

        lobby = tab_with_counters(browser)
        sign_in(lobby, server, "Lou")
        states["lobby"] = lobby

        dan.page.goto(f"{server.url}/replay/{done}")
        dan.page.locator(".replay-controls").wait_for()
        states["replay"] = dan

        bot = tab_with_counters(browser)
        bot.page.goto(f"{server.url}/bots/heuristic")
        bot.page.locator("main h1").first.wait_for()
        states["bot page"] = bot
        board = tab_with_counters(browser)
        board.page.goto(f"{server.url}/leaderboard")
        board.page.locator("main h1").first.wait_for()
        states["leaderboard"] = board

        for t in states.values():
            t.page.wait_for_timeout(500)  # first draws and fetches done
        cdps = {name: t.page.context.new_cdp_session(t.page) for name, t in states.items()}
        for cdp in cdps.values():
            cdp.send("Performance.enable")
        before = {name: metrics(cdp) for name, cdp in cdps.items()}
        for t in states.values():
            t.page.evaluate(RESET)
        cpu0 = renderer_cpu()
        time.sleep(args.seconds)
        cpu1 = renderer_cpu()
        after = {name: metrics(cdp) for name, cdp in cdps.items()}
        print(f"idle window {args.seconds:.0f} s; every renderer together: {cpu1 - cpu0:.2f} s CPU")
        print(
            f"{'state':<12} {'task ms':>8} {'script':>7} {'layouts':>7} {'styles':>6} "
            f"{'rAF':>5} {'timeout':>7} {'interval':>8} {'mutat':>6} {'fetch':>5}  "
            "animations, clock"
        )
        for name, t in states.items():
            got = t.page.evaluate(READ)
            d = {k: after[name][k] - before[name][k] for k in METRICS}
            print(
                f"{name:<12} {d['TaskDuration'] * 1000:8.1f} {d['ScriptDuration'] * 1000:7.1f} "
                f"{d['LayoutCount']:7.0f} {d['RecalcStyleCount']:6.0f} {got['raf']:5} "
                f"{got['timeout']:7} {got['interval']:8} {got['mutations']:6} {got['fetches']:5}  "
                f"{got['animations']} {got['clock']!r}"
            )
        browser.close()


if __name__ == "__main__":
    main()
