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
