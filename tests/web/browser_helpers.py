"""Helpers of the browser tests: a real server on a free loopback port, a tab that records its
WebSocket frames and script errors, drivers that play through the page, and screenshots for
docs/web.md."""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import socket
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import uvicorn

from cardtable.client import GameReport, play
from cardtable.server.app import create_app
from cardtable.server.config import Settings
from loopback import LOOPBACK
from patience import patience
from web.profiles import HEIGHT, WIDTH, Profile, profiles_of

CHROMIUM = Path("/usr/bin/chromium")
#: Screenshots are for people (docs/web.md, a look at the screens), not checks: no test reads
#: one back. A test run takes none unless asked: ``CARDTABLE_WEB_SHOTS=1`` writes them to
#: docs/screenshots, ``CARDTABLE_WEB_SHOTS=tmp`` to a temporary folder (a look without changing
#: tracked files). Taken in every run they cost a fifth of the browser tests' CPU (test_languages
#: 19.9 s of CPU with them, see the commit), each shot_pair two resizes, two redraws and a
#: full-page PNG.
SHOTS_WANTED = os.environ.get("CARDTABLE_WEB_SHOTS", "")
DOC_SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
SCREENSHOTS = (
    Path(tempfile.gettempdir()) / "cardtable-web-shots"
    if SHOTS_WANTED in ("", "tmp")
    else DOC_SHOTS
)
TAKE_SHOTS = SHOTS_WANTED != ""


@dataclass
class WebServer:
    url: str
    app: Any
    settings: Settings


@contextlib.contextmanager
def run_server(
    db_dir: Path, *, around: Callable[[Any], Any] | None = None, **overrides: Any
) -> Iterator[WebServer]:
    """A real server (uvicorn in a thread) on a free loopback port with SQLite in ``db_dir``.

    ``around`` wraps the server's ASGI app in one of the test's (which holds an answer back on
    purpose, say); ``WebServer.app`` stays the server's own.

    The defaults make house bots fast and give people a long clock; ``overrides`` are
    :class:`Settings` fields (for example short deadlines for people).

    The house bot that fills ranked tables and the fallback that plays a seat a person left (or
    let time out on) are the heuristic bot, not the server's default (the strongest, the
    expert): the expert searches, and a classic game of two experts took 74 s where two
    heuristic bots took 3.6 s (``cardtable arena kuhhandel --bots X,X,random,random``, same
    machine and load). Which bot the server picks is tested in tests/server.
    """
    values: dict[str, Any] = {
        "db": f"sqlite:///{db_dir / 'web.db'}",
        "deadline_ms": 1500,
        "time_bank_ms": 1000,
        "person_deadline_ms": 60000,
        "person_time_bank_ms": 60000,
        "fill_wait_ms": 200,
        "bot_quiet_ms": 200,
        "quiet_ms": 2000,
        # whole games through the page run at once (the lobby asks for the normal pace):
        # pacing is tested on the protocol (tests/server/test_pace.py)
        "pace": "instant",
        "away_pace": "instant",
        "pace_scale": 0.0,
        "log_level": "warning",
        # a new bot's validation game before its first ranked one: tests/server
        "validation_games": False,
        "house_bots": {"kuhhandel": "heuristic", "cunegonda": "heuristic"},
        "fallback_bot": {"kuhhandel": "heuristic", "cunegonda": "heuristic"},
        # the CPU of a test's server, not an operator's (as tests/server/wire.py fast_settings;
        # these servers are built from Settings, which reads no CARDTABLE_* variable of
        # tests/conftest.py): the event loop's lag sampled every 100 ms, not 10 (an idle server
        # 10-12 -> ~1 ms of CPU a second, every second it is up), and the cheapest argon2id (a
        # password sign-up 0.25 s of CPU -> a few ms; test_accounts.py checks the hash)
        "loop_lag_ms": 100,
        "password_time_cost": 1,
        "password_memory_kib": 8,
        "password_lanes": 1,
    }
    values.update(overrides)
    settings = Settings(**values)
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    settings.port = sock.getsockname()[1]
    app = create_app(settings)
    served = app if around is None else around(app)
    config = uvicorn.Config(served, log_level="warning", ws="websockets-sansio", lifespan="on")
    uv = uvicorn.Server(config)
    thread = threading.Thread(target=uv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    end = time.monotonic() + patience(20)  # longer on a loaded machine
    while not uv.started:
        if time.monotonic() > end or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield WebServer(f"http://127.0.0.1:{settings.port}", app, settings)
    finally:
        uv.should_exit = True
        thread.join(timeout=20)
        sock.close()


@dataclass
class Tab:
    """A page plus everything it logged and every WebSocket frame it received."""

    page: Any
    frames: list[str] = field(default_factory=list)
    sent: list[str] = field(default_factory=list)
    public_views: list[dict[str, Any]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    #: what happened to the page's WebSockets ("open <url>", "closed <url>", errors)
    sockets: list[str] = field(default_factory=list)
    _parsed: dict[bool, list[dict[str, Any]]] = field(default_factory=dict)
    _read: dict[bool, int] = field(default_factory=dict)
    #: the person's browser profile (its context) while the tab is open (:func:`open_tab`)
    profile: Profile | None = None
    #: the page's HTTP answers of 400 or more and its failed requests, for failure messages
    refusals: list[str] = field(default_factory=list)
    #: what the page showed when it was closed (toasts, socket closes, its address): a failed
    #: test's report is written after its tabs closed
    last_seen: str = ""

    def close(self) -> None:
        """Close the page (its WebSockets close with it) and give the person's context back to
        the pool, reset (profiles.py); a second close does nothing."""
        if not self.last_seen and not self.page.is_closed():
            try:
                self.last_seen = f"address: {self.page.url}\n" + page_saw(self.page)
            except Exception as exc:  # a closing page must not fail the test's tear-down
                self.last_seen = f"(unreadable at close: {exc})"
        profile, self.profile = self.profile, None
        if profile is not None:
            profile.home.give_back(profile)
        elif not self.page.is_closed():
            self.page.close()

    def messages(self, sent: bool = False) -> list[dict[str, Any]]:
        """Every JSON message received (or sent), parsed once and kept."""
        texts = self.sent if sent else self.frames
        out = self._parsed.setdefault(sent, [])
        start = self._read.get(sent, 0)
        for text in texts[start:]:
            try:
                message = json.loads(text)
            except ValueError:
                continue
            if isinstance(message, dict):
                out.append(message)
        self._read[sent] = len(texts)
        return list(out)

    def last_request(self, kind: str | None = None) -> dict[str, Any] | None:
        """The newest ``request`` message (of a request kind) this tab received."""
        for m in reversed(self.messages()):
            if m.get("type") == "request" and (kind is None or m["request"]["kind"] == kind):
                return m
        return None

    def events(self) -> list[dict[str, Any]]:
        """Every game event in the frames, wherever it is carried (an ``event`` message or a
        list of events bundled into another message): dicts with a ``kind`` and a ``data``."""
        out: list[dict[str, Any]] = []
        for m in self.messages():
            out.extend(walk_events(m))
        return out


def walk_events(value: Any) -> Iterator[dict[str, Any]]:
    """Every ``{"kind": ..., "data": {...}}`` inside a decoded message (events only have both;
    requests and actions have no ``data``)."""
    if isinstance(value, dict):
        if isinstance(value.get("kind"), str) and isinstance(value.get("data"), dict):
            yield value
        for v in value.values():
            yield from walk_events(v)
    elif isinstance(value, list):
        for v in value:
            yield from walk_events(v)


def walk_key(value: Any, key: str) -> Iterator[Any]:
    """Every value stored under ``key`` anywhere inside a decoded message."""
    if isinstance(value, dict):
        for k, v in value.items():
            if k == key:
                yield v
            yield from walk_key(v, key)
    elif isinstance(value, list):
        for v in value:
            yield from walk_key(v, key)


#: the tabs the running test opened (conftest.py reports what they saw when the test fails)
OPEN_TABS: list[Tab] = []


def open_tab(
    browser: Any,
    *,
    width: int = 1280,
    height: int = 900,
    locale: str | None = None,
    still: bool = False,
) -> Tab:
    """A new page in a browser context of its own (a different person: a cookie jar and storage
    nobody else uses while the tab is open); ``locale`` (``"de-DE"``) sets the browser's
    language, its ``Accept-Language`` (Playwright's default: en-US).

    The context comes from a pool (profiles.py): one a finished tab gave back, with no page, no
    cookie and no storage left, else a new one; :meth:`Tab.close` gives it back, and so does the
    end of the test (conftest.py) for every tab the test left open. A new context per tab cost
    Chromium about twice the CPU (0.9-1.2 s against 0.5-0.6 s a tab, see profiles.py).

    ``still``: the person asks for reduced motion (``prefers-reduced-motion: reduce``), so the
    table moves nothing (the page's end states are the same: its motions and highlights are
    transient). For a whole Kuhhandel game whose test checks no motion: the motion costs
    Chromium a fifth of its CPU per decision and the game two fifths of its time (a classic
    game at load 25: 0.15-0.16 s of Chromium CPU a decision still, 0.19-0.21 s moving; 32-46 s
    against 58-77 s). The motion itself is checked in test_motion.py (both ways) and in
    test_play.py's classic game (the notes that fly)."""
    profile = profiles_of(browser).take(locale)
    page = profile.context.new_page()
    if (width, height) != (WIDTH, HEIGHT):
        page.set_viewport_size({"width": width, "height": height})
    if still:
        page.emulate_media(reduced_motion="reduce")
    page.set_default_timeout(patience(15) * 1000)  # longer on a loaded machine
    tab = Tab(page, profile=profile)
    OPEN_TABS.append(tab)
    page.on("pageerror", lambda exc: tab.errors.append(str(exc)))

    def console(msg: Any) -> None:
        # a failed fetch is logged as "Failed to load resource": the tests look at responses
        # instead (the public view of a table answers 410 once the game is over, by design)
        if msg.type == "error" and not msg.text.startswith("Failed to load resource"):
            tab.errors.append(msg.text)

    def response(reply: Any) -> None:
        if reply.status >= 500:
            tab.errors.append(f"{reply.status} from {reply.url}")
        if reply.status >= 400:
            tab.refusals.append(f"{reply.status} {reply.request.method} {reply.url}")

    page.on("console", console)
    page.on("response", response)
    page.on("requestfailed", lambda r: tab.refusals.append(f"failed {r.method} {r.url}"))

    def watch(ws: Any) -> None:
        tab.sockets.append(f"open {ws.url}")
        ws.on("framereceived", lambda payload: tab.frames.append(str(payload)))
        ws.on("framesent", lambda payload: tab.sent.append(str(payload)))
        ws.on("close", lambda _ws: tab.sockets.append(f"closed {ws.url}"))
        ws.on("socketerror", lambda error: tab.sockets.append(f"error {error}"))

    # every toast the page showed (each replaces the last on screen), for failure messages
    # and every close of a WebSocket with its code and reason (Playwright does not give them)
    page.add_init_script(
        "window.__toasts = []; window.__closes = [];"
        "new MutationObserver(() => { const t = document.getElementById('toast');"
        " if (t && t.textContent) window.__toasts.push(t.textContent); })"
        ".observe(document, {subtree: true, childList: true, characterData: true});"
        "const Native = window.WebSocket;"
        "window.WebSocket = class extends Native { constructor(...a) { super(...a);"
        " this.addEventListener('close', (e) => window.__closes.push("
        "`${e.code} ${e.reason} at ${Math.round(performance.now())} ms`)); } };"
    )

    page.on("websocket", watch)
    return tab


def keep_public_views(tab: Tab) -> None:
    """Keep every public view of a table the page reads (a ``/public`` answer with 200) in
    ``tab.public_views``."""

    def keep(reply: Any) -> None:
        if "/public" in reply.url and reply.status == 200:
            tab.public_views.append(json.loads(reply.text()))

    tab.page.on("response", keep)


def watch(browser: Any, server: WebServer, game_id: str) -> Tab:
    """A spectator: a new tab (1100x860, a person of its own) that keeps the public views it
    reads, on the game's /watch page (not waited for)."""
    spectator = open_tab(browser, width=1100, height=860)
    keep_public_views(spectator)
    spectator.page.goto(f"{server.url}/watch/{game_id}")
    return spectator


def settle(page: Any, docs_ms: int) -> None:
    """Before a screenshot: for docs/screenshots, ``docs_ms`` for motion under way to land; in a
    test run (the picture only has to render), the next two frames."""
    if SCREENSHOTS == DOC_SHOTS:
        page.wait_for_timeout(docs_ms)
    else:
        page.evaluate(
            "() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))"
        )


def frames(page: Any, count: int = 2) -> None:
    """Wait until the page has drawn ``count`` more frames (after its pending timers of 0 ms: a
    redraw the page scheduled, e.g. on a resize): the event a check of the drawing waits for."""
    page.evaluate(
        """(count) => new Promise((resolve) => setTimeout(() => {
             const next = (left) => left ? requestAnimationFrame(() => next(left - 1)) : resolve();
             next(count);
           }, 0))""",
        count,
    )


def wait_until(page: Any, condition: Any, *, seconds: float, what: str) -> None:
    """Wait for ``condition()``, a fact about what a tab recorded (frames, sockets), checked
    again whenever Playwright delivered the page's events (every 20 ms at most); fails after
    ``patience(seconds)``."""
    end = time.monotonic() + patience(seconds)
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"waited {patience(seconds):.0f} s in vain for {what}")
        page.wait_for_timeout(20)  # Playwright delivers the recorded events meanwhile


def keep_shot(target: Any, name: str, **options: Any) -> None:
    """``target.screenshot`` (a page or a locator) into ``SCREENSHOTS/name.png`` when screenshots
    are asked for (:data:`TAKE_SHOTS`); nothing otherwise."""
    if not TAKE_SHOTS:
        return
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    target.screenshot(path=str(SCREENSHOTS / f"{name}.png"), **options)


def shot(tab: Tab, name: str) -> None:
    """Keep a screenshot of the main screens for docs/web.md (when asked: :data:`TAKE_SHOTS`)."""
    if not TAKE_SHOTS:
        return
    if SCREENSHOTS == DOC_SHOTS:
        tab.page.wait_for_timeout(900)  # notes in flight land first (docs only: no cost in CI)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    tab.page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=False)


def shot_pair(tab: Tab, name: str) -> None:
    """The same screen at desktop size (1280x800, ``name.png``) and phone size (390x844, the
    whole page, ``name-phone.png``); the tab gets its own size back. Nothing unless asked
    (:data:`TAKE_SHOTS`)."""
    if not TAKE_SHOTS:
        return
    page = tab.page
    size = page.viewport_size
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size({"width": 1280, "height": 800})
    page.evaluate("window.scrollTo(0, 0)")
    settle(page, 150)  # drawn again at the new size
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=False)
    page.set_viewport_size({"width": 390, "height": 844})
    settle(page, 150)
    page.screenshot(path=str(SCREENSHOTS / f"{name}-phone.png"), full_page=True)
    page.set_viewport_size(size)


# ---------------------------------------------------------------- playing through the page


def sign_in(tab: Tab, server: WebServer, name: str, *, go: bool = True) -> None:
    """Sign in as the guest ``name`` on the lobby (``go=False``: the lobby the tab shows now,
    without loading it again)."""
    page = tab.page
    if go:
        page.goto(server.url + "/")
    page.get_by_label("Display name").fill(name)
    page.get_by_role("button", name="Play as a guest").click()
    page.get_by_text(f"Playing as {name}").wait_for()
    # the lobby is ready once its forms are drawn (after /api/lobbies and the schema arrive: on
    # a loaded machine that can take longer than one action's timeout)
    page.locator("form[aria-labelledby=priv-h]").wait_for(timeout=45000)


def choose(page: Any, form: str, label: str, value: str) -> None:
    page.locator(form).get_by_label(label, exact=True).select_option(value)


def two_at_a_private_table(host: Tab, guest: Tab) -> str:
    """``host`` creates a private table of short Cunegonda with two house bots, ``guest`` joins by
    its invite code (both signed in, in the lobby); the invite code."""
    form = host.page.locator("form[aria-labelledby=priv-h]")
    form.get_by_label("Game", exact=True).select_option("cunegonda")
    form.get_by_label("Rule set", exact=True).select_option("short")
    form.get_by_label("House bots at the table").fill("2")
    form.get_by_role("button", name="Create the table").click()
    invite = str(host.page.locator(".invite[data-invite]").inner_text())
    guest.page.get_by_label("Invite code", exact=True).fill(invite)
    guest.page.get_by_role("button", name="Join", exact=True).click()
    return invite


def game_id_of(tab: Tab) -> str:
    tab.page.wait_for_url("**/table/*")
    return tab.page.url.rsplit("/", 1)[1]


def start_game(tab: Tab, server: WebServer, name: str, game: str, **fields: str) -> str:
    """Sign in as the guest ``name`` and start a quick game against house bots from the lobby
    (``fields``: rules, seats, rounds, bots); returns the game id."""
    sign_in(tab, server, name)
    page = tab.page
    form = "form[aria-labelledby=quick-h]"
    choose(page, form, "Game", game)
    if "rules" in fields:
        choose(page, form, "Rule set", fields["rules"])
    seats = page.locator(form).get_by_label("Seats", exact=True)
    if "seats" in fields and seats.is_enabled():
        seats.fill(fields["seats"])
    if "rounds" in fields:
        page.locator(form).get_by_label("Rounds in the match").fill(fields["rounds"])
    choose(page, form, "House bot strength", fields.get("bots", "heuristic"))
    page.locator(form).get_by_role("button", name="Play now").click()
    return game_id_of(tab)


#: A person's click in one round trip (the drivers below make thousands): the first element of
#: the locator is clicked only if a person could click it now, checked as Playwright's
#: actionability checks do (attached, enabled, visible, scrolled into view, and the element a
#: click at its centre lands on is the element or inside it: nothing covers it); else nothing
#: happens and the driver looks at the page again. Playwright's own click adds a wait for two
#: animation frames with the element standing still and three input events through the
#: browser's input pipeline, 60-250 ms a click on a loaded 2-core machine (a whole game through
#: the page is ~90 clicks); the page's handlers are ``click`` handlers, which this click fires.
PRESS_JS = """(els) => {
  const el = els[0];
  if (!el || !el.isConnected) return false;
  if (el.matches(':disabled') || el.getAttribute('aria-disabled') === 'true') return false;
  const style = getComputedStyle(el);
  if (style.visibility !== 'visible' || style.display === 'none') return false;
  el.scrollIntoView({block: 'nearest', inline: 'nearest'});
  const box = el.getBoundingClientRect();
  if (box.width <= 0 || box.height <= 0) return false;
  const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
  if (!hit || !(hit === el || el.contains(hit))) return false;
  el.click();
  return true;
}"""


#: :data:`PRESS_JS` on the first of ``selectors`` (in this order) that has an element in the
#: panel: ``[index of that selector or -1, clicked]``.
PRESS_FIRST_JS = (
    "(panels, [selectors, click]) => { const press = "
    + PRESS_JS
    + """;
  const panel = panels[0];
  if (!panel) return [-1, false];
  for (let i = 0; i < selectors.length; i++) {
    const el = panel.querySelector(selectors[i]);
    if (el) return [i, click && press([el])];
  }
  return [-1, false];
}"""
)


def press_first(panel: Any, selectors: list[str], *, real: bool = False) -> tuple[int, bool]:
    """Click, as :func:`press` does, the first element in ``panel`` of the first selector that
    has one (one round trip for "this button if the panel has it, else that one"): the index of
    that selector (-1: none) and whether it was clicked."""
    try:
        # (evaluate_all: no wait for a panel that went away meanwhile)
        index, clicked = panel.first.evaluate_all(PRESS_FIRST_JS, [selectors, not real])
    except Exception:
        return -1, False
    if real and index >= 0:
        clicked = press(panel.locator(selectors[index]), real=True)
    return int(index), bool(clicked)


def press(locator: Any, *, real: bool = False) -> bool:
    """Click the locator's first element if a person could click it now (:data:`PRESS_JS`); False
    when it is not there (a panel can vanish when the game moves on) or cannot be clicked yet.

    ``real``: Playwright's own click instead (the mouse through the browser's input pipeline,
    waited for up to 1.5 s): the drivers click so on the first panel of each kind in a game, so
    that every kind of panel they answer still gets a person's click."""
    try:
        if real:
            locator.first.click(timeout=1500)
            return True
        return bool(locator.first.evaluate_all(PRESS_JS))
    except Exception:
        return False


def kuhhandel_step(page: Any, kind: str, panel: Any, counts: dict[str, int]) -> bool:
    """One decision of a simple but complete player, using only what the panel offers."""
    counts[kind] = counts.get(kind, 0) + 1
    real = counts[kind] == 1  # the first panel of a kind: Playwright's click (see press)
    if kind == "turn":
        auction = 'button[data-action*="auction"], button[data-action*="draw"]'
        return press_first(panel, [auction, "button.trade-choice"], real=real)[1]
    if kind == "bid":
        # every third bid panel a quick bid, the next one "I'm out of this auction", else Pass
        # (each only when the panel has it)
        wanted = {0: ['button[data-action*="\\"bid\\""]'], 1: ["button[data-out]"]}
        chosen = [*wanted.get(counts[kind] % 3, []), 'button[data-action=\'{"kind":"pass"}\']']
        index, clicked = press_first(panel, chosen, real=real)
        if chosen[index] == "button[data-out]":
            counts["out"] = counts.get("out", 0) + 1
        return clicked
    if kind in ("offer", "respond"):
        if kind == "respond" and counts[kind] % 2 == 0:
            return press(panel.locator("button.primary").first, real=real)
        press(panel.locator("button[data-note-add]:not([disabled])").last)  # (if it has one)
        return press(panel.locator("button[data-picker-send]"), real=real)
    if kind == "claim":
        return press(panel.locator("button[data-claim='0']"), real=real)
    if kind == "rat":
        return press(panel.locator("button").first, real=real)
    return press(panel.locator("button.primary").first, real=real)


#: Resolves, in the page, as soon as the result or a panel (``selector``) is shown, or after
#: ``ms`` with null: {over, kind} (whether the result is shown; the first panel's ``data-kind``,
#: or null with no panel). One round trip per decision instead of three (a count, a wait, an
#: attribute), each of which costs 10-40 ms on a loaded machine; the page's DOM changes (a
#: MutationObserver) end the wait, no polling.
NEXT_PANEL = """([selector, ms]) => new Promise((resolve) => {
  const look = () => {
    const panel = document.querySelector(selector);
    const seen = {over: !!document.querySelector('.result'),
                  kind: panel ? panel.getAttribute('data-kind') || '' : null};
    return seen.over || seen.kind !== null ? seen : null;
  };
  const now = look();
  if (now) return resolve(now);
  const watcher = new MutationObserver(() => {
    const seen = look();
    if (seen) { watcher.disconnect(); clearTimeout(timer); resolve(seen); }
  });
  watcher.observe(document, {subtree: true, childList: true, attributes: true});
  const timer = setTimeout(() => { watcher.disconnect(); resolve(null); }, ms);
})"""


def next_panel(page: Any, selector: str, ms: int) -> dict[str, Any] | None:
    """Once the page shows its result or a decision panel (``selector``): ``{"over": whether
    the result is shown, "kind": the first panel's data-kind or None}``; None when neither came
    within ``ms`` (or the page was being replaced meanwhile)."""
    try:
        seen: dict[str, Any] | None = page.evaluate(NEXT_PANEL, [selector, ms])
    except Exception:
        return None  # a navigation or a closing page
    return seen


def play_until_over(
    tab: Tab,
    step: Any,
    *,
    limit_s: float,
    shots: dict[str, str] | None = None,
    decisions: int | None = None,
    stop_at: str | None = None,
    pairs: bool = False,
) -> dict[str, int]:
    """Answer every decision panel until the result shows (or ``decisions`` were made, or a
    panel of kind ``stop_at`` is open); returns the decision counts."""
    page = tab.page
    counts: dict[str, int] = {}
    shots = dict(shots or {})
    end = time.monotonic() + patience(limit_s)  # longer on a loaded machine
    where = ".actions .panel, .hand-box .panel[data-kind]"
    while time.monotonic() < end:
        seen = next_panel(page, where, 3000)
        if seen is not None and seen["over"]:
            return counts
        if decisions is not None and sum(counts.values()) >= decisions:
            return counts
        if seen is None or seen["kind"] is None:
            continue
        panel = page.locator(where).first
        kind = seen["kind"]
        if kind == stop_at:
            return counts
        if kind in shots and TAKE_SHOTS:
            settle(page, 900)  # docs: notes in flight (up to 5 × 90 ms apart, 450 ms) land
            shot_pair(tab, shots.pop(kind)) if pairs else shot(tab, shots.pop(kind))
        if step(page, kind, panel, counts) is False:
            frames(page, 1)  # nothing could be clicked yet: look again once the page drew
    saw = what_the_page_saw(tab)
    raise AssertionError(
        f"the game did not end within {patience(limit_s):.0f} s; decisions {counts}\n{saw}"
    )


def decisions_sent(tab: Tab) -> dict[str, int]:
    """The page's answers, counted by the kind of request each answered: what the server got,
    where ``play_until_over``'s counts are the steps tried (a click on a loaded machine may
    miss a panel that was being replaced, and the step is tried again)."""
    kinds = {
        m["request_id"]: m["request"]["kind"] for m in tab.messages() if m.get("type") == "request"
    }
    counts: dict[str, int] = {}
    for m in tab.messages(sent=True):
        if m.get("type") == "action":
            kind = kinds[m["request_id"]]
            counts[kind] = counts.get(kind, 0) + 1
    return counts


def what_the_page_saw(tab: Tab) -> str:
    """For a failure message: the page's toasts, its sockets, the last frames both ways, its
    refused and failed requests (what the page showed when it closed, if it has)."""
    if tab.page.is_closed() and tab.last_seen:
        seen = tab.last_seen
    else:
        try:
            seen = f"address: {tab.page.url}\n" + page_saw(tab.page)
        except Exception as exc:
            seen = f"toasts: (unreadable: {exc})"
    received = [m.get("type") for m in tab.messages()[-12:]]
    return (
        f"{seen}\nsockets: {tab.sockets}\nrefused or failed requests: {tab.refusals[-8:]}\n"
        f"last sent: {tab.sent[-3:]}\nlast received types: {received}"
    )


def page_saw(page: Any) -> str:
    """The toasts a page showed and how its sockets closed (kept by the page's own script)."""
    toasts, closes = page.evaluate("[window.__toasts || [], window.__closes || []]")
    return f"toasts: {toasts[-8:]}, sockets closed with: {closes}"


def assert_only_offered_choices(tab: Tab) -> None:
    """Every action the page sent answers an open request of this seat, and when the request
    listed its choices, the action is one of them."""
    requests = {m["request_id"]: m for m in tab.messages() if m.get("type") == "request"}
    actions = [m for m in tab.messages(sent=True) if m.get("type") == "action"]
    assert actions
    for m in actions:
        req = requests[m["request_id"]]["request"]
        if req["choices"] is not None:
            assert m["action"] in req["choices"], (m["action"], req)


def seat_faults(server: WebServer, game_id: str, name: str) -> dict[str, Any]:
    detail = LOOPBACK.get(f"{server.url}/api/games/{game_id}").json()
    assert detail["status"] == "finished", detail["status"]
    (seat,) = [s for s in detail["seats_detail"] if s["name"] == name]
    return {"detail": detail, "seat": seat}


#: A Cunegonda pass panel: its cards in page order, each not chosen yet clicked as :func:`press`
#: clicks, until 3 are chosen (the page marks a choice with ``aria-pressed`` at the click).
CHOOSE_THREE_JS = (
    "(panels) => { const press = "
    + PRESS_JS
    + """;
  const panel = panels[0];
  if (!panel) return;
  const chosen = () => panel.querySelectorAll('button.card-button[aria-pressed="true"]').length;
  for (const card of panel.querySelectorAll('button.card-button')) {
    if (chosen() >= 3) break;
    if (card.getAttribute('aria-pressed') !== 'true') press([card]);
  }
}"""
)


def cunegonda_step(page: Any, kind: str, panel: Any, counts: dict[str, int]) -> bool:
    counts[kind] = counts.get(kind, 0) + 1
    if kind == "pass":
        # choose until 3 are chosen (a click on a chosen card would un-choose it), in one look
        try:
            panel.first.evaluate_all(CHOOSE_THREE_JS)
        except Exception:
            return False  # the panel went away meanwhile
        return press(panel.locator("button[data-pass-send]"), real=counts[kind] == 1)
    if kind == "play":
        playable = panel.locator("button.card-button:not([disabled])")
        return press(playable.first, real=counts[kind] == 1)  # (see press)
    return False


# ---------------------------------------------------------------- several people at one table


@dataclass
class Person:
    """A person at a table: a tab, the display name and (once the game starts) the seat."""

    tab: Tab
    name: str
    seat: int = -1

    @property
    def page(self) -> Any:
        return self.tab.page

    def close(self) -> None:
        self.tab.close()


def open_panel(page: Any) -> tuple[str, Any] | None:
    """The open decision panel of a Kuhhandel seat page, as (kind, locator), or None."""
    where = ".actions .panel[data-kind]"
    seen = next_panel(page, where, 0)  # one look, no wait: drive goes round all the pages
    if seen is None or seen["kind"] is None:
        return None
    return str(seen["kind"]), page.locator(where).first


#: ``CARDTABLE_TEST_EMPTY_READS=1``: a third of the :func:`offered` reads (drawn at random, a
#: fixed seed) answer nothing, as a read of a panel the page is drawing again does beside load;
#: a policy that takes that for a panel offering nothing fails at once instead of once in a few
#: hundred runs (docs/web.md, "Tests").
EMPTY_READS = os.environ.get("CARDTABLE_TEST_EMPTY_READS") == "1"
_empty_draws = random.Random(36)


def offered(panel: Any) -> list[dict[str, Any]]:
    """The actions behind the panel's buttons (their ``data-action``), in page order.

    Nothing (``[]``) may also mean the panel was read while the page drew it again (seen beside
    load): a policy looks again later rather than take it for a panel that offers nothing."""
    if EMPTY_READS and _empty_draws.random() < 1 / 3:
        return []
    try:
        texts = panel.first.evaluate_all(  # (no wait for a panel that went away meanwhile)
            "ps => ps.length ? [...ps[0].querySelectorAll('button[data-action]')]"
            ".map(b => b.dataset.action) : []"
        )
    except Exception:
        return []
    return [json.loads(t) for t in texts]


def click_offered(panel: Any, wanted: dict[str, Any]) -> bool:
    """Click the button whose ``data-action`` is exactly ``wanted``."""
    for i, action in enumerate(offered(panel)):
        if action == wanted:
            return press(panel.locator("button[data-action]").nth(i))
    return False


def pick_notes(panel: Any, notes: list[int]) -> bool:
    """Choose ``notes`` in the panel's note picker (one "+" per note) and send them."""
    for value in notes:
        more = panel.locator(f'button[data-note-add="{value}"]:not([disabled])')
        if not press(more.first):
            return False
    return press(panel.locator("button[data-picker-send]"))


def own_notes(page: Any) -> list[int]:
    """The notes the page shows as the seat's own (``.kh-mine``)."""
    try:
        text = page.locator(".kh-mine").get_attribute("data-notes", timeout=1000)
    except Exception:
        return []
    return sorted(int(t) for t in (text or "").split(",") if t)


def sign_in_new(browser: Any, server: WebServer, name: str, **size: int) -> Person:
    """A new tab in a context of its own (its own cookies and localStorage: a different person,
    :func:`open_tab`) signed in as a guest."""
    tab = open_tab(browser, **size)
    sign_in(tab, server, name)
    return Person(tab, name)


def awaits_answer(tab: Tab) -> bool:
    """Whether the newest request the tab's page received has no answer from it yet (its frames
    as Playwright delivered them so far): the page has, or is about to draw, a decision panel."""
    for m in reversed(tab.messages()):
        if m.get("type") == "request":
            rid = m.get("request_id")
            sent = tab.messages(sent=True)
            return not any(a.get("type") == "action" and a.get("request_id") == rid for a in sent)
    return False


def drive(
    people: list[Person], policy: Any, *, limit_s: float, done: Any = None, idle_s: float = 0.05
) -> None:
    """Round-robin over the people's pages: answer each open panel with ``policy(person, kind,
    panel)`` (it may also leave a panel open for later) until every page shows the result or
    ``done()`` holds (within ``patience(limit_s)``).

    A look at a page is a round trip through Playwright and the page (tens of ms on a loaded
    machine, and most of a whole game's time when every page is looked at for every decision):
    the pages looked at are those whose newest request is unanswered (:func:`awaits_answer`,
    from the frames), and every page at least every ``idle_s`` × 5 (the result, and anything
    the frames did not say); meanwhile Playwright delivers the pages' frames (a wait of 20 ms on
    a page), so a request is seen when it arrives, not at the next poll."""
    end = time.monotonic() + patience(limit_s)
    where = ".actions .panel[data-kind]"
    look_at_all = 0.0  # (monotonic time) when every page is looked at again
    while time.monotonic() < end:
        if done is not None and done():
            return
        waiting = [p for p in people if awaits_answer(p.tab)]
        everyone = time.monotonic() >= look_at_all
        if not waiting and not everyone:
            people[0].page.wait_for_timeout(20)  # Playwright delivers the frames meanwhile
            continue
        if everyone:
            look_at_all = time.monotonic() + 5 * idle_s
        acted = False
        over = 0
        for person in people if everyone else waiting:
            # one look at the page just before acting on it: its result, its open panel
            look = next_panel(person.page, where, 0)
            if look is None:
                continue
            over += bool(look["over"])
            if look["kind"] is not None:
                panel = person.page.locator(where).first
                acted = bool(policy(person, str(look["kind"]), panel)) or acted
        if everyone and over == len(people):
            return
        if not acted:
            people[0].page.wait_for_timeout(idle_s * 1000)  # (frames delivered meanwhile)
    raise AssertionError(f"not over within {patience(limit_s):.0f} s")


def in_thread(job: Any, timeout: float = 150) -> Any:
    """Run ``job()`` in a thread of its own and return its value (Playwright's sync API holds
    the test thread's event loop, so our asyncio client cannot run there)."""
    out: list[Any] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            out.append(job())
        except BaseException as exc:  # raised in the caller below
            errors.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(timeout=timeout)
    if errors:
        raise errors[0]
    assert out, f"the job did not finish in {timeout} s"
    return out[0]


def play_as_registered_bot(
    server: WebServer, name: str, agent: str, **options: Any
) -> list[GameReport]:
    """Register the bot ``name`` (``POST /api/bots``) and play ranked games as it with our client,
    in a thread of its own; ``options`` (game, rules, games...) go to
    :func:`cardtable.client.play`. Returns the games' reports."""
    token = LOOPBACK.post(f"{server.url}/api/bots", json={"name": name}).json()["token"]
    reports: list[GameReport] = in_thread(
        lambda: play(
            server.url.replace("http", "ws") + "/ws",
            name,
            token,
            agent,
            lobby="ranked",
            **options,
        )
    )
    return reports


@contextlib.contextmanager
def random_cunegonda_match(db_dir: Path, name: str) -> Iterator[tuple[WebServer, str, int]]:
    """A server with random house bots on which the bot ``name`` (random) played one ranked
    Cunegonda match, analysed with 4 worlds a decision: (server, game id, the bot's seat)."""
    with run_server(
        db_dir,
        house_bots={"cunegonda": "random"},
        fallback_bot={"cunegonda": "random"},
        analysis_worlds=4,
    ) as web:
        reports = play_as_registered_bot(web, name, "random", game="cunegonda", rules="standard")
        yield web, reports[0].game_id, reports[0].seat


def shows_number(text: str, value: float, places: int = 2) -> bool:
    """Whether ``text`` (an English page's) shows ``value`` rounded to ``places`` decimals.

    The page formats with the browser's ``Intl.NumberFormat``, which rounds the shortest decimal
    form of a float half away from zero (3.0049999999999999 is "3.005", shown "3.01"), where
    Python's ``f"{x:.2f}"`` rounds its exact binary value ("3.00"); and two server answers may
    hold the same rating computed in two ways, a last bit apart. So any number within half a unit
    of the last place (and a hair) counts; a wrong value still fails."""
    half = 0.5 * 10**-places + 1e-9
    numbers = re.findall(r"[-−]?\d[\d,]*\.\d+|[-−]?\d[\d,]*", text)
    return any(abs(float(n.replace(",", "").replace("−", "-")) - value) <= half for n in numbers)
