"""The pages' language over HTTP (issue 38): ``/i18n/choice`` picks the browser's language from
``Accept-Language``, a signed-in account remembers its choice (``players.language``) on every
browser, the catalogs are served per language, and a hostile input changes nothing."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from sqlalchemy import select

from cardtable.server.store.models import players
from loopback import LOOPBACK
from server.wire import RunningServer, db_url, fast_settings, running_server

pytestmark = pytest.mark.timeout(90)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    settings = fast_settings(db_url(tmp_path_factory.mktemp("lang")), sign_in_backoff_s=0.0)
    with running_server(settings) as running:
        yield running


def browser(server: RunningServer, accept: str = "en-US,en;q=0.9") -> httpx.Client:
    """A client that keeps cookies like a browser and sends the CSRF token like the page."""
    client = httpx.Client(base_url=server.http, timeout=30, headers={"Accept-Language": accept})
    client.headers["X-CSRF-Token"] = client.get("/api/account").json()["csrf_token"]
    client.headers["Origin"] = server.http
    return client


@pytest.mark.parametrize(
    ("accept", "lang"),
    [
        ("de-DE,de;q=0.9,en;q=0.8", "de"),
        ("fr-BE", "fr"),
        ("nl-BE,nl;q=0.9,en;q=0.5", "nl"),
        ("es-ES,it;q=0.7,en;q=0.3", "it"),
        ("ja-JP", "en"),
        ("", "en"),
        ("de;q=bogus," + "x" * 5000, "en"),
    ],
)
def test_the_browser_language_is_negotiated(server: RunningServer, accept: str, lang: str) -> None:
    reply = LOOPBACK.get(f"{server.http}/i18n/choice", headers={"Accept-Language": accept})
    assert reply.status_code == 200
    body = reply.json()
    assert body["lang"] == lang
    assert [code for code, _ in body["languages"]] == ["en", "de", "fr", "nl", "it"]


def test_the_switchers_cookie_wins_over_the_browser(server: RunningServer) -> None:
    reply = LOOPBACK.get(
        f"{server.http}/i18n/choice",
        headers={"Accept-Language": "de-DE", "Cookie": "cardtable_lang=it"},
    )
    assert reply.json()["lang"] == "it"
    bad = LOOPBACK.get(
        f"{server.http}/i18n/choice",
        headers={"Accept-Language": "de", "Cookie": "cardtable_lang=xx"},
    )
    assert bad.json()["lang"] == "de"


def test_an_account_remembers_its_language_on_every_browser(server: RunningServer) -> None:
    first = browser(server)
    assert (
        first.post(
            "/api/account/signup", json={"name": "Vera", "password": "koehandel!"}
        ).status_code
        == 201
    )
    assert first.post("/i18n/choice", json={"lang": "nl"}).status_code == 204
    with server.app.state.store.engine.connect() as conn:
        stored = conn.execute(select(players.c.language).where(players.c.name == "Vera"))
        assert stored.scalar_one() == "nl"
    # another browser (German, no cookie of the switcher) signs in: the account's language
    other = browser(server, "de-DE")
    assert other.get("/i18n/choice").json()["lang"] == "de"
    assert (
        other.post(
            "/api/account/signin", json={"name": "Vera", "password": "koehandel!"}
        ).status_code
        == 200
    )
    assert other.get("/i18n/choice").json()["lang"] == "nl"
    # a language we do not have, or a request from another site, changes nothing
    assert first.post("/i18n/choice", json={"lang": "xx"}).status_code == 422
    first.headers["Origin"] = "https://evil.example"
    assert first.post("/i18n/choice", json={"lang": "fr"}).status_code == 403
    assert other.get("/i18n/choice").json()["lang"] == "nl"


def test_a_guests_choice_is_not_stored(server: RunningServer) -> None:
    guest = browser(server)
    assert guest.post("/i18n/choice", json={"lang": "fr"}).status_code == 204
    assert guest.get("/i18n/choice").json()["lang"] == "en"  # the browser keeps it (cookie)


@pytest.mark.parametrize("lang", ["en", "de", "fr", "nl", "it"])
def test_each_catalog_is_served(server: RunningServer, lang: str) -> None:
    reply = LOOPBACK.get(f"{server.http}/i18n/{lang}.json")
    assert reply.status_code == 200
    assert reply.json()["web.nav.lobby"]


@pytest.mark.parametrize("lang", ["xx", "..%2Fen", "EN", "en.json"])
def test_no_other_file_is_served(server: RunningServer, lang: str) -> None:
    assert LOOPBACK.get(f"{server.http}/i18n/{lang}.json").status_code == 404
