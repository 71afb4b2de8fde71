"""How many connections a cluster process hands over (server/rebalance.py, issue 34 item 6)."""

from __future__ import annotations

from cardtable.server.rebalance import excess


def test_a_process_holding_all_bots_after_a_crash_hands_over_the_excess() -> None:
    assert excess(8, {"a": 8, "b": 0}) == 4  # the survivor of a crash, the restarted worker empty
    assert excess(6, {"a": 6, "b": 2}) == 2


def test_about_its_share_is_kept_and_one_process_alone_keeps_everything() -> None:
    assert excess(5, {"a": 5, "b": 3}) == 0  # share 4, slack 1: near enough
    assert excess(3, {"a": 3, "b": 5}) == 0  # below its share
    assert excess(8, {"a": 8}) == 0  # no other process to take them
    assert excess(0, {"a": 0, "b": 0}) == 0


def test_the_slack_grows_with_the_share() -> None:
    # 1,000 bots on 4 processes: share 250, slack 62; a random spread stays within it
    assert excess(300, {"a": 300, "b": 240, "c": 230, "d": 230}) == 0
    assert excess(400, {"a": 400, "b": 200, "c": 200, "d": 200}) == 150
