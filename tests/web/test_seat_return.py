"""A person's seat when the person is not there: the decision clock runs out (a house bot takes
over), the person leaves, the WebSocket drops; each time the person comes back and gets the seat
again. And signing in with a registered bot's name and token.

These tests use their own server: a short clock for people (6 s per decision, 2 s of time
bank) and one fault hands the seat to the house bot. The person's table is private and its other
two seats are guests played by our client with a random bot that answers after 400 ms: the game
then paces itself (house bots alone would race through the rest of the game in a moment while the
house bot holds the person's seat).
"""

from __future__ import annotations

import asyncio
import re
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from browser_helpers import (
    Tab,
    WebServer,
    assert_only_offered_choices,
    choose,
    cunegonda_step,
    decisions_sent,
    game_id_of,
    kuhhandel_step,
    open_tab,
    play_until_over,
    run_server,
    seat_faults,
    sign_in,
    wait_until,
    what_the_page_saw,
)

from cardtable.client.blocking import agent_source
from cardtable.client.client import Client
from loopback import LOOPBACK
from patience import patience

pytestmark = pytest.mark.timeout(180)

#: Long enough that the first decision's panel is still up when the test looks for it on a
#: loaded machine (the test waits for it to time out; CI once missed a 2.5 s one)
PERSON_DEADLINE_MS = 6000
#: Long enough that the page's clock shows it: a busy headless Chromium may run the page's
#: clock tick (at each change of its seconds) late, and CI once never saw a 0.5 s bank on it
PERSON_BANK_MS = 2000


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    with run_server(
        tmp_path_factory.mktemp("quick"),
        person_deadline_ms=PERSON_DEADLINE_MS,
        person_time_bank_ms=PERSON_BANK_MS,
        max_faults_per_game=1,
    ) as web:
        yield web


def _sent(tab: Tab, kind: str) -> list[dict[str, Any]]:
    return [m for m in tab.messages(sent=True) if m.get("type") == kind]


def _received(tab: Tab, kind: str) -> list[dict[str, Any]]:
    return [m for m in tab.messages() if m.get("type") == kind]


class PacedGuests:
    """Guests at a private table, played by our client with a random bot that takes its time."""

    def __init__(self, server: WebServer, invite: str, names: list[str], think_ms: float) -> None:
        self.url = server.url.replace("http", "ws") + "/ws"
        self.invite = invite
        self.names = names
        self.think_ms = think_ms
        self.loop: asyncio.AbstractEventLoop | None = None
        self.tasks: list[asyncio.Task[Any]] = []
        #: what ended a guest's play with an error (shown by a test that waits in vain)
        self.errors: list[str] = []
        self.thread = threading.Thread(target=lambda: asyncio.run(self._main()), daemon=True)
        self.thread.start()

    async def _main(self) -> None:
        self.loop = asyncio.get_running_loop()

        async def one(name: str, seed: int) -> None:
            source = agent_source("random", "kuhhandel", seed)
            async with Client(self.url, source, guest=name, think_ms=self.think_ms) as client:
                await client.play("private", "kuhhandel", invite=self.invite)

        for i, name in enumerate(self.names):
            self.tasks.append(asyncio.create_task(one(name, i)))
            await asyncio.sleep(0.2)  # one after the other: the second one starts the game
        outcomes = await asyncio.gather(*self.tasks, return_exceptions=True)
        self.errors = [repr(o) for o in outcomes if isinstance(o, Exception)]

    def stop(self) -> None:
        if self.loop is not None:
            self.loop.call_soon_threadsafe(lambda: [t.cancel() for t in self.tasks])
        self.thread.join(timeout=10)


def _answer_one(tab: Tab) -> dict[str, Any]:
    """Answer the next decision through the page; returns the action sent, after checking that
    the server took it (no rejection)."""
    before = len(_sent(tab, "action"))
    rejected = len(_received(tab, "rejected"))
    for _attempt in range(3):  # a panel rebuilt or replaced while clicking: try the one shown now
        panel = tab.page.locator(".actions .panel[data-kind]").first
        panel.wait_for(timeout=30000)
        # {"bid": 1}: the driver answers a bid with Pass, not "I'm out of this auction"
        if kuhhandel_step(tab.page, panel.get_attribute("data-kind") or "", panel, {"bid": 1}):
            break
    else:
        actions = tab.page.locator(".actions").inner_text(timeout=2000)
        clock = tab.page.locator(".clock").inner_text(timeout=2000)
        last = [m.get("type") for m in tab.messages()][-12:]
        raise AssertionError(
            f"no decision could be answered: actions {actions!r}, clock {clock!r}, "
            f"last frames {last}, rejected {_received(tab, 'rejected')}"
        )
    # the frame goes out asynchronously
    wait_until(
        tab.page, lambda: len(_sent(tab, "action")) > before, seconds=3, what="the action sent"
    )
    sent = _sent(tab, "action")
    # one click; the page may also have passed by itself meanwhile (a bid it cannot afford)
    assert len(sent) >= before + 1, (before, len(sent))
    tab.page.wait_for_timeout(300)
    assert len(_received(tab, "rejected")) == rejected, _received(tab, "rejected")[-1]
    return sent[-1]


def _keep_texts(tab: Tab, selector: str, name: str) -> None:
    """Keep every text the element shows from now on in ``window[name]``, in order."""
    tab.page.evaluate(
        """([selector, name]) => {
          const el = document.querySelector(selector);
          window[name] = [];
          new MutationObserver(() => window[name].push(el.textContent)).observe(
            el, {childList: true, characterData: true, subtree: true});
        }""",
        [selector, name],
    )


def _seat_away(server: WebServer, game_id: str, name: str) -> bool:
    view = LOOPBACK.get(f"{server.url}/api/tables/{game_id}/public").json()
    (seat,) = [s for s in view["seats"] if s["name"] == name]
    return bool(seat["away"])


def _seat_turns_away(server: WebServer, game_id: str, name: str, seconds: float = 5.0) -> bool:
    """Whether the server's public view shows the seat away within ``seconds`` (scaled by the
    load): the page offers the seat back as soon as it sent ``leave``, and an idle run once read
    the view before the server had handled it."""
    end = time.monotonic() + patience(seconds)
    while not _seat_away(server, game_id, name):
        if time.monotonic() > end:
            return False
        time.sleep(0.05)
    return True


def test_timeout_leave_and_a_dropped_socket_each_end_with_the_person_back(
    browser: Any, quick: WebServer
) -> None:
    tab = open_tab(browser)
    routes: list[Any] = []

    def through(ws: Any) -> None:
        # pass every frame through, but keep both ends so the test can cut the connection
        routes.append((ws, ws.connect_to_server()))

    tab.page.route_web_socket(re.compile(r".*/ws$"), through)
    guests: PacedGuests | None = None
    try:
        sign_in(tab, quick, "Hal")
        page = tab.page
        form = "form[aria-labelledby=priv-h]"
        choose(page, form, "Game", "kuhhandel")
        choose(page, form, "Rule set", "classic")
        page.locator(form).get_by_label("Seats", exact=True).fill("3")
        page.locator(form).get_by_label("House bots at the table").fill("0")
        page.locator(form).get_by_label("List the open seats in the lobby").uncheck()
        page.locator(form).get_by_role("button", name="Create the table").click()
        invite = page.locator(".invite[data-invite]").inner_text()
        guests = PacedGuests(quick, invite, ["Ivy", "Jo"], think_ms=400)
        game_id = game_id_of(tab)

        # -- the decision clock is visible and runs down into the time bank
        try:
            page.locator(".actions .panel[data-kind]").first.wait_for()
        except Exception as exc:
            saw = what_the_page_saw(tab)
            raise AssertionError(f"no decision came: guests {guests.errors}\n{saw}") from exc
        clock = page.locator(".clock")
        assert clock.is_visible()
        assert re.match(r"Your decision: [1-6] s \(time bank 2 s\)", clock.inner_text())
        # every text the clock shows is kept: the bank's two seconds may fall between two looks
        _keep_texts(tab, ".clock", "__clock")
        page.wait_for_function(
            "() => window.__clock.some(t => t.startsWith('Time bank'))",
            timeout=PERSON_DEADLINE_MS + PERSON_BANK_MS + 6000,
            polling=200,
        )
        # -- the decision times out: the house bot answers it and keeps the seat
        page.get_by_role("button", name="Take my seat back").wait_for(timeout=10000)
        assert [m["code"] for m in _received(tab, "rejected")] == ["timeout"]
        # said in plain words, with what the house bot did for the person
        assert "Time ran out, so the house bot answered for you" in (
            page.locator(".messages .timeout").inner_text()
        )
        # in words: the server's reason names the game by its id, the page does not
        notice = page.locator(".messages .warn:not(.timeout)").inner_text()
        assert "the house bot plays the rest of it for you" in notice
        assert game_id not in notice
        assert "A house bot plays your seat" in page.locator(".status").inner_text()
        assert _seat_away(quick, game_id, "Hal")
        page.locator(".seat.me .tag.away").wait_for(timeout=5000)
        # the game goes on without the person: a new event arrives (waited for, not slept on)
        seen = len(tab.events())
        deadline = time.monotonic() + 30
        while len(tab.events()) <= seen and time.monotonic() < deadline:
            page.wait_for_timeout(50)
        assert len(tab.events()) > seen

        # -- the person takes the seat back and plays again
        page.get_by_role("button", name="Take my seat back").click()
        page.get_by_role("button", name="Leave the table").wait_for()
        _answer_one(tab)
        assert not _seat_away(quick, game_id, "Hal")
        page.locator(".seat.me .tag.away").wait_for(state="detached", timeout=5000)

        # -- leaves, comes back
        page.once("dialog", lambda dialog: dialog.accept())
        page.get_by_role("button", name="Leave the table").click()
        page.get_by_role("button", name="Take my seat back").wait_for()
        assert _seat_turns_away(quick, game_id, "Hal")
        page.get_by_role("button", name="Take my seat back").click()
        _answer_one(tab)

        # -- the WebSocket drops: the page reconnects with its resume token and resumes
        assert len(_sent(tab, "hello")) == 1 and len(routes) == 1
        page_end, server_end = routes[-1]
        # every text the toast shows is kept: a later toast may replace it before we look
        _keep_texts(tab, "#toast", "__toasts")
        server_end.close(code=4000, reason="cut by the test")
        page_end.close(code=4000, reason="cut by the test")
        page.wait_for_function(
            "() => window.__toasts.some(t => t.includes('reconnecting'))", timeout=15000
        )
        for _ in range(100):
            if len(_received(tab, "welcome")) == 2:
                break
            page.wait_for_timeout(100)
        hellos = _sent(tab, "hello")
        assert len(hellos) == 2 and len(routes) == 2, hellos
        assert hellos[1]["guest"] == "Hal" and hellos[1]["token"]  # the same person again
        assert game_id in _received(tab, "welcome")[-1]["games"]
        resumes = _sent(tab, "resume")
        assert resumes and resumes[-1]["game_id"] == game_id
        assert resumes[-1]["since"] > 0  # from where the page was, not from the start
        _answer_one(tab)
        _answer_one(tab)
        assert not _seat_away(quick, game_id, "Hal")
        assert not tab.errors, tab.errors
        assert_only_offered_choices(tab)
        page.once("dialog", lambda dialog: dialog.accept())
        page.get_by_role("button", name="Leave the table").click()
    finally:
        tab.close()
        if guests is not None:
            guests.stop()


def test_sign_in_with_a_registered_bot_token_and_play(browser: Any, quick: WebServer) -> None:
    token = LOOPBACK.post(f"{quick.url}/api/bots", json={"name": "web-token-bot"})
    token.raise_for_status()
    secret = token.json()["token"]

    wrong = open_tab(browser)
    tab = open_tab(browser)
    try:
        for t, key in ((wrong, "not-the-token"), (tab, secret)):
            t.page.goto(quick.url + "/")
            # the account's answer is in (the lobby holds its place, so nothing moves meanwhile)
            t.page.get_by_text("Sign in or create an account").wait_for()
            t.page.get_by_text("Play with a registered bot's name and token").click()
            t.page.get_by_label("Bot name").fill("web-token-bot")
            t.page.get_by_label("Token", exact=True).fill(key)
            t.page.get_by_role("button", name="Sign in", exact=True).click()
        wrong.page.locator("#toast", has_text="Could not sign in").wait_for()
        assert wrong.page.get_by_role("button", name="Play now").count() == 0

        page = tab.page
        page.get_by_text("Playing as web-token-bot (registered bot)").wait_for()
        welcome = next(m for m in tab.messages() if m.get("type") == "welcome")
        assert welcome["you"]["kind"] == "bot" and welcome["you"]["name"] == "web-token-bot"
        form = "form[aria-labelledby=quick-h]"
        choose(page, form, "Game", "cunegonda")
        page.locator(form).get_by_label("Rounds in the match").fill("1")
        choose(page, form, "House bot strength", "random")
        page.locator(form).get_by_role("button", name="Play now").click()
        game_id = game_id_of(tab)
        start = next(m for m in tab.messages() if m.get("type") == "game_start")
        assert start["names"][start["seat"]] == "web-token-bot"
        # a bot's clock: the server's bot deadline, not a person's
        page.locator(".hand-box .panel[data-kind]").first.wait_for()
        request = next(m for m in tab.messages() if m.get("type") == "request")
        assert request["deadline_ms"] == quick.settings.deadline_ms
        counts = play_until_over(tab, cunegonda_step, limit_s=60)
        assert decisions_sent(tab) == {"pass": 1, "play": 13}, counts
        info = seat_faults(quick, game_id, "web-token-bot")
        assert info["seat"]["faults"] == 0, info["detail"].get("faults")
        assert not tab.errors, tab.errors
    finally:
        wrong.close()
        tab.close()
