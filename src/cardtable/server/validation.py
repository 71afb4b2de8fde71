"""A new bot's validation game: one unrated game against house bots before its first ranked one.

This module owns when a bot must validate and the validation table (lobby ``validation``).
When a registered bot joins the ranked lobby of a game it has never validated (no finished
``validation`` game of that game in which it kept its seat, i.e. was not taken over) and never
played ranked, the join starts a validation game instead of queueing it: the ranked rule set
and table size, every other seat a house bot, unrated. The bot's client sees an ordinary game
(``game_start`` with ``lobby`` ``validation``) and joins ranked again after it, as after every
game: it is queued once it finished a validation game without being taken over, else it plays
another. The bot's page lists the game with its lobby (``validation``) and says whether the
bot is validated (``GET /api/bots/NAME`` ``validated``: per game). ``validation_games`` in the
server's settings turns it off (on by default).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from sqlalchemy import exists, or_, select

from cardtable.server.store.models import game_seats, games, players

if TYPE_CHECKING:
    from cardtable.core import GameSpec
    from cardtable.server.lobby import Hub, Member

LOBBY = "validation"


def validated_games(engine: Any, name: str) -> list[str]:
    """The games the player ``name`` may play ranked: a validation game finished without being
    taken over, or a ranked game played (a bot of the ladder from before validation games)."""
    with engine.connect() as conn:
        player_id = conn.execute(
            select(players.c.id).where(players.c.name == name)
        ).scalar_one_or_none()
        if player_id is None:
            return []
        rows = conn.execute(
            select(games.c.game)
            .distinct()
            .select_from(game_seats.join(games, games.c.id == game_seats.c.game_id))
            .where(
                game_seats.c.player_id == player_id,
                games.c.status == "finished",
                or_(
                    games.c.lobby == "ranked",
                    (games.c.lobby == LOBBY) & game_seats.c.taken_over.is_(False),
                ),
            )
        ).all()
    return sorted(str(r.game) for r in rows)


def is_validated(engine: Any, player_id: int, game: str) -> bool:
    with engine.connect() as conn:
        return bool(
            conn.execute(
                select(
                    exists()
                    .select_from(game_seats.join(games, games.c.id == game_seats.c.game_id))
                    .where(
                        game_seats.c.player_id == player_id,
                        games.c.game == game,
                        games.c.status == "finished",
                        or_(
                            games.c.lobby == "ranked",
                            (games.c.lobby == LOBBY) & game_seats.c.taken_over.is_(False),
                        ),
                    )
                )
            ).scalar()
        )


async def validate_first(
    hub: Hub, member: Member, spec: GameSpec, rules: Any, rules_name: str
) -> bool:
    """Start ``member``'s validation game of ``spec`` if it needs one; True if it did (the
    ranked join is then served by that game)."""
    if not hub.settings.validation_games or member.player_id is None:
        return False
    loop = asyncio.get_running_loop()
    pid = member.player_id
    done = await loop.run_in_executor(
        hub.db_executor, is_validated, hub.store.engine, pid, spec.name
    )
    if done:
        return False
    seats = hub.table_size(spec, rules)
    await hub.start_table(
        spec,
        rules,
        rules_name,
        LOBBY,
        [member],
        [hub.house_bot(spec)] * (seats - 1),
        rated=False,
        shuffle=True,
        extra_meta={"validation": True},
    )
    return True
