"""Three people at one private Master table (joined by an invite code and from the lobby's list)
play a whole game through their pages while a spectator watches; then the replay.

The rule set is Master with a small deck (3 species, their 3 pedigree cards, 2 rats; countdown
from 3) so that every Master screen comes up in one short game whatever the shuffle: the test
drives all three seats, so it can *make* the rare situations instead of searching seeds:

- the cow-trade tie (spec §5.5, ``offer_again``): the first trade is offered with a 10 and
  countered with a 10; the challenger then offers again, and the notes are shown to the two
  traders only;
- the rat round (§9.3): the first two seats asked place a note, the third takes the rat with
  both notes; the others only ever see how many notes lie beside it;
- the pedigree countdown (§9.2) for every pedigree card: claims at the clicked count (the first
  one after the count went down), no claim, pre-emption and release, payment by note count.

The policy was first run offline on the engine (seeds 0..19): every game ends normally after
about 75 decisions with one tie, two rat rounds and three countdowns.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import pytest
from browser_helpers import (
    Person,
    Tab,
    WebServer,
    assert_only_offered_choices,
    choose,
    click_offered,
    drive,
    game_id_of,
    offered,
    own_notes,
    pick_notes,
    press,
    seat_faults,
    shot,
    sign_in_new,
    walk_key,
    watch,
)

from cardtable.games.kuhhandel.describe import note_values
from cardtable.i18n import render
from loopback import LOOPBACK

pytestmark = pytest.mark.timeout(240)

SMALL_MASTER = {
    "preset": "master",
    "species": [
        {"name": "Cow", "value": 800, "payouts": [0, 0, 0, 0]},
        {"name": "Dog", "value": 160, "payouts": [0, 0, 0, 0]},
        {"name": "Cat", "value": 90, "payouts": [0, 0, 0, 0]},
    ],
    "rats": 2,
    "countdown_from": 3,
}
SPECIES = len(SMALL_MASTER["species"])  # challenges for rats use this species index

#: Private events and who may receive them (spec §11), by the seats named in their data.
PRIVATE_TO = {
    "payment_notes": lambda d: {d["from"], d["to"]},
    "trade_notes": lambda d: {d["challenger"], d["opponent"]},
    "tie_notes": lambda d: {d["challenger"], d["opponent"]},
    "rat_note_value": lambda d: {d["seat"]},
    "rat_notes": lambda d: {d["seat"]},
    "peek": lambda d: {d["seat"]},
}


@dataclass
class Plan:
    """What the three seats agreed to do (the test plays all of them)."""

    people: list[Person]
    engine: Any = None  # the server's game (an oracle for what each page shows as its own)
    tie_offer: list[int] | None = None
    tie_seen: bool = False
    tie_checked: bool = False
    claims: dict[str, str] = field(default_factory=dict)  # request_id -> how to answer
    claimed_at: list[int] = field(default_factory=list)  # the counts shown at the clicks
    preempts: int = 0
    rat_checked: bool = False
    #: every rat decision looked at: (name, the engine's pile, the frame's pile, notes offered)
    rat_log: list[tuple[str, int, Any, int]] = field(default_factory=list)

    def other(self, seat: int) -> Person:
        return next(p for p in self.people if p.seat == seat)

    def check_wallets(self) -> None:
        """Every page shows its seat's notes as the engine holds them (the page keeps them from
        the events its seat receives; the game waits for a person here, so it stands still)."""
        for person in self.people:
            truth = sorted(self.engine.observe_json(person.seat)["wallet"])
            for _ in range(30):
                if own_notes(person.page) == truth:
                    break
                person.page.wait_for_timeout(100)
            assert own_notes(person.page) == truth, (person.name, own_notes(person.page), truth)


def master_policy(plan: Plan, person: Person, kind: str, panel: Any) -> bool:
    page = person.page
    msg = person.tab.last_request(kind)
    info = msg["request"]["info"] if msg else {}
    if kind == "turn":
        actions = offered(panel)
        if not actions:
            return False  # read while the page draws the panel again: look again
        trades = [a for a in actions if a["kind"] == "challenge" and a["species"] < SPECIES]
        others = [a for a in actions if a["kind"] != "challenge"]
        if plan.tie_offer is None and trades:
            return click_offered(panel, trades[0])  # the first trade is the tie
        if others:
            return click_offered(panel, others[0])  # draw the next card
        return click_offered(panel, trades[0] if trades else actions[0])
    if kind == "bid":
        return click_offered(panel, {"kind": "pass"})  # the auctioneer gets the card
    if kind == "offer":
        if plan.tie_offer is None and not info["again"]:
            theirs = own_notes(plan.other(info["opponent"]).page)
            plan.tie_offer = [10] if 10 in own_notes(page) and 10 in theirs else []
            return pick_notes(panel, plan.tie_offer)
        if info["again"] and not plan.tie_checked:
            check_tie(plan, person, panel, info)
        return pick_notes(panel, [])
    if kind == "respond":
        if not plan.tie_seen and not info["again"]:
            assert plan.tie_offer is not None
            plan.tie_seen = True
            return pick_notes(panel, plan.tie_offer)  # the same total: a tie
        # whoever holds more of the species wins it (so the end phase settles quickly)
        obs = msg["observation"] if msg else None
        sp, challenger = info["species"], info["challenger"]
        holds = obs["rats"] if sp == SPECIES else [h[sp] for h in obs["herds"]]
        positive = [v for v in own_notes(page) if v > 0]
        if holds[person.seat] >= holds[challenger] and positive:
            return pick_notes(panel, positive[:1])
        return click_offered(panel, {"kind": "accept"})
    if kind == "rat":
        return answer_rat(plan, person, panel, info)
    if kind == "claim":
        return answer_claim(plan, person, panel, msg)
    if kind == "preempt":
        plan.preempts += 1
        choices = msg["request"]["choices"] if msg else []
        want = choices[0] if plan.preempts % 2 == 0 else choices[-1]
        return click_offered(panel, want)
    if kind == "pay":
        return press(panel.locator("button.payment"))
    if kind == "sell_or_buy":
        return click_offered(panel, {"kind": "sell"})
    raise AssertionError(f"unexpected panel {kind}")


def answer_claim(plan: Plan, person: Person, panel: Any, msg: dict[str, Any] | None) -> bool:
    """The first countdown a seat sees: claim once the count went down by one (the page counts
    down once a second); afterwards alternately claim at once and let the count run out."""
    assert msg is not None
    rid = msg["request_id"]
    most = max(c["count"] for c in msg["request"]["choices"])
    start = msg["request"]["info"]["from"]
    if rid not in plan.claims:
        if most == 0:
            plan.claims[rid] = "none"
        elif not plan.claimed_at:
            plan.claims[rid] = "late"
        else:
            plan.claims[rid] = "now" if len(plan.claims) % 2 else "none"
    how = plan.claims[rid]
    count = panel.locator(".count")
    try:
        shown = int(count.inner_text(timeout=500))
    except (ValueError, Exception):
        return False
    if how == "none":
        return press(panel.get_by_role("button", name="Don't claim"))
    if how == "late" and shown > min(most, start - 1):
        return False  # wait for the count to come down
    if press(panel.locator("button[data-claim='1']")):  # (not while it is disabled)
        plan.claimed_at.append(shown)
        return True
    return False


def answer_rat(plan: Plan, person: Person, panel: Any, info: dict[str, Any]) -> bool:
    """The first two seats asked place a note, the third takes the rat with both.

    The pile is the engine's (the game waits for this seat): the frames' last rat request can
    lag the panel, and a panel read while the page draws it again offers nothing, which must
    not be taken for a seat without notes (it would take the rat at once, and a game whose two
    rat rounds both ended so never showed the two-note offer)."""
    pending = plan.engine.pending()
    if not pending or pending[0].kind != "rat" or pending[0].seat != person.seat:
        return False  # a panel already answered, still on the page: look again later
    pile = len(plan.engine.rat_pile)
    actions = offered(panel)
    places = [a for a in actions if a["kind"] == "place_note"]
    plan.rat_log.append((person.name, pile, info.get("pile"), len(places)))
    if not actions:
        return False  # the panel is being drawn again
    if pile < 2 and places:
        return click_offered(panel, places[0])
    if pile == 2 and not plan.rat_checked:
        check_rat(plan, person, panel)
    return click_offered(panel, {"kind": "take_rat"})


def check_tie(plan: Plan, person: Person, panel: Any, info: dict[str, Any]) -> None:
    """At the re-offer: both traders were shown both offers, the third seat and the spectator
    only that it was a tie."""
    plan.tie_checked = True
    plan.check_wallets()
    title = panel.locator("h3").inner_text()
    assert title.startswith("A tie! Offer again"), title
    shot(person.tab, "tie")
    offer = plan.tie_offer
    assert offer is not None
    said = render(
        "en", note_values(offer)
    )  # "2 × 10 + 50 = 70": counted as a person counts, not a list
    line = f"(offers: {said} against {said})"
    opponent = plan.other(info["opponent"])
    third = next(p for p in plan.people if p not in (person, opponent))
    for trader in (person, opponent):
        trader.page.locator(".log li.private", has_text=line).first.wait_for(timeout=5000)
    third.page.locator(".log li", has_text="A tie!").first.wait_for(timeout=5000)
    assert "(offers:" not in third.page.locator(".log").inner_text()
    # everyone sees the re-offer coming, not the notes
    third.page.locator(".kh-center .tie").wait_for(timeout=5000)


def check_rat(plan: Plan, person: Person, panel: Any) -> None:
    """Two notes lie beside the rat: the seat asked sees the offer to take both; another seat's
    board shows only the count."""
    plan.rat_checked = True
    plan.check_wallets()
    take = panel.get_by_role("button", name="Take the rat and the 2 notes")
    assert take.count() == 1
    shot(person.tab, "rat-round")
    for other in plan.people:
        if other is person:
            continue
        other.page.locator(".kh-center", has_text="A rat! 2 notes face down").wait_for(timeout=5000)
        # a seat's log names the value of its own placed note only
        for line in other.page.locator(".log li").all_inner_texts():
            if " placed " in line:
                assert line.startswith(f"({other.name} placed"), (other.name, line)


def test_three_people_play_master_through_tie_rats_and_countdowns(
    browser: Any, server: WebServer
) -> None:
    people = [sign_in_new(browser, server, name) for name in ("Ada", "Ben", "Cy")]
    for p in people:
        # no notes in flight: what moves and how is tested in test_motion.py; here the pages
        # drew every motion of the game four times (a fifth of the test's CPU, 63 s -> 52 s)
        p.page.emulate_media(reduced_motion="reduce")
    spectator: Tab | None = None
    try:
        ada, ben, cy = people
        page = ada.page
        form = "form[aria-labelledby=priv-h]"
        choose(page, form, "Game", "kuhhandel")
        page.locator(form).get_by_label("Seats", exact=True).fill("3")
        page.locator(form).locator("summary").click()
        page.locator(form).get_by_label("Rule set as JSON", exact=False).fill(
            json.dumps(SMALL_MASTER)
        )
        page.locator(form).get_by_label("House bots at the table").fill("0")
        page.locator(form).get_by_label("List the open seats in the lobby").check()
        page.locator(form).get_by_role("button", name="Create the table").click()
        invite = page.locator(".invite[data-invite]").inner_text()
        assert re.fullmatch(r"[A-Z2-9]{6}", invite), invite
        # Ben types the code; Cy takes the listed open seat in the lobby
        ben.page.get_by_label("Invite code", exact=True).fill(invite.lower())
        ben.page.get_by_role("button", name="Join", exact=True).click()
        # Ada's own waiting table says so (her page also lists the table among the open seats,
        # with the same words, once its list is fetched again)
        page.locator(".waiting-table").get_by_text("1 open seat").wait_for()
        cy.page.get_by_role("button", name=f"Take a seat ({invite})").click(timeout=10000)
        game_id = game_id_of(ada.tab)
        for p in people:
            assert game_id_of(p.tab) == game_id
            start = next(m for m in p.tab.messages() if m.get("type") == "game_start")
            p.seat = start["seat"]
            assert start["rules"]["trade_tie"] == "offer_again" and start["rules"]["rats"] == 2
        assert sorted(p.seat for p in people) == [0, 1, 2]

        spectator = watch(browser, server, game_id)
        spectator.page.emulate_media(reduced_motion="reduce")
        spectator.page.locator(".kh-board").wait_for()

        plan = Plan(people, engine=server.app.state.hub.tables[game_id].game)
        drive(people, lambda p, kind, panel: master_policy(plan, p, kind, panel), limit_s=150)
        spectator.page.locator(".result").wait_for(timeout=15000)

        # -- the whole game was played by the three people, as offered, with no fault
        for p in people:
            info = seat_faults(server, game_id, p.name)
            assert info["detail"]["termination"] == "normal", info["detail"]
            assert info["seat"]["faults"] == 0 and not info["seat"]["taken_over"]
            assert not [m for m in p.tab.messages() if m.get("type") == "rejected"]
            assert not p.tab.errors, p.tab.errors
            assert_only_offered_choices(p.tab)
            assert "The game ends" in p.page.locator(".log").inner_text()
        assert plan.tie_checked and plan.rat_checked, plan.rat_log

        kinds = [e["kind"] for e in spectator.events()]
        assert kinds.count("tie") == 1
        assert kinds.count("rat") == 2 and kinds.count("rat_taken") == 2
        assert kinds.count("countdown") == 3  # every pedigree card was counted down
        assert kinds.count("claimed") >= 1 and plan.preempts == kinds.count("claimed")
        claims = [
            m["action"]["count"]
            for p in people
            for m in p.tab.messages(sent=True)
            if m.get("type") == "action" and m["action"]["kind"] == "claim"
        ]
        assert any(c > 0 for c in claims) and 0 in claims, claims
        # the late claim went out below the starting count: the page counted down
        assert any(0 < c < SMALL_MASTER["countdown_from"] for c in claims), claims

        # -- nobody received what was not theirs (§11), wherever events travel in the frames
        for p in people:
            for e in p.tab.events():
                if e["kind"] in PRIVATE_TO:
                    assert p.seat in PRIVATE_TO[e["kind"]](e["data"]), (p.name, p.seat, e)
        assert any(e["kind"] == "tie_notes" for p in people for e in p.tab.events())
        # every observation a seat's page received (with a request, or pushed) is its own
        for p in people:
            views = list(walk_key(p.tab.messages(), "observation"))
            assert views and {v["seat"] for v in views} == {p.seat}, p.name
        spectator_views = list(walk_key(spectator.messages(), "observation"))
        assert all(v["seat"] is None for v in spectator_views)
        private = [e for e in spectator.events() if e["kind"] in PRIVATE_TO]
        assert not private, private[:3]
        assert all(w is None for w in walk_key(spectator.messages(), "wallet"))
        assert all(v is None for v in walk_key(spectator.messages(), "my_offer"))
        assert spectator.public_views
        for view in spectator.public_views:
            assert view["observation"]["wallet"] is None
            assert view["observation"]["trade"] is None or (
                view["observation"]["trade"]["my_offer"] is None
            )
        dom = spectator.page.locator("main")
        assert dom.locator(".kh-mine").count() == 0 and dom.locator(".actions").count() == 0
        log = dom.locator(".log").inner_text()
        assert "(offers:" not in log and "placed" not in log and "(notes:" not in log
        assert not spectator.errors, spectator.errors

        # -- the replay of the Master game: the countdown and the rat, every wallet shown
        replay = LOOPBACK.get(f"{server.url}/api/games/{game_id}/replay", timeout=30).json()
        frames = replay["frames"]
        countdown_at = next(
            i for i, f in enumerate(frames) if any(e["kind"] == "countdown" for e in f["events"])
        )
        rat_at = next(
            i for i, f in enumerate(frames) if any(e["kind"] == "rat_taken" for e in f["events"])
        )
        viewer = spectator.page
        viewer.get_by_role("link", name="Watch the replay").first.click()
        step_text = viewer.locator(".step")
        viewer.get_by_text("Move 0 of").wait_for()
        scrub = "el => { el.value = %d; el.dispatchEvent(new Event('input')); }"
        viewer.eval_on_selector("#scrub", scrub % countdown_at)
        assert step_text.inner_text().startswith(f"Move {countdown_at} of")
        assert "counts down from 3" in step_text.inner_text()
        assert "Pedigree countdown for the" in viewer.locator(".countdown-box").inner_text()
        # every seat's notes, revealed
        assert viewer.locator(".seat .seat-notes .notes").count() == 3
        viewer.eval_on_selector("#scrub", scrub % rat_at)
        assert "takes the rat" in step_text.inner_text()
        assert viewer.locator(".seat .kcard.rat").count() >= 1
        shot(spectator, "replay-master")
        # the rat's notes are revealed to the replay's log (the game is over)
        assert viewer.locator(".log li.private", has_text="the notes:").count() >= 1
        viewer.get_by_role("button", name="Last step").click()
        assert "Final scores" in viewer.locator(".result").inner_text()
        assert viewer.locator(".seat .kcard.pedigree").count() >= 1
        assert not spectator.errors, spectator.errors
    finally:
        for p in people:
            p.close()
        if spectator is not None:
            spectator.close()
