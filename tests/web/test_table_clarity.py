"""What a new player stumbled over at the table (issue #20, played through as a new user would):

- On a phone the Cunegonda seats cut their names ("house-heuri…" three times): no seat could be
  told apart. Every name at the table shows whole (wrapped) at 390 px.
- Amounts stuck to names that end in a digit: "Pay house-heuristic-1 40", "Buy it myself: pay
  house-heuristic-2 20", "Newbie pays house-heuristic-2 1 note for 30". The amount now comes
  first and the name after "to": "Pay 40 to house-heuristic-1" (panels, board and log alike).
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from browser_helpers import (
    Tab,
    WebServer,
    choose,
    cunegonda_step,
    game_id_of,
    kuhhandel_step,
    open_panel,
    open_tab,
    play_until_over,
    sign_in,
    start_game,
)

from cardtable.core import Event, load_bot, run_match
from cardtable.games import kuhhandel
from cardtable.games.kuhhandel.describe import describe_event as describe_message
from cardtable.i18n import render


def describe_event(event: Event, names: tuple[str, ...] = ()) -> str:
    """The English line of ``event`` (the catalog's words)."""
    return render("en", describe_message(event, names))


pytestmark = pytest.mark.timeout(90)

NAMES = ["Ann", "house-heuristic-1", "house-heuristic-2", "house-heuristic-3"]

PANEL = """async ([request, names, rules]) => {
  const k = await import("/static/kuhhandel.js");
  const main = document.querySelector("main");
  main.replaceChildren();
  const msg = { request_id: "r1", request };
  const ctx = { names, me: 0, rules, wallet: request.info.wallet };
  main.appendChild(k.actionPanel(msg, ctx, () => {}));
  return main.innerText;
}"""


def test_payments_say_the_amount_then_whom(tab: Tab, server: WebServer) -> None:
    page = tab.page
    page.goto(server.url + "/")
    page.locator("html[data-ready]").wait_for(state="attached")  # catalog loaded
    rules = kuhhandel.PRESETS["classic"].to_json()
    wallet = [0, 10, 10, 50]
    pay = {
        "seat": 0,
        "kind": "pay",
        "choices": None,
        "info": {"to": 1, "amount": 40, "wallet": wallet},
    }
    text = page.evaluate(PANEL, [pay, NAMES, rules])
    assert "Pay 40 to house-heuristic-1" in text, text
    sell = {
        "seat": 0,
        "kind": "sell_or_buy",
        "choices": [{"kind": "sell"}, {"kind": "buy"}],
        "info": {"high_bidder": 2, "high": 20, "card": 0, "wallet": wallet},
    }
    text = page.evaluate(PANEL, [sell, NAMES, rules])
    assert "Sell to house-heuristic-2 for 20" in text, text
    assert "Buy it myself: pay 20 to house-heuristic-2" in text, text
    assert not tab.errors, tab.errors


def test_the_log_says_the_amount_then_whom() -> None:
    """The terminal's line (describe.py); the page's (describe.js) says the same:
    test_describe_mirror.py."""
    data = {"from": 0, "to": 2, "count": 1, "amount": 30, "for": "auction"}
    line = describe_event(Event("payment", data), tuple(NAMES))
    assert line.strip() == "Ann pays 30 to house-heuristic-2 (1 note)."


def test_the_log_says_animals_in_the_plural_and_plainly() -> None:
    """ "challenges Bo to a cow trade for 2 Goose", "wins 2 Chicken" and "buys it
    (pre-emption)" read as a protocol, not as a family game. describe.js says the same
    (test_describe_mirror.py)."""
    names = tuple(NAMES)

    def line(kind: str, **data: Any) -> str:
        return describe_event(Event(kind, data), names).strip()

    challenge = line("challenge", seat=0, opponent=1, cards=2, species=1, name="Goose")
    assert challenge == "Ann challenges house-heuristic-1 to a cow trade for 2 Geese."
    assert line("trade", winner=0, loser=1, cards=2, species=0, name="Chicken") == (
        "Ann wins 2 Chickens."
    )
    assert line("trade", winner=0, loser=1, cards=1, species=4, name="Sheep") == "Ann wins 1 Sheep."
    assert line("trade", winner=0, loser=1, cards=2, species=4, name="Sheep") == "Ann wins 2 Sheep."
    assert line("trade", winner=0, loser=1, cards=2, species=9, name="Horse") == (
        "Ann wins 2 Horses."
    )
    assert line("decision", seat=0, buy=True) == "Ann keeps the card and pays the highest bid."
    assert line("decision", seat=0, buy=False) == "Ann sells to the highest bidder."
    pedigree = line("decision", seat=0, buy=True, **{"for": "pedigree"})
    assert pedigree == "Ann keeps the card and pays the claimant."


def test_cunegonda_names_show_whole_on_a_phone(browser: Any, server: WebServer) -> None:
    tab = open_tab(browser, width=390, height=844)
    try:
        start_game(tab, server, "Ann", "cunegonda", rounds="1", bots="random")
        page = tab.page
        heads = page.locator(".cu-seat .seat-head strong")
        page.locator(".hand-box .panel[data-kind=pass]").wait_for(timeout=20000)
        assert heads.count() == 4
        cut = page.evaluate(
            """() => [...document.querySelectorAll('.cu-seat .seat-head strong')]
              .filter(e => e.scrollWidth > e.clientWidth + 1
                || getComputedStyle(e).textOverflow === 'ellipsis' && e.scrollWidth > e.clientWidth)
              .map(e => e.textContent)"""
        )
        assert cut == [], f"names cut at 390 px: {cut}"
        shown = heads.all_inner_texts()
        assert sorted(t.replace("\n", "") for t in shown) == sorted(
            ["Ann", "house-random-1", "house-random-2", "house-random-3"]
        ), shown
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        assert not tab.errors, tab.errors
    finally:
        tab.close()


CARDS = """async ([rules, size]) => {
  const k = await import("/static/kuhhandel.js");
  const main = document.querySelector("main");
  main.replaceChildren();
  const n = rules.species.length;
  for (let card = 0; card < n; card++) main.appendChild(k.cardArt(rules, card, size));
  return [...main.querySelectorAll(".kname")]
    .filter((e) => e.scrollWidth > e.clientWidth).map((e) => e.textContent);
}"""


@pytest.mark.parametrize("size", ["", "big"])
def test_every_animal_name_fits_its_card(tab: Tab, server: WebServer, size: str) -> None:
    """The herd cards (and the big card of an auction) show each animal's whole name: "Chicken"
    was "Chick…" on every board."""
    page = tab.page
    page.goto(server.url + "/")
    page.locator("html[data-ready]").wait_for(state="attached")  # catalog loaded
    for preset, rules in kuhhandel.PRESETS.items():
        cut = page.evaluate(CARDS, [rules.to_json(), size])
        assert cut == [], f"{preset}: names cut on the cards: {cut}"


def test_the_spectator_view_opens_in_a_new_tab(tab: Tab, server: WebServer) -> None:
    """A player who wants to see what spectators see keeps the seat: the link opens a new tab;
    after the end it was still shown (the spectator view of a finished game is empty)."""
    game_id = start_game(tab, server, "Ann", "cunegonda", rounds="1", bots="random")
    page = tab.page
    link = page.get_by_role("link", name="spectator view")
    link.wait_for()
    assert link.get_attribute("href") == f"/watch/{game_id}"
    assert link.get_attribute("target") == "_blank"
    assert "noopener" in (link.get_attribute("rel") or "")
    # after the end there is nothing left to watch: the link goes (the replay is offered)
    play_until_over(tab, cunegonda_step, limit_s=60)
    page.locator(".result").wait_for()
    assert page.get_by_role("link", name="spectator view").count() == 0
    assert not tab.errors, tab.errors


SCORES = """async ([result, obs, rules, names, width]) => {
  const k = await import("/static/kuhhandel.js");
  const main = document.querySelector("main");
  main.replaceChildren();
  // as wide as the result panel beside the log at 1280 px
  const panel = document.createElement("section");
  panel.className = "panel result";
  if (width) panel.style.width = `${width}px`;
  panel.appendChild(k.scoreBoard(result, obs, rules, names, 0));
  main.appendChild(panel);
  // the lines each player's name takes in the score table
  return [...main.querySelectorAll("th[scope=row]")].map((th) => {
    const range = document.createRange();
    range.selectNodeContents(th.firstChild);
    const tops = [...range.getClientRects()].map((r) => Math.round(r.top));
    return [th.textContent, new Set(tops).size];
  });
}"""


@pytest.mark.parametrize("width", [1280, 390])
def test_the_score_table_keeps_each_name_on_one_line(
    browser: Any, server: WebServer, width: int
) -> None:
    """At 1280 px the end's score table wrapped "house-heuristic-1" into "house-" and
    "heuristic-1", which read as two players; on a phone each player's score card broke
    "house-heuristic-3" over three lines (points and money took the rest of its row)."""
    rules = kuhhandel.PRESETS["classic"]
    game = kuhhandel.new_game(rules, 4, 3)
    run_match(game, [load_bot("kuhhandel", "random", seed=s) for s in range(4)])
    tab = open_tab(browser, width=width, height=844 if width < 600 else 800)
    page = tab.page
    page.goto(server.url + "/")
    page.locator("html[data-ready]").wait_for(state="attached")  # catalog loaded
    panel_width = (
        780 if width > 600 else 0
    )  # beside the log at 1280 px; the page's width on a phone
    args = [
        game.result().to_json(),
        game.observe(None).to_json(),
        rules.to_json(),
        NAMES,
        panel_width,
    ]
    lines = page.evaluate(SCORES, args)
    assert len(lines) == 4
    assert all(n == 1 for _, n in lines), lines
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert not tab.errors, tab.errors
    tab.close()


def _cunegonda_pass(browser: Any, server: WebServer, width: int, height: int) -> Tab:
    tab = open_tab(browser, width=width, height=height)
    start_game(tab, server, "Ann", "cunegonda", rounds="1", bots="random")
    page = tab.page
    page.locator(".hand-box .panel[data-kind=pass]").wait_for(timeout=20000)
    return tab


@pytest.mark.parametrize("size", [(1280, 800), (390, 844)])
def test_the_pass_button_shows_without_scrolling(
    browser: Any, server: WebServer, size: tuple[int, int]
) -> None:
    """At 1280x800 "Pass 3 cards" was half below the screen's bottom edge (and on a phone
    wholly below it): the action a player must take shows without scrolling."""
    tab = _cunegonda_pass(browser, server, *size)
    try:
        page = tab.page
        button = page.get_by_role("button", name="Pass 3 cards")
        box = button.bounding_box()
        assert box is not None
        seen = page.evaluate("[window.scrollY, window.innerHeight]")
        assert seen[0] == 0, seen
        assert box["y"] + box["height"] <= seen[1], (box, seen)
        # and every card of the hand, to choose from
        cards = page.locator(".hand-box .card-button")
        assert cards.count() == 13
        bottom = max(b["y"] + b["height"] for b in (c.bounding_box() for c in cards.all()) if b)
        assert bottom <= seen[1], (bottom, seen)
        assert not tab.errors, tab.errors
    finally:
        tab.close()


RESPOND = """async ([request, names, rules]) => {
  const k = await import("/static/kuhhandel.js");
  const main = document.querySelector("main");
  main.replaceChildren();
  const msg = { request_id: "r1", request };
  const ctx = { names, me: 0, rules, wallet: request.info.wallet };
  main.appendChild(k.actionPanel(msg, ctx, () => {}));
  const look = (b) => {
    const st = getComputedStyle(b);
    return [b.textContent, st.backgroundColor, st.color];
  };
  const accept = main.querySelector("button[data-action*=accept]");
  const counter = main.querySelector("button[data-picker-send]");
  return { accept: look(accept), counter: look(counter), text: main.innerText };
}"""


@pytest.mark.parametrize("preset", ["classic", "master"])
def test_accept_and_a_counter_look_different(tab: Tab, server: WebServer, preset: str) -> None:
    """Challenged in a cow trade, "Accept" and "Counter no notes" were two equal green buttons,
    and nothing said that a counter with no notes ends like accepting."""
    page = tab.page
    page.goto(server.url + "/")
    page.locator("html[data-ready]").wait_for(state="attached")  # catalog loaded
    rules = kuhhandel.PRESETS[preset].to_json()
    respond = {
        "seat": 0,
        "kind": "respond",
        "choices": None,
        "info": {
            "challenger": 1,
            "species": 0,
            "cards": 2,
            "offer_notes": 2,
            "again": False,
            "wallet": [0, 10, 10, 50],
        },
    }
    seen = page.evaluate(RESPOND, [respond, NAMES, rules])
    accept, counter = seen["accept"], seen["counter"]
    assert accept[0].startswith("Accept"), accept
    assert counter[0] == "Counter with no notes", counter
    assert accept[1:] != counter[1:], f"Accept and Counter look the same: {accept} {counter}"
    text = seen["text"]
    assert "offers 2 notes for your 2 Chickens" in text, text
    assert accept[0] == "Accept: take the 2 notes, give the 2 Chickens", accept
    assert (
        "A counter with no notes is worth 0, so it ends like Accept: house-heuristic-1 gets "
        "your 2 Chickens and you get their notes" in text
    ), text
    tie = "offers again" if preset == "master" else "a tie goes to whoever started the trade"
    assert tie in text, text
    # once notes are chosen, the words about no notes go
    page.locator("main button[data-note-add]").first.click()
    assert page.locator("main .empty-hint").is_hidden()
    assert page.locator("main button[data-picker-send]").inner_text().startswith("Counter 1 note")
    assert not tab.errors, tab.errors


def test_who_passes_again_is_shown_the_way_out(tab: Tab, server: WebServer) -> None:
    """In round-by-round auctions a person is asked again after every raise; "I'm out of this
    auction" was there, but someone who kept pressing Pass never noticed it. Asked again in an
    auction after passing, the panel says so beside Pass and points at the way out."""
    sign_in(tab, server, "Ann")
    page = tab.page
    form = "form[aria-labelledby=quick-h]"
    choose(page, form, "Game", "kuhhandel")
    page.locator(form).get_by_role("button", name="Play now").click()
    game_id_of(tab)
    counts: dict[str, int] = {}
    hint = None
    end = time.monotonic() + 60
    while time.monotonic() < end and hint is None:
        found = open_panel(page)
        if found is None:
            page.wait_for_timeout(50)
            continue
        kind, panel = found
        if kind != "bid":
            kuhhandel_step(page, kind, panel, counts)
            continue
        shown = panel.locator("[data-out-hint]")
        if shown.count():
            hint = shown.inner_text()
            break
        # a first pass in this auction: no hint yet
        try:
            panel.get_by_role("button", name="Pass", exact=True).click(timeout=1500)
        except Exception:
            continue
    assert hint is not None, "never asked again after a pass within 60 s"
    assert "You passed on this" in hint and "I'm out of this auction" in hint, hint
    # the way out is right there, beside Pass, and it works
    row = page.locator(".actions .panel[data-kind=bid] .pass-row")
    assert row.get_by_role("button", name="Pass", exact=True).count() == 1
    sent = len(tab.sent)
    row.get_by_role("button", name="I'm out of this auction").click()
    deadline = time.monotonic() + 10
    while len(tab.sent) == sent and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    action = tab.messages(sent=True)[-1]
    assert '"pass"' in json.dumps(action), action
    assert not tab.errors, tab.errors
