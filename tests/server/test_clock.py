"""The injectable clock (:mod:`cardtable.clock`): the real one reads the real time, the manual
one moves only when told, never back, and wakes its sleepers in order once it passes them."""

from __future__ import annotations

import asyncio
import time

import pytest

from cardtable.clock import SYSTEM, ManualClock


def test_the_system_clock_reads_the_real_time() -> None:
    before = time.monotonic()
    assert before <= SYSTEM.monotonic() <= time.monotonic()
    assert abs(SYSTEM.wall() - time.time()) < 5

    async def nap() -> float:
        start = time.monotonic()
        await SYSTEM.sleep(0.01)
        return time.monotonic() - start

    assert asyncio.run(nap()) >= 0.01


def test_a_manual_clock_moves_only_when_told_and_never_back() -> None:
    clock = ManualClock(start=50.0, wall_start=1_000.0)
    assert (clock.monotonic(), clock.wall()) == (50.0, 1_000.0)
    time.sleep(0.01)
    assert clock.monotonic() == 50.0
    clock.advance(2.5)
    assert (clock.monotonic(), clock.wall()) == (52.5, 1_002.5)
    with pytest.raises(ValueError):
        clock.advance(-1)
    with pytest.raises(ValueError):
        clock.set(52.0)
    clock.set(60.0)
    assert clock.monotonic() == 60.0


def test_sleepers_wake_in_order_once_the_clock_passes_their_time() -> None:
    clock = ManualClock()
    woke: list[str] = []

    async def sleeper(name: str, seconds: float) -> None:
        await clock.sleep(seconds)
        woke.append(name)

    async def play() -> None:
        tasks = [asyncio.create_task(sleeper(n, s)) for n, s in (("c", 30), ("a", 10), ("b", 20))]
        await asyncio.sleep(0)
        assert clock.sleepers == 3
        clock.advance(9.999)
        await asyncio.sleep(0)
        assert woke == []
        clock.advance(0.001)
        for _ in range(3):
            await asyncio.sleep(0)
        assert woke == ["a"]
        clock.advance(100)
        await asyncio.gather(*tasks)
        assert woke == ["a", "b", "c"] and clock.sleepers == 0
        await clock.sleep(0)  # returns at once

    asyncio.run(asyncio.wait_for(play(), 10))
