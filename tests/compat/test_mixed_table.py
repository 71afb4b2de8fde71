"""A Kuh-Handel bot and a native bot at one tournament table (a real server in this process).

The Kuh-Handel seat is one more seat of the native table, spoken to in the reference's protocol:
it is told only what its seat may know (the private side of a payment or a trade only when it
pays, is paid or trades), its timeouts are the table's faults and a ban closes its connection
(the house bot plays on), and the game's record has the native shape with each seat's protocol
and the arena's bot seeds.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from loopback import LOOPBACK

TESTS = str(Path(__file__).resolve().parents[1])
if TESTS not in sys.path:
    sys.path.insert(0, TESTS)

from cardtable.cli.replay import recorded_seed  # noqa: E402
from cardtable.client import ServerError  # noqa: E402
from cardtable.client import play as play_native  # noqa: E402
from cardtable.core import Record  # noqa: E402
from compat.khclient import KhServer, Rejected, Script, play  # noqa: E402
from patience import load_factor  # noqa: E402
from server.wire import RunningServer, db_url, fast_settings, running_server  # noqa: E402

pytestmark = pytest.mark.timeout(120)

ADMIN = "organiser-secret"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RunningServer]:
    settings = fast_settings(
        db_url(tmp_path),
        admin_token=ADMIN,
        deadline_ms=2000,
        time_bank_ms=0,
        house_bots={"kuhhandel": "random"},
    )
    with running_server(settings) as running:
        yield running


def organise(server: RunningServer, **spec: Any) -> str:
    r = LOOPBACK.post(
        f"{server.http}/api/tournaments",
        json=spec,
        headers={"Authorization": f"Bearer {ADMIN}"},
        timeout=10,
    )
    assert r.status_code == 201, r.text
    return str(r.json()["id"])


def native(server: RunningServer, name: str, token: str, tid: str) -> threading.Thread:
    def run() -> None:
        with contextlib.suppress(ServerError):  # tournament_over
            play_native(
                server.ws, name, token, "random", games=100, lobby="tournament", tournament=tid
            )

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def kh_game(server: RunningServer, tid: str, name: str, script: Script) -> Any:
    """One game of a Kuh-Handel client in tournament ``tid`` (``End``, or ``None``: closed)."""
    kh = KhServer(server.settings, server.port)
    end = time.monotonic() + 20
    while True:
        try:
            client = kh.connect(f"tournament-{tid}", name)
            break
        except Rejected as exc:  # still waiting from the last game: try again
            assert exc.status == 409 and time.monotonic() < end
            time.sleep(0.05)
    try:
        return client, play(client, script, timeout=90)
    finally:
        client.close()


def test_a_kuh_handel_seat_is_told_only_its_own(server: RunningServer) -> None:
    assert KhServer(server.settings, server.port).register("khb") == 201
    tokens = {n: server.register(n) for n in ("nat", "nat1")}
    # one line-up of three (two native, one Kuh-Handel), one deal in every rotation: 3 games
    tid = organise(
        server,
        name="mixed",
        seats=3,
        rules="competition",
        entrants=["nat", "khb", "nat1"],
        deals=1,
        seed=3,
    )
    threads = [native(server, n, t, tid) for n, t in tokens.items()]
    public = private = 0
    names: set[str] = set()
    for _ in range(3):
        client, end = kh_game(server, tid, "khb", Script("khb"))
        assert end is not None
        names |= {p for p, _ in end["payload"]["update"]["End"]["ranking"]}
        for message in client.messages:
            if message["type"] != "GameUpdate":
                continue
            ((variant, body),) = message["payload"]["update"].items()
            if variant == "Auction" and "NormalAuction" in body:
                a = body["NormalAuction"]
                if "Private" in a["money_transfer"]:
                    private += 1
                    assert "khb" in (a["from"], a["to"]), a
                else:
                    public += 1
                    assert "khb" not in (a["from"], a["to"]), a
            elif variant == "Trade":
                if "Private" in body["money_trade"]:
                    assert "khb" in (body["challenger"], body["opponent"]), body
                else:
                    assert "khb" not in (body["challenger"], body["opponent"]), body
    assert public and private  # both sides were seen: the checks above did check something
    assert names == {"nat", "khb", "nat1"}
    info = server.wait_for(f"/api/tournaments/{tid}", lambda d: d["status"] == "finished")
    assert info["games"]["done"] == 3
    for thread in threads:
        thread.join(timeout=30)
    games = server.get(f"/api/tournaments/{tid}/games")["games"]
    for g in games:
        record = server.get(f"/api/games/{g['game_id']}/record")
        meta = record["meta"]
        khb = record["names"].index("khb")
        assert meta["seat_protocols"][khb] == "kuh-handel"
        assert sorted(meta["seat_protocols"]) == ["kuh-handel", "native", "native"]
        assert len(meta["bot_seeds"]) == 3 and isinstance(meta["faults"], list)
        # the seed `cardtable replay --ask` asks a bot again with
        assert recorded_seed(Record.from_json(record), khb) == meta["bot_seeds"][khb]


def test_kuh_handel_timeouts_are_table_faults_and_a_ban_closes_the_connection(
    server: RunningServer,
) -> None:
    assert KhServer(server.settings, server.port).register("mute") == 201
    tokens = {n: server.register(n) for n in ("nat2", "nat3")}
    tid = organise(
        server,
        name="mute cup",
        seats=3,
        rules="competition",
        entrants=["nat2", "mute", "nat3"],
        deals=1,
        seed=4,
        # every seat's limit, the two native bots' too: grown with the load, so that a native
        # bot the machine runs late is not the one with a fault
        deadline_ms=round(300 * load_factor()),
        time_bank_ms=0,
        ban_after_faults=2,
        suspend_after_faults=2,
    )
    threads = [native(server, n, t, tid) for n, t in tokens.items()]
    silent = Script("mute", {"DrawOrTrade": lambda m, s: None, "ProvideBidding": lambda m, s: None})
    _, end = kh_game(server, tid, "mute", silent)
    assert end is None  # closed by the server, no End: banned from that game
    # suspended after its first game: the house bot plays its other seats
    info = server.wait_for(
        f"/api/tournaments/{tid}", lambda d: d["status"] == "finished", timeout=60
    )
    mute = next(e for e in info["entrants"] if e["name"] == "mute")
    assert mute["bans"] == 1 and mute["suspended"] and mute["faults"] >= 2
    for thread in threads:
        thread.join(timeout=30)
    first = next(g for g in server.get(f"/api/tournaments/{tid}/games")["games"] if g["slot"] == 0)
    detail = server.get(f"/api/games/{first['game_id']}")
    (seat,) = [s for s in detail["seats_detail"] if s["name"] == "mute"]
    assert seat["taken_over"] and seat["kind"] == "bot"
    codes = [f["code"] for f in detail["faults"] if f["seat"] == seat["seat"]]
    assert codes[:2] == ["timeout", "timeout"]
    assert all(f["seat"] == seat["seat"] for f in detail["faults"])  # nobody else's fault
    assert detail["record"]["meta"]["seat_protocols"][seat["seat"]] == "kuh-handel"
    assert detail["result"]["termination"] == "normal"


@pytest.mark.parametrize(("case", "codes"), [("not_json", ["not_json"]), ("vanish", [])])
def test_a_kuh_handel_connection_lost_at_a_native_table_is_played_on(
    server: RunningServer, case: str, codes: list[str]
) -> None:
    name = f"kh-{case}".replace("_", "-")
    assert KhServer(server.settings, server.port).register(name) == 201
    tokens = {n: server.register(n) for n in (f"n1-{case}", f"n2-{case}")}
    tid = organise(
        server,
        name=case,
        seats=3,
        rules="competition",
        entrants=[*tokens, name],
        deals=1,
        seed=5,
    )
    threads = [native(server, n, t, tid) for n, t in tokens.items()]
    client, _ = kh_game_until(server, tid, name, case, after=12)
    assert client.closed
    # the table plays the game to its end without the Kuh-Handel client
    games = server.wait_for(
        f"/api/tournaments/{tid}/games",
        lambda d: any(g["state"] == "done" for g in d["games"]),
        timeout=60,
    )["games"]
    first = next(g for g in games if g["state"] == "done")
    detail = server.get(f"/api/games/{first['game_id']}")
    (seat,) = [s for s in detail["seats_detail"] if s["name"] == name]
    assert seat["taken_over"] and detail["result"]["termination"] == "normal"
    mine = [f["code"] for f in detail["faults"] if f["seat"] == seat["seat"]]
    assert mine == [*codes, "disconnected"]
    r = LOOPBACK.post(
        f"{server.http}/api/tournaments/{tid}/cancel",
        headers={"Authorization": f"Bearer {ADMIN}"},
        timeout=10,
    )
    assert r.status_code == 200, r.text
    for thread in threads:
        thread.join(timeout=30)


def kh_game_until(
    server: RunningServer, tid: str, name: str, case: str, after: int
) -> tuple[Any, int]:
    """A Kuh-Handel client that plays legally until its ``after``-th message, then sends text
    that is not JSON or vanishes without a close frame; returns once the connection is gone."""
    kh = KhServer(server.settings, server.port)
    client = kh.connect(f"tournament-{tid}", name)
    script = Script(name)
    count = 0
    while True:
        message = client.recv(timeout=60)
        if message is None:
            return client, count
        count += 1
        if count == after:
            if case == "vanish":
                client.drop()
                return client, count
            client.send_text("{not json")
            continue
        client.send(script.answer(message))
