"""A person plays whole games through the page against house bots, to the end: a classic game, a
Master game, the Master duel and a Cunegonda match.

The driver (browser_helpers.py) only clicks what the page offers (the buttons of the open
decision panel, "I'm out of this auction"), so a game that ends with no fault on the person's
seat shows that every offered choice was legal and that the page always showed what could be
done next. After the last action the board the page shows is compared with the stored game (its
result and the final public view of its replay), and on a phone-sized page (390×844) nothing may
scroll sideways, during play and at the end.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from browser_helpers import (
    Tab,
    WebServer,
    assert_only_offered_choices,
    cunegonda_step,
    decisions_sent,
    kuhhandel_step,
    open_tab,
    play_until_over,
    seat_faults,
    shot_pair,
    start_game,
)

from loopback import LOOPBACK

pytestmark = pytest.mark.timeout(240)

HERD = re.compile(r"^(.+): (\d+) of (\d+)")


def no_sideways_scroll(tab: Tab) -> None:
    width = tab.page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    if width[0] > width[1]:
        wide = tab.page.evaluate(
            """() => [...document.querySelectorAll('body *')]
              .filter(e => e.getBoundingClientRect().right > window.innerWidth + 0.5)
              .slice(-6).map(e => e.tagName + '.' + e.className)"""
        )
        raise AssertionError(f"the page scrolls sideways: {width[0]} px in {width[1]} px: {wide}")


def stored(server: WebServer, game_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The stored result and the final public view (the last frame of the replay)."""
    replay = LOOPBACK.get(f"{server.url}/api/games/{game_id}/replay", timeout=30).json()
    return replay["result"], replay["frames"][-1]["public"]


def shown_herds(tab: Tab, seats: int) -> list[dict[str, int]]:
    """Per seat, the animals the page shows (species name -> cards), read from the board."""
    out = []
    for s in range(seats):
        labels = tab.page.locator(f'.kh-table .seat[data-seat="{s}"] .herd').evaluate_all(
            "els => els.map(e => e.getAttribute('aria-label'))"
        )
        herd: dict[str, int] = {}
        for label in labels:
            m = HERD.match(label or "")
            if m:
                herd[m.group(1)] = int(m.group(2))
        out.append(herd)
    return out


def why_it_ended(result: dict[str, Any], events: list[dict[str, Any]]) -> str:
    """For a failure message: the result's termination and reason and, when the game ended at a
    cap, the end-phase trades that went round (the most frequent among the last 90, by
    challenger, opponent and species, with how often each side won)."""
    out = f"{result['termination']}: {result.get('reason')}"
    trades = [e["data"] for e in events if e["kind"] == "trade"]
    loops: dict[tuple[int, int, str], list[int]] = {}
    for t in trades[-90:]:
        key = (min(t["challenger"], t["opponent"]), max(t["challenger"], t["opponent"]), t["name"])
        loops.setdefault(key, []).append(t["winner"])
    common = sorted(loops.items(), key=lambda kv: -len(kv[1]))[:4]
    said = [
        f"seats {a}/{b} {name}: {len(w)}x, won by {a} {w.count(a)}x" for (a, b, name), w in common
    ]
    return f"{out}; of the last {min(len(trades), 90)} of {len(trades)} trades: {'; '.join(said)}"


def check_kuhhandel_end(tab: Tab, server: WebServer, game_id: str, name: str) -> None:
    page = tab.page
    page.locator(".result .breakdown").wait_for()
    result, public = stored(server, game_id)
    # (a cap: which cow trades went round, see tests/games/kuhhandel/test_heuristic_end_phase.py)
    assert result["termination"] == "normal", why_it_ended(result, tab.events())
    rules = LOOPBACK.get(f"{server.url}/api/games/{game_id}").json()
    species = [sp["name"] for sp in replay_rules(server, game_id)["species"]]
    seats = len(result["scores"])
    # the board equals the final public view: every herd, pedigree and rat
    herds = shown_herds(tab, seats)
    for s in range(seats):
        want = {species[k]: c for k, c in enumerate(public["herds"][s]) if c}
        assert herds[s] == want, (s, herds[s], want)
        shown_rats = page.locator(f'.kh-table .seat[data-seat="{s}"] .herd .kcard.rat').count()
        assert shown_rats == (1 if public["rats"][s] else 0)
        pedigrees = page.locator(f'.kh-table .seat[data-seat="{s}"] .kcard.pedigree').count()
        assert pedigrees == len(public["pedigrees"][s])
    # the breakdown's points and money are the result's, seat by seat
    for s in range(seats):
        row = page.locator(f'.breakdown tr[data-seat="{s}"]')
        assert row.locator("td.points").inner_text().strip() == str(int(result["scores"][s]))
        assert row.locator("td.money").inner_text().split("\n")[0].strip() == str(
            result["details"]["money"][s]
        )
        for k in result["details"]["quartets"][s]:
            assert species[k] in row.inner_text()
    text = page.locator(".result").inner_text()
    assert "normal:" not in text and "termination" not in text
    # the page's own count of each score agrees with the result (else it says so in words)
    assert "With the money added" not in text
    info = seat_faults(server, game_id, name)
    assert info["seat"]["faults"] == 0, info["detail"].get("faults")
    assert rules["status"] == "finished"


def replay_rules(server: WebServer, game_id: str) -> dict[str, Any]:
    replay = LOOPBACK.get(f"{server.url}/api/games/{game_id}/replay", timeout=30).json()
    rules: dict[str, Any] = replay["rules"]
    return rules


def common_checks(tab: Tab) -> None:
    assert not [m for m in tab.messages() if m.get("type") == "rejected"]
    assert not tab.errors, tab.errors
    assert_only_offered_choices(tab)


def test_a_person_plays_a_whole_classic_kuhhandel_game(tab: Tab, server: WebServer) -> None:
    game_id = start_game(tab, server, "Ann", "kuhhandel", rules="classic", seats="3")
    # count the face-down notes that fly from payer to payee (the motion of a payment)
    tab.page.evaluate(
        """() => { window.flyingNotes = 0; new MutationObserver((changes) => changes.forEach((c) =>
             c.addedNodes.forEach((n) => { if (n.classList && n.classList.contains('flying'))
               window.flyingNotes += 1; }))).observe(document.body, { childList: true }); }"""
    )
    seen_title: list[str] = []
    bid_clicks: list[int] = []  # bid panels the person answered (a missed click is not one)

    def step(page: Any, kind: str, panel: Any, counts: dict[str, int]) -> bool:
        if not seen_title:
            seen_title.append(page.title())
            # the sound is off until the person turns it on; the choice is kept in the browser
            sound = page.locator("button.sound")
            assert sound.get_attribute("aria-pressed") == "false"
            sound.click()
            assert sound.get_attribute("aria-pressed") == "true"
            assert page.evaluate("localStorage.getItem('cardtable.sound')") == "1"
            sound.click()
            assert page.evaluate("localStorage.getItem('cardtable.sound')") == "0"
        clicked = kuhhandel_step(page, kind, panel, counts)
        if kind == "bid" and clicked:
            bid_clicks.append(1)
        return clicked

    counts = play_until_over(
        tab,
        step,
        limit_s=150,
        shots={
            "bid": "kuhhandel-auction",
            "offer": "cow-trade",
            "respond": "cow-trade",
            "pay": "kuhhandel-pay",
        },
        pairs=True,
    )
    assert seen_title == ["● Your turn — cardtable"]
    assert counts.get("turn", 0) >= 5, counts
    # the person dropped out of auctions, and the page passed for it afterwards: more bid
    # requests were answered (all of those without a panel with a pass) than the person answered
    assert counts.get("out", 0) >= 1, counts
    bid_answers = decisions_sent(tab).get("bid", 0)
    assert bid_answers > len(bid_clicks), (bid_answers, len(bid_clicks), counts)
    check_kuhhandel_end(tab, server, game_id, "Ann")
    payments = [e for e in tab.events() if e["kind"] == "payment"]
    flying = tab.page.evaluate("window.flyingNotes")
    assert payments and flying >= 1, len(payments)
    # a cow trade's offer and counter also fly face down to the other side (one note per note
    # offered, up to five; a payment flies one): more flying notes than payments
    offers = [e for e in tab.events() if e["kind"] in ("offer", "counter")]
    if offers:
        assert flying > len(payments), (flying, len(payments), len(offers))
    shot_pair(tab, "kuhhandel-end")
    assert tab.page.title() != "● Your turn — cardtable"
    common_checks(tab)


def test_a_person_plays_a_whole_master_game_on_a_phone(browser: Any, server: WebServer) -> None:
    tab = open_tab(browser, width=390, height=844, still=True)  # (motion: the classic game)
    try:
        game_id = start_game(tab, server, "Mia", "kuhhandel", rules="master", seats="3")

        def step(page: Any, kind: str, panel: Any, counts: dict[str, int]) -> bool:
            if sum(counts.values()) % 10 == 0:
                no_sideways_scroll(tab)
            return kuhhandel_step(page, kind, panel, counts)

        play_until_over(tab, step, limit_s=150, shots={"bid": "master"}, pairs=True)
        check_kuhhandel_end(tab, server, game_id, "Mia")
        shot_pair(tab, "master-end")
        no_sideways_scroll(tab)
        common_checks(tab)
    finally:
        tab.close()


def test_a_person_plays_a_whole_duel(browser: Any, server: WebServer) -> None:
    tab = open_tab(browser, still=True)  # (motion: the classic game)
    try:
        game_id = start_game(tab, server, "Dan", "kuhhandel", rules="master-duel", seats="2")
        counts = play_until_over(
            tab, kuhhandel_step, limit_s=150, shots={"divide": "duel"}, pairs=True
        )
        assert counts.get("divide", 0) >= 3, counts
        check_kuhhandel_end(tab, server, game_id, "Dan")
        common_checks(tab)
    finally:
        tab.close()


def test_a_person_plays_a_whole_cunegonda_match_on_a_phone(browser: Any, server: WebServer) -> None:
    tab = open_tab(browser, width=390, height=844)
    try:
        game_id = start_game(tab, server, "Cleo", "cunegonda", rounds="2")

        def step(page: Any, kind: str, panel: Any, counts: dict[str, int]) -> bool:
            if sum(counts.values()) % 6 == 0:
                no_sideways_scroll(tab)
            return cunegonda_step(page, kind, panel, counts)

        counts = play_until_over(tab, step, limit_s=120, shots={"play": "cunegonda"}, pairs=True)
        assert decisions_sent(tab) == {"pass": 2, "play": 26}, counts
        tab.page.locator(".result table.rounds-table").wait_for()
        no_sideways_scroll(tab)
        shot_pair(tab, "cunegonda-end")
        result, public = stored(server, game_id)
        assert result["termination"] == "normal"
        # the board equals the stored match: every round's score and the totals
        rows = tab.page.locator("table.match:not(.rounds-table) tbody tr").all_inner_texts()
        for r, scores in enumerate(public["round_scores"]):
            cells = rows[r].split("\t")[1:]
            assert [int(c) for c in cells] == scores, (rows[r], scores)
        totals = tab.page.locator("table.match:not(.rounds-table) tfoot td").all_inner_texts()
        assert [int(t) for t in totals] == [int(x) for x in result["scores"]]
        assert [int(t) for t in totals] == public["totals"]
        ends = tab.page.locator("table.rounds-table tfoot tr").first.locator("td").all_inner_texts()
        assert [int(t) for t in ends] == [int(x) for x in result["scores"]]
        assert "tricks" in tab.page.locator("table.rounds-table").inner_text()
        # the log says cards as their faces do (6♣ Q♠), never engine codes (6C QS); the deal line
        # is Cleo's own only
        log = tab.page.locator(".log").inner_text()
        assert re.search(r"Cleo is dealt ((10|[2-9JQKA])[♣♦♥♠] ){12}", log), log[:400]
        assert re.search(r"passes ((10|[2-9JQKA])[♣♦♥♠] ){3}to ", log), log[:400]
        assert not re.search(r"\b(10|[2-9JQKA])[CDHS]\b", log), log[:400]
        assert len(re.findall(r" is dealt ", log)) == 2, "only Cleo's own deal, once a round"
        info = seat_faults(server, game_id, "Cleo")
        assert info["seat"]["faults"] == 0
        common_checks(tab)
    finally:
        tab.close()
