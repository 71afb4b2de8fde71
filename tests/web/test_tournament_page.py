"""The standings page of a tournament in Chromium: it renders the live and then the final
standings with their 95% intervals, the games with replay links, passes axe-core (no serious or
critical violation), and its archive link downloads a zip whose records all re-simulate; switched
to German in an English browser, its numbers are written the German way (``45,0 %``, a decimal
comma: Intl in the page's language, not ``toFixed``'s dot nor the browser's language)."""

from __future__ import annotations

import contextlib
import io
import json
import re
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import WebServer, open_tab, run_server, shot_pair
from test_accessibility import axe_violations

from cardtable.client import ServerError, play
from cardtable.core import Record, verify
from loopback import LOOPBACK

pytestmark = pytest.mark.timeout(180)

ADMIN = "page-organiser"


@pytest.fixture(scope="module")
def organised(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    """One server for the module (each test organises its own tournament, its own entrants)."""
    with run_server(tmp_path_factory.mktemp("organised"), admin_token=ADMIN) as web:
        yield web


def test_standings_page_and_archive(organised: WebServer, browser: Any) -> None:
    server = organised
    names = ["page-ann", "page-bob", "page-cid"]
    tokens = {
        n: LOOPBACK.post(f"{server.url}/api/bots", json={"name": n}).json()["token"] for n in names
    }
    r = LOOPBACK.post(
        f"{server.url}/api/tournaments",
        json={
            "name": "Page cup",
            "seats": 3,
            "entrants": names,
            "rules": "classic",
            "deals": 1,
            "quiet_ms": 40,
            "seed": 2,
        },
        headers={"Authorization": f"Bearer {ADMIN}"},
        timeout=10,
    )
    assert r.status_code == 201, r.text
    tid = r.json()["id"]
    tab = open_tab(browser)
    page = tab.page
    try:
        page.goto(f"{server.url}/tournaments/{tid}")
        page.get_by_role("heading", name="Page cup").wait_for()
        assert "Games played: 0 of 3" in page.inner_text("main")
        assert page.get_by_role("heading", name="Standings (live)").is_visible()
        ws = server.url.replace("http://", "ws://") + "/ws"

        def enter(name: str) -> None:
            with contextlib.suppress(ServerError):  # tournament_over ends it
                play(
                    ws, name, tokens[name], "random", games=100, lobby="tournament", tournament=tid
                )

        threads = [threading.Thread(target=enter, args=(n,), daemon=True) for n in names]
        for t in threads:
            t.start()
        page.get_by_role("heading", name="Final standings").wait_for(timeout=120_000)
        for t in threads:
            t.join(timeout=20)
        text = page.inner_text("main")
        assert "Games played: 3 of 3" in text and "finished" in text
        rows = page.locator(".t-table").first.locator("tbody tr")
        assert rows.count() == 3
        assert all(n in text for n in names)
        # each entrant's name leads to its bot page (#28)
        for n in names:
            link = rows.get_by_role("link", name=n, exact=True)
            assert link.get_attribute("href") == f"/bots/{n}", n
        assert "%" in rows.first.inner_text() and "[" in rows.first.inner_text()
        assert page.get_by_role("link", name="replay", exact=True).count() == 3
        found = axe_violations(tab, "tournament standings")
        assert not found, "\n".join(found)
        shot_pair(tab, "tournament")
        with page.expect_download() as info:
            page.get_by_role("link", name="Download the final archive").click()
        data = Path(info.value.path()).read_bytes()
        z = zipfile.ZipFile(io.BytesIO(data))
        assert json.loads(z.read("verification.json"))["verified"] == 3
        for line in z.read("records.jsonl").decode().splitlines():
            assert verify(Record.from_json(json.loads(line)["record"]))[0]
        assert "page-ann" in z.read("standings.csv").decode()
        # the page's language, not the browser's (en-US): German numbers, decimal commas
        english = rows.first.locator("td").nth(3).inner_text()
        assert re.search(r"\d\.\d%", english), english
        page.locator("#lang-switch").select_option("de")
        page.get_by_role("heading", name="Endstand").wait_for()
        cells = page.locator(".t-table").first.locator("tbody tr").first.locator("td")
        share, mean, place = cells.nth(3).inner_text(), cells.nth(4).inner_text(), cells.nth(6)
        assert re.search(r"\d,\d\s%", share) and "." not in share, share
        assert re.fullmatch(r"-?\d{1,3}(?:\.\d{3})*,\d", mean.split()[0]), mean  # 1.234,5
        assert re.fullmatch(r"\d,\d\d", place.inner_text()), place.inner_text()
        shot_pair(tab, "tournament-de")
        assert not tab.errors, tab.errors
    finally:
        tab.close()


def test_the_organisers_page_shows_presence(organised: WebServer, browser: Any) -> None:
    """Two of three entrants enter and wait (the third never comes, no house bot stands in):
    the page's Entrants table says waiting for them and offline for it, and a ban by the
    organiser shows on it."""
    server = organised
    names = ["here-ann", "here-bob", "away-cid"]
    tokens = {
        n: LOOPBACK.post(f"{server.url}/api/bots", json={"name": n}).json()["token"] for n in names
    }
    admin = {"Authorization": f"Bearer {ADMIN}"}
    r = LOOPBACK.post(
        f"{server.url}/api/tournaments",
        json={"name": "Presence cup", "seats": 3, "entrants": names, "house_fill": False},
        headers=admin,
        timeout=10,
    )
    assert r.status_code == 201, r.text
    tid = r.json()["id"]
    ws = server.url.replace("http://", "ws://") + "/ws"

    def enter(name: str) -> None:
        with contextlib.suppress(ServerError):  # tournament_over (cancelled) ends it
            play(ws, name, tokens[name], "random", games=100, lobby="tournament", tournament=tid)

    threads = [threading.Thread(target=enter, args=(n,), daemon=True) for n in names[:2]]
    for t in threads:
        t.start()
    tab = open_tab(browser)
    page = tab.page
    try:
        page.goto(f"{server.url}/tournaments/{tid}")
        page.get_by_role("heading", name="Entrants").wait_for()
        for n in names[:2]:  # the page reads the API again every 3 s
            page.locator(f'tr[data-entrant="{n}"][data-presence="waiting"]').wait_for(
                timeout=30_000
            )
        away = page.locator('tr[data-entrant="away-cid"]')
        assert away.get_attribute("data-presence") == "offline"
        assert "in good standing" in away.inner_text()
        r = LOOPBACK.post(
            f"{server.url}/api/tournaments/{tid}/entrants/away-cid/ban",
            json={"reason": "never came"},
            headers=admin,
            timeout=10,
        )
        assert r.status_code == 200, r.text
        page.locator('tr[data-entrant="away-cid"]', has_text="banned").wait_for(timeout=30_000)
        assert not tab.errors, tab.errors
    finally:
        tab.close()
        LOOPBACK.post(f"{server.url}/api/tournaments/{tid}/cancel", headers=admin, timeout=10)
        for t in threads:
            t.join(timeout=20)
