"""The client's own logic against a tiny test server hosting Nim (see client_test_server.py).

Deadlines, fallbacks, faults, reconnect-and-resume, event de-duplication and the blocking facade;
the end-to-end tests against the real server are in test_client_server.py.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from client_nim import NimObservation, RandomNim
from client_test_server import NimServer

from cardtable.client import Backoff, Client, ConnectionLost, ServerError, play
from cardtable.client.client import JOIN_AGAIN
from cardtable.core import Event, GameInfo, Request, Result
from cardtable.core import registry as game_registry
from patience import load_factor

T = TypeVar("T")
TOKENS = {"a": "tok-a", "b": "tok-b", "c": "tok-c"}
pytestmark = pytest.mark.timeout(60)


@pytest.fixture(autouse=True)
def nim_registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setitem(game_registry.GAME_MODULES, "nim", "client_nim")
    yield


def run(coro: Awaitable[T], timeout: float = 30) -> T:
    async def bounded() -> T:
        return await asyncio.wait_for(coro, timeout)

    return asyncio.run(bounded())


class Recording(RandomNim):
    """A random Nim player that remembers its hooks' calls (and can be made slow or broken)."""

    def __init__(
        self,
        seed: int = 0,
        *,
        slow_on: int = -1,
        fail_on: int = -1,
        illegal_on: int = -1,
        slow_s: float = 1.0,
    ):
        super().__init__(seed)
        self.calls = 0
        self.slow_s = slow_s
        self.slow_on, self.fail_on, self.illegal_on = slow_on, fail_on, illegal_on
        self.starts: list[GameInfo] = []
        self.events: list[Event] = []
        self.results: list[Result] = []
        self.threads: set[str] = set()
        self.log: list[tuple[str, Any]] = []

    def start(self, seat: int, info: GameInfo) -> None:
        self.starts.append(info)
        self.log.append(("start", info))

    def event(self, event: Event) -> None:
        self.events.append(event)
        self.log.append(("event", event))

    def end(self, result: Result) -> None:
        self.results.append(result)

    def act(self, observation: NimObservation, request: Request) -> int:
        self.threads.add(threading.current_thread().name)
        self.calls += 1
        if self.calls == self.slow_on:
            time.sleep(self.slow_s)
        if self.calls == self.fail_on:
            raise RuntimeError("broken on purpose")
        if self.calls == self.illegal_on:
            return 7
        return super().act(observation, request)


async def two_bots(
    server: NimServer, a: Any, b: Any, games: int = 1, **options: Any
) -> tuple[list[Any], list[Any], Client, Client]:
    ca = Client(server.url, a, name="a", token="tok-a", **options)
    cb = Client(server.url, b, name="b", token="tok-b", **options)
    async with ca, cb:
        ra, rb = await asyncio.gather(
            ca.play("ranked", "nim", games=games), cb.play("ranked", "nim", games=games)
        )
    return ra, rb, ca, cb


def test_two_bots_play_games_and_report_results() -> None:
    a, b = Recording(1), Recording(2)

    async def main() -> Any:
        async with NimServer(TOKENS) as server:
            return server, *(await two_bots(server, a, b, games=3))

    server, ra, rb, ca, _cb = run(main())
    assert len(ra) == len(rb) == 3 == len(server.results)
    for report_a, report_b, result in zip(ra, rb, server.results, strict=True):
        assert report_a.result == result == report_b.result
        assert report_a.faults == () and report_b.faults == ()
        assert {report_a.seat, report_b.seat} == {0, 1}
        assert report_a.place != report_b.place
    assert [r.result for r in ra] == a.results
    assert len(a.starts) == 3 and a.starts[0].game == "nim" and a.starts[0].names == ("a", "b")
    # Agent code runs on the agent's worker thread, never on the event loop's thread.
    assert a.threads and all(t.startswith("agent") for t in a.threads)
    # Private events reach only their seat: every "note" the agent saw is about its own seat.
    seat = None
    notes = 0
    for kind, item in a.log:
        if kind == "start":
            seat = item.seat
        elif item.kind == "note":
            notes += 1
            assert item.data["seat"] == seat
    assert notes == ca.stats.decisions == sum(r.decisions for r in ra) > 0


def test_slow_agent_is_answered_by_fallback_within_deadline() -> None:
    # deadline 500 ms, margin 150 ms, the slow answer 1 s (idle): grown with the load alike, so
    # that a loop the machine runs late does not take the margin (the test server and the
    # client share it: a stall over both timers lets the server's run first)
    factor = load_factor()
    slow = Recording(1, slow_on=2, slow_s=factor)

    async def main() -> Any:
        async with NimServer(TOKENS, deadline_ms=round(500 * factor)) as server:
            return server, *(
                await two_bots(server, slow, Recording(2), margin_ms=150 * factor, fallback=True)
            )

    server, ra, _rb, ca, _cb = run(main())
    assert server.timeouts == []  # every fallback went out before the server's deadline
    # The decision after the slow one queues behind it (one agent thread) and may be late too.
    assert 1 <= ca.stats.late <= 2 and ca.stats.fallbacks == ca.stats.late
    assert len(ra[0].faults) == ca.stats.late and all("late" in f for f in ra[0].faults)
    assert len(server.results) == 1 and ra[0].decisions > ca.stats.late
    # ...and each one was reported to the server, saying that our own fallback answers
    assert [(m["kind"], m["answered"]) for _, m in server.reports] == [("late", True)] * (
        ca.stats.late
    )


def test_silent_without_fallback_leaves_the_decision_to_the_server() -> None:
    slow = Recording(1, slow_on=1)

    async def main() -> Any:
        async with NimServer(TOKENS, deadline_ms=400) as server:
            return server, *(await two_bots(server, slow, Recording(2), fallback=False))

    server, ra, _rb, ca, _cb = run(main())
    # The server (this test server ignores fault reports) answered for us after its deadline
    # and said so; a late decision is one fault, not two.
    assert server.timeouts and {name for name, _ in server.timeouts} == {"a"}
    assert 1 <= ca.stats.late == len(server.timeouts) == ca.stats.rejected
    assert ca.stats.fallbacks == 0
    assert len(ra[0].faults) == ca.stats.late
    # every late decision was reported at once, saying no answer of ours follows
    assert [(m["kind"], m["answered"]) for _, m in server.reports] == [("late", False)] * (
        ca.stats.late
    )


def test_failing_agent_falls_back_and_illegal_action_is_reported() -> None:
    broken = Recording(1, fail_on=1, illegal_on=2)

    async def main() -> Any:
        async with NimServer(TOKENS, sticks=20) as server:
            return server, *(await two_bots(server, broken, Recording(2), fallback=True))

    server, ra, _rb, ca, _cb = run(main())
    assert ca.stats.agent_errors == 1
    assert server.illegal == [("a", server.illegal[0][1])]  # only the illegal 7 was refused
    faults = ra[0].faults
    assert any("RuntimeError: broken on purpose" in f for f in faults)
    assert any("illegal_action" in f for f in faults)
    # The exception was reported with the bot's own frame: this file, the line that raised.
    ((name, report),) = server.reports
    assert name == "a" and report["kind"] == "raised" and report["answered"] is True
    exception = report["exception"]
    assert exception["type"] == "RuntimeError" and exception["message"] == "broken on purpose"
    assert exception["file"].endswith("test_client_logic.py") and exception["function"] == "act"
    source = Path(__file__).read_text().splitlines()[exception["line"] - 1]
    assert 'raise RuntimeError("broken on purpose")' in source


def test_dropped_connection_reconnects_resumes_and_resends() -> None:
    a, b = Recording(1), Recording(2)
    backoff = Backoff(first=0.05, most=0.2)

    async def main() -> Any:
        async with NimServer(TOKENS, deadline_ms=3000, sticks=30) as server:
            server.drop_after["a"] = {2, 4}  # cut a's line twice, each time as it answers
            return server, *(await two_bots(server, a, b, backoff=backoff))

    server, ra, rb, ca, _cb = run(main())
    assert ca.stats.reconnects == 2 and server.resumes == ["a", "a"]
    assert server.timeouts == [] and len(server.results) == 1
    assert ra[0].result == rb[0].result == server.results[0]
    # Every event reached the agent exactly once although the server replayed them on resume.
    piles = [e.data["pile"] for e in a.events if e.kind == "take"]
    assert piles == sorted(set(piles), reverse=True) and piles[-1] == 0
    assert len(a.starts) == 1


def test_bad_token_is_a_server_error() -> None:
    async def main() -> None:
        async with NimServer(TOKENS) as server:
            await Client(server.url, RandomNim(), name="a", token="wrong").connect()

    with pytest.raises(ServerError) as info:
        run(main())
    assert info.value.code == "bad_token"


def test_server_gone_for_good_gives_up_after_the_backoff() -> None:
    backoff = Backoff(first=0.05, most=0.1, give_up_after=1.0, attempts=5)

    async def main() -> None:
        server = NimServer(TOKENS, deadline_ms=3000, sticks=30)
        await server.__aenter__()
        client = Client(server.url, RandomNim(), name="a", token="tok-a", backoff=backoff)
        await client.connect()
        play = asyncio.ensure_future(client.play("ranked", "nim"))
        await asyncio.sleep(0.2)  # queued, waiting for an opponent that never comes
        await server.__aexit__()
        await play

    started = time.monotonic()
    with pytest.raises(ConnectionLost):
        run(main())
    assert time.monotonic() - started < 10


def test_blocking_facade_plays_with_a_bot_reference() -> None:
    async def main() -> Any:
        async with NimServer(TOKENS) as server:
            other = Client(server.url, Recording(3), name="b", token="tok-b")
            async with other:
                blocking = asyncio.get_running_loop().run_in_executor(
                    None,
                    lambda: play(server.url, "a", "tok-a", "random", game="nim", games=2),
                )
                theirs = await other.play("ranked", "nim", games=2)
                return await blocking, theirs

    ours, theirs = run(main())
    assert [r.result for r in ours] == [r.result for r in theirs]
    assert all(r.faults == () for r in ours)


def test_a_table_given_up_before_it_started_sends_the_client_back_to_the_lobby() -> None:
    """A ``game_end`` (aborted) for a game the client never saw start, while it waits for a
    table: the server seated it and gave the game up (in a cluster, the process that was to
    run it died), so the seat took it out of the lobby; the client joins again and plays."""

    async def main() -> tuple[NimServer, list[Any], list[Any], Client, Client]:
        async with NimServer(TOKENS) as server:
            server.give_up_tables = 1
            return server, *(await two_bots(server, RandomNim(1), RandomNim(2), games=1))

    server, ra, rb, _ca, _cb = run(main(), timeout=20)
    assert server.give_up_tables == 0  # the first table was given up
    assert len(ra) == len(rb) == 1 == len(server.results)  # the second was played
    assert ra[0].game_id == rb[0].game_id == "g2"


def test_a_resume_refused_of_a_seat_given_while_away_sends_the_client_back_to_the_queue() -> None:
    """Issue #36: the client was queued when its connection dropped; meanwhile the server seated
    it (the queue entry became a seat) at a game that ended before it came back. Its welcome
    names that game, its resume is refused (``unknown_game``): it is queued nowhere, so it joins
    again and plays (before, it went on believing itself queued and waited for ever)."""

    async def main() -> tuple[NimServer, list[Any], list[Any], Client, Client]:
        async with NimServer(TOKENS) as server:
            server.seat_away.add("a")
            return server, *(await two_bots(server, RandomNim(1), RandomNim(2), games=1))

    server, ra, rb, ca, _cb = run(main(), timeout=20)
    assert not server.away_games and not server.seat_away  # welcomed to it, resume refused
    assert ca.stats.reconnects == 1 and ca.stats.lost_games == 0
    assert len(ra) == len(rb) == 1 == len(server.results)  # then queued again, and played
    assert ra[0].game_id == rb[0].game_id != "g1"


def test_a_join_refused_as_the_server_served_it_as_a_resume_is_sent_again() -> None:
    """Issue #36: in a cluster a join of a bot for which another process holds a seat is served
    as a resume of that seat; when its table ended (or never started) meanwhile the answer is
    ``unknown_game``. A race of the server's: the client joins again and plays (before, it
    raised :class:`ServerError`, ``unknown_game`` being a refusal of the join)."""

    async def main() -> tuple[NimServer, list[Any], list[Any], Client, Client]:
        async with NimServer(TOKENS) as server:
            server.refuse_joins["a"] = 2
            return server, *(await two_bots(server, RandomNim(1), RandomNim(2), games=1))

    server, ra, rb, ca, _cb = run(main(), timeout=20)
    assert server.refuse_joins["a"] == 0 and server.joins["a"] == 3
    assert len(ra) == len(rb) == 1 == len(server.results)
    assert ca.stats.reconnects == 0 and ca.stats.lost_games == 0


def test_a_join_the_server_keeps_refusing_is_raised_after_a_few_tries() -> None:
    """Bounded: a join refused with ``unknown_game`` again and again (no such game, or a
    server that keeps refusing) is sent :data:`JOIN_AGAIN` more times, then raised."""

    async def main() -> None:
        async with NimServer(TOKENS) as server:
            server.refuse_joins["a"] = 1000
            try:
                async with Client(server.url, RandomNim(1), name="a", token="tok-a") as ca:
                    await ca.play("ranked", "nim", games=1)
            finally:
                assert server.joins["a"] == JOIN_AGAIN + 1

    with pytest.raises(ServerError) as info:
        run(main(), timeout=20)
    assert info.value.code == "unknown_game"
