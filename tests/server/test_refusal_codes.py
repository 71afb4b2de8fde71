"""Every HTTP refusal a person can meet carries a stable ``code`` (and ``args``) beside its
English ``detail`` (issue #38: the API stays language-neutral, the pages word the code): each
case below is provoked on a real server, and its code has ``web.error.{code}`` in every catalog,
filled with the args the server sent. A new code without a translation, or without a case
here, fails."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from cardtable.i18n import SUPPORTED, catalog, translate
from cardtable.server.refusals import CODES
from server.wire import RunningServer, db_url, fast_settings, running_server

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    settings = fast_settings(
        db_url(tmp_path_factory.mktemp("refusals")),
        sign_in_backoff_s=30.0,
        sign_up_limit_per_address=100,
        registration_limit_per_address=100,
    )
    with running_server(settings) as running:
        client = httpx.Client(base_url=running.http, timeout=30)
        client.post("/api/bots", json={"name": "Taken-Bot"}).raise_for_status()
        yield running


def page(server: RunningServer) -> httpx.Client:
    """A client that keeps cookies and sends the CSRF token, like the pages."""
    client = httpx.Client(base_url=server.http, timeout=30)
    client.headers["X-CSRF-Token"] = client.get("/api/account").json()["csrf_token"]
    client.headers["Origin"] = server.http
    return client


def signup(name: str, password: str = "cows and bulls") -> Callable[[httpx.Client], Any]:
    return lambda c: c.post("/api/account/signup", json={"name": name, "password": password})


def signed_in(c: httpx.Client, name: str) -> httpx.Client:
    assert signup(name)(c).status_code == 201
    return c


def wrong_sign_in(c: httpx.Client, name: str) -> httpx.Response:
    return c.post("/api/account/signin", json={"name": name, "password": "x1234567"})


#: (case, request on a fresh page client, status, code)
CASES: list[tuple[str, Callable[[httpx.Client], Any], int, str]] = [
    (
        "no csrf token",
        lambda c: httpx.post(
            f"{str(c.base_url).rstrip('/')}/api/account/signin",
            json={"name": "Nobody", "password": "x1234567"},
        ),
        403,
        "cross_site",
    ),
    (
        "other origin",
        lambda c: c.post("/api/account/signout", headers={"Origin": "http://evil.example"}),
        403,
        "cross_site",
    ),
    (
        "body not fitting",
        lambda c: c.post("/api/account/signin", json={"name": 3}),
        422,
        "invalid_request",
    ),
    (
        "claim signed out",
        lambda c: c.post("/api/account/claim", json={"guest_token": "g" * 20}),
        401,
        "not_signed_in",
    ),
    (
        "wrong password",
        lambda c: c.post("/api/account/signin", json={"name": "Nobody", "password": "x1234567"}),
        401,
        "wrong_password",
    ),
    (
        "sign-in throttled",
        lambda c: [wrong_sign_in(c, "Someone") for _ in range(2)][-1],
        429,
        "sign_in_throttled",
    ),
    (
        "wrong current password",
        lambda c: signed_in(c, "Carla").post(
            "/api/account/password", json={"old": "nope nope", "new": "new password"}
        ),
        401,
        "wrong_current_password",
    ),
    ("short password", signup("Dora", "short"), 422, "password_length"),
    ("invisible character", signup("Ann\u200bie"), 422, "name_invisible"),
    ("stacked marks", signup("Ax\u0301\u0302\u0303\u0304"), 422, "name_marks"),
    ("person name form", signup("-x"), 422, "name_form"),
    ("house name", signup("house-me"), 422, "name_house"),
    ("guest name", signup("Guest"), 422, "name_guest"),
    ("name taken", signup("taken-bot"), 409, "name_taken"),
    ("name looks taken", signup("Taken-B0t"), 409, "name_looks_taken"),
    (
        "bot name spaces",
        lambda c: c.post("/api/bots", json={"name": " spaced"}),
        422,
        "bot_name_spaces",
    ),
    ("bot name form", lambda c: c.post("/api/bots", json={"name": "a b"}), 422, "bot_name_form"),
    (
        "bot name taken",
        lambda c: c.post("/api/bots", json={"name": "Taken-Bot"}),
        409,
        "name_taken",
    ),
    ("no tournament", lambda c: c.get("/api/tournaments/nope"), 404, "unknown_tournament"),
]


def test_the_docs_list_every_code() -> None:
    docs = (Path(__file__).resolve().parents[2] / "docs" / "server.md").read_text()
    section = docs.split("### Refusals over HTTP", 1)[1].split("\n## ", 1)[0]
    listed = set(re.findall(r"^\| `([a-z_]+)` \|", section, re.MULTILINE))
    assert listed == set(CODES)


def test_every_code_has_a_case_and_words_in_every_language() -> None:
    assert {code for *_, code in CASES} | {"sign_up_throttled", "too_many_requests"} == set(CODES)
    for lang in SUPPORTED:
        missing = [c for c in CODES if f"web.error.{c}" not in catalog(lang)]
        assert not missing, f"{lang} lacks web.error.* for {missing}"


@pytest.mark.parametrize(("case", "ask", "status", "code"), CASES, ids=[c[0] for c in CASES])
def test_a_refusal_has_its_code_and_args(
    server: RunningServer, case: str, ask: Callable[[httpx.Client], Any], status: int, code: str
) -> None:
    reply = ask(page(server))
    assert reply.status_code == status, reply.text
    assert_worded(reply.json(), code)


def assert_worded(body: dict[str, Any], code: str) -> None:
    """``body`` has ``code``, English ``detail``, and every language words it with its args."""
    assert body["code"] == code and body["detail"], body
    args = body.get("args", {})
    assert isinstance(args, dict)
    for lang in SUPPORTED:
        text = translate(lang, f"web.error.{code}", **args)
        assert text != f"web.error.{code}" and "{" not in text, (lang, text)
        for value in args.values():
            assert str(value) in text, (lang, text, args)


def test_throttled_sign_ups_and_registrations_have_codes(tmp_path: Path) -> None:
    settings = fast_settings(
        db_url(tmp_path),
        sign_up_limit_per_address=1,
        registration_limit_per_address=1,
        rate_limit_exempt="",
    )
    with running_server(settings) as server:
        assert signup("Una")(page(server)).status_code == 201
        second = signup("Uwe")(page(server))
        assert second.status_code == 429
        assert_worded(second.json(), "sign_up_throttled")
        assert second.json()["args"]["retry_after"] == int(second.headers["retry-after"])
        bots = httpx.Client(base_url=server.http, timeout=30)
        replies = [bots.post("/api/bots", json={"name": f"bot-{i}"}) for i in range(2)]
        assert replies[0].status_code == 201
        again = replies[-1]
        assert again.status_code == 429, again.text
        assert_worded(again.json(), "too_many_requests")
