"""A table's timings on a clock the test moves (:class:`cardtable.clock.ManualClock`), in
process: no server, no socket, no sleep. The table's deadline and time bank, the grace of a
person who went away, the pace of the bots' moves, an open auction's quiet clock and the
spectators' delay all run on the table's clock, so each test checks a timing's edges exactly
(a moment before, at) in a second or two of CPU, the same on a loaded machine.

The bots (house, fallback) think in an executor that answers at once, on the spot: what the
table does between two moves of the clock is decided before the next move.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import Executor, Future
from contextlib import contextmanager
from itertools import pairwise
from typing import Any

import pytest

from cardtable.clock import ManualClock
from cardtable.core import game_spec, load_bot
from cardtable.server.config import Settings
from cardtable.server.pace import HOLD_KINDS
from cardtable.server.table import SeatState, Table, TableSetup

pytestmark = pytest.mark.timeout(60)

# The normal pace as designed (issue #20), written here rather than read from
# cardtable.server.pace, so that a change there fails these tests: a bot's move comes MOVE_S
# (drawn) after it was asked, two bots' moves GAP_S apart, nothing moves HOLD_S after a trick.
MOVE_S = (0.6, 1.0)
GAP_S = 0.4
HOLD_S = 1.2


class AtOnce(Executor):
    """Runs what it is given on the spot (the table's bots and its store answer at once)."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except Exception as exc:
            future.set_exception(exc)
        return future


class NoStore:
    """What a table asks of the database, answered with nothing stored."""

    def start_game(self, **_: Any) -> None:
        return None

    def finish_game(self, *_: Any, **__: Any) -> list[str]:
        return []

    def add_faults(self, *_: Any) -> None:
        return None


class Peer:
    """A client of the table: notes each frame with the table's clock reading when it came."""

    def __init__(self, clock: ManualClock, push_observations: bool = False) -> None:
        self.clock = clock
        self.push_observations = push_observations
        self.frames: list[tuple[float, dict[str, Any]]] = []

    def send(self, message: Any) -> None:
        self.frames.append((self.clock.monotonic(), json.loads(json.dumps(message))))

    def send_text(self, text: str, stamp: Any = None) -> None:
        self.frames.append((self.clock.monotonic(), json.loads(text)))

    def of(self, kind: str) -> list[tuple[float, dict[str, Any]]]:
        return [(t, m) for t, m in self.frames if m["type"] == kind]

    def events(self) -> dict[int, float]:
        """Event index -> when it came (the first time)."""
        seen: dict[int, float] = {}
        for t, m in self.of("event"):
            seen.setdefault(m["index"], t)
        return seen


async def settle() -> None:
    """Let the loop run what is ready (a bot's answer handed back by the executor)."""
    for _ in range(20):
        await asyncio.sleep(0)


@contextmanager
def table_of(
    clock: ManualClock,
    seats: list[SeatState],
    *,
    pace: str = "instant",
    delay_ms: int = 0,
    game: str = "cunegonda",
    rules: Any = None,
) -> Iterator[Table]:
    spec = game_spec(game)
    settings = Settings(quiet_ms=300, bot_quiet_ms=300, grace_ms=5000, away_pace="instant")
    setup = TableSetup(
        game_id="g1",
        spec=spec,
        rules=spec.presets["short"] if rules is None else rules,
        rules_name=None if rules is not None else "short",
        seed=7,
        lobby="practice",
        rated=False,
        seats=seats,
        pace=pace,
        spectator_delay_ms=delay_ms,
    )
    at_once = AtOnce()
    yield Table(
        setup,
        settings=settings,
        store=NoStore(),  # type: ignore[arg-type]
        db_executor=at_once,
        bot_executor=at_once,
        instance="test",
        fallback_name="random",
        clock=clock,
    )


def house(index: int, bot: str = "random") -> SeatState:
    return SeatState(index, f"house{index}", "house", house=bot)


def run(test: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(asyncio.wait_for(test(), 30))


class Answerer:
    """Answers a seat's requests in process with a random bot reading the table's game."""

    def __init__(self, table: Table, peer: Peer, seat: int) -> None:
        self.table, self.peer, self.seat = table, peer, seat
        self.agent = load_bot(table.spec.name, "random", seed=seat)
        self.answered: set[str] = set()

    def open(self) -> list[dict[str, Any]]:
        """The requests sent to the seat and still open."""
        return [
            m
            for _, m in self.peer.of("request")
            if m["request_id"] not in self.answered and m["request_id"] in self.table.asks
        ]

    def answer(self, message: dict[str, Any]) -> bool:
        ask = self.table.asks[message["request_id"]]
        action = self.agent.act(self.table.game.observe(self.seat), ask.request)
        self.answered.add(message["request_id"])
        return self.table.on_action(
            self.peer, message["request_id"], self.table.game.action_to_json(action)
        )  # type: ignore[arg-type]


def test_a_bots_deadline_and_time_bank_run_on_the_tables_clock() -> None:
    """Deadline 400 ms, bank 300 ms: an answer 500 ms after the request costs exactly 100 ms
    of bank, one 1 ms inside the deadline nothing; a silence is timed out at the deadline plus
    what is left of the bank, not a moment before, and spends the bank; with none left, at the
    deadline."""
    clock = ManualClock(start=0.0)

    async def play() -> None:
        peer = Peer(clock)
        seats = [SeatState(0, "botty", "bot", conn=peer, deadline_ms=400, bank_ms=300)]
        seats += [house(i) for i in (1, 2, 3)]
        with table_of(clock, seats) as table:
            bot = Answerer(table, peer, 0)
            task = asyncio.create_task(table.run())
            await settle()

            async def next_request() -> tuple[float, dict[str, Any]]:
                """The bot's next request and when it was sent."""
                for _ in range(100):
                    if bot.open():
                        message = bot.open()[0]
                        (sent,) = [t for t, m in peer.of("request") if m is message]
                        return sent, message
                    await settle()
                raise AssertionError("no request for the bot's seat")

            # (the clock is set to sums of the same floats the table adds: exact edges)
            sent, first = await next_request()
            assert (first["deadline_ms"], first["time_bank_ms"]) == (400, 300)
            clock.set(sent + 0.5)  # 100 ms past the deadline: inside the bank
            assert bot.answer(first)
            assert table.seats[0].bank_ms == 200
            await settle()
            sent, second = await next_request()
            assert (second["deadline_ms"], second["time_bank_ms"]) == (400, 200)
            clock.set(sent + 0.399)  # 1 ms inside the deadline: nothing charged
            assert bot.answer(second)
            assert table.seats[0].bank_ms == 200 and table.faults == []
            await settle()
            sent, third = await next_request()
            assert (third["deadline_ms"], third["time_bank_ms"]) == (400, 200)
            clock.set(sent + 0.599)  # silence: deadline 400 + bank 200 - 1 ms
            assert peer.of("rejected") == [] and table.faults == []
            clock.set(sent + 0.6)
            ((at, rejected),) = peer.of("rejected")
            assert rejected["code"] == "timeout" and rejected["request_id"] == third["request_id"]
            assert at == sent + 0.6
            assert table.seats[0].bank_ms == 0 and [f.code for f in table.faults] == ["timeout"]
            bot.answered.add(third["request_id"])  # the fallback answered it
            await settle()
            sent, fourth = await next_request()
            assert (fourth["deadline_ms"], fourth["time_bank_ms"]) == (400, 0)
            clock.set(sent + 0.399)  # no bank left: the deadline alone
            assert peer.of("rejected")[1:] == []
            clock.set(sent + 0.4)
            assert [m["code"] for _, m in peer.of("rejected")] == ["timeout", "timeout"]
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

    run(play)


def test_a_person_who_went_away_keeps_the_decision_for_the_grace_period_exactly() -> None:
    """grace_ms 5000: the decision a person left open waits for them 5 s on the table's
    clock, no fault until then; at 5 s the fallback answers with one disconnect fault."""
    clock = ManualClock(start=0.0)

    async def play() -> None:
        peer = Peer(clock)
        seats = [SeatState(0, "Pia", "guest", conn=peer, deadline_ms=60_000, bank_ms=0)]
        seats += [house(i) for i in (1, 2, 3)]
        with table_of(clock, seats) as table:
            person = Answerer(table, peer, 0)
            task = asyncio.create_task(table.run())
            for _ in range(100):
                if person.open():
                    break
                await settle()
            (request,) = person.open()
            away = clock.monotonic() + 1.0
            clock.set(away)
            table.detach(peer)
            clock.set(away + 4.999)
            assert table.faults == [] and request["request_id"] in table.asks
            clock.set(away + 5.0)
            assert [f.code for f in table.faults] == ["disconnect"]
            await settle()
            assert request["request_id"] not in table.asks  # the fallback answered it
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

    run(play)


async def play_paced(clock: ManualClock, pace: str, delay_ms: int = 0) -> tuple[Peer, Peer, Table]:
    """A person (answering the moment it is asked) and three house bots play the short game
    to its end at ``pace``, watched by a spectator; the clock moves from one timer of the
    table to the next. The person's and the spectator's frames, and the table."""
    peer, spectator = Peer(clock), Peer(clock, push_observations=True)
    seats = [SeatState(0, "Pia", "guest", conn=peer, deadline_ms=60_000, bank_ms=0)]
    seats += [house(i) for i in (1, 2, 3)]
    with table_of(clock, seats, pace=pace, delay_ms=delay_ms) as table:
        table.spectate(spectator)
        person = Answerer(table, peer, 0)
        task = asyncio.create_task(table.run())
        stalled = 0
        for _ in range(5_000):
            await settle()
            if task.done():
                break
            waiting = person.open()
            for request in waiting:
                person.answer(request)
            if not waiting and clock.timers:
                clock.set(clock.timers[0])  # the table's next timer, at its time
            stalled = 0 if waiting or clock.timers else stalled + 1
            assert stalled < 10, "the table waits for something that is not on its clock"
        await task
        while clock.timers:  # the spectators' delay runs on after the end
            clock.set(clock.timers[0])
    assert peer.of("game_end") and spectator.of("game_end")
    return peer, spectator, table


def plays(peer: Peer) -> list[tuple[float, int, int]]:
    """(when, event index, seat) of each card played, as the person got them."""
    return [
        (t, m["index"], m["event"]["data"]["seat"])
        for t, m in peer.of("event")
        if m["event"]["kind"] == "play"
    ]


def test_bot_moves_reach_a_person_at_the_normal_pace_exactly() -> None:
    """At the normal pace, a bot's card comes 0.6-1.0 s (drawn) after the card before it, two
    bots' moves (three passes chosen at once) are never less than 0.4 s apart; after a
    finished trick (a round's end) nothing moves and nobody is asked for 1.2 s; else the
    person is asked the moment it is their turn. At the instant pace the same game is played
    in no time at all."""
    clock = ManualClock(start=0.0)
    peer, _, _ = asyncio.run(asyncio.wait_for(play_paced(clock, "normal"), 30))
    seen = sorted((m["index"], t, m["event"]["kind"]) for t, m in peer.of("event"))
    before_of = {i: (t, kind) for (i, _, _), (_, t, kind) in zip(seen[1:], seen, strict=False)}
    cards = plays(peer)
    assert len(cards) >= 40
    gaps_checked = holds_checked = 0
    for when, index, seat in cards:
        before, kind = before_of[index]  # the event the person got before this card
        if seat == 0:
            continue
        if kind == "trick":
            assert when - before >= HOLD_S - 1e-9, (index, when - before)
            holds_checked += 1
        elif kind == "play":
            gap = when - before
            assert MOVE_S[0] - 1e-9 <= gap <= MOVE_S[1] + 1e-9, (index, gap)
            gaps_checked += 1
    assert gaps_checked >= 20 and holds_checked >= 3
    # two bots' moves are never closer than GAP_S, passes chosen at once included
    bot_moves = [
        t
        for t, m in peer.of("event")
        if m["event"]["kind"] in ("play", "pass_chosen") and m["event"]["data"]["seat"] != 0
    ]
    assert len(bot_moves) >= 40
    assert min(b - a for a, b in pairwise(bot_moves)) >= GAP_S - 1e-9
    passes = [t for t, m in peer.of("event") if m["event"]["kind"] == "pass_chosen"]
    assert any(b - a == pytest.approx(GAP_S) for a, b in pairwise(passes))  # the gap binds
    # the person is asked once a finished trick (a round's end...) has been shown, else at once
    asked_after_trick = 0
    last = held = -1.0  # when the person got its last event, and its last one that holds
    for when, message in peer.frames:
        if message["type"] == "event":
            last = when
            if message["event"]["kind"] in HOLD_KINDS:
                held = when
        elif message["type"] == "request":
            if held == last:
                assert when - held >= HOLD_S - 1e-9, when
                asked_after_trick += 1
            else:
                assert when == last, when
    assert asked_after_trick >= 1
    assert clock.monotonic() > 0.6 * gaps_checked

    instant = ManualClock(start=0.0)
    peer, _, _ = asyncio.run(asyncio.wait_for(play_paced(instant, "instant"), 30))
    assert len(plays(peer)) >= 40 and instant.monotonic() == 0.0


def test_spectators_get_every_public_event_exactly_the_delay_later() -> None:
    """spectator_delay_ms 1500: each public event reaches the spectator 1.5 s after it
    reached the seat (to the microsecond, in order), never a private one; what the spectators
    are shown meanwhile (the public view, events seen) is as far as they are."""
    clock = ManualClock(start=0.0)
    peer, spectator, table = asyncio.run(asyncio.wait_for(play_paced(clock, "normal", 1500), 30))
    at_seat, watched = peer.events(), spectator.events()
    public = {i for i, event in enumerate(table.game.events(0)) if event.to is None}
    assert len(public) >= 40 and set(watched) == public
    for index, when in watched.items():
        assert when - at_seat[index] == pytest.approx(1.5, abs=1e-6), index
    assert list(watched) == sorted(watched)  # in order
    # the pushed public view and game_end come as late
    (seat_end, _), (watched_end, _) = peer.of("game_end")[0], spectator.of("game_end")[0]
    assert watched_end - seat_end == pytest.approx(1.5, abs=1e-6)
    views = spectator.of("observation")
    assert views and all(m["seat"] is None and m["observation"]["hand"] == [] for _, m in views)
    assert all(when >= 1.5 for when, _ in views)


def test_a_delayed_feed_releases_at_the_delay_and_not_a_moment_before() -> None:
    """The feed alone: emitted at 0 and 0.25 s, released at 1.5 and 1.75 s; ``seen`` and
    ``public`` move only when released."""
    from cardtable.server.spectators import SpectatorFeed

    clock = ManualClock(start=0.0)
    watcher = Peer(clock)
    feed = SpectatorFeed({watcher}, 1.5, clock)  # type: ignore[arg-type]
    feed.started = True
    feed.emit('{"type": "event", "index": 0}', seen=1, public="first")
    clock.set(0.25)
    feed.emit('{"type": "event", "index": 1}', seen=2, public="second")
    clock.set(1.499)
    assert watcher.frames == [] and (feed.seen, feed.public) == (0, None)
    clock.set(1.5)
    assert [(t, m["index"]) for t, m in watcher.frames] == [(1.5, 0)]
    assert (feed.seen, feed.public) == (1, "first")
    clock.set(1.749)
    assert len(watcher.frames) == 1
    clock.set(1.75)
    assert [m["index"] for _, m in watcher.frames] == [0, 1] and feed.seen == 2


def test_an_open_auction_is_closed_by_the_quiet_clock_exactly_when_it_ran_out() -> None:
    """Kuhhandel's open auctions at a table of bots (bot_quiet_ms 300): a remote bot that
    never bids, two house bots that bid at once. Each auction the quiet clock closes is
    closed 300 ms after its last change, not 1 ms before."""
    clock = ManualClock(start=0.0)
    spec = game_spec("kuhhandel")
    rules = spec.presets["classic"].to_json()
    rules["auction_style"] = "open"

    async def play() -> int:
        peer = Peer(clock)
        seats = [SeatState(0, "quiet", "bot", conn=peer, deadline_ms=400, bank_ms=300)]
        seats += [house(1, "heuristic"), house(2, "heuristic")]
        with table_of(clock, seats, game="kuhhandel", rules=spec.rules_from_json(rules)) as table:
            bot = Answerer(table, peer, 0)
            task = asyncio.create_task(table.run())
            closed = stalled = 0
            last_change = 0.0
            seen = 0
            while closed < 3 and not task.done():
                await settle()
                if table.seen != seen:
                    seen, last_change = table.seen, clock.monotonic()
                waiting = [m for m in bot.open() if not m.get("optional")]
                for request in waiting:
                    bot.answer(request)
                if waiting:
                    continue  # (its answers may have brought new requests)
                for request in bot.open():  # its bids: never (silence there is no fault)
                    bot.answered.add(request["request_id"])
                # only the quiet clock is left: the remote bot's requests are answered
                (due,) = clock.timers or [None]
                stalled = 0 if due is not None else stalled + 1
                assert stalled < 10, "the table waits for something that is not on its clock"
                if due is None:
                    continue
                assert due == pytest.approx(last_change + 0.3)
                clock.set(due - 0.001)
                await settle()
                assert table.seen == seen, "the auction closed before its quiet period"
                clock.set(due)
                await settle()
                assert table.seen > seen
                closed += 1
            assert table.faults == []
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            return closed

    assert asyncio.run(asyncio.wait_for(play(), 30)) == 3
