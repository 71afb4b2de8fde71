"""A page's first visit asks ``GET /api/account`` twice at once (the header's account link and
the page itself). When both go out without a ``ct_csrf`` cookie the server hands each a token
of its own; the browser keeps the cookie of the answer whose head came last, the page kept the
token of the answer whose body came last, and a sign-up that echoed the page's token with the
other cookie was refused 403 (test_accounts_web: Bea's sign-up on her first visit, 2 of 7 runs
beside ``stress --cpu 2``; Ada's was on her second visit, with a cookie). In a run that is luck:
Chromium's HTTP cache sends the second ask once the first one's head came, and it may or may not
have read its cookies before (both went out without one in 1 of 3 tries; then the page's token
and the cookie differed in 1 of those). Here the server crosses the answers on purpose."""

from __future__ import annotations

import asyncio
import threading
import time
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any

from browser_helpers import open_tab, run_server

from patience import patience, polls


class CrossedAccountAnswers:
    """ASGI around the server, for the first two ``GET /api/account`` (A and B, as they come
    in): A's head (its ``Set-Cookie``) goes out once B has come in, B's once the page has A's
    head, A's body once the page has B's whole answer. Each notes the ``ct_csrf`` cookie it
    carried. The page's side is told by the test (:meth:`watch`)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        #: the ``ct_csrf`` cookie each ``GET /api/account`` carried ("" for none)
        self.carried: list[str] = []
        #: every hold ended by its event, not by the time a test waits
        self.crossed = True
        self.b_came = threading.Event()
        self.page_has_a_head = threading.Event()
        self.page_has_b = threading.Event()
        self.a_body_out = threading.Event()
        self._a_request: Any = None

    async def _after(self, event: threading.Event) -> None:
        loop = asyncio.get_running_loop()
        if not await loop.run_in_executor(None, event.wait, patience(15)):
            self.crossed = False

    def watch(self, page: Any) -> None:
        """Tell the holds what the page got: A's head, then B's whole answer."""

        def response(reply: Any) -> None:
            if reply.url.endswith("/api/account") and self._a_request is None:
                self._a_request = reply.request
                self.page_has_a_head.set()

        def finished(request: Any) -> None:
            a_request = self._a_request
            if request.url.endswith("/api/account") and a_request not in (None, request):
                self.page_has_b.set()

        page.on("response", response)
        page.on("requestfinished", finished)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if not (
            scope["type"] == "http"
            and scope["method"] == "GET"
            and scope["path"] == "/api/account"
            and len(self.carried) < 2
        ):
            await self.app(scope, receive, send)
            return
        cookies: SimpleCookie = SimpleCookie()
        for key, value in scope["headers"]:
            if key == b"cookie":
                cookies.load(value.decode("latin-1"))
        self.carried.append(cookies["ct_csrf"].value if "ct_csrf" in cookies else "")
        if len(self.carried) == 2:
            self.b_came.set()

            async def b(message: Any) -> None:
                if message["type"] == "http.response.start":
                    await self._after(self.page_has_a_head)
                await send(message)

            await self.app(scope, receive, b)
            return

        async def a(message: Any) -> None:
            if message["type"] == "http.response.start":
                await self._after(self.b_came)
            elif not message.get("more_body", False):
                await self._after(self.page_has_b)
                await send(message)
                self.a_body_out.set()
                return
            await send(message)

        await self.app(scope, receive, a)


def test_a_first_visit_signs_up_with_crossed_account_answers(browser: Any, tmp_path: Path) -> None:
    crossing: list[CrossedAccountAnswers] = []

    def around(app: Any) -> CrossedAccountAnswers:
        crossing.append(CrossedAccountAnswers(app))
        return crossing[0]

    with run_server(tmp_path, around=around) as web:
        crossed = crossing[0]
        tab = open_tab(browser)
        page = tab.page
        assert page.context.cookies() == []  # a first visit
        # both asks go to the server at once: Chromium's HTTP cache would hold the second until
        # the first one's head came, and whether it read its cookies before that is luck
        devtools = page.context.new_cdp_session(page)
        devtools.send("Network.enable")
        devtools.send("Network.setCacheDisabled", {"cacheDisabled": True})
        crossed.watch(page)
        page.goto(web.url + "/signin")
        form = page.locator("form[aria-labelledby=signup-h]")
        form.wait_for()
        end = time.monotonic() + patience(20)
        for pause in polls():  # (Playwright tells the page's events while the test waits in it)
            if crossed.a_body_out.is_set() or time.monotonic() > end:
                break
            page.wait_for_timeout(pause * 1000)
        # the provocation happened: two asks at once, neither with a cookie, their answers crossed
        assert crossed.a_body_out.is_set(), "the first account answer never ended"
        assert crossed.crossed and crossed.carried == ["", ""], (crossed.crossed, crossed.carried)
        form.get_by_label("Name").fill("Bea")
        form.get_by_label("Password").fill("Bea plays cows")
        signup = "/api/account/signup"
        with page.expect_response(lambda reply: reply.url.endswith(signup)) as answer:
            form.get_by_role("button", name="Create the account").click()
        sent = answer.value.request.all_headers()
        cookie: SimpleCookie = SimpleCookie(sent.get("cookie", ""))
        carried = cookie["ct_csrf"].value if "ct_csrf" in cookie else ""
        # the double submit: the header echoes the very cookie the sign-up carried
        assert sent.get("x-csrf-token") == carried != "", (sent.get("x-csrf-token"), carried)
        assert answer.value.status == 201, f"{answer.value.status} POST {signup}"
        page.wait_for_url(web.url + "/")
        page.get_by_text("Playing as Bea").wait_for()
        assert not tab.errors, tab.errors
        tab.close()
