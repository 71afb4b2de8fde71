"""The bot page of a hosted bot, in Chromium on a real server: the version that plays, its
language and hash, and its validation game (a link to its replay); nothing of its code or logs.
Screenshots at desktop and phone size go to CARDTABLE_HOSTED_SHOTS when it is set (the ones in
docs/screenshots/ were taken so)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hosted_bots import python_bot, tar_gz

from cardtable.hosted import HostedWorker
from loopback import LOOPBACK
from patience import patience
from server.wire import RunningServer, db_url, fast_settings, running_server

pytestmark = pytest.mark.timeout(240)
ADMIN = "organiser-secret"
CHROMIUM = Path("/usr/bin/chromium")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RunningServer]:
    settings = fast_settings(db_url(tmp_path), admin_token=ADMIN, deadline_ms=4000)
    with running_server(settings) as running:
        yield running


def test_the_bot_page_shows_the_hosted_version_and_its_validation_game(
    server: RunningServer, open_dir: Path
) -> None:
    playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is missing")
    if not CHROMIUM.exists():
        pytest.skip("Debian's Chromium is missing (apt-get install -y chromium)")
    token = server.register("pagebot")
    headers = {"Authorization": f"Bearer {token}"}
    archive = tar_gz(python_bot("pagebot"))
    up = LOOPBACK.post(f"{server.http}/api/bots/pagebot/versions", content=archive, headers=headers)
    assert up.status_code == 201
    put = LOOPBACK.put(
        f"{server.http}/api/bots/pagebot/hosted", json={"version": 1}, headers=headers
    )
    assert put.status_code == 200
    # before the browser: Playwright's sync API holds an event loop in this thread
    outcome = HostedWorker(server.http, ADMIN, open_dir).run_round()
    game_id = outcome["pagebot"]["game_id"]
    public = server.get("/api/bots/pagebot")["hosted"]
    assert public == {
        "version": 1,
        "language": "python",
        "sha256": up.json()["sha256"][:12],
        "status": "valid",
        "validation_game": game_id,
    }
    shots = os.environ.get("CARDTABLE_HOSTED_SHOTS")
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
            headless=True,
        )
        try:
            page: Any = browser.new_page(viewport={"width": 1280, "height": 800})
            page.set_default_timeout(patience(15) * 1000)
            page.goto(f"{server.http}/bots/pagebot")
            note = page.locator("p.hosted")
            note.wait_for()
            text = note.inner_text()
            assert "version 1 (python, sha256 " + public["sha256"] in text, text
            assert "passed the hosted version's validation game" in text, text
            assert note.get_attribute("data-hosted-status") == "valid"
            link = note.locator("a")
            assert link.get_attribute("href") == f"/replay/{game_id}"
            assert "hosted hello" not in page.content()  # its stderr is its author's only
            if shots:
                Path(shots).mkdir(parents=True, exist_ok=True)
                page.screenshot(path=f"{shots}/hosted-bot-page.png")
                page.set_viewport_size({"width": 390, "height": 844})
                page.locator("p.hosted").wait_for()
                page.screenshot(path=f"{shots}/hosted-bot-page-phone.png", full_page=True)
        finally:
            browser.close()
