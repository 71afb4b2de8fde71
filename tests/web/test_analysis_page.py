"""The expert's analysis in the replay viewer (issue #26), in Chromium on a real server.

A bot that plays at random (a seat with many clear mistakes) plays a Cunegonda match; its
replay's "Analyse" button starts the server's analysis of that seat (4 worlds per decision here,
so it takes seconds), the panel shows its progress, then the value graph (an SVG line over the
game), the marks on the move list at the seat's mistakes (as many as the API's result counts),
and, at a mistake's move (a click on its dot), the expert's candidates with their values. Opening
the replay again shows the cached analysis without asking. axe-core finds no serious or critical
violation with the analysis shown. Screenshots for docs/analysis.md
(CARDTABLE_WEB_SHOTS=1 keeps them).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from browser_helpers import (
    Tab,
    WebServer,
    frames,
    keep_shot,
    play_as_registered_bot,
    run_server,
)
from test_accessibility import axe_violations

from loopback import LOOPBACK

pytestmark = pytest.mark.timeout(180)

NAME = "learner"


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[WebServer, str, int]]:
    with run_server(
        tmp_path_factory.mktemp("analysis"),
        house_bots={"cunegonda": "random"},
        fallback_bot={"cunegonda": "random"},
        analysis_worlds=4,
    ) as web:
        reports = play_as_registered_bot(
            web,
            NAME,
            "random",
            game="cunegonda",
            rules="standard",  # ten rounds: in three a random seat once made no mistake
        )
        yield web, reports[0].game_id, reports[0].seat


def test_analyse_a_finished_game_in_the_replay(
    played: tuple[WebServer, str, int], tab: Tab
) -> None:
    web, game_id, seat = played
    page: Any = tab.page
    page.goto(f"{web.url}/replay/{game_id}")
    panel = page.locator("section.analysis")
    panel.wait_for(timeout=20000)
    panel.locator("#an-seat").select_option(str(seat))
    panel.locator("[data-control=analyse]").click()
    # the progress state while the job waits or runs, then the result
    page.wait_for_selector("section.analysis[data-state=running]", timeout=20000)
    page.wait_for_selector("section.analysis[data-state=done]", timeout=120000)
    api = LOOPBACK.get(f"{web.url}/api/games/{game_id}/analysis?seat={seat}").json()
    assert api["status"] == "done"
    result = api["result"]
    mistakes = [r for r in result["reviews"] if r.get("mistake")]
    assert mistakes, "a seat that plays at random makes clear mistakes"
    # the value graph: a line through the seat's searched decisions, a dot per mistake
    line = panel.locator("svg.an-chart path.an-line")
    assert line.count() == 1
    searched = [r for r in result["reviews"] if r["searched"]]
    assert (line.get_attribute("d") or "").count("L") == len(searched) - 1
    assert panel.locator(".an-plot button.an-dot").count() == len(mistakes)
    # the marks on the move list, one per mistake, at the mistake's move
    marked = page.locator(".moves-box .move.an-mistake")
    assert marked.count() == len(mistakes)
    steps = sorted(int(marked.nth(i).get_attribute("data-step")) for i in range(marked.count()))
    assert steps == sorted(r["index"] + 1 for r in mistakes)
    summary = panel.locator(".an-summary").inner_text()
    assert f"{len(mistakes)} mistake" in summary
    # a mistake's dot moves the replay there; the candidates of that decision with values
    # (pressed from the keyboard: the 28 px dots of near mistakes overlap; tapped in
    # test_analysis_board.py)
    first = min(mistakes, key=lambda r: r["index"])
    panel.locator(".an-plot button.an-dot").nth(
        sorted(r["index"] for r in mistakes).index(first["index"])
    ).press("Enter")
    page.wait_for_function(
        "(step) => location.search.includes(`at=${step}`)", arg=first["index"] + 1, timeout=5000
    )
    box = page.locator(".an-decision")  # under the board
    assert "Mistake: " + first["mistake_kind"] in box.inner_text()
    rows = box.locator("table.an-candidates tbody tr")
    assert rows.count() == len(first["candidates"]) >= 2
    assert box.locator("tr.an-is-best").count() == 1 and box.locator("tr.an-is-taken").count() == 1
    assert axe_violations(tab, "replay with the analysis") == []
    _shots(page, panel)
    # opened again: the cached analysis is shown without asking
    page.goto(f"{web.url}/replay/{game_id}")
    page.locator("section.analysis #an-seat").select_option(str(seat))
    page.wait_for_selector("section.analysis[data-state=done]", timeout=20000)
    assert page.locator(".moves-box .move.an-mistake").count() == len(mistakes)
    assert not tab.errors, tab.errors


def _shots(page: Any, panel: Any) -> None:
    """The panel at desktop size (1280x800) and at phone size (390 px, the panel alone); at
    390 px nothing scrolls sideways."""
    size = page.viewport_size
    page.set_viewport_size({"width": 1280, "height": 800})
    panel.locator(".an-graph").scroll_into_view_if_needed()
    frames(page)
    keep_shot(page, "analysis")
    page.set_viewport_size({"width": 390, "height": 844})
    frames(page)
    keep_shot(panel, "analysis-phone")
    wide = page.evaluate("() => document.documentElement.scrollWidth")
    assert wide <= 390, f"the page is {wide} px wide in a 390 px window"
    page.set_viewport_size(size)
