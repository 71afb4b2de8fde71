"""Tournaments on a real server (SQLite): the organiser creates one over HTTP, registered bots
enter through the tournament lobby with the client library, the scheduler plays every planned
game once, and the standings equal a recomputation from the stored records."""

from __future__ import annotations

import io
import json
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cardtable.arena.plan import Entry, TournamentPlan
from cardtable.client import Backoff, ServerError, play
from cardtable.core import Record, verify
from cardtable.server.store import Store
from cardtable.server.tournaments import TournamentStore
from loopback import LOOPBACK
from patience import load_factor, patience
from server import wire
from server.wire import RunningServer, db_url, fast_settings, running_server

pytestmark = pytest.mark.timeout(120)

ADMIN = "organiser-secret"


#: the tournaments organised on the module's server, to cancel those a failed test leaves running
ORGANISED: list[str] = []


@pytest.fixture(scope="module")
def shared_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """One server for the module: each test organises its own tournament with bots of names of
    its own. The test of a shutdown starts a server of its own."""
    settings = fast_settings(
        db_url(tmp_path_factory.mktemp("tournament")), admin_token=ADMIN, deadline_ms=2000
    )
    with running_server(settings) as running:
        yield running


@pytest.fixture
def server(shared_server: RunningServer) -> Iterator[RunningServer]:
    """The module's server; a tournament the test leaves running (it failed) is cancelled, so
    that its bots do not play on beside the next test's."""
    ORGANISED.clear()
    yield shared_server
    for tid in ORGANISED:
        if shared_server.get(f"/api/tournaments/{tid}")["status"] in ("signup", "running"):
            LOOPBACK.post(
                f"{shared_server.http}/api/tournaments/{tid}/cancel",
                headers={"Authorization": f"Bearer {ADMIN}"},
                timeout=10,
            )


def organise(server: RunningServer, **spec: Any) -> dict[str, Any]:
    t = wire.organise(server.http, ADMIN, **spec)
    ORGANISED.append(t["id"])
    return t


def enter(
    server: RunningServer, name: str, token: str, tid: str, bot: Any = "heuristic", **options: Any
) -> tuple[threading.Thread, dict[str, Any]]:
    """A bot (a built-in's name or a factory) that plays the tournament's games until the server
    says it is over, in a thread; ``options`` go to ``play``. The thread and its outcome."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["reports"] = play(
                server.ws,
                name,
                token,
                bot,
                games=10_000,
                lobby="tournament",
                tournament=tid,
                **options,
            )
        except ServerError as exc:
            outcome["error"] = exc.code
        except Exception as exc:  # shown by the test's assertion
            outcome["error"] = repr(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, outcome


def play_out(
    server: RunningServer,
    tid: str,
    tokens: dict[str, str],
    bot: str = "heuristic",
    versions: dict[str, str] | None = None,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Every bot of ``tokens`` enters the tournament and plays until it is finished (90 s at
    most): the tournament then, and each bot's outcome once its thread ended (20 s at most).
    ``versions``: a bot's version (hello) by name."""
    bots = [
        enter(server, n, token, tid, bot=bot, version=(versions or {}).get(n))
        for n, token in tokens.items()
    ]
    info = server.wait_for(
        f"/api/tournaments/{tid}", lambda d: d["status"] == "finished", timeout=90
    )
    for thread, _ in bots:
        thread.join(timeout=20)
    return info, [outcome for _, outcome in bots]


def test_bad_requests_change_nothing(server: RunningServer) -> None:
    names = [f"tb{i}" for i in range(4)]
    for n in names:
        server.register(n)
    spec = {"name": "cup", "seats": 4, "entrants": names, "rules": "competition"}
    url = f"{server.http}/api/tournaments"
    assert LOOPBACK.post(url, json=spec).status_code == 401
    bad = {"Authorization": "Bearer wrong"}
    assert LOOPBACK.post(url, json=spec, headers=bad).status_code == 401
    ok = {"Authorization": f"Bearer {ADMIN}"}
    for broken, why in [
        ({**spec, "seats": 9}, "seats 3 to"),
        ({**spec, "entrants": ["tb0", "nobody", "tb1", "tb2"]}, "no registered bot"),
        ({**spec, "entrants": names[:3]}, "3 entrants for 4 seats"),
        ({**spec, "rules": "no-such-preset"}, "rules"),
        ({**spec, "entrants": ["tb0", "tb0", "tb1", "tb2"]}, "named twice"),
    ]:
        r = LOOPBACK.post(url, json=broken, headers=ok)
        assert r.status_code == 422 and why in r.text, (broken, r.text)
    r = LOOPBACK.post(url, json={**spec, "bogus": 1}, headers=ok)
    assert r.status_code == 422


def test_plan_is_the_arena_plan(server: RunningServer) -> None:
    """Every seating with rotation and duplicate deals, exactly as the arena plans them."""
    names = [f"pb{i}" for i in range(5)]
    for n in names:
        server.register(n)
    t = organise(server, name="plan", seats=4, entrants=names, deals=2, seed=7)
    assert t["status"] == "running"
    games = server.get(f"/api/tournaments/{t['id']}/games")["games"]
    assert len(games) == 5 * 2 * 4  # C(5,4) line-ups x 2 deals x 4 rotations
    lineups: dict[int, list[dict[str, Any]]] = {}
    for g in games:
        lineups.setdefault(g["lineup"], []).append(g)
    for rows in lineups.values():
        order = rows[0]["seats"]
        plan = TournamentPlan(
            "kuhhandel", "classic", 4, tuple(Entry(i, n, n) for i, n in enumerate(order)), 2, 7
        )
        assert [(g["deal"], g["rotation"]) for g in rows] == plan.schedule()
        for g in rows:
            assert g["seats"] == [order[e] for e in plan.seating(g["rotation"])]
    assert all(g["state"] == "planned" for g in games)


def test_native_bots_play_every_game_once(server: RunningServer) -> None:
    names = [f"nb{i}" for i in range(4)]
    tokens = {n: server.register(n) for n in names}
    t = organise(
        server,
        name="native",
        seats=4,
        entrants=names,
        deals=1,
        rules="competition",
        seed=3,
        quiet_ms=40,
    )
    tid = t["id"]
    # the random bot: the heuristic one thinks for each of the ~2,500 decisions of these four
    # competition games (31.7 s of this test on an idle machine), which are about the schedule
    info, outcomes = play_out(server, tid, tokens, bot="random")
    for outcome in outcomes:
        assert outcome.get("error") == "tournament_over", outcome
    assert info["games"]["done"] == 4 and info["games"]["planned"] == 0
    games = server.get(f"/api/tournaments/{tid}/games")["games"]
    done = [g for g in games if g["state"] == "done"]
    assert sorted(g["slot"] for g in done) == list(range(4))
    # every game was played with its planned deal seed and seating
    for g in done:
        record = server.get(f"/api/games/{g['game_id']}/record")
        assert record["names"] == g["seats"]
        assert record["meta"]["tournament"] == tid
        assert verify(Record.from_json(record))[0]
    table = server.get(f"/api/tournaments/{tid}/standings")
    assert table["frozen"] and table["games_done"] == 4
    assert sum(r["games"] for r in table["rows"]) == 16
    assert {r["name"] for r in table["rows"]} == set(names)
    # the archive: records as JSON lines, verified; standings as CSV and JSON
    r = LOOPBACK.get(f"{server.http}/api/tournaments/{tid}/archive", timeout=20)
    z = zipfile.ZipFile(io.BytesIO(r.content))
    lines = z.read("records.jsonl").decode().splitlines()
    assert len(lines) == 4
    check = json.loads(z.read("verification.json"))
    assert check == {"records": 4, "verified": 4, "failures": []}
    assert json.loads(z.read("standings.json"))["rows"] == table["rows"]
    assert z.read("standings.csv").decode().startswith("rank,name,games")


def test_swiss_with_house_seats_plays_tables_side_by_side(server: RunningServer) -> None:
    """5 entrants at 3 seats, swiss: two tables per round, the second with a house seat; the
    second round is planned from the first round's standings."""
    names = [f"sw{i}" for i in range(5)]
    tokens = {n: server.register(n) for n in names}
    t = organise(
        server,
        name="swiss",
        seats=3,
        entrants=names,
        format="swiss",
        rounds=2,
        rules="classic",
        seed=11,
        quiet_ms=40,
    )
    tid = t["id"]
    assert t["games"]["planned"] == 2 * 3  # round one: 2 tables x 1 deal x 3 rotations
    info, _ = play_out(server, tid, tokens, bot="random")
    assert info["games"]["done"] == 12  # round two was planned from round one's standings
    games = server.get(f"/api/tournaments/{tid}/games")["games"]
    assert {g["round"] for g in games} == {0, 1}
    assert sum(g["seats"].count("house") for g in games) == 6  # the second table's third seat
    table = server.get(f"/api/tournaments/{tid}/standings")
    rows = {r["name"]: r for r in table["rows"]}
    assert rows["house stand-in"]["stand_in"] and rows["house stand-in"]["games"] == 6
    assert all(rows[n]["games"] == 6 for n in names)
    assert sum(r["games"] for r in table["rows"]) == 12 * 3


class SleepyBot:
    """Plays like the random bot, but sleeps past the deadline on its first decisions."""

    def __init__(self, late: int, sleep_s: float = 1.5) -> None:
        self.late = late
        self.sleep_s = sleep_s
        self.asked = 0
        self.inner: Any = None

    def start(self, seat: int, info: Any) -> None:
        from cardtable.core import load_bot

        self.inner = load_bot(info.game, "random", seed=seat)

    def act(self, observation: Any, request: Any) -> Any:
        import time

        self.asked += 1
        if self.asked <= self.late:
            time.sleep(self.sleep_s)
        return self.inner.act(observation, request)


def test_faults_ban_then_suspend(server: RunningServer) -> None:
    """A bot that times out: after ban_after_faults in a game the house bot plays its seat (a
    ban), after suspend_after_faults in the tournament it is suspended and the house bot plays
    its remaining games; the standings show both."""
    names = [f"fb{i}" for i in range(3)]
    tokens = {n: server.register(n) for n in names}
    deadline_ms = round(600 * load_factor())
    t = organise(
        server,
        name="faults",
        seats=3,
        entrants=names,
        deals=2,
        rules="classic",
        # every entrant's limit (600 ms idle): the two random entrants, run late on a loaded
        # machine, must not collect faults of their own
        deadline_ms=deadline_ms,
        time_bank_ms=0,
        ban_after_faults=2,
        suspend_after_faults=4,
        quiet_ms=40,
    )
    tid = t["id"]
    # sleeps 1.5 s (idle) a decision: past the deadline, whatever the load
    sleepy = 2.5 * deadline_ms / 1000
    thread, _ = enter(
        server,
        names[0],
        tokens[names[0]],
        tid,
        lambda info: SleepyBot(10_000, sleep_s=sleepy),
        fallback=False,
    )
    others = [enter(server, n, tokens[n], tid, bot="random") for n in names[1:]]
    info = server.wait_for(
        f"/api/tournaments/{tid}", lambda d: d["status"] == "finished", timeout=100
    )
    thread.join(timeout=20)
    for th, _ in others:
        th.join(timeout=20)
    assert info["games"]["done"] == 6
    entrant = info["entrants"][0]
    assert entrant["suspended"] and "4 faults" in entrant["suspended_reason"]
    assert entrant["bans"] == 2  # banned in each of its two games before the suspension
    games = server.get(f"/api/tournaments/{tid}/games")["games"]
    stand_ins = 0
    for g in games:
        record = server.get(f"/api/games/{g['game_id']}/record")
        seat = g["seats"].index(names[0])
        if record["names"][seat].startswith("house-"):
            stand_ins += 1
        else:
            # two faults, then the house bot played the seat (no third fault)
            assert len([f for f in record["meta"]["faults"] if f["seat"] == seat]) == 2
    assert stand_ins == 4
    table = server.get(f"/api/tournaments/{tid}/standings")
    rows = {r["name"]: r for r in table["rows"]}
    assert rows[names[0]]["suspended"] and rows[names[0]]["games"] == 2
    assert rows[names[0]]["bans"] == 2 and rows[names[0]]["faults"] == 4
    assert rows["house stand-in"]["games"] == 4


def test_offline_arena_reaches_the_same_standings(server: RunningServer) -> None:
    """The records carry the deal seeds, seatings and bot seeds: ``cardtable arena`` with the
    same built-in bots (the archive's command) plays the same games and reaches the same
    standings."""
    from cardtable.arena.tournament import run_tournament

    names = [f"ob{i}" for i in range(3)]
    tokens = {n: server.register(n) for n in names}
    t = organise(
        server,
        name="offline",
        seats=3,
        entrants=names,
        deals=2,
        rules="classic",
        seed=21,
        quiet_ms=40,
    )
    tid = t["id"]
    play_out(server, tid, tokens, bot="random")
    table = server.get(f"/api/tournaments/{tid}/standings")
    r = LOOPBACK.get(f"{server.http}/api/tournaments/{tid}/archive", timeout=20)
    command = zipfile.ZipFile(io.BytesIO(r.content)).read("arena.txt").decode().splitlines()[-1]
    assert "--bots ob0,ob1,ob2 --seats 3 --games 6 --seed 21" in command
    plan = TournamentPlan(
        "kuhhandel",
        "classic",
        3,
        tuple(Entry(i, "random", n) for i, n in enumerate(names)),
        deals=2,
        seed=21,
        decision_timeout=None,
    )
    report = run_tournament(plan, jobs=1)
    offline = {row.entry.label: row for row in report.rows}
    for row in table["rows"]:
        mine = offline[row["name"]]
        assert row["games"] == mine.games == 6
        assert row["wins"] == pytest.approx(mine.wins)
        assert row["score"]["mean"] == pytest.approx(mine.score.mean)
        assert row["vs_field"]["mean"] == pytest.approx(mine.vs_field.mean)


def test_signup_until_a_start_time_then_cancel(server: RunningServer) -> None:
    """Bots that join before ``signup_until`` are entered; at that time the field is planned and
    play starts. Cancelling voids the planned games and tells waiting bots it is over."""
    import datetime as dt

    names = [f"su{i}" for i in range(3)]
    tokens = {n: server.register(n) for n in names}
    # long enough for the three bots to join (2 s on an idle machine, longer under load)
    start = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=patience(2))
    t = organise(
        server,
        name="signup",
        seats=3,
        signup_until=start.isoformat(),
        rules="classic",
        deals=3,
        quiet_ms=40,
    )
    tid = t["id"]
    assert t["status"] == "signup" and t["games"]["planned"] == 0
    bots = [enter(server, n, tokens[n], tid, bot="random") for n in names]
    info = server.wait_for(f"/api/tournaments/{tid}", lambda d: d["games"]["done"] >= 1, timeout=60)
    assert {e["name"] for e in info["entrants"]} == set(names)  # every bot that joined
    assert info["games"]["planned"] + info["games"]["running"] + info["games"]["done"] == 9
    r = LOOPBACK.post(
        f"{server.http}/api/tournaments/{tid}/cancel",
        headers={"Authorization": f"Bearer {ADMIN}"},
        timeout=10,
    )
    assert r.status_code == 200 and r.json()["status"] == "cancelled"
    for thread, outcome in bots:
        thread.join(timeout=60)
        assert outcome.get("error") == "tournament_over", outcome
    info = server.get(f"/api/tournaments/{tid}")
    assert info["status"] == "cancelled" and info["games"]["planned"] == 0
    assert info["games"]["done"] + info["games"]["void"] >= 9
    again = LOOPBACK.post(
        f"{server.http}/api/tournaments/{tid}/resume",
        headers={"Authorization": f"Bearer {ADMIN}"},
        timeout=10,
    )
    assert again.status_code == 409  # a cancelled tournament stays cancelled


def test_the_organiser_starts_a_signup_early_once_the_field_is_in(server: RunningServer) -> None:
    """``start`` closes a sign-up before ``signup_until`` (an hour away here): the bots that
    joined are the field and play starts at once; only the organiser may, only once."""
    import datetime as dt

    names = [f"st{i}" for i in range(3)]
    tokens = {n: server.register(n) for n in names}
    later = dt.datetime.now(dt.UTC) + dt.timedelta(hours=1)
    tid = organise(
        server,
        name="early",
        seats=3,
        signup_until=later.isoformat(),
        rules="classic",
        deals=1,
        quiet_ms=40,
    )["id"]

    def start(token: str = ADMIN) -> Any:
        return LOOPBACK.post(
            f"{server.http}/api/tournaments/{tid}/start",
            headers={"Authorization": f"Bearer {token}"},
            timeout=10,
        )

    assert start("not-the-organiser").status_code == 401
    assert server.get(f"/api/tournaments/{tid}")["status"] == "signup"
    bots = [enter(server, n, tokens[n], tid, bot="random") for n in names]
    server.wait_for(f"/api/tournaments/{tid}", lambda d: len(d["entrants"]) == 3, timeout=30)
    r = start()
    assert r.status_code == 200 and r.json()["status"] == "running", r.text
    info = server.wait_for(f"/api/tournaments/{tid}", lambda d: d["status"] == "finished", 60)
    assert {e["name"] for e in info["entrants"]} == set(names)
    assert info["games"]["done"] == 3  # one line-up of three, three seat rotations
    assert start().status_code == 409  # started (and finished) already
    for thread, outcome in bots:
        thread.join(timeout=60)
        assert outcome.get("error") == "tournament_over", outcome


def test_a_shutdown_settles_the_games_it_cuts_off(tmp_path: Path) -> None:
    """A server stopped mid-tournament settles the rows of the tables it stops before it closes
    its database: none is left ``running`` for the next start to find."""
    url = db_url(tmp_path)
    names = [f"sd{i}" for i in range(3)]
    # the bots give up soon after their server is gone: left retrying (60 s by default) their
    # threads, event loops and sockets outlived the test in the worker (+13 descriptors)
    quick = Backoff(first=0.05, most=0.2, give_up_after=1.0, attempts=3)
    with running_server(fast_settings(url, admin_token=ADMIN, deadline_ms=2000)) as server:
        tokens = {n: server.register(n) for n in names}
        t = organise(server, name="cut", seats=3, entrants=names, rules="classic", seed=5)
        bots = [enter(server, n, tokens[n], t["id"], bot="random", backoff=quick) for n in names]
        server.wait_for(
            f"/api/tournaments/{t['id']}",
            lambda d: d["games"]["done"] >= 1 and d["games"]["running"] >= 1,
            timeout=60,
        )
    store = Store(url)
    try:
        rows = TournamentStore(store).games_list(t["id"])
    finally:
        store.close()
    assert rows and not [r for r in rows if r["state"] == "running"], rows
    assert [r for r in rows if r["state"] == "done"]
    for thread, _ in bots:
        thread.join(timeout=patience(30))
        assert not thread.is_alive(), "a bot still runs after its server stopped"
