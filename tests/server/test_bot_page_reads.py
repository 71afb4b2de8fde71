"""The reads behind the web's bot page (issue #28): a bot's games carry what the page shows
(the players' names, the rule set's name, when the game ended), and game lists and game details
say which seats' names have a bot page (a stored player; a guest has none)."""

from __future__ import annotations

from pathlib import Path

from cardtable.server.store.db import SeatOutcome, Store


def test_a_bots_games_name_the_players_and_lists_say_who_has_a_page(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'store.db'}")
    store.migrate()
    try:
        bot = store.create_bot("page-bot")[0].id
        store.start_game(
            game_id="g1",
            game="cunegonda",
            rules_name="short",
            rules={"rounds": 3},
            seed=1,
            lobby="practice",
            rated=False,
            instance="main",
            seats=[
                (None, "Ann", "guest"),
                (bot, "page-bot", "bot"),
                (None, "house-random-1", "house"),
            ],
        )
        store.finish_game(
            "g1",
            record={"x": 1},
            result={"termination": "normal", "scores": [1, 2, 3], "places": [2, 1, 0]},
            seats=[
                SeatOutcome(0, None, 0, False),
                SeatOutcome(1, bot, 0, False),
                SeatOutcome(2, None, 0, False),
            ],
            fault_rows=[],
            suspend_after=3,
            suspend_window=5,
            suspend_minutes=1,
        )
        detail = store.bot_detail("page-bot")
        assert detail is not None
        (game,) = detail["games"]
        assert game["names"] == ["Ann", "page-bot", "house-random-1"]
        assert game["pages"] == [False, True, False]
        assert game["seat"] == 1 and game["place"] == 2 and game["seats"] == 3
        assert game["rules_label"] == "short" and game["rated"] is False
        assert game["ended_at"] and game["termination"] == "normal"
        (listed,) = store.list_games()
        assert listed["pages"] == [False, True, False]
        seats = store.game_detail("g1")["seats_detail"]  # type: ignore[index]
        assert [s["page"] for s in seats] == [False, True, False]
    finally:
        store.close()
