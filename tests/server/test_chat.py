"""Table chat over the wire (no browser): who hears it, the limits, reports and the operator.

The rules tested: chat reaches the seats of people (and a bot only when it opted in with
``hello chat: true``), never a spectator (not before the spectator delay, not after it), never a
bot that did not ask, and a table of bots has none; a line is plain text after NFKC with no
control or invisible characters, at most 200 characters, at most 5 per 10 s per seat; a report
is stored for the operator, who alone reads it (organiser's token).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from cardtable.protocol import CHAT_MAX_CHARS, CHAT_RATE
from cardtable.server.chat import ChatError, ChatRoom, clean_text
from loopback import LOOPBACK
from server.wire import LocalPlayer, RunningServer, Wire, db_url, fast_settings, running_server

ADMIN = "operator-secret-token"
DELAY_MS = 400


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RunningServer]:
    """Long clocks: the game waits for the test (nobody has to answer while it chats)."""
    settings = fast_settings(
        db_url(tmp_path),
        admin_token=ADMIN,
        deadline_ms=60000,
        time_bank_ms=60000,
        person_deadline_ms=60000,
        person_time_bank_ms=60000,
    )
    with running_server(settings) as running:
        yield running


@dataclass
class Table:
    game_id: str
    ada: Wire
    ben: Wire
    mute_bot: Wire  # a registered bot that did not ask for chat
    chat_bot: Wire  # a registered bot with hello chat: true
    starts: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def wires(self) -> list[Wire]:
        return [self.ada, self.ben, self.mute_bot, self.chat_bot]


@pytest.fixture
def table(server: RunningServer) -> Iterator[Table]:
    """A private Kuhhandel table of two guests and two registered bots, spectator delay 400 ms."""
    tokens = {name: server.register(name) for name in ("Quiet", "Chatty")}
    with (
        Wire(server.ws) as ada,
        Wire(server.ws) as ben,
        Wire(server.ws) as quiet,
        Wire(server.ws) as chatty,
    ):
        assert ada.hello_guest("Ada")["type"] == "welcome"
        assert ben.hello_guest("Ben")["type"] == "welcome"
        assert quiet.hello_bot("Quiet", tokens["Quiet"])["type"] == "welcome"
        chatty.send(
            {
                "type": "hello",
                "protocol": 1,
                "bot": "Chatty",
                "token": tokens["Chatty"],
                "chat": True,
            }
        )
        assert chatty.expect("welcome", "error")["type"] == "welcome"
        ada.send(
            {
                "type": "join",
                "lobby": "private",
                "game": "kuhhandel",
                "create": {"seats": 4, "bots": [], "spectator_delay_ms": DELAY_MS},
            }
        )
        invite = ada.expect("table")["invite"]
        for wire in (ben, quiet, chatty):
            wire.send({"type": "join", "lobby": "private", "game": "kuhhandel", "invite": invite})
        starts = {}
        for name, wire in (("Ada", ada), ("Ben", ben), ("Quiet", quiet), ("Chatty", chatty)):
            starts[name] = wire.expect("game_start")
        game_id = starts["Ada"]["game_id"]
        assert {s["game_id"] for s in starts.values()} == {game_id}
        yield Table(game_id, ada, ben, quiet, chatty, starts)


def chat_frames(wire: Wire) -> list[dict[str, Any]]:
    return [m for m in wire.received if m["type"] == "chat"]


def test_chat_reaches_people_and_opted_in_bots_never_spectators_or_other_bots(
    server: RunningServer, table: Table
) -> None:
    assert table.starts["Ada"]["chat"] is True and table.starts["Ben"]["chat"] is True
    assert table.starts["Quiet"]["chat"] is False  # a bot that did not ask hears nothing
    assert table.starts["Chatty"]["chat"] is True
    with Wire(server.ws) as spectator:
        spectator.send(
            {"type": "hello", "protocol": 1, "spectate": table.game_id, "push_observations": True}
        )
        spectator.expect("welcome")
        start = spectator.expect("game_start")
        assert start["chat"] is False
        # a spectator may not chat: refused, it watches on
        spectator.send({"type": "chat", "game_id": table.game_id, "text": "hi all"})
        assert spectator.expect("error")["code"] == "spectator_cannot_act"

        table.ada.send({"type": "chat", "game_id": table.game_id, "text": "hello <b>Ben</b>"})
        table.ben.send({"type": "chat", "game_id": table.game_id, "preset": "gg"})
        table.chat_bot.send({"type": "chat", "game_id": table.game_id, "preset": "hello"})
        for wire in (table.ada, table.ben, table.chat_bot):
            for _ in range(3):
                wire.expect("chat")
            lines = chat_frames(wire)
            assert [(m["id"], m["from"]) for m in lines] == [(1, "Ada"), (2, "Ben"), (3, "Chatty")]
            # plain text exactly as said (the page shows it as text, never as HTML)
            assert lines[0]["text"] == "hello <b>Ben</b>" and "preset" not in lines[0]
            assert lines[1]["preset"] == "gg" and "text" not in lines[1]
        # a bot that did not opt in may not talk either
        table.mute_bot.send({"type": "chat", "game_id": table.game_id, "text": "beep"})
        assert table.mute_bot.expect("error")["code"] == "chat_off"

        # the game moves on after the chat: the seat asked answers, and the spectator gets that
        # move after the delay; by then it would have had the chat if the delayed feed carried
        # it. It never got any.
        before = max(
            [m["index"] for w in table.wires for m in w.received if m["type"] == "event"],
            default=-1,
        )
        answered_at = _answer_one_request(table)
        while spectator.expect("event", timeout=10)["index"] <= before:
            pass
        assert time.monotonic() - answered_at >= DELAY_MS / 1000 * 0.9  # it was delayed
        assert not chat_frames(spectator)
        assert not [m for m in table.mute_bot.received if m["type"] == "chat"]
        public = server.get(f"/api/tables/{table.game_id}/public")
        assert "Ben</b>" not in str(public)


def _answer_one_request(table: Table) -> float:
    """The seat with an open request answers it (a local random bot); returns when."""
    end = time.monotonic() + 10
    while time.monotonic() < end:
        for name, wire in zip(("Ada", "Ben", "Quiet", "Chatty"), table.wires, strict=True):
            asked = [m for m in wire.received if m["type"] == "request"]
            if asked:
                player = LocalPlayer("kuhhandel", "random")
                player.start(table.starts[name])
                request = asked[-1]
                wire.send(
                    {
                        "type": "action",
                        "game_id": table.game_id,
                        "request_id": request["request_id"],
                        "action": player.answer(request),
                    }
                )
                return time.monotonic()
        for wire in table.wires:
            _read_events(wire, timeout=0.05)
    raise AssertionError("no seat was asked anything")


def _read_events(wire: Wire, timeout: float) -> list[dict[str, Any]]:
    """Read what arrives within ``timeout``; returns everything received so far."""
    end = time.monotonic() + timeout
    try:
        while time.monotonic() < end:
            wire.recv(timeout=max(0.01, end - time.monotonic()))
    except TimeoutError:
        pass
    return wire.received


def test_limits_length_flood_and_bad_characters_are_refused_clearly(table: Table) -> None:
    ada, ben, gid = table.ada, table.ben, table.game_id
    ada.send({"type": "chat", "game_id": gid, "text": "x" * (CHAT_MAX_CHARS + 1)})
    error = ada.expect("error")
    assert error["code"] == "chat_too_long" and "200" in error["reason"]
    for bad in ("hi\u202eevil", "zero\u200bwidth", "bell\x07"):
        ada.send({"type": "chat", "game_id": gid, "text": bad})
        assert ada.expect("error")["code"] == "bad_chat", bad
    ada.send({"type": "chat", "game_id": gid, "text": "   \n\t "})
    assert ada.expect("error")["code"] == "bad_chat"
    ada.send({"type": "chat", "game_id": gid, "preset": "<script>"})  # not a preset code
    assert ada.expect("error")["code"] == "bad_message"
    # NFKC, white space folded: full-width letters and a line break arrive as plain text
    ada.send({"type": "chat", "game_id": gid, "text": "ｈｉ\nthere"})
    assert ben.expect("chat")["text"] == "hi there"
    # flood: 5 lines within 10 s from one seat, the 6th is refused (the line above counted)
    for i in range(CHAT_RATE - 1):
        ada.send({"type": "chat", "game_id": gid, "text": f"line {i}"})
    ada.send({"type": "chat", "game_id": gid, "text": "one too many"})
    error = ada.expect("error")
    assert error["code"] == "chat_rate" and "wait" in error["reason"]
    # the limit is per seat: Ben still talks; nobody got the refused lines
    ben.send({"type": "chat", "game_id": gid, "text": "a" * CHAT_MAX_CHARS})
    said = ada.expect("chat")
    while said["from"] != "Ben":
        said = ada.expect("chat")
    assert len(said["text"]) == CHAT_MAX_CHARS
    while ben.expect("chat")["from"] != "Ben":
        pass
    texts = [m.get("text") for m in chat_frames(ben)]
    assert "one too many" not in texts and len(chat_frames(ben)) == CHAT_RATE + 1


def test_a_report_reaches_the_operator_only(server: RunningServer, table: Table) -> None:
    ada, ben, gid = table.ada, table.ben, table.game_id
    ben.send({"type": "chat", "game_id": gid, "text": "you are a cheat"})
    line = ada.expect("chat")
    ada.send({"type": "chat_report", "game_id": gid, "id": line["id"], "reason": "insult"})
    assert ada.expect("chat_reported", "error") == {
        "type": "chat_reported",
        "game_id": gid,
        "id": line["id"],
    }
    ben.expect("chat")
    ben.send({"type": "chat_report", "game_id": gid, "id": line["id"]})  # its own line
    assert ben.expect("error")["code"] == "bad_chat"
    ada.send({"type": "chat_report", "game_id": gid, "id": 99})
    assert ada.expect("error")["code"] == "bad_chat"

    url = f"{server.http}/api/chat/reports"
    assert LOOPBACK.get(url).status_code == 401  # not without the organiser's token
    wrong = LOOPBACK.get(url, headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 401
    auth = {"Authorization": f"Bearer {ADMIN}"}
    reports = LOOPBACK.get(url, headers=auth).json()["reports"]
    assert len(reports) == 1
    report = reports[0]
    assert report["game_id"] == gid and report["reporter"] == "Ada"
    assert report["reason"] == "insult"
    assert report["message"]["from"] == "Ben" and report["message"]["text"] == "you are a cheat"
    one = LOOPBACK.get(f"{url}/{report['id']}", headers=auth).json()
    assert one["message"] == report["message"]
    # the game's chat is kept for the operator (written behind the game: wait for it)
    end = time.monotonic() + 10
    while True:
        lines = LOOPBACK.get(f"{server.http}/api/games/{gid}/chat", headers=auth).json()["lines"]
        if lines or time.monotonic() > end:
            break
        time.sleep(0.05)
    assert [(x["from"], x["text"]) for x in lines] == [("Ben", "you are a cheat")]
    assert LOOPBACK.get(f"{server.http}/api/games/{gid}/chat").status_code == 401


def test_a_table_of_bots_has_no_chat(server: RunningServer) -> None:
    token = server.register("Lonely")
    with Wire(server.ws) as bot:
        bot.send({"type": "hello", "protocol": 1, "bot": "Lonely", "token": token, "chat": True})
        bot.expect("welcome")
        bot.send({"type": "join", "lobby": "practice", "game": "cunegonda", "opponents": "random"})
        start = bot.expect("game_start")
        assert start["chat"] is False
        bot.send({"type": "chat", "game_id": start["game_id"], "preset": "hello"})
        error = bot.expect("error")
        assert error["code"] == "chat_off"
        assert not chat_frames(bot)


def test_a_person_alone_with_bots_has_no_chat(server: RunningServer) -> None:
    with Wire(server.ws) as guest:
        guest.hello_guest("Solo")
        guest.send({"type": "join", "lobby": "practice", "game": "cunegonda"})
        start = guest.expect("game_start")
        assert start["chat"] is False
        guest.send({"type": "chat", "game_id": start["game_id"], "text": "anyone?"})
        assert guest.expect("error")["code"] == "chat_off"


@pytest.mark.parametrize("lobby", ["ranked", "tournament"])
def test_chat_is_off_at_ranked_and_tournament_tables(lobby: str) -> None:
    """Even with two people seated (such tables only have bots today): off by lobby."""
    seats = [
        SimpleNamespace(index=0, name="Ada", conn=object(), person=True),
        SimpleNamespace(index=1, name="Ben", conn=object(), person=True),
    ]
    fake = SimpleNamespace(
        id="g", seats=seats, setup=SimpleNamespace(lobby=lobby), seat_of=lambda c: 0
    )
    room = ChatRoom(fake)  # type: ignore[arg-type]
    assert not room.on and not room.open_to(0)
    with pytest.raises(ChatError) as info:
        room.say(seats[0].conn, {"text": "hi"})
    assert info.value.code == "chat_off"


def test_clean_text_is_plain_nfkc_text() -> None:
    assert clean_text("  ﬁne\r\n  day ") == "fine day"
    assert clean_text("<img src=x onerror=alert(1)>") == "<img src=x onerror=alert(1)>"
    assert clean_text("👩\u200d💻") == "👩\u200d💻"  # an emoji sequence keeps its joiner
    for bad in ("\u2066x", "\ue000", "a\x00b", "\u200e"):
        with pytest.raises(ChatError) as info:
            clean_text(bad)
        assert info.value.code == "bad_chat"
