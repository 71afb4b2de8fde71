"""Who the client is: ``X-Forwarded-For`` is believed only from a configured proxy (issue #34,
item 2).

Before, uvicorn believed the header from 127.0.0.1 (its default ``forwarded_allow_ips``), so
anyone who could reach the port from this machine chose its own address with every request and
was never throttled. Now proxies are trusted only when listed in ``trusted_proxies`` (empty by
default), and of a trusted proxy's chain the right-most untrusted address is the client
(``server/proxies.py``). Each attack is shown on a throttle that keys on the address: wrong
tokens (native ``hello``) and wrong passwords over all names.
"""

from __future__ import annotations

import secrets
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import httpx
import pytest

from cardtable.server.config import load_settings
from server.wire import RunningServer, Wire, db_url, fast_settings, running_server

pytestmark = pytest.mark.timeout(90)

LIMIT = 3


def wrong_token(server: RunningServer, source: str, forwarded: str | None) -> dict[str, object]:
    headers = {"X-Forwarded-For": forwarded} if forwarded is not None else None
    with Wire(server.ws, headers=headers, source=source) as wire:
        return wire.hello_bot(f"bot-{secrets.token_hex(3)}", secrets.token_urlsafe(32))


def test_a_forged_forwarded_for_from_this_machine_is_ignored_by_default(tmp_path: Path) -> None:
    """Attack: a client on the server's own machine (127.0.0.1) sends a new X-Forwarded-For
    with every wrong token to stay under the per-address cap. No proxy is configured: the
    header is ignored and the cap holds for 127.0.0.1."""
    settings = fast_settings(db_url(tmp_path), bad_token_limit=LIMIT)
    with running_server(settings) as server:
        for n in range(LIMIT):
            assert wrong_token(server, "127.0.0.1", f"198.51.100.{n}")["code"] == "bad_token"
        error = wrong_token(server, "127.0.0.1", "198.51.100.99")
        assert error["code"] == "throttled", error
        assert f"{LIMIT} wrong tokens from your address" in str(error["reason"])


def test_a_forged_forwarded_for_cannot_dodge_the_sign_in_cap(tmp_path: Path) -> None:
    """The same attack on people's sign-in: wrong passwords for many names, a new forged
    address each time; the cap over all names of 127.0.0.1 holds."""
    settings = fast_settings(db_url(tmp_path), sign_in_limit_per_address=LIMIT)
    with (
        running_server(settings) as server,
        closing(httpx.Client(base_url=server.http, timeout=30)) as client,
    ):
        csrf = client.get("/api/account").json()["csrf_token"]
        client.headers.update({"X-CSRF-Token": csrf, "Origin": server.http})
        codes = []
        for n in range(LIMIT + 1):
            reply = client.post(
                "/api/account/signin",
                json={"name": f"name{n}", "password": "guess123"},
                headers={"X-Forwarded-For": f"203.0.113.{n}"},
            )
            codes.append(reply.status_code)
        assert codes == [401] * LIMIT + [429], codes


def test_a_trusted_proxy_names_the_right_most_untrusted_address(tmp_path: Path) -> None:
    """With ``trusted_proxies = ["127.0.0.1"]``: what the proxy forwards is the client, and of
    its chain only the right-most address the proxy appended counts (the left part is the
    client's own header: forged addresses there change nothing). A direct connection from an
    untrusted peer (127.0.0.2) is its own address whatever header it sends."""
    settings = fast_settings(db_url(tmp_path), bad_token_limit=LIMIT, trusted_proxies=["127.0.0.1"])
    with running_server(settings) as server:
        for n in range(LIMIT):  # forged left parts, one real client 203.0.113.5
            forwarded = f"10.9.9.{n}, 203.0.113.5"
            assert wrong_token(server, "127.0.0.1", forwarded)["code"] == "bad_token"
        assert wrong_token(server, "127.0.0.1", "203.0.113.5")["code"] == "throttled"
        # another client behind the proxy, and the proxy's own address, are not
        assert wrong_token(server, "127.0.0.1", "203.0.113.6")["code"] == "bad_token"
        assert wrong_token(server, "127.0.0.1", None)["code"] == "bad_token"
        # an untrusted peer: its header is ignored, the cap is its own
        for n in range(LIMIT):
            assert wrong_token(server, "127.0.0.2", f"192.0.2.{n}")["code"] == "bad_token"
        error = wrong_token(server, "127.0.0.2", "192.0.2.200")
        assert error["code"] == "throttled", error


def test_trusted_proxies_setting() -> None:
    from cardtable.server.proxies import trusted_networks, uvicorn_proxy_options

    assert uvicorn_proxy_options([]) == {"proxy_headers": False, "forwarded_allow_ips": []}
    options = uvicorn_proxy_options(["127.0.0.1", "10.0.0.0/8", "::1"])
    assert options == {
        "proxy_headers": True,
        "forwarded_allow_ips": ["127.0.0.1/32", "10.0.0.0/8", "::1/128"],
    }
    with pytest.raises(ValueError, match="'proxy.example' is not an IP address"):
        trusted_networks(["proxy.example"])
    settings = load_settings(env={"CARDTABLE_TRUSTED_PROXIES": "127.0.0.1, 10.1.0.0/16"})
    assert settings.trusted_proxies == ["127.0.0.1", "10.1.0.0/16"]
    assert load_settings(env={}).trusted_proxies == []


def test_serve_refuses_a_trusted_proxy_that_is_no_address(tmp_path: Path) -> None:
    """``cardtable serve --trusted-proxies`` reaches the settings; a wrong entry stops the start
    with its name (a typo must not silently trust nobody, or everybody)."""
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from cardtable.cli import main; sys.exit(main())"]
        + ["serve", "--port", "0", "--db", db_url(tmp_path)]
        + ["--trusted-proxies", "127.0.0.1, proxy.example"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert "'proxy.example' is not an IP address or network" in done.stderr


def test_an_untrusted_proxy_on_this_machine_is_named_once_in_the_log(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Misconfiguration: a proxy on this machine forwards X-Forwarded-For, but trusted_proxies
    is empty, so every client behind it shares 127.0.0.1. The server says so once in its log
    (not once per request); a forged header from a public address is not logged."""
    settings = fast_settings(db_url(tmp_path))
    with (
        caplog.at_level("WARNING", logger="cardtable.server"),
        running_server(settings) as server,
        closing(httpx.Client(base_url=server.http, timeout=30)) as client,
    ):
        client.get("/api/health")
        assert "trusted_proxies is empty" not in caplog.text
        for _ in range(3):
            client.get("/api/health", headers={"X-Forwarded-For": "203.0.113.7"})
        warnings = [r for r in caplog.records if "trusted_proxies is empty" in r.getMessage()]
        assert len(warnings) == 1, caplog.text
        assert "127.0.0.1" in warnings[0].getMessage()
