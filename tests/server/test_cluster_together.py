"""People at one table through two processes of a cluster (issue 37): chat, rematch offers and
presence work as on one process (``server/cluster_people.py``).

Two ``cardtable serve`` processes share a fresh PostgreSQL database and a Redis prefix. Ada and
Ben sit at a private table of ``ta``; Ben's connection then moves to ``tb`` (as a reload behind a
load balancer, or ``--workers``, may do) and takes his seat back there: the table stays on
``ta`` and Ben's seat is relayed. They talk both ways (limits, flood, refusals and reports as on
one process; the operator reads the report from either process); mute is the viewer's own (in
the page, ``static/chat.js``): the server still sends every line to both. A spectator on ``tb``
gets no chat; a table of one person and house bots has none. ``GET /api/tables/{id}/public`` on
``tb`` shows who is here, away and has left. After the game, Ada's rematch offer reaches Ben on
``tb``; he declines (Ada is told). Then Ben asks first, from ``tb``: he waits at a table of
``ta`` and Ada is offered it; he leaves it and asks again (not refused as "busy": ``ta`` took him
off), Ada accepts: the new game seats both in the same places and their chat is relayed there
too. Skipped with the reason when PostgreSQL or Redis is unreachable.

On the code before: a relayed seat's chat was refused (``chat_off``), the public view was a 404
on ``tb``, and the offer never reached ``tb`` (nor Ben's answer ``ta``).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from cardtable.protocol import CHAT_MAX_CHARS, CHAT_RATE
from loopback import LOOPBACK
from patience import patience
from server.test_cluster import (
    RANDOM_BOTS,
    Process,
    cluster,
    fresh_database,
    fresh_redis_prefix,
    start_together,
)
from server.wire import Wire, play_until_end

#: two processes and a whole game at load 20-35; one pytest-xdist worker runs both tests (their
#: module's processes are started once)
pytestmark = [pytest.mark.timeout(480), pytest.mark.xdist_group("test_cluster_together")]

ADMIN = "cluster-operator-token"
#: people's clocks long enough that the game waits for the test; bots instant
CONFIG = (
    "[server]\n"
    f'admin_token = "{ADMIN}"\n'
    "person_deadline_ms = 120000\nperson_time_bank_ms = 120000\n"
    'pace = "instant"\naway_pace = "instant"\n' + RANDOM_BOTS
)


def chats(wire: Wire) -> list[dict[str, Any]]:
    return [m for m in wire.received if m["type"] == "chat"]


def public(proc: Process, game_id: str) -> Any:
    reply = LOOPBACK.get(f"{proc.http}/api/tables/{game_id}/public", timeout=30)
    assert reply.status_code == 200, (proc.name, reply.status_code, reply.text)
    return reply.json()


def presence_of(proc: Process, game_id: str, name: str, wanted: str) -> dict[str, Any]:
    """The public view of ``game_id`` read from ``proc`` once seat ``name`` says ``wanted``."""
    end = time.monotonic() + patience(20)
    while True:
        view = public(proc, game_id)
        seat = view["seats"][view["names"].index(name)]
        if seat["presence"] == wanted or time.monotonic() > end:
            assert seat["presence"] == wanted, (name, seat)
            return view
        time.sleep(0.1)


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Process, Process]]:
    """``ta`` and ``tb`` on a database and a Redis prefix of their own, shared by the module's
    tests (no test kills one; each seats people of names of its own): two process start-ups
    fewer, about 5 s of CPU."""
    with fresh_redis_prefix() as prefix, fresh_database("ct_together") as db:
        ta, tb = cluster(["ta", "tb"], db, prefix, tmp_path_factory.mktemp("together"), CONFIG)
        try:
            start_together([ta, tb])
            yield ta, tb
        finally:
            ta.stop()
            tb.stop()


def sit_down(
    ta: Process,
    tb: Process,
    ada: Wire,
    ben: Wire,
    game: str,
    create: dict[str, Any],
    names: tuple[str, str] = ("Ada", "Ben"),
) -> str:
    """Ada creates a private table on ``ta``, Ben joins it there, then Ben's connection moves
    to ``tb`` (``ben`` is a fresh wire to ``tb``) and takes his seat back; returns the game.
    ``names``: Ada's and Ben's (each test of the module's processes has its own)."""
    ada_name, ben_name = names
    ada.hello_guest(ada_name)
    with Wire(ta.ws) as first:
        token = first.hello_guest(ben_name)["you"]["resume_token"]
        ada.send({"type": "join", "lobby": "private", "game": game, "create": create})
        invite = ada.expect("table")["invite"]
        first.send({"type": "join", "lobby": "private", "game": game, "invite": invite})
        game_id = str(first.expect("game_start")["game_id"])
        ada.expect("game_start")
    # between the two connections Ben is away, also as the other process reads it
    presence_of(tb, game_id, ben_name, "away")
    welcome = ben.hello_guest(ben_name, token)
    assert welcome["games"] == [game_id], welcome  # the seat is held by the other process
    ben.send({"type": "resume", "game_id": game_id})
    assert ben.expect("game_start")["game_id"] == game_id
    return game_id


def test_two_people_on_two_processes_chat_and_see_who_is_there(
    pair: tuple[Process, Process],
) -> None:
    ta, tb = pair
    with Wire(ta.ws) as ada, Wire(tb.ws) as ben:
        create = {"seats": 4, "bots": ["random", "random"]}
        gid = sit_down(ta, tb, ada, ben, "kuhhandel", create)
        # presence, read from the process that does not run the table (404 before)
        view = presence_of(tb, gid, "Ben", "here")
        assert presence_of(ta, gid, "Ben", "here")["names"] == view["names"]
        assert view["seats"][view["names"].index("Ada")]["presence"] == "here"

        # Ben (relayed) talks to Ada (local) and back; each gets every line once, in order
        ben.send({"type": "chat", "game_id": gid, "text": "hallo <b>Ada</b>"})
        assert ada.expect("chat")["from"] == "Ben"
        ada.send({"type": "chat", "game_id": gid, "preset": "gg"})
        for wire in (ada, ben):
            while len(chats(wire)) < 2:
                wire.expect("chat")
            said = [(m["id"], m["from"], m.get("text"), m.get("preset")) for m in chats(wire)]
            assert said == [(1, "Ben", "hallo <b>Ada</b>", None), (2, "Ada", None, "gg")]

        # the limits and refusals reach the relayed seat as on one process
        ben.send({"type": "chat", "game_id": gid, "text": "x" * (CHAT_MAX_CHARS + 1)})
        error = ben.expect("error")
        assert error["code"] == "chat_too_long" and "200" in error["reason"]
        ben.send({"type": "chat", "game_id": gid, "text": "zero\u200bwidth"})
        assert ben.expect("error")["code"] == "bad_chat"
        for i in range(CHAT_RATE - 1):  # the first line counted: the 6th is one too many
            ben.send({"type": "chat", "game_id": gid, "text": f"line {i}"})
        ben.send({"type": "chat", "game_id": gid, "text": "one too many"})
        error = ben.expect("error")
        assert error["code"] == "chat_rate" and "wait" in error["reason"]
        while len(chats(ada)) < 2 + CHAT_RATE - 1:
            ada.expect("chat")
        # mute is the viewer's (the page's): the server sent Ada every line Ben said
        assert [m["from"] for m in chats(ada)].count("Ben") == CHAT_RATE
        assert "one too many" not in [m.get("text") for m in chats(ada)]

        # a spectator on tb: no chat, and it may not talk
        with Wire(tb.ws) as spectator:
            spectator.send(
                {"type": "hello", "protocol": 1, "spectate": gid, "push_observations": True}
            )
            spectator.expect("welcome")
            assert spectator.expect("game_start")["chat"] is False
            spectator.send({"type": "chat", "game_id": gid, "text": "hi all"})
            assert spectator.expect("error")["code"] == "spectator_cannot_act"
            ada.send({"type": "chat", "game_id": gid, "text": "secret plan"})
            while ben.expect("chat").get("text") != "secret plan":
                pass
            # the table sends on after the line: a frame the spectator gets later was sent
            # after it, on the same ordered channel from ta to tb
            seen = max(m["index"] for w in (ada, ben) for m in w.received if m["type"] == "event")
            later = None
            for _ in range(20):
                _answer_any(gid, [ada, ben])
                try:
                    later = spectator.expect("event", timeout=2)
                    while later["index"] <= seen:
                        later = spectator.expect("event", timeout=2)
                    break
                except TimeoutError:
                    later = None
            assert later is not None, "the spectator saw no move after the line"
            assert not chats(spectator)

        # Ben reports Ada's line from tb; the operator reads it on either process
        line = next(m for m in chats(ben) if m.get("text") == "secret plan")
        ben.send({"type": "chat_report", "game_id": gid, "id": line["id"], "reason": "rude"})
        assert ben.expect("chat_reported", "error") == {
            "type": "chat_reported",
            "game_id": gid,
            "id": line["id"],
        }
        ben.send({"type": "chat_report", "game_id": gid, "id": chats(ben)[0]["id"]})
        assert ben.expect("error")["code"] == "bad_chat"  # his own line
        auth = {"Authorization": f"Bearer {ADMIN}"}
        for proc in (ta, tb):
            url = f"{proc.http}/api/chat/reports"
            assert LOOPBACK.get(url).status_code == 401
            reports = LOOPBACK.get(url, headers=auth).json()["reports"]
            assert len(reports) == 1, reports
            assert reports[0]["reporter"] == "Ben" and reports[0]["reason"] == "rude"
            assert reports[0]["message"]["from"] == "Ada"
            assert reports[0]["message"]["text"] == "secret plan"

        # Ben leaves the table by choice: tb shows him as left (the house bot plays)
        ben.send({"type": "leave"})
        presence_of(tb, gid, "Ben", "left")

    # a person alone with house bots has no chat, relayed or not
    with Wire(ta.ws) as first:
        token = first.hello_guest("Cara")["you"]["resume_token"]
        first.send({"type": "join", "lobby": "practice", "game": "kuhhandel"})
        solo = first.expect("game_start")
        assert solo["chat"] is False
    with Wire(tb.ws) as cara:
        assert cara.hello_guest("Cara", token)["games"] == [solo["game_id"]]
        cara.send({"type": "resume", "game_id": solo["game_id"]})
        assert cara.expect("game_start")["chat"] is False
        cara.send({"type": "chat", "game_id": solo["game_id"], "text": "anyone?"})
        assert cara.expect("error")["code"] == "chat_off"


def test_a_rematch_offer_reaches_the_other_process_and_is_accepted_there(
    pair: tuple[Process, Process],
) -> None:
    ta, tb = pair
    ada_name, ben_name = names = ("Ida", "Jon")  # not the other test's people
    with Wire(ta.ws) as ada, Wire(tb.ws) as ben:
        create = {"rules": "short", "bots": ["random", "random"]}
        gid = sit_down(ta, tb, ada, ben, "cunegonda", create, names)
        first = [[m for m in w.received if m["type"] == "game_start"][-1] for w in (ada, ben)]
        _play_both([ada, ben])

        # a game no process ran cannot be played again: refused at once, as on one process
        ben.send({"type": "join", "lobby": "private", "again": "0123456789abcdef"})
        assert ben.expect("error", timeout=15)["code"] == "unknown_game"
        # Ada (on ta, where the game ran) offers; Ben on tb sees the offer
        ada.send({"type": "join", "lobby": "private", "again": gid})
        table = ada.expect("table")
        assert table["again"] == gid and table["open_seats"] == 1
        offer = ben.expect("table", timeout=15)
        assert offer["offer"] is True and offer["again"] == gid
        assert offer["invite"] == table["invite"] and ada_name in offer["players"]
        # Ben declines from tb: Ada is told; the table waits on
        ben.send({"type": "leave", "again": gid})
        declined = ada.expect("declined", timeout=15)
        assert declined == {"type": "declined", "again": gid, "name": ben_name}
        # Ada leaves the waiting table; Ben asks to play again himself (from tb, the game
        # ran on ta): he waits at a table of ta, Ada (on ta) is offered it
        ada.send({"type": "leave"})
        ben.send({"type": "join", "lobby": "private", "again": gid})
        waiting = ben.expect("table", timeout=15)
        assert waiting["open_seats"] == 1 and "offer" not in waiting
        offer = ada.expect("table", timeout=15)
        assert offer["offer"] is True and offer["invite"] == waiting["invite"]
        # Ben leaves it from tb: ta takes him off (asking again is no "busy" then)
        ben.send({"type": "leave"})
        ben.send({"type": "join", "lobby": "private", "again": gid})
        assert ben.expect("table", "error", timeout=15)["type"] == "table"
        # Ada accepts: the game starts on both, same seats
        ada.send({"type": "join", "lobby": "private", "again": gid})
        again = [w.expect("game_start", timeout=15) for w in (ada, ben)]
        new_id = again[0]["game_id"]
        assert again[1]["game_id"] == new_id != gid
        assert again[0]["names"] == first[0]["names"]  # seats not reshuffled
        for before, after in zip(first, again, strict=True):
            assert after["seat"] == before["seat"] and after["chat"] is True
        # the rematch runs on ta with Ben relayed: they still talk
        ben.send({"type": "chat", "game_id": new_id, "text": "revanche!"})
        assert ada.expect("chat", timeout=15)["text"] == "revanche!"
        presence_of(tb, new_id, ben_name, "here")


def _answer_any(game_id: str, wires: list[Wire]) -> None:
    """The person asked (a request not answered yet) answers with a local random bot."""
    from server.wire import LocalPlayer

    end = time.monotonic() + patience(20)
    while time.monotonic() < end:
        for wire in wires:
            asked = [m for m in wire.received if m["type"] == "request"]
            answered = {m.get("request_id") for m in wire.received if m["type"] == "sent"}
            if asked and asked[-1]["request_id"] not in answered:
                start = [m for m in wire.received if m["type"] == "game_start"][-1]
                player = LocalPlayer(str(start["game"]), "random")
                player.start(start)
                request = asked[-1]
                wire.send(
                    {
                        "type": "action",
                        "game_id": game_id,
                        "request_id": request["request_id"],
                        "action": player.answer(request),
                    }
                )
                wire.received.append({"type": "sent", "request_id": request["request_id"]})
                return
        for wire in wires:
            with contextlib.suppress(TimeoutError):
                wire.recv(timeout=0.05)
    raise AssertionError("no person was asked anything")


def _play_both(wires: list[Wire]) -> None:
    ends: list[Any] = [None] * len(wires)

    def run(i: int) -> None:
        ends[i] = play_until_end(wires[i], "cunegonda", timeout=120)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(wires))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(patience(130))
    assert all(e is not None for e in ends), ends
