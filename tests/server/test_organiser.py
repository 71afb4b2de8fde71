"""An organiser's sanctions on tournament entrants (server/organiser.py) on a real server: ban,
suspend, disqualify and reinstate through the API and ``cardtable tournament``, each with its
effect on the seating (the house bot stands in) and on the standings; the entrants' presence in
the API and the status summary; the warning for a plan without a vs-field interval."""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update

from cardtable.cli import main as cardtable
from cardtable.client import ServerError, play
from cardtable.server.organiser import active
from cardtable.server.store import Store
from cardtable.server.store.models import players
from loopback import LOOPBACK
from server import wire
from server.test_tournament import enter, play_out
from server.wire import RunningServer, db_url, fast_settings, running_server

pytestmark = pytest.mark.timeout(120)

ADMIN = "organiser-secret"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RunningServer]:
    settings = fast_settings(db_url(tmp_path), admin_token=ADMIN, deadline_ms=2000)
    with running_server(settings) as running:
        yield running


def organise(server: RunningServer, **spec: Any) -> dict[str, Any]:
    return wire.organise(server.http, ADMIN, **spec)


def sanction(server: RunningServer, tid: str, name: str, action: str, **body: Any) -> Any:
    return LOOPBACK.post(
        f"{server.http}/api/tournaments/{tid}/entrants/{name}/{action}",
        json=body,
        headers={"Authorization": f"Bearer {ADMIN}"},
    )


def cli(server: RunningServer, *args: str) -> int:
    return cardtable(["tournament", "--server", server.http, "--admin-token", ADMIN, *args])


def entrants(server: RunningServer, tid: str) -> dict[str, dict[str, Any]]:
    return {e["name"]: e for e in server.get(f"/api/tournaments/{tid}")["entrants"]}


def house_seats(server: RunningServer, tid: str, name: str) -> tuple[int, int]:
    """Of the done games seating ``name``'s position: (played by the house, played by it)."""
    games = server.get(f"/api/tournaments/{tid}/games")["games"]
    house = own = 0
    for g in games:
        if g["state"] != "done" or name not in g["seats"]:
            continue
        record = server.get(f"/api/games/{g['game_id']}/record")
        seat = g["seats"].index(name)
        if record["names"][seat] == name:
            own += 1
        else:
            assert record["names"][seat].startswith("house-"), record["names"]
            house += 1
    return house, own


def test_bad_sanctions_change_nothing(server: RunningServer) -> None:
    names = [f"bs{i}" for i in range(3)]
    for n in names:
        server.register(n)
    tid = organise(server, name="bad", seats=3, entrants=names, deals=2)["id"]
    url = f"{server.http}/api/tournaments/{tid}/entrants/bs0/ban"
    assert LOOPBACK.post(url).status_code == 401  # no organiser's token
    assert LOOPBACK.post(url, headers={"Authorization": "Bearer wrong"}).status_code == 401
    for name, action, body, status, why in [
        ("bs0", "expel", {}, 422, "unknown action"),
        ("nobody", "ban", {}, 404, "not an entrant"),
        ("bs0", "suspend", {}, 422, "needs minutes"),
        ("bs0", "suspend", {"minutes": -1}, 422, "minutes"),
        ("bs0", "ban", {"minutes": 5}, 422, "takes no minutes"),
        ("bs0", "ban", {"bogus": 1}, 422, "bogus"),
        ("bs0", "reinstate", {}, 409, "neither sanctioned"),
    ]:
        r = sanction(server, tid, name, action, **body)
        assert r.status_code == status and why in r.text, (action, body, r.text)
    assert all(e["sanction"] is None for e in entrants(server, tid).values())
    assert sanction(server, tid, "bs0", "ban").status_code == 200
    r = sanction(server, tid, "bs0", "suspend", minutes=5)
    assert r.status_code == 409 and "banned already" in r.text
    assert entrants(server, tid)["bs0"]["sanction_active"] == "banned"
    # the CLI says the API's refusal and fails
    assert cli(server, "ban", tid, "nobody") == 1


def test_a_suspension_ends_by_itself() -> None:
    """``suspend`` is for a time: at its end the entrant plays its own games again."""
    at = datetime(2026, 12, 5, 12, 0, tzinfo=UTC)
    until = at + timedelta(minutes=5)
    assert active("suspended", until, at) == "suspended"
    assert active("suspended", until, until) is None
    assert active("banned", None, at) == "banned"
    assert active(None, None, at) is None


def test_ban_and_disqualify_hand_the_games_to_the_house(
    server: RunningServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """Banned (API) and disqualified (CLI) before play: every game of theirs is played by the
    house bot for the stand-in row (without house_fill: only the sanction makes it stand in);
    the banned entrant stays in the ranking with no game, the disqualified one leaves it; the
    disqualified one's join is refused."""
    names = ["oa", "ob", "oc", "od"]
    tokens = {n: server.register(n) for n in names}
    t = organise(
        server,
        name="sanctions",
        seats=3,
        entrants=names,
        deals=1,
        rules="competition",
        seed=3,
        quiet_ms=40,
        house_fill=False,
    )
    tid = t["id"]
    # one deal: no interval against the field, and the organiser is told so
    assert len(t["warnings"]) == 1 and "no 95% interval" in t["warnings"][0]
    r = sanction(server, tid, "od", "ban", reason="collusion")
    assert r.status_code == 200, r.text
    assert r.json()["entrant"]["sanction_active"] == "banned"
    assert cli(server, "disqualify", tid, "oc", "--reason", "two accounts") == 0
    assert "oc: disqualified (two accounts)" in capsys.readouterr().out
    thread, refused = enter(server, "oc", tokens["oc"], tid, bot="random")
    thread.join(timeout=20)
    assert refused.get("error") == "tournament_over", refused
    info, _ = play_out(server, tid, {n: tokens[n] for n in ("oa", "ob")}, bot="random")
    assert info["games"]["done"] == 12  # C(4,3) line-ups x 3 rotations
    table = server.get(f"/api/tournaments/{tid}/standings")
    rows = {r["name"]: r for r in table["rows"]}
    assert set(rows) == {"oa", "ob", "od", "house stand-in"}
    assert rows["oa"]["games"] == rows["ob"]["games"] == 9
    assert rows["od"]["games"] == 0 and rows["od"]["sanction"] == "banned"
    assert rows["od"]["rank"] is not None
    assert rows["house stand-in"]["games"] == 18  # 3 + 3 seats, and 6 + 6 at two tables
    assert [r["name"] for r in table["disqualified"]] == ["oc"]
    assert table["disqualified"][0]["rank"] is None
    assert house_seats(server, tid, "od") == (9, 0)
    assert house_seats(server, tid, "oc") == (9, 0)
    # the archive's CSV lists the disqualified entrant last, unranked
    r = LOOPBACK.get(f"{server.http}/api/tournaments/{tid}/archive", timeout=30)
    csv_rows = zipfile.ZipFile(io.BytesIO(r.content)).read("standings.csv").decode().splitlines()
    assert csv_rows[-1].startswith(",oc,0,")


def test_suspend_then_reinstate_with_presence(
    server: RunningServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """Suspended (CLI, an hour): the games that start meanwhile are the house bot's; reinstated
    (API), it plays its own again. Presence: the two playing entrants are waiting or playing,
    the third offline until it enters; ``status`` prints a summary, ``--json`` the JSON."""
    names = ["sx", "sy", "sz"]
    tokens = {n: server.register(n) for n in names}
    t = organise(
        server,
        name="suspension",
        seats=3,
        entrants=names,
        deals=4,
        rules="competition",
        seed=5,
        quiet_ms=40,
        house_fill=False,
    )
    tid = t["id"]
    assert t["warnings"] == []
    assert cli(server, "suspend", tid, "sz", "--minutes", "60", "--reason", "late") == 0
    assert "sz: suspended until" in capsys.readouterr().out
    assert entrants(server, tid)["sz"]["presence"] == "offline"
    bots = [enter(server, n, tokens[n], tid, bot="random") for n in ("sx", "sy")]
    server.wait_for(f"/api/tournaments/{tid}", lambda d: d["games"]["done"] >= 1, timeout=60)
    r = sanction(server, tid, "sz", "reinstate")
    assert r.status_code == 200 and r.json()["entrant"]["sanction_active"] is None
    info = server.get(f"/api/tournaments/{tid}")
    assert info["games"]["planned"] > 0, "every game ended before the reinstatement"
    # sz is not connected and no longer stood in for: the schedule waits for it
    seen = server.wait_for(
        f"/api/tournaments/{tid}",
        lambda d: {e["name"]: e["presence"] for e in d["entrants"]}
        == {"sx": "waiting", "sy": "waiting", "sz": "offline"},
        timeout=30,
    )
    assert seen["games"]["running"] == 0
    assert cli(server, "status", tid) == 0
    text = capsys.readouterr().out
    assert "suspension" in text and "presence" in text and "waiting" in text
    assert "offline" in text and "in good standing" in text
    assert len(text.splitlines()) < 40
    assert cli(server, "status", tid, "--json", "--standings") == 0
    raw = json.loads(capsys.readouterr().out)
    assert raw["id"] == tid and "standings" in raw
    bots.append(enter(server, "sz", tokens["sz"], tid, bot="random"))
    server.wait_for(f"/api/tournaments/{tid}", lambda d: d["status"] == "finished", timeout=90)
    for thread, _ in bots:
        thread.join(timeout=20)
    house, own = house_seats(server, tid, "sz")
    assert house >= 1 and own >= 1 and house + own == 12
    rows = {r["name"]: r for r in server.get(f"/api/tournaments/{tid}/standings")["rows"]}
    assert rows["sz"]["games"] == own and rows["house stand-in"]["games"] == house
    assert rows["sz"]["sanction"] is None


def test_a_ladder_suspension_does_not_lock_an_entrant_out(server: RunningServer) -> None:
    """A bot suspended from the ladder connects and plays the tournament it entered itself
    (the tournament uses its own sanctions only); its ranked join is refused."""
    names = ["ls0", "ls1", "ls2"]
    tokens = {n: server.register(n) for n in names}
    store = Store(server.settings.db)
    with store.engine.begin() as conn:
        conn.execute(
            update(players)
            .where(players.c.name == "ls0")
            .values(
                suspended_until=datetime.now(UTC) + timedelta(minutes=10),
                suspended_reason="taken over in 3 of its last 5 games",
            )
        )
    assert server.get("/api/bots/ls0")["suspended"] is True
    with pytest.raises(ServerError) as refused:
        play(server.ws, "ls0", tokens["ls0"], "random", lobby="ranked")
    assert refused.value.code == "suspended"
    t = organise(
        server, name="ladder", seats=3, entrants=names, deals=1, quiet_ms=40, house_fill=False
    )
    info, outcomes = play_out(server, t["id"], tokens, bot="random")
    assert info["games"]["done"] == 3
    assert all(o.get("error") == "tournament_over" for o in outcomes), outcomes
    assert house_seats(server, t["id"], "ls0") == (0, 3)
