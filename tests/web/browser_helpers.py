"""Helpers of the browser tests: a tab that records its WebSocket frames and script errors,
and screenshots for docs/web.md."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from cardtable.server.config import Settings

CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


@dataclass
class WebServer:
    url: str
    app: Any
    settings: Settings


@dataclass
class Tab:
    """A page plus everything it logged and every WebSocket frame it received."""

    page: Any
    frames: list[str] = field(default_factory=list)
    sent: list[str] = field(default_factory=list)
    public_views: list[dict[str, Any]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def messages(self, sent: bool = False) -> list[dict[str, Any]]:
        out = []
        for text in self.sent if sent else self.frames:
            try:
                out.append(json.loads(text))
            except ValueError:
                continue
        return out


def open_tab(browser: Any, *, width: int = 1280, height: int = 900) -> Tab:
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_default_timeout(15000)
    tab = Tab(page)
    page.on("pageerror", lambda exc: tab.errors.append(str(exc)))

    def console(msg: Any) -> None:
        # a failed fetch is logged as "Failed to load resource": the tests look at responses
        # instead (the public view of a table answers 404 once the game is over, by design)
        if msg.type == "error" and not msg.text.startswith("Failed to load resource"):
            tab.errors.append(msg.text)

    def response(reply: Any) -> None:
        if reply.status >= 500:
            tab.errors.append(f"{reply.status} from {reply.url}")

    page.on("console", console)
    page.on("response", response)

    def watch(ws: Any) -> None:
        ws.on("framereceived", lambda payload: tab.frames.append(str(payload)))
        ws.on("framesent", lambda payload: tab.sent.append(str(payload)))

    page.on("websocket", watch)
    return tab


def shot(tab: Tab, name: str) -> None:
    """Keep a screenshot of the main screens for docs/web.md."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    tab.page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=False)


# ---------------------------------------------------------------- playing through the page


def sign_in(tab: Tab, server: WebServer, name: str) -> None:
    page = tab.page
    page.goto(server.url + "/")
    page.get_by_label("Display name").fill(name)
    page.get_by_role("button", name="Play as a guest").click()
    page.get_by_text(f"Playing as {name}").wait_for()


def choose(page: Any, form: str, label: str, value: str) -> None:
    page.locator(form).get_by_label(label, exact=True).select_option(value)


def game_id_of(tab: Tab) -> str:
    tab.page.wait_for_url("**/table/*")
    return tab.page.url.rsplit("/", 1)[1]


def _click(locator: Any) -> bool:
    """Click if the control is still there (a panel can vanish when the game moves on)."""
    try:
        locator.click(timeout=1500)
        return True
    except Exception:
        return False


def kuhhandel_step(page: Any, kind: str, panel: Any, counts: dict[str, int]) -> bool:
    """One decision of a simple but complete player, using only what the panel offers."""
    counts[kind] = counts.get(kind, 0) + 1
    if kind == "turn":
        auction = panel.locator('button[data-action*="auction"], button[data-action*="draw"]')
        if auction.count():
            return _click(auction.first)
        return _click(panel.locator("button.trade-choice").first)
    if kind == "bid":
        quick = panel.locator('button[data-action*="\\"bid\\""]')
        if quick.count() and counts[kind] % 3 == 0:
            return _click(quick.first)
        return _click(panel.get_by_role("button", name="Pass", exact=True))
    if kind in ("offer", "respond"):
        if kind == "respond" and counts[kind] % 2 == 0:
            return _click(panel.locator("button.primary").first)
        toggles = panel.locator("button.note.toggle")
        if toggles.count():
            _click(toggles.last)
        return _click(panel.locator("button[data-picker-send]"))
    if kind == "claim":
        return _click(panel.get_by_role("button", name="Don't claim"))
    if kind == "rat":
        return _click(panel.locator("button").first)
    return _click(panel.locator("button.primary").first)


def play_until_over(
    tab: Tab,
    step: Any,
    *,
    limit_s: float,
    shots: dict[str, str] | None = None,
    decisions: int | None = None,
    stop_at: str | None = None,
) -> dict[str, int]:
    """Answer every decision panel until the result shows (or ``decisions`` were made, or a
    panel of kind ``stop_at`` is open); returns the decision counts."""
    page = tab.page
    counts: dict[str, int] = {}
    shots = dict(shots or {})
    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        if page.locator(".result").count():
            return counts
        if decisions is not None and sum(counts.values()) >= decisions:
            return counts
        panel = page.locator(".actions .panel, .hand-box .panel[data-kind]").first
        try:
            panel.wait_for(timeout=3000)
        except Exception:
            continue
        kind = panel.get_attribute("data-kind") or ""
        if kind == stop_at:
            return counts
        if kind in shots:
            page.wait_for_timeout(300)
            shot(tab, shots.pop(kind))
        step(page, kind, panel, counts)
    raise AssertionError(f"the game did not end within {limit_s} s; decisions so far {counts}")


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
    detail = httpx.get(f"{server.url}/api/games/{game_id}", timeout=10).json()
    assert detail["status"] == "finished", detail["status"]
    (seat,) = [s for s in detail["seats_detail"] if s["name"] == name]
    return {"detail": detail, "seat": seat}


def cunegonda_step(page: Any, kind: str, panel: Any, counts: dict[str, int]) -> bool:
    counts[kind] = counts.get(kind, 0) + 1
    if kind == "pass":
        cards = panel.locator("button.card-button")
        for i in range(3):
            _click(cards.nth(i))
        return _click(panel.locator("button[data-pass-send]"))
    if kind == "play":
        playable = panel.locator("button.card-button:not([disabled])")
        return _click(playable.first)
    return False
