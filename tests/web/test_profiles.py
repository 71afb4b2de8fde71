"""The browser contexts the tests keep between tabs (profiles.py) carry nothing from one test to
the next: no page, no login, no cookie, no storage of any origin; and two tabs open at once are
two people."""

from __future__ import annotations

from typing import Any

import pytest
from browser_helpers import WebServer, open_tab, sign_in

from web.profiles import ResetLeftTraces

#: another origin on the tests' site, answered by the page's own route (no server)
ELSEWHERE = "http://127.0.0.1:8/"

LEAVE_TRACES = """async () => {
  localStorage.setItem('left', 'behind');
  sessionStorage.setItem('left', 'behind');
  document.cookie = 'left=behind; path=/; max-age=3600';
  await new Promise((resolve, reject) => {
    const open = indexedDB.open('left-behind', 1);
    open.onupgradeneeded = () => open.result.createObjectStore('things');
    open.onsuccess = () => { open.result.close(); resolve(null); };
    open.onerror = () => reject(open.error);
  });
}"""

TRACES = """async () => ({
  local: localStorage.getItem('left'),
  session: sessionStorage.getItem('left'),
  cookie: document.cookie.includes('left='),
  databases: (await indexedDB.databases()).map((d) => d.name),
})"""

NONE_LEFT = {"local": None, "session": None, "cookie": False, "databases": []}


def _elsewhere(page: Any) -> None:
    page.route(ELSEWHERE + "**", lambda route: route.fulfill(content_type="text/html", body="."))
    page.goto(ELSEWHERE)


def test_a_kept_context_carries_nothing_to_the_next_tab(browser: Any, server: WebServer) -> None:
    first = open_tab(browser)
    page = first.page
    sign_in(first, server, "Resa")
    page.evaluate(LEAVE_TRACES)
    assert page.evaluate(TRACES)["local"] == "behind"  # (the traces are there to be found)
    assert any(c["name"] == "left" for c in page.context.cookies())
    assert any(s.startswith("open ") and "/ws" in s for s in first.sockets), first.sockets
    other = page.context.new_page()  # a second page of the same person, left open
    _elsewhere(other)
    other.evaluate(LEAVE_TRACES)
    context = page.context
    first.close()
    assert page.is_closed() and other.is_closed()

    second = open_tab(browser)
    # the same context serves the next tab (else this test would prove nothing)
    assert second.page.context is context
    assert context.cookies() == []
    assert len(context.pages) == 2 and second.page in context.pages  # and the keeper
    second.page.goto(server.url + "/")
    assert second.page.evaluate(TRACES) == NONE_LEFT
    second.page.get_by_label("Display name").wait_for()  # nobody is signed in
    assert second.page.get_by_text("Playing as Resa").count() == 0
    _elsewhere(second.page)
    assert second.page.evaluate(TRACES) == NONE_LEFT
    assert not first.errors and not second.errors, first.errors + second.errors


def test_two_tabs_open_at_once_are_two_people(browser: Any, server: WebServer) -> None:
    ada = open_tab(browser)
    bea = open_tab(browser)
    assert ada.page.context is not bea.page.context
    sign_in(ada, server, "Ada")
    bea.page.goto(server.url + "/")
    bea.page.get_by_label("Display name").wait_for()
    assert bea.page.get_by_text("Playing as Ada").count() == 0
    assert "Ada" not in bea.page.evaluate("JSON.stringify(Object.assign({}, localStorage))")
    # a tab in another language is a context of that language, not a kept English one
    german = open_tab(browser, locale="de-DE")
    assert german.page.evaluate("navigator.language") == "de-DE"
    ada.close()
    bea.close()
    german.close()


class _ClearsNoCookie:
    """A context whose first ``misses`` ``clear_cookies`` do nothing (a cookie stored after the
    clearing; every one: a reset gone wrong); the rest is the context's own."""

    def __init__(self, context: Any, misses: int = 1000) -> None:
        self._context = context
        self.misses = misses

    def clear_cookies(self) -> None:
        if self.misses > 0:
            self.misses -= 1
            return
        self._context.clear_cookies()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._context, name)


def test_a_reset_that_leaves_a_cookie_fails_at_the_reset(browser: Any, server: WebServer) -> None:
    """A reset checks its own work: a cookie it left fails the test that gave the context back,
    not a later test whose request goes out with the wrong cookie."""
    tab = open_tab(browser)
    context = tab.page.context
    tab.page.goto(server.url + "/")
    # the page was given one: the sign-in form can show before the account's answer (and its
    # cookie) arrived, so the wait is for the cookie itself
    tab.page.wait_for_function("document.cookie.includes('ct_csrf=')")
    assert any(c["name"] == "ct_csrf" for c in context.cookies())
    assert tab.profile is not None
    tab.profile.context = _ClearsNoCookie(context)
    with pytest.raises(ResetLeftTraces, match="3 clearings left .*ct_csrf"):
        tab.close()
    # the context left the pool: the next tab gets another one
    other = open_tab(browser)
    assert other.page.context is not context
    assert other.page.context.cookies() == []
    other.close()


def test_a_cookie_stored_after_the_clearing_is_cleared_again(
    browser: Any, server: WebServer
) -> None:
    """A page closed with an answer on its way may store its cookie after the reset cleared
    them: the reset finds it and clears again, and the context serves the next tab."""
    tab = open_tab(browser)
    context = tab.page.context
    tab.page.goto(server.url + "/")
    tab.page.wait_for_function("document.cookie.includes('ct_csrf=')")
    assert tab.profile is not None
    profile = tab.profile
    late = profile.home.late_cookies
    profile.context = _ClearsNoCookie(context, misses=1)
    tab.close()
    profile.context = context
    assert profile.home.late_cookies == late + 1
    other = open_tab(browser)
    assert other.page.context is context and context.cookies() == []
    other.close()
