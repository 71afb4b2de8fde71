"""Failing never pays (issue 35, items 1-3), on a real server on a real port.

- The ranking policy (``fair_play.fair_places``): a seat with a fault of its own is placed below
  every seat without one; over many fault patterns, failing never gives a seat a better place,
  nor a better rating, than any play of its own could have (hypothesis).
- A bot failing every decision through ``cardtable bot`` in the ranked lobby: the server's
  fallback answers (not the client's), every game counts as last place for it, its rating only
  falls, ``ratings recompute`` gives the same values, and it is suspended after its 3rd
  taken-over game and never starts a 4th.
- The same bot in a tournament, with its client's own fallback on (a custom client covering its
  faults): the server's fallback answers (faults stored ``answered_by: server``), the standings
  place it last in every game, and the line-up played again offline with the same seeds and
  fallback (``cardtable arena``) makes the same moves, action for action, after the faults too.
- A bot suspended while it waits in the ranked queue is never seated.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import update

from cardtable.arena.plan import Entry, TournamentPlan
from cardtable.arena.tournament import run_tournament
from cardtable.client import ServerError, play
from cardtable.server import ratings as rating_math
from cardtable.server.fair_play import fair_places, own_fault
from cardtable.server.store import Store
from cardtable.server.store.db import FaultRow, SeatOutcome
from cardtable.server.store.models import players
from server import wire
from server.wire import RunningServer, Wire, db_url, fast_settings, running_server

pytestmark = pytest.mark.timeout(120)

CARDTABLE = str(Path(sys.executable).with_name("cardtable"))
FAULTY = Path(__file__).parents[1] / "client" / "faulty_bots.py"
SRC = Path(__file__).parents[2] / "src"
ADMIN = "organiser-secret"


# -- the policy -------------------------------------------------------------------------------


def table_places(scores: list[int]) -> list[int]:
    """Places as an engine gives them: higher score better, ties share (0, 0, 2)."""
    return [sum(1 for other in scores if other > s) for s in scores]


games = st.integers(min_value=2, max_value=6).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(0, 5), min_size=n, max_size=n),  # scores as played
        st.sets(st.integers(0, n - 1)),  # the other seats' faults
        st.integers(0, n - 1),  # the seat under test
        st.integers(0, 5),  # its score when the fallback played for it
    )
)


@settings(max_examples=200, deadline=None)
@given(games)
def test_failing_never_improves_a_seats_place_or_rating(game: Any) -> None:
    """Whatever the others did and whatever the fallback scored for it, a seat that faulted
    is placed no better than with ANY score it could have made itself without a fault, and its
    rating after the game is no higher (the rule "failing never pays")."""
    scores, others_faulted, seat, fallback_score = game
    others = others_faulted - {seat}
    with_fault = list(scores)
    with_fault[seat] = fallback_score
    faulted_place = fair_places(table_places(with_fault), others | {seat})[seat]
    n = len(scores)
    before = [rating_math.INITIAL] * n
    faulted_rating = rating_math.conservative(
        *rating_math.rate(before, fair_places(table_places(with_fault), others | {seat}))[seat]
    )
    for own_score in range(6):  # every score it could have made by playing
        clean = list(scores)
        clean[seat] = own_score
        clean_places = fair_places(table_places(clean), others)
        assert faulted_place >= clean_places[seat]
        if clean_places.count(clean_places[seat]) == 1:
            # openskill's Plackett-Luce rates a shared place below the sole place after it
            # ([0, 0, 2] vs [0, 1, 2]): ratings are compared where the seat shares no place
            clean_rating = rating_math.conservative(*rating_math.rate(before, clean_places)[seat])
            assert faulted_rating <= clean_rating + 1e-9
    # below every seat without a fault; faulted seats keep their order among themselves
    fair = fair_places(table_places(with_fault), others | {seat})
    for other in range(n):
        clean_seat = other not in others and other != seat
        if clean_seat or (other in others and with_fault[other] > with_fault[seat]):
            assert fair[other] < fair[seat]
        elif other in others and with_fault[other] == with_fault[seat]:
            assert fair[other] == fair[seat]


def test_fair_places_examples() -> None:
    assert fair_places([0, 1, 2, 3], []) == [0, 1, 2, 3]
    assert fair_places([0, 1, 2, 3], [0]) == [3, 0, 1, 2]
    assert fair_places([0, 0, 2, 3], [0, 1]) == [2, 2, 0, 1]  # ties among the faulted share
    assert fair_places([0, 1, 2], [0, 1, 2]) == [0, 1, 2]  # all faulted: the table's order


def test_only_a_seats_own_faults_count() -> None:
    """Every fault the fallback answered counts; a connection the server lost with its own
    process (``excused``) and a Kuh-Handel reply the endpoint corrects (``rectified``) do not."""
    assert own_fault("timeout", None)
    assert own_fault("raised", {"reported_by": "client", "answered_by": "server"})
    assert own_fault("disconnected", '{"reported_by": "client"}')
    assert not own_fault("disconnected", '{"excused": true}')
    assert not own_fault("rectified", None)


def test_suspension_counts_from_the_first_games_and_a_served_one_clears_the_slate(
    tmp_path: Path,
) -> None:
    """Taken over in 3 of its last <= 5 games: a new bot is suspended after its 3rd game (not
    after a 5th); once that suspension is served, the games that earned it never earn another
    (a clean game after it leaves the bot free)."""
    store = Store(db_url(tmp_path))
    store.migrate()
    try:
        bot, _ = store.create_bot("sloppy")
        house = store.house_player("house-random-1")

        def game(n: int, taken_over: bool) -> list[str]:
            game_id = f"g{n}"
            store.start_game(
                game_id=game_id,
                game="cunegonda",
                rules_name="standard",
                rules={},
                seed=n,
                lobby="ranked",
                rated=True,
                instance="t",
                seats=[(bot.id, "sloppy", "bot"), (house.id, house.name, "house")],
            )
            faults = [FaultRow(0, bot.id, 1, "play", "raised", "boom")] if taken_over else []
            return store.finish_game(
                game_id,
                record={},
                result={"termination": "normal", "scores": [1, 0], "places": [0, 1]},
                seats=[
                    SeatOutcome(0, bot.id, len(faults), taken_over),
                    SeatOutcome(1, house.id, 0, False),
                ],
                fault_rows=faults,
                suspend_after=3,
                suspend_window=5,
                suspend_minutes=10.0,
            )

        assert game(1, True) == [] and game(2, True) == []
        assert game(3, True) == ["sloppy"]  # at once: 3 of its last 3
        with store.engine.begin() as conn:  # the suspension is served
            conn.execute(
                update(players)
                .where(players.c.id == bot.id)
                .values(suspended_until=datetime.now(UTC))
            )
        assert game(4, False) == [], "the 3 games that earned it do not count again"
        assert game(5, True) == [] and game(6, True) == []
        assert game(7, True) == ["sloppy"]
        # the faulted wins counted as last place: its rating fell in every faulted game
        detail = store.bot_detail("sloppy")
        assert detail is not None
        history = [h["rating"] for h in detail["rating_history"]]
        assert history[1] < history[0] and history[2] < history[1] and history[4] < history[3]
    finally:
        store.close()


# -- ranked, through ``cardtable bot`` --------------------------------------------------------


@pytest.fixture
def ranked(tmp_path: Path) -> Iterator[RunningServer]:
    settings = fast_settings(
        db_url(tmp_path),
        max_faults_per_game=3,
        suspend_after_games=3,
        suspend_window_games=5,
        suspend_minutes=10.0,
        fallback_bot={"cunegonda": "heuristic", "kuhhandel": "heuristic"},
        fill_wait_ms=100,
    )
    with running_server(settings) as running:
        yield running


def test_a_bot_failing_every_decision_gains_nothing_and_is_suspended_after_3_games(
    ranked: RunningServer,
) -> None:
    token = ranked.register("raiser")
    command = [CARDTABLE, "bot", "--server", f"127.0.0.1:{ranked.port}", "--name", "raiser"]
    command += ["--bot", f"{FAULTY}:Raises", "--lobby", "ranked", "--game", "cunegonda"]
    command += ["--games", "8"]
    env = {**os.environ, "CARDTABLE_TOKEN": token, "PYTHONPATH": str(SRC)}
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=100)
    # the 4th join is refused: suspended after the 3rd taken-over game
    assert done.returncode != 0, done.stdout + done.stderr
    assert "suspended" in done.stdout + done.stderr, done.stdout + done.stderr
    info = ranked.get("/api/bots/raiser")
    assert info["suspended"] is True
    assert "3 of its last 3 games" in info["suspension_reason"]
    played = [g for g in info["games"] if g["lobby"] == "ranked"]
    assert len(played) == 3, "no 4th taken-over game"
    for g in played:
        assert g["taken_over"] and g["placed_last_for_faults"]
        assert g["rating_place"] == g["seats"] == 4  # below the three clean house bots
        seats = ranked.get(f"/api/games/{g['game_id']}")["seats_detail"]
        assert [s["rating_place"] == 4 for s in seats] == [s["name"] == "raiser" for s in seats]
        assert [s["placed_last_for_faults"] for s in seats].count(True) == 1
    # the server's fallback answered every fault (the client's would have been refused)
    assert info["faults"] and all(
        (f["detail"] or {}).get("answered_by", "server") == "server" for f in info["faults"]
    )
    # (a loaded machine may make the client miss its 200 ms: ``late``, a fault all the same)
    assert "raised" in {f["code"] for f in info["faults"]} <= {"raised", "late"}
    (rating,) = info["ratings"]
    assert rating["games"] == 3 and rating["wins"] == 0
    mu0, sigma0 = rating_math.INITIAL
    assert rating["mu"] < mu0
    assert rating["rating"] < rating_math.conservative(mu0, sigma0)
    history = [h["rating"] for h in info["rating_history"]]
    assert history == sorted(history, reverse=True), "it only fell"
    # a pure function of what is stored: recomputing gives the same values
    store = Store(ranked.settings.db)
    try:
        assert store.recompute_ratings() == 3
    finally:
        store.close()
    again = ranked.get("/api/bots/raiser")["ratings"][0]
    assert again["mu"] == pytest.approx(rating["mu"], abs=1e-9)
    assert again["sigma"] == pytest.approx(rating["sigma"], abs=1e-9)
    board = ranked.get(f"/api/leaderboard?game=cunegonda&rules={rating['rules']}")["entries"]
    assert board[-1]["name"] == "raiser"  # below every house bot it played with
    assert board[-1]["placed_last_for_faults"] == 3
    assert all(e["placed_last_for_faults"] == 0 for e in board[:-1])


def test_a_bot_suspended_while_queued_is_not_seated(tmp_path: Path) -> None:
    """The suspension is checked when the matchmaker seats, not only at connection: a bot
    suspended while it waits (by a game that ended on another process, say) leaves the queue
    with a ``suspended`` error saying until when, and the table forms without it."""
    settings = fast_settings(db_url(tmp_path), fill_wait_ms=60_000)
    with running_server(settings) as server:
        names = ["queued", "b1", "b2", "b3", "b4"]
        tokens = {n: server.register(n) for n in names}
        wires = {n: Wire(server.ws) for n in names}
        try:
            join = {"type": "join", "lobby": "ranked", "game": "cunegonda"}
            first = wires["queued"]
            assert first.hello_bot("queued", tokens["queued"])["type"] == "welcome"
            first.send(join)
            assert first.expect("waiting")["lobby"] == "ranked"
            until = datetime.now(UTC) + timedelta(minutes=7)
            store = Store(settings.db)
            try:
                with store.engine.begin() as conn:
                    conn.execute(
                        update(players)
                        .where(players.c.name == "queued")
                        .values(suspended_until=until, suspended_reason="a test suspension")
                    )
            finally:
                store.close()
            for n in names[1:4]:  # now the queue can fill a table
                assert wires[n].hello_bot(n, tokens[n])["type"] == "welcome"
                wires[n].send(join)
                wires[n].expect("waiting")
            refused = first.expect("error", "game_start")
            assert refused["type"] == "error" and refused["code"] == "suspended"
            assert until.isoformat()[:16] in refused["reason"]
            assert "a test suspension" in refused["reason"]
            # the three others wait for a fourth; with it the table forms, without "queued"
            assert wires["b4"].hello_bot("b4", tokens["b4"])["type"] == "welcome"
            wires["b4"].send(join)
            start = wires["b4"].expect("game_start")
            assert sorted(start["names"]) == ["b1", "b2", "b3", "b4"]
            # joining again is refused at once
            first.send(join)
            again = first.expect("error", "waiting", "game_start")
            assert again["type"] == "error" and again["code"] == "suspended"
        finally:
            for w in wires.values():
                w.close()


def test_in_a_cluster_a_bot_suspended_while_queued_is_not_seated(tmp_path: Path) -> None:
    """The same on two processes sharing PostgreSQL and Redis: the leader reads the suspension
    from the database when it forms the table, takes the bot out of the shared queue and tells
    it through its own process (``refused``). Skipped when PostgreSQL or Redis is away."""
    from server.test_cluster import RANDOM_BOTS, cluster, fresh_database, fresh_redis_prefix

    config = (
        "[server]\nranked_rules = { kuhhandel = ['classic'] }\n"
        "ranked_table_size = { kuhhandel = 3 }\n" + RANDOM_BOTS
    )
    with fresh_database("ct_fair") as database, fresh_redis_prefix() as prefix:
        procs = cluster(["fp0", "fp1"], database, prefix, tmp_path, config)
        wires: list[Wire] = []
        try:
            for p in procs:
                # a long lease: a loaded machine must not take a process for dead here
                p.env = {"CARDTABLE_FILL_WAIT_MS": "60000", "CARDTABLE_LEASE_MS": "6000"}
                p.start()
            names = ["cq", "c1", "c2", "c3"]  # kuhhandel classic: tables of 3
            tokens = {n: procs[0].register(n) for n in names}
            join = {"type": "join", "lobby": "ranked", "game": "kuhhandel", "rules": "classic"}

            def queue(name: str, proc: int) -> Wire:
                w = Wire(procs[proc].ws)
                wires.append(w)
                assert w.hello_bot(name, tokens[name])["type"] == "welcome"
                w.send(join)
                w.expect("waiting")
                return w

            first = queue("cq", 0)
            until = datetime.now(UTC) + timedelta(minutes=7)
            store = Store(database)
            try:
                with store.engine.begin() as conn:
                    conn.execute(
                        update(players)
                        .where(players.c.name == "cq")
                        .values(suspended_until=until, suspended_reason="a test suspension")
                    )
            finally:
                store.close()
            queue("c1", 1)
            queue("c2", 1)
            refused = first.expect("error", "game_start", timeout=30)
            assert refused["type"] == "error" and refused["code"] == "suspended", refused
            assert "a test suspension" in refused["reason"]
            last = queue("c3", 0)
            start = last.expect("game_start", timeout=20)
            assert sorted(start["names"]) == ["c1", "c2", "c3"]
        finally:
            for w in wires:
                w.close()
            for p in procs:
                p.stop()


# -- tournaments ------------------------------------------------------------------------------


class Raises:
    """Raises on every decision (its client's own fallback would answer: a custom client that
    covers its faults)."""

    def act(self, observation: Any, request: Any) -> Any:
        raise ValueError(f"no idea on {request.kind}")


def test_in_a_tournament_the_servers_fallback_answers_and_standings_place_it_last(
    tmp_path: Path,
) -> None:
    settings = fast_settings(db_url(tmp_path), admin_token=ADMIN)
    with running_server(settings) as server:
        names = ["tr_raiser", "tr_a", "tr_b"]
        tokens = {n: server.register(n) for n in names}
        t = wire.organise(
            server.http,
            ADMIN,
            name="fair",
            seats=3,
            entrants=names,
            deals=1,
            rules="classic",
            seed=5,
            quiet_ms=40,
            suspend_after_faults=1000,
        )
        tid = t["id"]
        outcomes: dict[str, Any] = {}

        def enter(name: str, bot: Any, **options: Any) -> threading.Thread:
            def run() -> None:
                try:
                    play(
                        server.ws,
                        name,
                        tokens[name],
                        bot,
                        games=10_000,
                        lobby="tournament",
                        tournament=tid,
                        **options,
                    )
                except ServerError as exc:
                    outcomes[name] = exc.code

            thread = threading.Thread(target=run, daemon=True)
            thread.start()
            return thread

        threads = [enter("tr_raiser", lambda info: Raises(), fallback=True)]
        threads += [enter(n, "random") for n in names[1:]]
        info = server.wait_for(
            f"/api/tournaments/{tid}", lambda d: d["status"] == "finished", timeout=90
        )
        for thread in threads:
            thread.join(timeout=20)
        assert info["games"]["done"] == 3
        games = server.get(f"/api/tournaments/{tid}/games")["games"]
        for g in games:
            detail = server.get(f"/api/games/{g['game_id']}")
            seat = g["seats"].index("tr_raiser")
            mine = [f for f in detail["faults"] if f["seat"] == seat]
            assert len(mine) == 3, "taken over after 3 faults"
            for f in mine:
                assert f["code"] == "raised"
                assert f["detail"]["answered_by"] == "server", f
        # played again offline with the same seeds and the same fallback (the tournament's
        # house bot, heuristic here): the same moves, action for action, after the faults too
        refs = [f"{__file__}:Raises", "random", "random"]
        plan = TournamentPlan(
            "kuhhandel",
            "classic",
            3,
            tuple(Entry(i, refs[i], n) for i, n in enumerate(names)),
            deals=1,
            seed=5,
            decision_timeout=None,
            fallback="heuristic",
            records=str(tmp_path / "offline"),
        )
        run_tournament(plan, jobs=1)
        for g in games:
            online = server.get(f"/api/games/{g['game_id']}/record")["actions"]
            path = plan.record_path(g["deal"], g["rotation"])
            assert path is not None
            offline = json.loads(path.read_text())["actions"]
            first = next(
                (i for i, (a, b) in enumerate(zip(online, offline, strict=False)) if a != b), None
            )
            assert first is None and len(online) == len(offline), (g["slot"], first)
        table = server.get(f"/api/tournaments/{tid}/standings")
        rows = {r["name"]: r for r in table["rows"]}
        assert rows["tr_raiser"]["games"] == 3
        assert rows["tr_raiser"]["wins"] == 0
        assert rows["tr_raiser"]["mean_place"] == pytest.approx(3.0)
        assert table["rows"][-1]["name"] == "tr_raiser"
