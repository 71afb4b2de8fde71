"""``GET /api/tables/{id}/public`` after the end: a page's last look at the public view can leave
just before ``game_end`` and arrive after it (a CI run beside stress saw a 404 so, in
``tests/web/test_together.py``'s no-404 game). A game that has ended answers 410 Gone, whose
reply names its replay; only an id that never ran is 404."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from loopback import LOOPBACK
from server.wire import (
    RunningServer,
    Wire,
    db_url,
    fast_settings,
    join_practice,
    play_until_end,
    running_server,
)

pytestmark = pytest.mark.timeout(90)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    path: Path = tmp_path_factory.mktemp("public-end")
    with running_server(fast_settings(db_url(path))) as running:
        yield running


def test_an_ended_game_is_gone_and_an_unknown_one_not_found(server: RunningServer) -> None:
    wire = Wire(server.ws)
    wire.hello_guest("Ende")
    game_id = join_practice(wire)["game_id"]
    assert server.get(f"/api/tables/{game_id}/public")["id"] == game_id  # running: 200
    play_until_end(wire, "kuhhandel", timeout=60)
    wire.close()
    gone = LOOPBACK.get(f"{server.http}/api/tables/{game_id}/public")
    assert gone.status_code == 410, gone.text
    assert f"/api/games/{game_id}/replay" in gone.json()["detail"]
    unknown = LOOPBACK.get(f"{server.http}/api/tables/0123456789abcdef/public")
    assert unknown.status_code == 404, unknown.text
