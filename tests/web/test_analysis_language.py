"""The expert's analysis in the person's language (issue 38), in Chromium on a real server.

A bot that plays at random plays a Cunegonda match; a person whose browser asks for German
(``Accept-Language: de-DE``) opens its replay and analyses that seat: the panel's heading, its
button, the progress, the summary (a plural), the graph's key, the candidates' table and the
verdict read German (the mistake's kind and the answers too: the server sends them in no
language beside their English), with numbers and percentages written the German way (a
decimal comma), no catalog key shows and nothing scrolls sideways at 390 px. Screenshots
docs/screenshots/lang-de-analysis(-phone).png (CARDTABLE_WEB_SHOTS=1 keeps them).

The words the test looks for come from the catalogs, never from the test.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from browser_helpers import WebServer, open_tab, random_cunegonda_match, shot_pair
from test_languages import catalog, no_key_shown, no_sideways_scroll, pattern

from cardtable.i18n import translate
from loopback import LOOPBACK

pytestmark = pytest.mark.timeout(180)

NAME = "lernender"


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[WebServer, str, int]]:
    with random_cunegonda_match(tmp_path_factory.mktemp("analysis-de"), NAME) as match:
        yield match


def test_the_analysis_reads_german(browser: Any, played: tuple[WebServer, str, int]) -> None:
    web, game_id, seat = played
    de, en = catalog("de"), catalog("en")
    tab = open_tab(browser, width=1280, height=800, locale="de-DE")
    try:
        page = tab.page
        page.goto(f"{web.url}/replay/{game_id}")
        panel = page.locator("section.analysis")
        panel.wait_for(timeout=20000)
        assert page.evaluate("document.documentElement.lang") == "de"
        assert panel.locator("h2").inner_text() == de["web.analysis.title"]
        button = panel.locator("[data-control=analyse]")
        assert button.inner_text() == de["web.analysis.analyse"]
        panel.locator("#an-seat").select_option(str(seat))
        button.click()
        page.wait_for_selector("section.analysis[data-state=done]", timeout=120000)
        result = LOOPBACK.get(f"{web.url}/api/games/{game_id}/analysis?seat={seat}").json()
        summary = result["result"]["summary"][str(seat)]
        # the summary: "lernender: 7 Fehler bei 31 untersuchten Entscheidungen (22,6 %)"
        text = panel.locator(".an-summary").inner_text()
        assert pattern(de["web.analysis.summary_mistakes"]).match(text.split(" bei ")[0]), text
        searched = "Entscheidung" if summary["searched"] == 1 else "Entscheidungen"
        assert f"bei {summary['searched']} untersuchten {searched}" in text, text
        assert re.search(r"\(\d+,\d\s%\)", text), text  # a German percentage
        caption = panel.locator("figcaption").inner_text()
        assert de["web.analysis.key_title"] in caption and de["web.analysis.key_best"] in caption
        assert en["web.analysis.key_best"] not in caption
        threshold = page.locator(".an-under p").last.inner_text()
        assert de["web.analysis.unit"].split("other {")[1].rstrip("}") in threshold, threshold
        # a mistake's dot: the decision's head, the verdict and the candidates' table in German
        dots = panel.locator(".an-plot button.an-dot")
        assert dots.count() == summary["mistakes"] >= 1
        dots.first.press("Enter")
        box = page.locator(".an-decision")
        box.locator("table.an-candidates").wait_for()
        head = box.locator("thead").inner_text()
        for key in ("web.analysis.answer", "web.analysis.win_chance", "web.analysis.margin"):
            assert de[key] in head, (key, head)
        verdict = box.locator(".an-verdict").inner_text()
        assert verdict.startswith(de["web.analysis.mistake"].split("{")[0]), verdict
        assert pattern(de["web.analysis.prefers"]).search(verdict.split(". ", 1)[1]), verdict
        cell = box.locator("tbody td.num").first.inner_text()
        assert re.match(r"^\d+,\d\s%", cell), cell
        assert en["web.analysis.agrees"] not in box.inner_text()
        # the mistake's kind and the answers are the server's words in no language, said German
        first = next(
            r
            for r in result["result"]["reviews"]
            if r["seat"] == seat and r.get("mistake") and r.get("mistake_words")
        )
        kind = translate("de", first["mistake_words"]["key"], **first["mistake_words"]["args"])
        assert kind != first["mistake_kind"] and kind in verdict, (kind, verdict)
        assert first["mistake_kind"] not in box.inner_text()
        taken = first["candidates"][first["taken_at"]]["words"]
        answer = translate("de", taken["key"], **taken["args"])
        assert answer in box.locator("tr.an-is-taken td").first.inner_text(), answer
        assert first["candidates"][first["taken_at"]]["label"] not in box.inner_text()
        no_key_shown(tab)
        shot_pair(tab, "lang-de-analysis")
        page.set_viewport_size({"width": 390, "height": 844})
        no_sideways_scroll(tab)
        assert not tab.errors, tab.errors
    finally:
        tab.close()
