"""The lockouts' delays and windows at their edges, on a clock the test moves by hand
(:class:`cardtable.clock.ManualClock`): the real throttles of ``server/lockouts.py`` with the
server's default settings (delays of 1 s up to 300 s, windows of 300 s), checked one moment
before, at and after each edge. Waiting out a five-minute window on the real clock is what the
end-to-end tests (test_lockouts.py) cannot afford; here it takes microseconds, on any load.
"""

from __future__ import annotations

import asyncio

import pytest

from cardtable.clock import ManualClock
from cardtable.server.config import Settings
from cardtable.server.limits import TokenThrottle
from cardtable.server.lockouts import BotLogins, SignInThrottle

STRANGER, OWNER = "203.0.113.9", "198.51.100.7"


def test_wrong_passwords_double_the_wait_of_their_pair_only_up_to_the_most() -> None:
    settings = Settings()
    clock = ManualClock()
    throttle = SignInThrottle(settings, clock)
    waits = []
    for _ in range(12):
        assert throttle.retry_after("Olga", STRANGER)[0] == 0
        throttle.failed("Olga", STRANGER)
        wait, why = throttle.retry_after("Olga", STRANGER)
        assert "doubles" in why
        waits.append(wait)
        # the owner's own address is never slowed by the stranger's guesses
        assert throttle.retry_after("olga", OWNER)[0] == 0
        clock.advance(wait - 0.001)
        assert throttle.retry_after("OLGA", STRANGER)[0] == pytest.approx(0.001)  # names fold
        clock.advance(0.001)
    assert waits == [min(300.0, 2.0**n) for n in range(12)], waits
    assert waits[-1] == settings.sign_in_backoff_max_s


def test_a_pairs_delays_start_over_after_a_quiet_window_or_a_right_password() -> None:
    settings = Settings()
    clock = ManualClock()
    throttle = SignInThrottle(settings, clock)
    for _ in range(3):
        throttle.failed("Olga", STRANGER)
    assert throttle.retry_after("Olga", STRANGER)[0] == 4.0
    # quiet for the window after the delay ended, less a moment: the next wrong one waits 8 s
    clock.advance(4.0 + settings.sign_in_window_s - 0.001)
    throttle.failed("Olga", STRANGER)
    assert throttle.retry_after("Olga", STRANGER)[0] == 8.0
    # quiet for the whole window after this delay: it starts over at 1 s
    clock.advance(8.0 + settings.sign_in_window_s)
    assert throttle.retry_after("Olga", STRANGER)[0] == 0
    throttle.failed("Olga", STRANGER)
    assert throttle.retry_after("Olga", STRANGER)[0] == 1.0
    throttle.failed("Olga", STRANGER)
    assert throttle.retry_after("Olga", STRANGER)[0] == 2.0
    # the right password forgets the pair at once
    throttle.succeeded("Olga", STRANGER)
    assert throttle.retry_after("Olga", STRANGER)[0] == 0
    throttle.failed("Olga", STRANGER)
    assert throttle.retry_after("Olga", STRANGER)[0] == 1.0


def test_an_address_spraying_names_is_capped_for_exactly_its_window() -> None:
    settings = Settings()
    clock = ManualClock()
    throttle = SignInThrottle(settings, clock)
    limit, window = settings.sign_in_limit_per_address, settings.sign_in_window_s
    for n in range(limit):
        assert throttle.retry_after(f"name-{n}", STRANGER)[0] == 0
        throttle.failed(f"name-{n}", STRANGER)
        clock.advance(1.0)
    wait, why = throttle.retry_after("someone-else", STRANGER)
    # capped until the first wrong password is a window old, for every name, the owner's too
    assert wait == pytest.approx(window - limit) and f"{limit} from your address" in why
    assert throttle.retry_after("Olga", STRANGER)[0] == pytest.approx(window - limit)
    assert throttle.retry_after("Olga", OWNER)[0] == 0  # another address is not capped
    clock.advance(window - limit - 0.001)
    assert throttle.retry_after("someone-else", STRANGER)[0] > 0
    clock.advance(0.001)
    assert throttle.retry_after("someone-else", STRANGER)[0] == 0


def test_a_stale_bot_token_waits_longer_each_time_and_the_right_one_never() -> None:
    settings = Settings()
    clock = ManualClock()
    logins = BotLogins(settings, clock)

    async def play() -> list[float]:
        waits = []
        for _ in range(5):
            await logins.failed("good-bot", "stale", STRANGER)
            wait, why = await logins.retry_after("good-bot", "stale", STRANGER)
            assert "doubles" in why
            waits.append(wait)
            assert (await logins.retry_after("good-bot", "right", STRANGER))[0] == 0
            clock.advance(wait)
        return waits

    assert asyncio.run(play()) == [1.0, 2.0, 4.0, 8.0, 16.0]


def test_a_token_throttle_counts_its_window_on_its_clock() -> None:
    clock = ManualClock()
    throttle = TokenThrottle(3, 60.0, clock=clock)
    for _ in range(3):
        throttle.failed(STRANGER)
        clock.advance(10.0)
    assert throttle.retry_after(STRANGER) == pytest.approx(30.0)
    assert throttle.retry_after(OWNER) == 0
    clock.advance(29.999)
    assert throttle.retry_after(STRANGER) > 0
    clock.advance(0.001)
    assert throttle.retry_after(STRANGER) == 0
