"""Helpers of the browser tests: a tab that records its WebSocket frames and script errors,
and screenshots for docs/web.md."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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
