"""The browser contexts the tests keep between tabs (profiles.py) carry nothing from one test to
the next: no page, no login, no cookie, no storage of any origin; and two tabs open at once are
two people."""

from __future__ import annotations

from typing import Any

from browser_helpers import WebServer, open_tab, sign_in

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
