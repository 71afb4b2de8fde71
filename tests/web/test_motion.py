"""Motion at the table really runs and ends where it should (issue #20), in Chromium.

A person plays at the normal pace (its own server: the shared one turns pacing off) against
house bots. Before the page loads, a recorder wraps ``Element.prototype.animate`` (the Web
Animations API the page's motion uses) and listens for CSS animations: for every animation it
keeps its keyframes and timing, where its element is at the first and at the last keyframe
(a paused copy of the animation on the same element, sought to 0 and to its end, then dropped:
the page's own animation is untouched), the landmarks of the table at that moment (each seat's
note count and box, the middle of the table, the trick's winning card) and whether it finished.

- Kuhhandel: a payment's face-down note starts on the payer's note count and ends on the
  payee's (the payment events the page received name them), a card won at auction starts in
  the middle of the table and ends in the winner's herd, a new bid starts at the bidder's seat
  and ends in the list of bids in the middle; the notes' flights finish and leave nothing behind.
- Cunegonda: a finished trick's cards start in their slots and end on the winning card.
- Every CSS animation and transition of the Kuhhandel table changes only ``transform`` and
  ``opacity`` (what the compositor runs without painting again, issue 37).
- With ``prefers-reduced-motion: reduce`` the same game moves nothing at all (no Web Animation,
  no CSS animation), and the same checks, run on what was recorded there, fail: they fail
  whenever the motion is removed.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import (
    Tab,
    WebServer,
    choose,
    cunegonda_step,
    game_id_of,
    kuhhandel_step,
    open_tab,
    run_server,
    sign_in,
    wait_until,
)

pytestmark = pytest.mark.timeout(180)

RECORDER = Path(__file__).with_name("motion_recorder.js")


@pytest.fixture(scope="module")
def paced(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    # the normal pace, a little quicker (a bot's move 0.3-0.5 s after the one before)
    with run_server(tmp_path_factory.mktemp("motion"), pace="normal", pace_scale=0.5) as web:
        yield web


def _near(a: dict[str, float] | None, b: dict[str, float] | None, px: float = 24) -> bool:
    return (
        a is not None
        and b is not None
        and abs(a["x"] - b["x"]) <= px
        and abs(a["y"] - b["y"]) <= px
    )


def _inside(p: dict[str, float], r: dict[str, float] | None, px: float = 4) -> bool:
    return (
        r is not None
        and r["left"] - px <= p["x"] <= r["right"] + px
        and r["top"] - px <= p["y"] <= r["bottom"] + px
    )


def _moves(entry: dict[str, Any]) -> bool:
    """Real keyframes: a transform that changes, and a travel of more than a few pixels."""
    frames = entry["keyframes"]
    travel = abs(entry["start"]["x"] - entry["end"]["x"]) + abs(
        entry["start"]["y"] - entry["end"]["y"]
    )
    return len(frames) >= 2 and len(set(frames)) >= 2 and entry["duration"] >= 150 and travel > 20


def kuhhandel_motion_problems(
    motion: list[dict[str, Any]], events: list[dict[str, Any]]
) -> list[str]:
    """What the table's Kuhhandel motion lacks (empty: a payment, a card won and a bid each
    moved from where they came from to where they went)."""
    flights = [m for m in motion if m["kind"] == "waapi"]
    problems = []
    # the first note that flies after the page was told of a payment is that payment's
    first: dict[int, dict[str, Any]] = {}
    for m in flights:
        if "flying" in m["cls"] and m["payment"] is not None:
            first.setdefault(m["paid"], m)

    def goes(m: dict[str, Any], a: int, b: int) -> bool:
        return _near(m["start"], m["seats"].get(str(a), {}).get("notes")) and _near(
            m["end"], m["seats"].get(str(b), {}).get("notes")
        )

    paid = [
        m for m in first.values() if _moves(m) and goes(m, m["payment"]["from"], m["payment"]["to"])
    ]
    backwards = [m for m in first.values() if goes(m, m["payment"]["to"], m["payment"]["from"])]
    if not any(e["kind"] == "payment" for e in events):
        problems.append("no payment happened")
    elif not paid or backwards:
        problems.append(
            f"payments' notes did not fly from the payer's note count to the payee's "
            f"({len(paid)} did, {len(backwards)} flew backwards, of {len(first)})"
        )
    elif not all(m["finished"] for m in paid):
        problems.append(
            "a payment's flight did not finish: "
            f"{[(m['paid'], m['finished'], m.get('cancelled'), m['delay']) for m in paid]}"
        )
    winners = {e["data"]["seat"] for e in events if e["kind"] == "card"}
    won = [
        m
        for m in flights
        if "kcard" in m["cls"]
        and m["seat"] in winners
        and _moves(m)
        and _inside(m["start"], m["middle"])
        and _inside(m["end"], m["seats"][str(m["seat"])]["box"])
    ]
    if not won:
        problems.append("no card won flew from the middle of the table into the winner's herd")
    bids = [
        m
        for m in flights
        if m["cls"].startswith("new")
        and m["bid"] is not None
        and _moves(m)
        and _inside(m["start"], m["seats"].get(str(m["bid"]["seat"]), {}).get("box"))
        and _inside(m["end"], m["middle"])
    ]
    if not bids:
        problems.append("no bid flew from the bidder's seat into the list of bids")
    return problems


def cunegonda_motion_problems(motion: list[dict[str, Any]]) -> list[str]:
    gathered = [
        m
        for m in motion
        if m["kind"] == "waapi"
        and "card" in m["cls"]
        and m["delay"] > 0
        and _moves(m)
        and _near(m["end"], m["won"] and {"x": m["won"]["x"] + 6, "y": m["won"]["y"] + 6}, 12)
    ]
    return [] if len(gathered) >= 3 else ["no finished trick gathered on its winning card"]


def _play(tab: Tab, step: Any, missing: Any, limit_s: float) -> dict[str, int]:
    """Answer the panels (the helpers' simple player) until ``missing()`` is empty."""
    page = tab.page
    counts: dict[str, int] = {}
    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        if not missing():
            return counts
        panel = page.locator(".actions .panel, .hand-box .panel[data-kind]").first
        try:
            panel.wait_for(timeout=1000)
        except Exception:
            continue
        step(page, panel.get_attribute("data-kind") or "", panel, counts)
    raise AssertionError(f"after {limit_s} s (decisions {counts}): {missing()}")


def _start(browser: Any, server: WebServer, game: str, motion: str) -> Tab:
    tab = open_tab(browser)
    tab.page.emulate_media(reduced_motion=motion)
    tab.page.add_init_script(path=str(RECORDER))
    sign_in(tab, server, f"Mo{game[:2]}{motion[:2]}")
    form = "form[aria-labelledby=quick-h]"
    choose(tab.page, form, "Game", game)
    if game == "kuhhandel":
        tab.page.locator(form).get_by_label("Seats", exact=True).fill("3")
    else:
        tab.page.locator(form).get_by_label("Rounds in the match").fill("1")
    choose(tab.page, form, "House bot strength", "random")
    tab.page.locator(form).get_by_role("button", name="Play now").click()
    game_id_of(tab)
    return tab


def _leave(tab: Tab) -> None:
    """Hand the seat to the house bot, so the game ends by itself."""
    page = tab.page
    page.once("dialog", lambda dialog: dialog.accept())
    with contextlib.suppress(Exception):  # over already
        page.get_by_role("button", name="Leave the table").click(timeout=3000)


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_kuhhandel_motion_goes_from_where_things_come_to_where_they_go(
    browser: Any, paced: WebServer, motion: str
) -> None:
    tab = _start(browser, paced, "kuhhandel", motion)
    page = tab.page
    try:
        recorded = lambda: page.evaluate("window.__motion")  # noqa: E731
        if motion == "reduce":
            kinds = lambda: {e["kind"] for e in tab.events()}  # noqa: E731
            _play(tab, kuhhandel_step, lambda: {"payment", "card", "bid"} - kinds(), 120)
            page.wait_for_timeout(600)  # anything started would be recorded by now
            assert recorded() == [], recorded()[:3]
            assert page.evaluate("document.getAnimations().length") == 0
            # the checks of the other case fail on a table without motion
            assert len(kuhhandel_motion_problems(recorded(), tab.events())) == 3
        else:
            _play(
                tab,
                kuhhandel_step,
                lambda: kuhhandel_motion_problems(recorded(), tab.events()),
                120,
            )
            seen = len(recorded())
            # the flights under way land (the bots play on): each Web Animation recorded so far
            # finished or was cancelled (a cancelled note fails below)
            wait_until(
                page,
                lambda: all(
                    m.get("finished") or m.get("cancelled")
                    for m in recorded()[:seen]
                    if m["kind"] == "waapi"
                ),
                seconds=5,
                what="the flights under way to land",
            )
            landed = recorded()[:seen]
            problems = kuhhandel_motion_problems(landed, tab.events())
            assert not problems, problems
            notes = [m for m in landed if "flying" in m["cls"]]
            assert notes and all(m["finished"] for m in notes), notes  # every note flight ended
            assert any(m["kind"] == "css" for m in landed)  # the highlights (bid, note count)
            # every motion is a transform or an opacity, which the compositor runs on a layer
            # painted once; anything else (a background, a box-shadow, a filter) is painted
            # again on every frame, on the CPU where there is no GPU (issue 37)
            painted = {
                (m["name"], m["pseudo"], p)
                for m in recorded()
                for p in m.get("props", [])
                if p not in {"transform", "opacity"}
            }
            assert not painted, painted
        assert not tab.errors, tab.errors
    finally:
        _leave(tab)
        tab.close()


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_a_finished_trick_gathers_on_its_winning_card(
    browser: Any, paced: WebServer, motion: str
) -> None:
    tab = _start(browser, paced, "cunegonda", motion)
    page = tab.page
    try:
        recorded = lambda: page.evaluate("window.__motion")  # noqa: E731
        tricks = lambda: sum(e["kind"] == "trick" for e in tab.events())  # noqa: E731
        if motion == "reduce":
            _play(tab, cunegonda_step, lambda: [] if tricks() >= 1 else ["no trick yet"], 90)
            page.wait_for_timeout(1500)  # the gathering waits 0.7 s on the table
            assert recorded() == [], recorded()[:3]
            assert cunegonda_motion_problems(recorded())
        else:
            _play(tab, cunegonda_step, lambda: cunegonda_motion_problems(recorded()), 90)
        assert not tab.errors, tab.errors
    finally:
        _leave(tab)
        tab.close()
