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


def test_the_system_clocks_timer_is_the_running_loops() -> None:
    async def later() -> tuple[float, bool]:
        loop = asyncio.get_running_loop()
        fired = loop.create_future()
        start = time.monotonic()
        SYSTEM.call_later(0.01, fired.set_result, "due")
        cancelled = SYSTEM.call_later(0.0, fired.set_result, "cancelled")
        cancelled.cancel()
        assert await fired == "due"
        return time.monotonic() - start, cancelled.cancelled()  # type: ignore[attr-defined]

    waited, cancelled = asyncio.run(later())
    assert waited >= 0.01 and cancelled


def test_a_manual_clocks_timers_run_in_order_each_at_its_own_time() -> None:
    clock = ManualClock(start=0.0)
    ran: list[tuple[str, float]] = []

    def note(name: str) -> None:
        ran.append((name, clock.monotonic()))

    def chain() -> None:
        note("chain")
        clock.call_later(1.0, note, "chained")  # due at 4: inside the same move
        clock.call_later(10.0, note, "next move")  # due at 13: not yet

    clock.call_later(5.0, note, "five")
    clock.call_later(3.0, chain)
    clock.call_later(5.0, note, "five again")  # same time: in the order they were set
    clock.call_later(-1.0, note, "now")  # a negative delay is due at once
    dropped = clock.call_later(4.0, note, "dropped")
    dropped.cancel()
    assert clock.timers == [0.0, 3.0, 5.0, 5.0]
    clock.advance(2.999)
    assert ran == [("now", 0.0)]
    clock.advance(0.001)
    assert ran[-1] == ("chain", 3.0)
    clock.set(12.0)
    assert ran == [
        ("now", 0.0),
        ("chain", 3.0),
        ("chained", 4.0),
        ("five", 5.0),
        ("five again", 5.0),
    ]
    assert clock.monotonic() == 12.0 and clock.timers == [13.0]
    clock.advance(1.0)
    assert ran[-1] == ("next move", 13.0) and clock.timers == []


def test_timers_and_sleepers_fall_due_in_one_order() -> None:
    clock = ManualClock(start=0.0)
    order: list[str] = []

    async def sleeper() -> None:
        await clock.sleep(2.0)
        order.append(f"sleeper woke, clock at {clock.monotonic()}")

    async def play() -> None:
        task = asyncio.create_task(sleeper())
        await asyncio.sleep(0)
        clock.call_later(1.0, order.append, "timer 1")
        clock.call_later(3.0, order.append, "timer 3")
        clock.advance(5.0)  # timers run inside the move; the sleeper resumes after it
        await task

    asyncio.run(asyncio.wait_for(play(), 10))
    assert order == ["timer 1", "timer 3", "sleeper woke, clock at 5.0"]
