"""``cardtable bench table`` (also ``cardtable bench-table``): what drawing the browser table costs
the browser, measured in Chromium.

It starts a server of its own (``cardtable serve`` in a child process, SQLite in a temporary
folder, loopback only), seats a client bot (``--bot``, as a guest) at a practice table against
house bots, and watches the game from the spectator's page (``/watch/{id}``) in Chromium through
Playwright (``pip install 'cardtable[web]'``). The table plays at the server's people's pace
scaled by ``--pace-scale``, so the page draws move by move as a person's page does, not a whole
game in one burst. At the end it reads, from the browser's own DevTools counters:

- the CPU time of the page's renderer process, every thread (``SystemInfo.getProcessInfo``);
- its main thread's time in script, style and layout, and how many layouts and style passes it
  ran (``Performance.getMetrics``);

and divides them by the game's events the page received; and the page's long tasks (more than
50 ms on the main thread, from the browser's ``longtask`` entries): how many, how many over 200
ms, and the longest; and the machine's load average at each game's end (the tasks' durations are
wall time: on a loaded machine they stretch).

``--against SRC`` measures another build in the same run: a second server started from the source
tree ``SRC`` (for example ``/work/main/src``: the page is served by the server, so its pages are
that tree's), the games watched alternately on both, and both reports printed with their ratio.

The spectator's page and the seat's page
draw the board and the log with the same code (``static/table.js``), so this is what each event
costs a person's browser too; a person's page also redraws its panels.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from cardtable.cli.child_server import child_server, http

HELP = "measure the browser table: the renderer's CPU per event while a game is watched in Chromium"

#: The page's main-thread counters kept from Performance.getMetrics (durations in seconds).
MAIN_THREAD = (
    "TaskDuration",
    "ScriptDuration",
    "RecalcStyleDuration",
    "LayoutDuration",
    "RecalcStyleCount",
    "LayoutCount",
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", default="kuhhandel", choices=["kuhhandel", "cunegonda"])
    p.add_argument("--rules", default=None, help="a preset of the game (default: its default)")
    p.add_argument("--seats", type=int, default=4)
    p.add_argument("--bot", default="random", help="the client bot seated as a guest")
    p.add_argument("--opponents", default="heuristic", help="the house bots of the other seats")
    p.add_argument("--games", type=int, default=1, help="games watched, one after another")
    p.add_argument(
        "--pace-scale",
        type=float,
        default=0.1,
        help="the server's pace_scale: 1 is the people's pace (a bot's move 0.6-1 s after the "
        "one before), 0.1 ten times faster (default)",
    )
    p.add_argument("--size", default="1280x800", help="the page's size, WIDTHxHEIGHT")
    p.add_argument(
        "--reduced-motion",
        action="store_true",
        help="the page as a person who asked for reduced motion sees it (no cards or notes fly)",
    )
    p.add_argument("--chromium", default="/usr/bin/chromium", help="the Chromium to drive")
    p.add_argument(
        "--against",
        default=None,
        metavar="SRC",
        help="also measure the build in this source tree (its server and pages), games "
        "alternating, and compare",
    )
    p.add_argument("--json", action="store_true", help="print the report as JSON")


def _renderer_cpu(cdp: Any) -> float:
    """CPU seconds of every renderer process so far (one page: one renderer)."""
    info = cdp.send("SystemInfo.getProcessInfo")
    return float(sum(p["cpuTime"] for p in info["processInfo"] if p["type"] == "renderer"))


def _main_thread(cdp: Any) -> dict[str, float]:
    metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    return {name: float(metrics.get(name, 0.0)) for name in MAIN_THREAD}


def _running_game(base: str, player: str, limit_s: float = 60.0) -> str:
    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        games = http().get(f"{base}/api/games", params={"status": "running", "player": player})
        rows = games.json()["games"] if games.status_code == 200 else []
        if rows:
            return str(rows[0]["id"])
        time.sleep(0.1)
    raise RuntimeError(f"no game of {player} started within {limit_s:g} s")


def _watch_one(browser: Any, base: str, args: argparse.Namespace, n: int) -> dict[str, Any]:
    from cardtable.client.blocking import play

    guest = f"bench{n}"
    failure: list[BaseException] = []

    def seat() -> None:
        try:
            play(
                base.replace("http", "ws", 1) + "/ws",
                None,
                None,
                args.bot,
                guest=guest,
                lobby="practice",
                game=args.game,
                rules=args.rules,
                seats=args.seats,
                opponents=args.opponents,
                seed=n,
            )
        except BaseException as exc:  # reported by the main thread
            failure.append(exc)

    player = threading.Thread(target=seat, daemon=True)
    player.start()
    game_id = _running_game(base, guest)
    width, height = (int(x) for x in args.size.split("x"))
    context = browser.new_context(
        viewport={"width": width, "height": height},
        reduced_motion="reduce" if args.reduced_motion else "no-preference",
    )
    page = context.new_page()
    # every long task of the page (more than 50 ms on its main thread), kept for the report
    page.add_init_script(
        "window.__longTasks = []; try { new PerformanceObserver((list) => { for (const e of"
        " list.getEntries()) window.__longTasks.push(e.duration); }).observe({ type: 'longtask',"
        " buffered: true }); } catch (_) {}"
    )
    events = [0]  # event frames received (a reconnect sends the game's events again)
    indices: set[int] = set()  # the game's events among them

    def on_socket(ws: Any) -> None:
        def frame(payload: Any) -> None:
            if isinstance(payload, str) and payload.startswith('{"type":"event"'):
                events[0] += 1
                with contextlib.suppress(ValueError, KeyError, TypeError):
                    indices.add(int(json.loads(payload)["index"]))

        ws.on("framereceived", frame)

    page.on("websocket", on_socket)
    cdp = context.new_cdp_session(page)
    cdp.send("Performance.enable")
    system = browser.new_browser_cdp_session()
    cpu_before = _renderer_cpu(system)
    main_before = _main_thread(cdp)
    started = time.monotonic()
    page.goto(f"{base}/watch/{game_id}")
    page.locator(".table-head .status", has_text="The game is over.").wait_for(timeout=1_800_000)
    wall = time.monotonic() - started
    cpu = _renderer_cpu(system) - cpu_before
    main_after = _main_thread(cdp)
    long_tasks = [float(d) for d in page.evaluate("() => window.__longTasks || []")]
    main = {k: main_after[k] - main_before[k] for k in MAIN_THREAD}
    context.close()
    player.join(timeout=60)
    if failure:
        raise RuntimeError(f"the client bot failed: {failure[0]!r}")
    per = max(events[0], 1)
    return {
        "game_id": game_id,
        "events": events[0],
        "game_events": len(indices),
        "wall_s": round(wall, 2),
        "renderer_cpu_share": round(cpu / max(wall, 1e-9), 3),
        "renderer_cpu_s": round(cpu, 3),
        "renderer_cpu_ms_per_event": round(1000 * cpu / per, 3),
        "main_thread_s": {k: round(v, 3) for k, v in main.items() if k.endswith("Duration")},
        "layouts": int(main["LayoutCount"]),
        "style_passes": int(main["RecalcStyleCount"]),
        "main_thread_ms_per_event": round(1000 * main["TaskDuration"] / per, 3),
        "long_tasks": len(long_tasks),
        "long_tasks_over_200_ms": sum(d > 200 for d in long_tasks),
        "longest_task_ms": round(max(long_tasks, default=0.0), 1),
        "load_average": round(os.getloadavg()[0], 1),  # the machine's, at the game's end
    }


def run(args: argparse.Namespace) -> int:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print(
            "cardtable bench table needs Playwright: pip install 'cardtable[web]'", file=sys.stderr
        )
        return 2
    if not Path(args.chromium).exists():
        print(f"no Chromium at {args.chromium} (--chromium PATH)", file=sys.stderr)
        return 2
    settings = {
        "CARDTABLE_PACE_SCALE": str(args.pace_scale),
        "CARDTABLE_FILL_WAIT_MS": "200",
    }
    builds: dict[str, list[dict[str, Any]]] = {"this": []}
    if args.against:
        builds["against"] = []
    with contextlib.ExitStack() as stack:
        bases = {
            "this": stack.enter_context(
                child_server(Path(stack.enter_context(tempfile.TemporaryDirectory())), settings)
            )
        }
        if args.against:
            src = str(Path(args.against).resolve())
            bases["against"] = stack.enter_context(
                child_server(
                    Path(stack.enter_context(tempfile.TemporaryDirectory())),
                    {**settings, "PYTHONPATH": src},
                )
            )
        pw = stack.enter_context(sync_playwright())
        browser = pw.chromium.launch(
            executable_path=args.chromium,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        try:
            for n in range(args.games):
                # alternately first: neither build always meets a warmer machine
                order = list(bases) if n % 2 == 0 else list(reversed(bases))
                for name in order:
                    g = _watch_one(browser, bases[name], args, n)
                    builds[name].append(g)
                    if not args.json:
                        print(_game_line(name, n, g), file=sys.stderr)
        finally:
            browser.close()
    reports = {name: _report(args, games) for name, games in builds.items()}
    if args.json:
        out: dict[str, Any] = dict(reports["this"])
        if args.against:
            out["against"] = {"src": args.against, **reports["against"]}
        print(json.dumps(out, indent=2))
        return 0
    for name, report in reports.items():
        label = "this build" if name == "this" else f"against {args.against}"
        print(
            f"cardtable bench table ({label}): {args.game} ({args.rules or 'default rules'}), "
            f"{args.seats} seats, watched at {args.size}, {len(report['games'])} game(s), "
            f"{report['events']} events: renderer CPU {report['renderer_cpu_s']:.2f} s, "
            f"{report['renderer_cpu_ms_per_event']:.2f} ms an event; {report['long_tasks']} long "
            f"tasks ({report['long_tasks_over_200_ms']} over 200 ms), the longest "
            f"{report['longest_task_ms']:.0f} ms"
        )
    if args.against:
        a, b = reports["this"], reports["against"]
        ratio = a["renderer_cpu_ms_per_event"] / max(b["renderer_cpu_ms_per_event"], 1e-9)
        print(f"this build / against: {ratio:.2f} of the renderer CPU an event")
    return 0


def _game_line(name: str, n: int, g: dict[str, Any]) -> str:
    return (
        f"{name} game {n + 1}: {g['events']} events ({g['game_events']} of the game) in "
        f"{g['wall_s']:.1f} s; renderer CPU {g['renderer_cpu_s']:.2f} s "
        f"({g['renderer_cpu_ms_per_event']:.2f} ms an event, {g['renderer_cpu_share']:.0%} of a "
        "core), main "
        f"thread {g['main_thread_ms_per_event']:.2f} ms an event (script "
        f"{g['main_thread_s']['ScriptDuration']:.2f} s, style "
        f"{g['main_thread_s']['RecalcStyleDuration']:.2f} s, layout "
        f"{g['main_thread_s']['LayoutDuration']:.2f} s; {g['layouts']} layouts); "
        f"{g['long_tasks']} long tasks ({g['long_tasks_over_200_ms']} over 200 ms), the longest "
        f"{g['longest_task_ms']:.0f} ms; load average {g['load_average']:.1f}"
    )


def _report(args: argparse.Namespace, games: list[dict[str, Any]]) -> dict[str, Any]:
    events = sum(g["events"] for g in games)
    cpu = sum(g["renderer_cpu_s"] for g in games)
    return {
        "game": args.game,
        "rules": args.rules,
        "seats": args.seats,
        "pace_scale": args.pace_scale,
        "size": args.size,
        "cpus": os.cpu_count(),
        "games": games,
        "events": events,
        "renderer_cpu_s": round(cpu, 3),
        "renderer_cpu_ms_per_event": round(1000 * cpu / max(events, 1), 3),
        "long_tasks": sum(g["long_tasks"] for g in games),
        "long_tasks_over_200_ms": sum(g["long_tasks_over_200_ms"] for g in games),
        "longest_task_ms": max((g["longest_task_ms"] for g in games), default=0.0),
    }
