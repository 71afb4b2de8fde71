"""Hosted bots end to end on a real server (issue 40): an author uploads a Python and a C bot,
chooses the version, a hosted-bot worker builds and validates it in the sandbox, plays it in the
ranked lobby through the client library (``cardtable bot --cmd``'s path), and the author reads
the game's stderr; another author reads none of it."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hosted_bots import c_bot, python_bot, tar_gz, zip_bytes

from cardtable.hosted import HostedWorker
from loopback import LOOPBACK
from server.wire import RunningServer, db_url, fast_settings, running_server

pytestmark = pytest.mark.timeout(300)
ADMIN = "organiser-secret"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    path = tmp_path_factory.mktemp("hosted")
    settings = fast_settings(db_url(path), deadline_ms=4000, time_bank_ms=4000, admin_token=ADMIN)
    with running_server(settings) as running:
        yield running


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def upload(server: RunningServer, name: str, token: str, archive: bytes) -> Any:
    return LOOPBACK.post(
        f"{server.http}/api/bots/{name}/versions", content=archive, headers=auth(token)
    )


def worker(server: RunningServer, cache: Path) -> HostedWorker:
    return HostedWorker(server.http, ADMIN, cache, games=1)


@pytest.mark.parametrize(
    ("name", "files", "pack"),
    [("hostpy", python_bot("hostpy"), tar_gz), ("hostc", c_bot("hostc"), zip_bytes)],
    ids=["python-tar.gz", "c-zip"],
)
def test_upload_validate_and_play_ranked_then_read_the_stderr(
    server: RunningServer, open_dir: Path, name: str, files: dict[str, bytes], pack: Any
) -> None:
    token = server.register(name)
    archive = pack(files)
    reply = upload(server, name, token, archive)
    assert reply.status_code == 201, reply.text
    version = reply.json()
    assert version["version"] == 1 and version["status"] == "new"
    assert version["sha256"] == hashlib.sha256(archive).hexdigest()
    chosen = LOOPBACK.put(
        f"{server.http}/api/bots/{name}/hosted", json={"version": 1}, headers=auth(token)
    )
    assert chosen.status_code == 200, chosen.text
    hosted = worker(server, open_dir)

    first = hosted.run_round()  # a new version: its validation game first
    assert first[name]["validated"] is True, first[name]
    listed = LOOPBACK.get(f"{server.http}/api/bots/{name}/versions", headers=auth(token)).json()
    v1 = listed["versions"][0]
    assert v1["status"] == "valid" and v1["active"], v1
    validation_game = v1["validation"]["game_id"]
    assert server.get(f"/api/games/{validation_game}")["lobby"] == "practice"

    second = hosted.run_round()  # validated: ranked games
    reports = second[name]
    assert len(reports) == 1 and not reports[0].faults, reports
    game = server.get(f"/api/games/{reports[0].game_id}")
    assert game["lobby"] == "ranked" and game["status"] == "finished", game

    logs = LOOPBACK.get(f"{server.http}/api/bots/{name}/logs", headers=auth(token)).json()
    assert reports[0].game_id in {entry["game_id"] for entry in logs["logs"]}
    text = LOOPBACK.get(
        f"{server.http}/api/bots/{name}/logs/{reports[0].game_id}", headers=auth(token)
    )
    assert text.status_code == 200
    if name == "hostpy":  # the Python bot says hello on stderr from inside the sandbox
        assert "hosted hello from /bot/main.py" in text.text, text.text

    # the author downloads the version it uploaded
    got = LOOPBACK.get(f"{server.http}/api/bots/{name}/versions/1/archive", headers=auth(token))
    assert got.status_code == 200 and got.content == archive

    # another author reads none of it, and the organiser reads it all
    other = server.register(f"{name}-other")
    for path in ("versions", "versions/1/archive", "logs", f"logs/{reports[0].game_id}"):
        refused = LOOPBACK.get(f"{server.http}/api/bots/{name}/{path}", headers=auth(other))
        assert refused.status_code == 403, (path, refused.status_code)
        anonymous = LOOPBACK.get(f"{server.http}/api/bots/{name}/{path}")
        assert anonymous.status_code == 401, (path, anonymous.status_code)
        organiser = LOOPBACK.get(f"{server.http}/api/bots/{name}/{path}", headers=auth(ADMIN))
        assert organiser.status_code == 200, (path, organiser.status_code)
    # nor may another author upload to it or choose its version
    assert upload(server, name, other, archive).status_code == 403
    put = LOOPBACK.put(
        f"{server.http}/api/bots/{name}/hosted", json={"version": 1}, headers=auth(other)
    )
    assert put.status_code == 403


def _link_tar(kind: str) -> bytes:
    import io
    import tarfile

    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        data = b'{"name": "x", "language": "python", "entry": "bot.py"}'
        info = tarfile.TarInfo("cardtable.json")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
        member = tarfile.TarInfo("bot.py")
        if kind == "symlink":
            member.type, member.linkname = tarfile.SYMTYPE, "/etc/passwd"
        elif kind == "hardlink":
            member.type, member.linkname = tarfile.LNKTYPE, "cardtable.json"
        else:
            member.type = tarfile.CHRTYPE
        tar.addfile(member)
    return out.getvalue()


BAD = {
    "absolute path": (
        lambda: tar_gz({**python_bot(), "/etc/cron.d/x": b"x"}),
        422,
        "an absolute path",
    ),
    "dot-dot": (lambda: zip_bytes({**python_bot(), "../escape.py": b"x"}), 422, "'..'"),
    "symlink": (lambda: _link_tar("symlink"), 422, "a link"),
    "hard link": (lambda: _link_tar("hardlink"), 422, "a link"),
    "device": (lambda: _link_tar("device"), 422, "not a regular file"),
    "no manifest": (lambda: tar_gz({"bot.py": b"x"}), 422, "no cardtable.json"),
    "bad language": (
        lambda: tar_gz({"cardtable.json": b'{"name":"x","language":"cobol","entry":"a"}'}),
        422,
        "language must be one of",
    ),
    "entry missing": (
        lambda: tar_gz({"cardtable.json": b'{"name":"x","language":"python","entry":"a.py"}'}),
        422,
        "is not in the archive",
    ),
    "not an archive": (lambda: b"#!/bin/sh\necho hi\n", 422, "neither a tar.gz nor a zip"),
    "too many files": (
        lambda: tar_gz({**python_bot(), **{f"f{i}.txt": b"" for i in range(201)}}),
        413,
        "more than 200 files",
    ),
    "unpacks too large": (  # a compression bomb: 17 MiB of zeros in a few kB
        lambda: tar_gz({**python_bot(), "zeros.bin": bytes(17 * 1024 * 1024)}),
        413,
        "unpacks to more than",
    ),
    "archive too large": (lambda: os_random(1024 * 1024 + 1), 413, "exceeds the limit"),
}


def os_random(size: int) -> bytes:
    import os

    return b"\x1f\x8b" + os.urandom(size - 2)


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_archive_is_refused_with_a_clear_error_and_nothing_is_stored(
    server: RunningServer, case: str
) -> None:
    make, status, words = BAD[case]
    name = "bad-" + case.replace(" ", "-")
    token = server.register(name)
    reply = upload(server, name, token, make())
    assert reply.status_code == status, (reply.status_code, reply.text)
    assert words in reply.json()["detail"], reply.json()
    listed = LOOPBACK.get(f"{server.http}/api/bots/{name}/versions", headers=auth(token))
    assert listed.json()["versions"] == []


def test_the_workers_login_holds_only_for_a_bot_with_a_chosen_version(
    server: RunningServer,
) -> None:
    """Attack: log in as a bot with a made-up ``hosted.`` token, or as a bot that is not hosted
    (or no longer), with a token derived from the right organiser's token."""
    from cardtable.server.submissions.login import hosted_token
    from server.wire import Wire

    token = server.register("hostlogin")

    def hello(with_token: str, name: str = "hostlogin") -> dict[str, Any]:
        with Wire(server.ws) as wire:
            return wire.hello_bot(name, with_token)

    server.register("nothosted")
    refused = hello(hosted_token(ADMIN, "nothosted"), "nothosted")  # no version chosen
    assert refused["code"] == "bad_token", refused
    assert upload(server, "hostlogin", token, tar_gz(python_bot())).status_code == 201
    put = LOOPBACK.put(
        f"{server.http}/api/bots/hostlogin/hosted", json={"version": 1}, headers=auth(token)
    )
    assert put.status_code == 200
    got = hello(hosted_token(ADMIN, "hostlogin"))
    assert got["type"] == "welcome", got
    assert hello(hosted_token("a guessed organiser token", "hostlogin"))["type"] == "error"
    assert hello(hosted_token(ADMIN, "someone-else"))["type"] == "error"
    stopped = LOOPBACK.delete(f"{server.http}/api/bots/hostlogin/hosted", headers=auth(token))
    assert stopped.status_code == 200
    assert hello(hosted_token(ADMIN, "hostlogin"))["type"] == "error"
    assert hello(token)["type"] == "welcome"  # its own token, as ever


def test_a_games_stderr_is_kept_bounded_with_its_last_lines(
    server: RunningServer, open_dir: Path
) -> None:
    noisy = (
        "import sys\n"
        "for i in range(100):\n"
        "    print(f'line {i:03d} ' + 'x' * 2000, file=sys.stderr)\n"
        "print('the last words', file=sys.stderr, flush=True)\n"
        "import bot\n"
        "bot.main()\n"
    )
    files = {**python_bot("noisy"), "main.py": noisy.encode()}
    token = server.register("noisy")
    assert upload(server, "noisy", token, tar_gz(files)).status_code == 201
    put = LOOPBACK.put(
        f"{server.http}/api/bots/noisy/hosted", json={"version": 1}, headers=auth(token)
    )
    assert put.status_code == 200
    outcome = worker(server, open_dir).run_round()  # the validation game
    assert outcome["noisy"]["validated"] is True, outcome
    (entry,) = LOOPBACK.get(f"{server.http}/api/bots/noisy/logs", headers=auth(token)).json()[
        "logs"
    ]
    assert entry["truncated"] is True and entry["bytes"] > 200_000, entry
    text = LOOPBACK.get(
        f"{server.http}/api/bots/noisy/logs/{entry['game_id']}", headers=auth(token)
    ).text
    assert len(text.encode()) <= server.settings.hosted_log_bytes
    assert text.rstrip().endswith("the last words") and "line 099" in text
    assert "line 000" not in text  # the first lines are the ones cut


@pytest.mark.parametrize("kind", ["c-that-does-not-compile", "python-that-crashes"])
def test_a_version_that_fails_validation_is_not_played_and_the_author_sees_why(
    server: RunningServer, open_dir: Path, kind: str
) -> None:
    name = "bad" + kind.split("-")[0]
    if kind.startswith("c"):
        files = {**c_bot(name), "bot.c": b"int main(void) { return missing_symbol; }\n"}
    else:
        crash = "import sys\nprint('cannot go on', file=sys.stderr)\nsys.exit(4)\n"
        files = {**python_bot(name), "main.py": crash.encode()}
    token = server.register(name)
    assert upload(server, name, token, tar_gz(files)).status_code == 201
    put = LOOPBACK.put(
        f"{server.http}/api/bots/{name}/hosted", json={"version": 1}, headers=auth(token)
    )
    assert put.status_code == 200
    hosted = worker(server, open_dir)
    assert hosted.run_round()[name]["validated"] is False
    (version,) = LOOPBACK.get(
        f"{server.http}/api/bots/{name}/versions", headers=auth(token)
    ).json()["versions"]
    assert version["status"] == "invalid", version
    shown = version["validation"]
    if kind.startswith("c"):
        assert "gcc failed" in shown["error"] and "missing_symbol" in shown["error"], shown
    else:
        assert shown["faults"] and "exit code 4" in shown["faults"][0], shown
        assert "cannot go on" in shown["faults"][0], shown
    again = hosted.run_round()[name]  # an invalid version is not played
    assert again == "version 1 is invalid: not played", again


@pytest.mark.parametrize("linking", ["static", "dynamic"])
def test_a_prebuilt_binary_is_validated_and_plays_ranked_in_the_sandbox(
    server: RunningServer, open_dir: Path, linking: str
) -> None:
    """Language ``binary``: the C starter kit compiled outside the sandbox (gcc on the host,
    statically linked or against the host's libc in /usr), uploaded as the program itself."""
    import shutil
    import subprocess

    from hosted_bots import KITS, manifest

    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("gcc is missing (Debian package gcc): no binary to upload")
    program = open_dir / f"kit-{linking}"
    argv = [gcc, "-O2", "-o", str(program), str(KITS / "c" / "bot.c"), "-lm"]
    if linking == "static":
        argv.insert(1, "-static")
    made = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    if linking == "static" and made.returncode != 0 and "-lc" in made.stderr:
        pytest.skip(f"no static libc here (Debian package libc6-dev): {made.stderr[-200:]}")
    assert made.returncode == 0, made.stderr
    name = f"hostbin-{linking}"
    files = {"cardtable.json": manifest(name, "binary", "bin/kit"), "bin/kit": program.read_bytes()}
    token = server.register(name)
    reply = upload(server, name, token, tar_gz(files))  # tar_gz writes mode 0644: no +x given
    assert reply.status_code == 201, reply.text
    assert reply.json()["language"] == "binary"
    chosen = LOOPBACK.put(
        f"{server.http}/api/bots/{name}/hosted", json={"version": 1}, headers=auth(token)
    )
    assert chosen.status_code == 200, chosen.text
    hosted = worker(server, open_dir / "cache")

    first = hosted.run_round()
    assert first[name]["validated"] is True, first[name]
    assert first[name]["faults"] == [], first[name]
    second = hosted.run_round()[name]
    assert len(second) == 1 and not second[0].faults, second
    game = server.get(f"/api/games/{second[0].game_id}")
    assert game["lobby"] == "ranked" and game["status"] == "finished", game
    assert second[0].decisions > 0 and second[0].place is not None, second[0]


def test_the_server_refuses_rated_joins_of_a_hosted_bot_whose_version_is_not_validated(
    server: RunningServer,
) -> None:
    """Attack: a worker (or whoever holds the organiser's token) plays a hosted bot's version
    that never passed validation, or failed it, in ranked, tournament or rated games: the server
    itself refuses each such join with ``not_validated``; unrated practice (the validation game)
    stays open, and the author's own token is a connected bot as ever."""
    from cardtable.server.submissions.login import hosted_token
    from server.wire import Wire

    name = "gatekept"
    token = server.register(name)
    assert upload(server, name, token, tar_gz(python_bot(name))).status_code == 201
    put = LOOPBACK.put(
        f"{server.http}/api/bots/{name}/hosted", json={"version": 1}, headers=auth(token)
    )
    assert put.status_code == 200

    def join(join_message: dict[str, Any], with_token: str | None = None) -> dict[str, Any]:
        with Wire(server.ws) as wire:
            hello = wire.hello_bot(name, with_token or hosted_token(ADMIN, name))
            assert hello["type"] == "welcome", hello
            wire.send({"type": "join", **join_message})
            got = wire.expect("error", "waiting", "game_start")
            wire.send({"type": "leave"})
            return got

    rated = [
        {"lobby": "ranked", "game": "kuhhandel"},
        {"lobby": "tournament", "tournament": "t-none"},
        {"lobby": "practice", "game": "kuhhandel", "rated": True},
        {"lobby": "challenge", "opponent": "someone", "game": "kuhhandel", "rated": True},
    ]
    for message in rated:  # version 1 is new: no validation game played yet
        got = join(message)
        assert got["type"] == "error" and got["code"] == "not_validated", (message, got)
        assert "version 1 has not played its validation game" in got["reason"], got

    def admitted(got: dict[str, Any]) -> bool:
        """Past the gate: queued or seated, or refused as ``busy`` by the lobby (which only
        sees joins the gate let through: a game of an earlier join of this bot still runs)."""
        return got["type"] in ("waiting", "game_start") or got.get("code") == "busy"

    unrated = join({"lobby": "practice", "game": "kuhhandel"})  # the validation game's lobby
    assert admitted(unrated), unrated
    own = join({"lobby": "ranked", "game": "kuhhandel"}, with_token=token)  # connected: as ever
    assert admitted(own), own

    def validated(ok: bool, number: int = 1) -> None:
        reply = LOOPBACK.post(
            f"{server.http}/api/hosted/{name}/versions/{number}/validation",
            json={"ok": ok, "outcome": {}},
            headers=auth(ADMIN),
        )
        assert reply.status_code == 200, reply.text

    validated(False)
    failed = join({"lobby": "ranked", "game": "kuhhandel"})
    assert failed["code"] == "not_validated" and "failed validation" in failed["reason"], failed
    validated(True)
    passed = join({"lobby": "ranked", "game": "kuhhandel"})
    assert admitted(passed), passed
    # a new version chosen while the worker's login is the same: refused again until validated
    assert upload(server, name, token, tar_gz(python_bot(name))).status_code == 201
    put = LOOPBACK.put(
        f"{server.http}/api/bots/{name}/hosted", json={"version": 2}, headers=auth(token)
    )
    assert put.status_code == 200
    again = join({"lobby": "ranked", "game": "kuhhandel"})
    assert again["code"] == "not_validated" and "version 2" in again["reason"], again
