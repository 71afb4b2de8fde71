"""The browser tests' servers cost what a test's server costs, not what an operator's does: they
are built from ``Settings`` (browser_helpers.run_server), which reads none of the CARDTABLE_*
variables tests/conftest.py sets for the servers the tests start as processes.

An idle web test server sampling its event loop's lag every 10 ms used 10-12 ms of CPU a second
(every second a worker keeps its session server, through the rest of the run too), at 100 ms
2-4; a password sign-up with an operator's argon2id about 0.25 s, with the cheapest a few ms."""

from __future__ import annotations

from browser_helpers import WebServer


def test_the_web_test_servers_sample_lag_and_hash_passwords_cheaply(server: WebServer) -> None:
    settings = server.settings
    assert settings.loop_lag_ms >= 100
    assert (settings.password_time_cost, settings.password_memory_kib) == (1, 8)
    assert settings.password_lanes == 1
