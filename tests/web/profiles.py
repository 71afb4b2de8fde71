"""Browser profiles for the browser tests: a person's cookie jar (a Playwright browser context)
that serves one tab after another, reset in between, instead of a new context for every tab.

What a tab costs Chromium (tools/cpu_of.py, renderers counted; the lobby loaded on a test server,
2-core host under load, 10 uses each, 2-4 runs): a new context with a page, the lobby and the
context closed 0.94-1.19 s of CPU; a new page in a kept context whose renderer process stays up
(the *keeper* below), the lobby, the page closed and the context reset 0.51-0.60 s. Most of the
difference is a renderer process started and its scripts compiled again for every tab (a new
page alone in a kept context, without a keeper: 0.72-0.82 s).

Isolation, what a use of a profile leaves to the next one:

- nothing of the page: every use gets a new page (its own sessionStorage, history, init scripts,
  routes, listeners, viewport and media emulation); at the end of the use every page the test
  opened in the context is closed, and with it its WebSockets;
- no cookie (``context.clear_cookies``) and no storage of any origin its pages went to
  (``Storage.clearDataForOrigin``: localStorage, IndexedDB, Cache Storage, service workers, ...;
  cookies are cleared by ``clear_cookies`` alone). Both are done when they answer: Chromium
  answers ``clearDataForOrigin`` from the deletion's own callback, and a cookie set right after
  it, on the same host and another port, stayed in every try (see the commit). What can come
  after the clearing is a cookie of an answer a closed page had on its way (a lobby's
  ``GET /api/account``, 1 reset in 30 beside ``stress --cpu 2``): the reset then looks for
  cookies (one call, about a millisecond), clears again if it finds one, and after
  :data:`CLEARINGS` fails the test that gave the context back (:class:`ResetLeftTraces`),
  rather than a later test with a refusal it cannot explain. (A sign-up refused 403 for a CSRF
  token that was not its cookie's, first blamed on a late DevTools deletion, was the page's own
  race: tests/web/test_csrf_race.py);
- the HTTP cache and the renderer process stay (the saving): the test servers' static files,
  which carry no person (no answer of the API is cached: ``/api/account`` says ``no-store``,
  the others carry no validator).

A test that changes a context in a way the reset does not undo (``context.add_init_script``,
``context.route``, permissions, offline) closes the context itself (``tab.page.context.close()``):
a closed context leaves the pool. tests/web/test_profiles.py checks the reset.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

#: the size of a new context's pages (open_tab sets another size on the page)
WIDTH, HEIGHT = 1280, 900

#: The keeper's address: on the tests' site (127.0.0.1, whatever the port), so that Chromium puts
#: the tabs of the context into the keeper's renderer process instead of starting one per tab;
#: never fetched (the keeper's own route answers it), an origin no test server has.
KEEPER_URL = "http://127.0.0.1:9/keeper"
KEEPER_PAGE = "<!doctype html><title>keeper</title>"


def origin_of(url: str) -> str | None:
    """``scheme://host[:port]`` of an http(s) address; None for about:blank, data: and the
    keeper."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    origin = f"{parts.scheme}://{parts.netloc}"
    return None if url.startswith(KEEPER_URL) else origin


#: how many times a reset clears cookies before it gives up (see Profile.reset)
CLEARINGS = 3

#: what ``Storage.clearDataForOrigin`` clears: every kind of an origin's storage but cookies
#: (cleared by ``context.clear_cookies``)
STORAGE_TYPES = "local_storage,indexeddb,cache_storage,service_workers,file_systems,websql"


class ResetLeftTraces(AssertionError):
    """A reset left a cookie in the context: it fails the test that gave the context back."""


@dataclass(eq=False)
class Profile:
    """A browser context kept between tabs, with its keeper page (an idle page that keeps the
    context's renderer process up, and whose DevTools session clears the context's storage)."""

    home: Profiles
    context: Any
    locale: str | None
    keeper: Any
    devtools: Any
    #: the origins the context's pages went to since the last reset
    origins: set[str] = field(default_factory=set)
    closed: bool = False

    def saw(self, url: str) -> None:
        origin = origin_of(url)
        if origin is not None:
            self.origins.add(origin)

    def reset(self) -> None:
        """Close every page but the keeper, then clear cookies and the storage of every origin
        the pages went to; raise :class:`ResetLeftTraces` if a cookie is left."""
        for page in self.context.pages:
            if page is not self.keeper:
                page.close()
        if self.keeper.is_closed():
            raise RuntimeError("the keeper page is gone")
        self.context.clear_cookies()
        for origin in sorted(self.origins):
            self.devtools.send(
                "Storage.clearDataForOrigin", {"origin": origin, "storageTypes": STORAGE_TYPES}
            )
        self.origins.clear()
        # a page closed with an answer on its way may still store that answer's cookies after
        # the clearing (a closed lobby's GET /api/account: 1 reset in 30 beside stress --cpu 2):
        # cleared again; a cookie that outlives CLEARINGS is a reset that does not work
        left = self.context.cookies()
        clearings = 1
        while left and clearings < CLEARINGS:
            self.home.late_cookies += 1
            self.context.clear_cookies()
            clearings += 1
            left = self.context.cookies()
        if left:
            names = sorted(f"{c['name']} ({c['domain']})" for c in left)
            raise ResetLeftTraces(
                f"{clearings} clearings left cookies in the context: {', '.join(names)}"
            )


class Profiles:
    """The profiles of one browser: those not in use, by locale."""

    def __init__(self, browser: Any) -> None:
        self.browser = browser
        self.idle: list[Profile] = []
        #: how many contexts were made, and how many tabs a kept one served
        self.made = 0
        self.reused = 0
        #: the times a reset found a cookie stored after its clearing, and cleared again
        self.late_cookies = 0

    def take(self, locale: str | None) -> Profile:
        """A profile nobody uses, reset, with this locale (a new one if none is free): the one
        given back last (whatever ran before, a test gets the context its last tab gave back,
        which test_profiles.py's check of the reset needs)."""
        for profile in reversed(self.idle):
            if profile.locale == locale:
                self.idle.remove(profile)
                self.reused += 1
                return profile
        return self.new(locale)

    def new(self, locale: str | None) -> Profile:
        context = self.browser.new_context(
            viewport={"width": WIDTH, "height": HEIGHT}, locale=locale
        )
        keeper = context.new_page()
        keeper.route(
            KEEPER_URL, lambda route: route.fulfill(content_type="text/html", body=KEEPER_PAGE)
        )
        keeper.goto(KEEPER_URL)
        profile = Profile(self, context, locale, keeper, context.new_cdp_session(keeper))

        def closed(_context: Any) -> None:
            profile.closed = True

        def opened(page: Any) -> None:
            page.on("framenavigated", lambda frame: profile.saw(frame.url))

        context.on("close", closed)
        context.on("page", opened)
        self.made += 1
        return profile

    def give_back(self, profile: Profile) -> None:
        """The tab's test is done with the profile: reset, it serves the next tab (a profile
        whose context was closed, or that cannot be reset, is dropped; one whose reset left a
        cookie is dropped and the error raised: the test that gave it back fails)."""
        if profile.closed:
            return
        try:
            profile.reset()
        except ResetLeftTraces:
            with contextlib.suppress(Exception):
                profile.context.close()
            raise
        except Exception:
            with contextlib.suppress(Exception):
                profile.context.close()
            return
        self.idle.append(profile)


#: the profiles of each running browser (dropped when it disconnects)
PROFILES: dict[int, Profiles] = {}


def profiles_of(browser: Any) -> Profiles:
    key = id(browser)
    if key not in PROFILES:
        PROFILES[key] = Profiles(browser)
        browser.on("disconnected", lambda _browser: PROFILES.pop(key, None))
    return PROFILES[key]
