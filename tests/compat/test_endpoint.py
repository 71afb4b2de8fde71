"""The Kuh-Handel endpoint on a real server and port, spoken to frame by frame
(kuh-handel-wire.md §1 routes and lobbies, §2 messages, §3 flow, §4 faults)."""

from __future__ import annotations

import json
import re
import socket
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from cardtable.core import Record, verify
from cardtable.core.decision import decision_at
from loopback import LOOPBACK

from .khclient import (
    KhClient,
    KhServer,
    Rejected,
    Script,
    kh_server,
    kh_settings,
    play,
    reply,
)
from .shapes import state_message

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KhServer]:
    with kh_server(kh_settings(tmp_path_factory.mktemp("kh"))) as running:
        yield running


def _registered(server: KhServer, name: str) -> str:
    assert server.register(name) in (201, 409)
    return name


def _end(message: dict[str, Any] | None) -> dict[str, Any]:
    assert message is not None, "the game ended without End"
    body: dict[str, Any] = message["payload"]["update"]["End"]
    return body


def _connect_retry(server: KhServer, lobby: str, name: str, **kw: Any) -> KhClient:
    """Connect, retrying while the server still holds the previous connection (409)."""
    end = time.monotonic() + 5
    while True:
        try:
            return server.connect(lobby, name, **kw)
        except Rejected as exc:
            if exc.status != 409 or time.monotonic() > end:
                raise
            time.sleep(0.05)


# --------------------------------------------------------------------------- §1.2 routes


def test_s1_2_register_without_body_201_then_409(server: KhServer) -> None:
    # exactly what pyhandel sends: a POST with no body and no Content-Length
    raw = (
        "POST /kuh-handel/register?player_id=rawbot&token=t0k HTTP/1.1\r\n"
        f"host: 127.0.0.1:{server.port}\r\naccept: */*\r\nConnection: close\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(raw.encode())
        head = sock.recv(4096).decode()
    assert head.startswith("HTTP/1.1 201"), head
    assert server.register("rawbot", "other") == 409
    assert server.register("my_server_bot_1") == 409
    assert server.register("house-expert-1") == 409
    url = f"{server.http}/kuh-handel/register"
    assert LOOPBACK.post(url, params={"player_id": "x1"}).status_code == 400
    assert LOOPBACK.post(url, params={"token": "x1"}).status_code == 400
    assert LOOPBACK.get(url, params={"player_id": "x1", "token": "t"}).status_code == 405


def test_s1_2_handshake_refusals_come_before_the_upgrade(server: KhServer) -> None:
    name = _registered(server, "shaker")
    with pytest.raises(Rejected) as bad:
        server.connect("interactive_game", name, token="wrong")
    assert bad.value.status == 401
    with pytest.raises(Rejected) as unknown:
        server.connect("interactive_game", "nobody_here")
    assert unknown.value.status == 401
    base = f"ws://127.0.0.1:{server.port}/kuh-handel/interactive_game"
    with pytest.raises(Rejected) as missing:
        KhClient(f"{base}?player_id={name}&token=secret")
    assert missing.value.status == 400
    with pytest.raises(Rejected) as notbool:
        KhClient(f"{base}?player_id={name}&token=secret&raise_faulty_action_warning=perhaps")
    assert notbool.value.status == 400
    # raise_faulty_action_warning is read as a bool from anything (1/0)
    first = KhClient(f"{base}?player_id={name}&token=secret&raise_faulty_action_warning=1")
    try:
        with pytest.raises(Rejected) as twice:
            server.connect("interactive_game", name)
        assert twice.value.status == 409
    finally:
        first.close()
    # once the first connection is gone, the name may connect again (no stale 409)
    again = _connect_retry(server, "interactive_game", name)
    again.close()


# --------------------------------------------------------------------------- §2, §3 a game


ALL_TYPES = {
    "DrawOrTrade",
    "Trade",
    "ProvideBidding",
    "BuyOrSell",
    "SendMoney",
    "RespondToTrade",
    "GameUpdate:Start",
    "GameUpdate:Inflation",
    "GameUpdate:Auction",
    "GameUpdate:Trade",
    "GameUpdate:ExposePlayer",
    "GameUpdate:End",
}


def _high(message: dict[str, Any]) -> int:
    bids = message["payload"]["state"]["bids"]
    return max((b[1].get("Bid", 0) for b in bids), default=0)


def _eager(message: dict[str, Any], script: Script) -> dict[str, Any]:
    """Bid over everyone up to a little more than it has: it wins auctions it cannot pay."""
    high = _high(message)
    if high + 1 <= sum(script.notes()) + 60:
        return reply("Bidding", {"Bid": high + 1})
    return reply("Bidding", {"Pass": []})


def test_s2_every_message_has_the_spec_shape_and_the_flow_is_strict(server: KhServer) -> None:
    name = _registered(server, "shapes")
    seen: set[str] = set()
    games = 0
    while not seen >= ALL_TYPES and games < 8:
        games += 1
        client = _connect_retry(server, "server_bot_game", name)
        script = Script(name, {"ProvideBidding": _eager, "BuyOrSell": _buy})
        end = play(client, script)
        kinds = [state_message(m) for m in client.messages]
        seen.update(kinds)
        assert kinds[0] == "GameUpdate:Start", "Start comes first"
        assert kinds[-1] == "GameUpdate:End" and kinds.count("GameUpdate:End") == 1
        start = client.messages[0]["payload"]["update"]["Start"]
        players = start["players_in_turn_order"]
        assert players[0] == name and 3 <= len(players) <= 6
        assert all(re.fullmatch(r"server_bot_\d+_risk_0\.5", p) for p in players[1:])
        ranking = _end(end)["ranking"]
        assert sorted(p for p, _ in ranking) == sorted(players)
        # nothing after End: the server closes, no pings, no binary frames
        assert client.recv(timeout=5) is None
        assert client.pings == []
    assert seen >= ALL_TYPES, f"never saw {ALL_TYPES - seen} in {games} games"


def _buy(message: dict[str, Any], script: Script) -> dict[str, Any]:
    return reply("AuctionDecision", {"Buy": []})


# --------------------------------------------------------------------------- §3.5, §4.4


def _payer(message: dict[str, Any], script: Script) -> dict[str, Any]:
    """Bluffs while solvent, underpays, or offers a note it cannot back: all corrected."""
    amount = message["payload"]["amount"]
    cash = sum(script.notes())
    script.asked["paid"] = script.asked.get("paid", 0) + 1
    if amount > cash:
        return reply("SendMoney", {"Amount": [10]})
    if script.asked["paid"] % 2:
        return reply("SendMoney", {"WasBluff": []})
    return reply("SendMoney", {"Amount": []})


def _play_payer(server: KhServer, name: str, warnings: bool) -> tuple[KhClient, dict[str, Any]]:
    for _ in range(8):
        client = _connect_retry(server, "server_bot_game", name, warnings=warnings)
        script = Script(name, {"ProvideBidding": _eager, "SendMoney": _payer})
        end = _end(play(client, script))
        if script.asked.get("paid", 0) >= 3:
            return client, end
    raise AssertionError("never paid three times in eight games")


def test_s4_4_bluff_underpayment_and_real_bluff_are_corrected_and_reported(
    server: KhServer,
) -> None:
    name = _registered(server, "payer")
    client, end = _play_payer(server, name, warnings=True)
    illegal = end["illegal_moves_made"]
    prefix = f"rectified action of:{name}, "
    assert all(text.startswith(prefix) for text in illegal)
    solvent_bluff = [t for t in illegal if t.startswith(prefix + "WasBluff, Amount([")]
    underpaid = [t for t in illegal if t.startswith(prefix + "Amount([]), Amount([")]
    assert solvent_bluff or underpaid
    # after every SendMoney the payer hears what really happened: the corrected notes in a
    # Private auction update (paid) or its own wallet exposed (could not pay)
    msgs = client.messages
    for i, m in enumerate(msgs):
        if m["type"] != "SendMoney":
            continue
        amount = m["payload"]["amount"]
        after = next(
            x["payload"]["update"]
            for x in msgs[i + 1 :]
            if x["type"] == "GameUpdate"
            and ("ExposePlayer" in x["payload"]["update"] or "Auction" in x["payload"]["update"])
        )
        if "ExposePlayer" in after:
            assert after["ExposePlayer"]["player"] == name
            assert f"{prefix}Amount([10]), WasBluff" in illegal
        else:
            transfer = after["Auction"]["NormalAuction"]
            assert transfer["from"] == name
            paid = transfer["money_transfer"]["Private"]["amount"]
            assert sum(paid) >= amount and paid, "an underpayment is topped up"
    # an exposed payer's auction starts again from scratch (§3.5 step 2): the first question
    # after the exposure is in the first round of a fresh auction
    seats = len(msgs[0]["payload"]["update"]["Start"]["players_in_turn_order"])
    for i, m in enumerate(msgs):
        if m["type"] == "GameUpdate" and "ExposePlayer" in m["payload"]["update"]:
            nxt = next((x for x in msgs[i + 1 :] if x["type"] != "GameUpdate"), None)
            if nxt is not None and nxt["type"] == "ProvideBidding":
                assert len(nxt["payload"]["state"]["bids"]) < seats - 1


def test_s4_4_corrections_are_not_reported_without_the_warning_flag(server: KhServer) -> None:
    name = _registered(server, "quietpayer")
    _, end = _play_payer(server, name, warnings=False)
    assert end["illegal_moves_made"] == []
    detail = server.game_of(name)
    assert any(f["code"] == "rectified" for f in detail["faults"]), "the store still has them"


# --------------------------------------------------------------------------- §4.1, §4.2 faults


def test_s4_1_a_timeout_is_answered_by_the_fallback_and_the_late_reply_dropped(
    server: KhServer,
) -> None:
    name = _registered(server, "sleepy")
    state = {"skipped": False, "gap": 0.0, "t": 0.0}

    def first_turn(message: dict[str, Any], script: Script) -> Any:
        if not state["skipped"]:
            state["skipped"] = True
            state["t"] = time.monotonic()
            return None  # no reply: the server must not wait for ever
        return reply("PlayerTurnDecision", {"Draw": []})

    client = _connect_retry(server, "server_bot_game", name)
    script = Script(name, {"DrawOrTrade": first_turn})
    # wait for the unanswered question's successor, then send the late reply first
    while not state["skipped"]:
        message = client.recv()
        assert message is not None
        answer = script.answer(message)
        if answer is not None:
            client.send(answer)
    nxt = client.recv()
    assert nxt is not None
    state["gap"] = time.monotonic() - state["t"]
    client.send(reply("PlayerTurnDecision", {"Draw": []}))  # late: must be dropped
    client.send(script.answer(nxt))
    end = _end(play(client, script))
    assert state["gap"] >= server.settings.kh_reply_timeout_ms / 1000 * 0.9
    assert name in [p for p, _ in end["ranking"]]
    # timeouts are not illegal moves (§4.1); the only entries are its bad forced trades
    assert all("InitialTrade {" in text for text in end["illegal_moves_made"])
    detail = server.game_of(name)
    codes = [f["code"] for f in detail["faults"] if f["seat"] == 0]
    assert codes.count("timeout") == 1 and "bad_reply" not in codes
    assert detail["seats_detail"][0]["taken_over"] is False
    # the fault's decision is the seat's, as `cardtable replay --at` counts (issue 35)
    fault = next(f for f in detail["faults"] if f["seat"] == 0 and f["code"] == "timeout")
    decision = decision_at(detail["record"], 0, fault["decision"])
    assert decision.request.kind == "turn" and decision.upto == fault["move"]


def _fault_game(server: KhServer, name: str, misbehave: Any, after: int = 3) -> dict[str, Any]:
    """Play a server_bot game that misbehaves at the ``after``-th message; returns the stored
    game once it ended."""
    client = _connect_retry(server, "server_bot_game", name)
    count = {"n": 0}
    script = Script(name)
    try:
        while True:
            message = client.recv()
            if message is None:
                break
            count["n"] += 1
            if (
                "End" in message["payload"].get("update", {})
                if message["type"] == "GameUpdate"
                else False
            ):
                break
            if count["n"] == after:
                if misbehave(client, message) == "stop":
                    break
                continue
            client.send(script.answer(message))
    finally:
        client.close()
    return server.game_of(name)


@pytest.mark.parametrize(
    ("case", "code"),
    [
        ("not_json", "not_json"),
        ("binary", "disconnected"),
        ("oversized", "disconnected"),
        ("vanish", "disconnected"),
    ],
)
def test_s4_2_a_client_that_breaks_the_connection_is_replaced_and_the_game_ends(
    server: KhServer, case: str, code: str
) -> None:
    name = _registered(server, f"broken_{case}")

    def misbehave(client: KhClient, message: dict[str, Any]) -> str | None:
        if case == "not_json":
            client.send_text("this is not JSON")
            return None  # the server closes; recv() then gives None
        if case == "binary":
            client.send_binary(b"\x00\x01")
            return None
        if case == "oversized":
            client.send_text(json.dumps({"type": "NoAction", "pad": "x" * (300 * 1024)}))
            return None
        client.drop()  # vanish mid-game without a close frame
        return "stop"

    detail = _fault_game(server, name, misbehave)
    assert detail["status"] == "finished", "the game went on with the fallback"
    seat = detail["seats_detail"][0]
    assert seat["name"] == name and seat["taken_over"] is True and seat["place"] is not None
    assert code in [f["code"] for f in detail["faults"]]
    record = Record.from_json(detail["record"])
    assert verify(record)[0]
    # the name is free again at once
    _connect_retry(server, "interactive_game", name).close()


def test_s4_2_a_wrong_variant_costs_only_that_decision(server: KhServer) -> None:
    name = _registered(server, "confused")
    client = _connect_retry(server, "server_bot_game", name)
    wrong = {"n": 0}

    def bidding_instead(message: dict[str, Any], script: Script) -> Any:
        wrong["n"] += 1
        if wrong["n"] == 1:
            return reply("Bidding", {"Bid": 10})  # the wrong type for DrawOrTrade
        if wrong["n"] == 2:
            return {"type": "PlayerTurnDecision", "payload": {"decision": {"Fly": []}}}
        return reply("PlayerTurnDecision", {"Draw": []})

    end = _end(play(client, Script(name, {"DrawOrTrade": bidding_instead})))
    assert wrong["n"] >= 3, "the connection stayed open after the wrong variants"
    # a wrong variant is not an illegal move; the only entries are its bad forced trades
    assert all("InitialTrade {" in text for text in end["illegal_moves_made"])
    detail = server.game_of(name)
    assert [f["code"] for f in detail["faults"] if f["seat"] == 0].count("bad_reply") == 2
    assert detail["seats_detail"][0]["taken_over"] is False


def test_s4_7_no_pings_even_when_the_server_pings_others(tmp_path: Path) -> None:
    settings = kh_settings(tmp_path)
    with kh_server(settings, ping_interval=0.2) as srv:
        srv.register("waiter")
        client = srv.connect("interactive_game", "waiter")
        try:
            with pytest.raises(TimeoutError):
                client.recv_frame(timeout=1.0)
            assert client.pings == []
        finally:
            client.close()


# --------------------------------------------------------------------------- §1.3, §1.5 pvp


def test_s1_5_pvp_results_are_stored_rated_and_replayable(server: KhServer) -> None:
    names = [_registered(server, f"pvp{i}") for i in range(3)]

    def one(name: str) -> dict[str, Any]:
        client = _connect_retry(server, "pvp_games", name)
        return _end(play(client, Script(name)))

    with ThreadPoolExecutor(3) as pool:
        ends = list(pool.map(one, names))
    ranking = ends[0]["ranking"]
    assert all(e["ranking"] == ranking for e in ends), "one table, one ranking"
    text = LOOPBACK.get(f"{server.http}/kuh-handel/get_results").text
    results = json.loads(text)
    assert list(results) == sorted(results) and ": " not in text and ", " not in text
    order = [p for p, _ in ranking]
    for name in names:
        assert results[name][-1] == order.index(name)
    rate = LOOPBACK.get(f"{server.http}/kuh-handel/games_per_second")
    assert rate.headers["content-type"].startswith("text/html")
    assert float(rate.text) > 0
    games = server.json("/api/games?player=pvp0")["games"]
    game = next(g for g in games if g["lobby"] == "kh-pvp")
    assert game["rules"] == "competition" and game["rated"] is True
    record = Record.from_json(server.json(f"/api/games/{game['id']}/record"))
    assert verify(record)[0] and set(record.names) == set(order)
    board = server.json("/api/leaderboard?game=kuhhandel&rules=competition")
    listed = {e["name"] for e in board["entries"]}
    assert set(names) <= listed


def test_kh_house_seats_rotate_turns_the_seats_on_one_deal(tmp_path: Path) -> None:
    """``kh_house_seats = "rotate"``: over the n games of a cycle the client sits in every seat
    (seat 0 starts under competition rules), with the same house bots and the same deal."""
    settings = kh_settings(
        tmp_path,
        kh_house_seats="rotate",
        kh_min_seats=3,
        kh_max_seats=3,
        kh_random_fill=False,
        kh_house_bots="random",
    )
    with kh_server(settings) as server:
        name = _registered(server, "rotor")
        seats: list[int] = []
        houses: list[list[str]] = []
        for _ in range(3):
            client = _connect_retry(server, "server_bot_game", name)
            play(client, Script(name))
            order = client.messages[0]["payload"]["update"]["Start"]["players_in_turn_order"]
            seats.append(order.index(name))
            houses.append(sorted(p for p in order if p != name))
        assert seats == [0, 1, 2]
        assert houses[0] == houses[1] == houses[2]
        listed = LOOPBACK.get(f"{server.http}/api/games?limit=10").json()["games"]
        assert len(listed) == 3
        records = [LOOPBACK.get(f"{server.http}/api/games/{g['id']}/record").json() for g in listed]
        assert len({r["seed"] for r in records}) == 1  # one deal, three seatings


def test_an_unknown_kh_house_seats_value_is_refused(tmp_path: Path) -> None:
    """The server does not start with a value it does not know (the error names the setting)."""
    from cardtable.server.compat.lobby import KuhHandel
    from cardtable.server.store.db import Store

    settings = kh_settings(tmp_path, kh_house_seats="sideways")
    with ThreadPoolExecutor(1) as pool, pytest.raises(ValueError, match="kh_house_seats"):
        KuhHandel(settings, Store(settings.db), db_executor=pool)
