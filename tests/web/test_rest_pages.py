"""The pages outside the live table (issue #20): the lichess-like replay (move list grouped by
turn, keys, jumps by turn / auction / cow trade / round, a link to a position, hidden values
revealed), one name per rule set in the replay list, the lobby's defaults, the leaderboard opening
on a board with games, no sideways scrolling at 390 px, and the screenshots for docs/web.md.

The games are played by our client as guests in the practice lobby against random house bots
(real server, real engine), so every page shows real records."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from browser_helpers import (
    Tab,
    WebServer,
    choose,
    frames,
    game_id_of,
    in_thread,
    open_tab,
    run_server,
    shot,
    sign_in,
)

from cardtable.client import play
from loopback import LOOPBACK

#: one worker (pytest-xdist) plays the module's games once for all its tests
pytestmark = [pytest.mark.timeout(240), pytest.mark.xdist_group("test_rest_pages")]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[WebServer, dict[str, str]]]:
    """A server of its own with an ended Master game, an ended three-round Cunegonda match sent
    as JSON rules ({"rounds": 3}: the `short` preset) and three ranked games of competition."""
    with run_server(tmp_path_factory.mktemp("rest")) as web:
        ws = web.url.replace("http", "ws") + "/ws"
        ids: dict[str, str] = {}
        for key, game, rules, seats in (
            ("master", "kuhhandel", "master", 3),
            ("short", "cunegonda", {"rounds": 3}, 4),
        ):
            reports = in_thread(
                lambda game=game, rules=rules, seats=seats, key=key: play(
                    ws,
                    None,
                    None,
                    "random",
                    lobby="practice",
                    game=game,
                    rules=rules,  # type: ignore[arg-type]  # the protocol takes JSON rules too
                    seats=seats,
                    opponents="random",
                    guest=f"guest-{key}",
                    seed=3,
                )
            )
            ids[key] = reports[0].game_id
        # ranked games of classic among three registered bots, for the leaderboard
        bots = [
            (n, LOOPBACK.post(f"{web.url}/api/bots", json={"name": n}).json()["token"])
            for n in ("rest-a", "rest-b", "rest-c")
        ]
        threads = [
            threading.Thread(
                target=play,
                args=(ws, name, token, "random"),
                kwargs={"game": "kuhhandel", "rules": "classic", "games": 2, "seed": i},
            )
            for i, (name, token) in enumerate(bots)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        yield web, ids


def _moves(page: Any) -> Any:
    return page.locator("nav[aria-label=Moves]")


def _at(page: Any) -> int:
    match = re.search(r"[?&]at=(\d+)", page.url)
    assert match, page.url
    return int(match.group(1))


def _current(page: Any) -> int:
    return int(_moves(page).locator("[aria-current=step]").get_attribute("data-step"))


def test_replay_move_list_jumps_and_links_to_a_position(
    browser: Any, played: tuple[WebServer, dict[str, str]]
) -> None:
    web, ids = played
    tab = open_tab(browser)
    page = tab.page
    try:
        page.goto(f"{web.url}/replay")
        rows = page.locator("table.games tbody tr")
        rows.first.wait_for()
        rules = [r.locator("td.rules").inner_text() for r in rows.all()]
        # {"rounds": 3} is the short preset, on the list and in the viewer's title, named as
        # the catalog names the edition (en: "Cunegonda, short match")
        assert "Cunegonda, short match" in rules and "Kuhhandel Master" in rules, rules
        assert "custom" not in " ".join(rules)

        page.goto(f"{web.url}/replay/{ids['master']}")
        moves = _moves(page)
        moves.locator("button.move").nth(3).wait_for()
        assert "Kuhhandel Master" in page.locator("h1").inner_text()
        heads = moves.locator("button.group-head")
        kinds = {h.get_attribute("data-group") for h in heads.all()}
        assert {"auction", "trade"} <= kinds, kinds
        # the game is over: a payment names its notes (hidden while it was played)
        # (an auctioneer who "keeps the card and pays the highest bid" is not a payment's move)
        pays = moves.locator("button.move", has_text=re.compile(r" pays \d"))
        # the notes are named, equal ones grouped as the log counts them ("2 × 50 = 100")
        note = r"(\d+ × )?\d+"
        paid = pays.first.inner_text()
        assert re.search(rf"pays {note}( \+ {note})*( = \d+)?$", paid), paid

        # a click on a move shows that position and names it in the address
        target = moves.locator("button.move").nth(5)
        step = int(target.get_attribute("data-step"))
        target.click()
        assert _at(page) == step and _current(page) == step
        assert page.locator(".step").inner_text().startswith(f"Move {step} of ")
        # arrows: one move; down/up: the next/previous turn
        page.locator("body").press("ArrowRight")
        assert _current(page) == step + 1
        page.locator("body").press("ArrowLeft")
        assert _current(page) == step
        starts = [int(h.get_attribute("data-step")) for h in heads.all()]
        page.locator("body").press("ArrowDown")
        assert _current(page) == min(s for s in starts if s > step)
        page.locator("body").press("ArrowUp")
        assert _current(page) == max(s for s in starts if s <= step)
        # jump to the next cow trade, then the previous auction
        trades = [
            int(h.get_attribute("data-step"))
            for h in heads.all()
            if h.get_attribute("data-group") == "trade"
        ]
        page.get_by_role("button", name="Next cow trade").click()
        here = _current(page)
        assert here == min(s for s in trades if s > step)
        assert "Cow trade" in page.locator(".step").inner_text()
        auctions = [
            int(h.get_attribute("data-step"))
            for h in heads.all()
            if h.get_attribute("data-group") == "auction"
        ]
        page.get_by_role("button", name="Previous auction").click()
        assert _current(page) == max(s for s in auctions if s < here)
        # the move list is one tab stop (the current move); arrows walk it with the focus
        assert moves.locator("button[tabindex='0']").count() == 1
        before = _current(page)
        moves.locator("[aria-current=step]").focus()
        page.keyboard.press("ArrowRight")
        assert _current(page) == before + 1
        focused = page.evaluate("() => document.activeElement.getAttribute('aria-current')")
        assert focused == "step"
        page.locator("body").press("End")
        assert page.locator(".result").is_visible()

        # the link to a position opens the replay there
        link = page.get_by_role("link", name="Link to this position")
        moves.locator("button.move").nth(9).click()
        href = link.get_attribute("href") or ""
        wanted = int(moves.locator("button.move").nth(9).get_attribute("data-step"))
        assert href.endswith(f"?at={wanted}")
        other = open_tab(browser)
        try:
            other.page.goto(web.url + href)
            _moves(other.page).locator("[aria-current=step]").wait_for()
            assert _current(other.page) == wanted
            assert other.page.locator(".step").inner_text().startswith(f"Move {wanted} of ")
            assert not other.errors, other.errors
        finally:
            other.close()
        moves.locator("button.move").nth(20).click()
        assert not tab.errors, tab.errors
    finally:
        tab.close()


def test_cunegonda_replay_jumps_by_round_and_trick(
    browser: Any, played: tuple[WebServer, dict[str, str]]
) -> None:
    web, ids = played
    tab = open_tab(browser)
    page = tab.page
    try:
        page.goto(f"{web.url}/replay/{ids['short']}")
        moves = _moves(page)
        moves.locator("button.group-head").first.wait_for()
        assert "Cunegonda, short match" in page.locator("h1").inner_text()
        heads = [h.inner_text() for h in moves.locator("button.group-head").all()]
        assert heads[0] == "Round 1: passing" and "Round 1, trick 1" in heads
        assert "Round 3, trick 13" in heads
        page.get_by_role("button", name="Next round").click()  # from the start: round 1
        assert "Round 1: passing" in page.locator(".step").inner_text()
        page.get_by_role("button", name="Next round").click()
        assert "Round 2" in page.locator(".step").inner_text()
        page.get_by_role("button", name="Next trick").click()
        assert "Round 2, trick 1" in page.locator(".step").inner_text()
        # every hand is shown (the match is over): plays name their card
        assert moves.locator("button.move", has_text=" plays ").count() == 3 * 52
        assert "every seat's hand is shown" in page.locator(".table-head").inner_text()
        shot(tab, "replay-cunegonda")
        assert not tab.errors, tab.errors
    finally:
        tab.close()


@pytest.mark.parametrize("width,height,suffix", [(1280, 800, "desktop"), (390, 844, "phone")])
def test_pages_fit_without_sideways_scrolling(
    browser: Any, played: tuple[WebServer, dict[str, str]], width: int, height: int, suffix: str
) -> None:
    """The lobby, a replay with its move list and the leaderboard at desktop and phone size:
    no sideways scrolling (scrollWidth <= innerWidth); screenshots for docs/web.md."""
    web, ids = played
    tab = open_tab(browser, width=width, height=height)
    page = tab.page
    try:
        pages = [
            ("lobby", "/", "form[aria-labelledby=quick-h]"),
            (
                "replay",
                f"/replay/{ids['master']}?at=40",
                "nav[aria-label=Moves] [aria-current=step]",
            ),
            ("replay-list", "/replay", "table.games"),
            ("leaderboard", "/leaderboard", "svg.chart"),
            ("register", "/register", "form"),
            ("docs", "/docs-pages/web", "article h1"),
            ("docs-protocol", "/docs-pages/protocol", "article h1"),
        ]
        for name, path, ready in pages:
            page.goto(web.url + path)
            if name == "lobby":
                page.get_by_label("Display name").fill("Ada")
                page.get_by_role("button", name="Play as a guest").click()
            page.locator(ready).first.wait_for()
            frames(page)  # laid out and drawn (after the page's pending redraws)
            sizes = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
            assert sizes[0] <= sizes[1], (name, sizes)
            if name in ("lobby", "replay", "leaderboard") or (name, suffix) == (
                "replay-list",
                "phone",
            ):
                shot(tab, f"{name}-{suffix}")
        assert not tab.errors, tab.errors
    finally:
        tab.close()


def test_lobby_defaults_fit_me_against_three_bots(tab: Tab, server: WebServer) -> None:
    page = tab.page
    page.goto(server.url + "/")
    page.get_by_label("Display name").fill("Defaults")
    page.get_by_role("button", name="Play as a guest").click()
    form = page.locator("form[aria-labelledby=quick-h]")
    form.wait_for()
    assert form.get_by_label("Seats", exact=True).input_value() == "4"
    strength = form.get_by_label("House bot strength", exact=True)
    assert strength.input_value() == "heuristic"
    # the forms speak the game's words (the running tables' seat names may say anything)
    text = " ".join(page.locator("form.panel").all_inner_texts()).lower()
    for word in ("heuristic", "random", "expert", "observation", "request", "preset"):
        assert word not in text, word
    assert not tab.errors, tab.errors


def test_the_table_header_names_an_open_classic_auction(browser: Any, server: WebServer) -> None:
    """One name everywhere: a practice table of classic with an open auction is called
    'classic (open auction)' in the lobby's running tables and, as the catalog names the
    edition, "You're Bluffing! (open auction)" in its header."""
    tab = open_tab(browser)
    page = tab.page
    try:
        sign_in(tab, server, "Olga")
        form = page.locator("form[aria-labelledby=quick-h]")
        choose(page, "form[aria-labelledby=quick-h]", "House bot strength", "random")
        form.get_by_label("Seats", exact=True).fill("3")
        form.get_by_label("Open auction", exact=False).check()
        form.get_by_role("button", name="Play now").click()
        game_id = game_id_of(tab)
        page.locator("h1", has_text="You're Bluffing! (open auction)").wait_for()
        tables = LOOPBACK.get(f"{server.url}/api/tables").json()["running"]
        mine = [t for t in tables if t["id"] == game_id]
        assert mine and mine[0]["rules_label"] == "classic (open auction)", mine
        page.once("dialog", lambda dialog: dialog.accept())
        page.get_by_role("button", name="Leave the table").click()
        assert not tab.errors, tab.errors
    finally:
        tab.close()


def test_leaderboard_opens_on_a_board_with_games(
    browser: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Only Cunegonda has ranked games here: the page opens on it, not on Kuhhandel's default."""
    with run_server(tmp_path_factory.mktemp("lb")) as web:
        ws = web.url.replace("http", "ws") + "/ws"
        tokens = [
            LOOPBACK.post(f"{web.url}/api/bots", json={"name": n}).json()["token"]
            for n in ("lb-a", "lb-b", "lb-c", "lb-d")
        ]
        errors: list[BaseException] = []

        def run(name: str, token: str, seed: int) -> None:
            try:
                play(ws, name, token, "random", game="cunegonda", rules="short", games=1, seed=seed)
            except BaseException as exc:  # reported below
                errors.append(exc)

        threads = [
            threading.Thread(target=run, args=(n, t, i))
            for i, (n, t) in enumerate(zip(("lb-a", "lb-b", "lb-c", "lb-d"), tokens, strict=True))
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        assert not errors, errors
        tab = open_tab(browser)
        try:
            tab.page.goto(web.url + "/leaderboard")
            tab.page.locator("table.leaderboard").wait_for()
            caption = tab.page.locator("table.leaderboard caption").inner_text()
            assert "Cunegonda, short match" in caption, caption
            assert "game=cunegonda" in tab.page.url and "rules=short" in tab.page.url
            assert not tab.errors, tab.errors
        finally:
            tab.close()


def test_lobby_offers_the_pace_the_server_takes(tab: Tab, server: WebServer) -> None:
    """The pace and spectator-delay controls appear when the server's join schema names them
    (GET /api/protocol/schema), and a practice join sends what was chosen; an older server gets
    no such field."""
    schema = LOOPBACK.get(f"{server.url}/api/protocol/schema").json()
    props = schema["client"]["join"]["properties"]
    page = tab.page
    sign_in(tab, server, "Paz")
    form = page.locator("form[aria-labelledby=quick-h]")
    form.wait_for()
    if "pace" not in props:
        assert form.get_by_label("Pace", exact=True).count() == 0
        return
    pace = form.get_by_label("Pace", exact=True)
    assert pace.input_value() == "normal"
    assert sorted(pace.locator("option").evaluate_all("os => os.map(o => o.value)")) == sorted(
        props["pace"]["enum"]
    )
    pace.select_option("fast")
    if "spectator_delay_ms" in props:
        form.get_by_label("Spectator delay (seconds)").fill("2")
    choose(page, "form[aria-labelledby=quick-h]", "House bot strength", "random")
    form.get_by_role("button", name="Play now").click()
    game_id_of(tab)
    joins = [m for m in tab.messages(sent=True) if m.get("type") == "join"]
    assert joins and joins[-1]["pace"] == "fast", joins
    if "spectator_delay_ms" in props:
        assert joins[-1]["spectator_delay_ms"] == 2000
    start = next(m for m in tab.messages() if m.get("type") == "game_start")
    assert start.get("pace") == "fast", start
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Leave the table").click()
    assert not tab.errors, tab.errors
