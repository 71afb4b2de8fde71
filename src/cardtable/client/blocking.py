"""The blocking facade: play games from ordinary synchronous code.

::

    from cardtable.client import play

    reports = play("ws://127.0.0.1:8000/ws", "mybot", TOKEN, "expert", game="kuhhandel", games=3)
    for report in reports:
        print(report.summary())

It runs :class:`~cardtable.client.client.Client` in its own event loop until the games are
played; use the async client directly to play inside an existing loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from cardtable.client.client import AgentSource, Client
from cardtable.client.seat import GameReport
from cardtable.core.contract import GameInfo
from cardtable.core.registry import load_bot


def agent_source(agent: AgentSource | str, game: str, seed: int = 0) -> AgentSource:
    """An agent as the client wants it; a string is a bot name or ``path/to/bot.py:Class``.

    A named bot is built afresh for every game (seeded ``seed``, ``seed + 1``..., or in a
    tournament with the seed the server gives the seat, as the arena would seed it), so a bot
    that keeps state per game starts clean even without a ``start`` hook.
    """
    if not isinstance(agent, str):
        return agent
    ref = agent
    load_bot(game, ref, seed=seed)  # fail now (unknown bot, broken file), not at the first game
    counter = iter(range(seed, seed + 2**31))

    def build(info: GameInfo) -> Any:
        return load_bot(info.game, ref, seed=next(counter))

    def seeded(info: GameInfo, seed: int) -> Any:
        """Built with the seed a tournament gives this seat (``game_start.bot_seed``)."""
        return load_bot(info.game, ref, seed=seed)

    build.seeded = seeded  # type: ignore[attr-defined]
    return build


def play(
    server: str,
    name: str | None,
    token: str | None,
    agent: AgentSource | str,
    *,
    lobby: str = "ranked",
    game: str = "kuhhandel",
    rules: str | None = None,
    games: int = 1,
    seats: int | None = None,
    opponents: str | None = None,
    invite: str | None = None,
    guest: str | None = None,
    seed: int = 0,
    on_result: Callable[[GameReport], None] | None = None,
    tournament: str | None = None,
    opponent: str | None = None,
    rated: bool = False,
    **options: Any,
) -> list[GameReport]:
    """Connect, play ``games`` games of ``game`` in ``lobby`` and return their reports.

    ``agent`` is an agent object, a factory ``agent(info)``, or a bot reference for
    :func:`~cardtable.core.registry.load_bot`. ``options`` go to :class:`Client`
    (``margin_ms``, ``fallback``, ``backoff``...). Raises what the client raises
    (:class:`ServerError`, :class:`ConnectionLost`, ``OSError``).
    """

    async def main() -> list[GameReport]:
        source = agent_source(agent, game, seed)
        async with Client(server, source, name=name, token=token, guest=guest, **options) as client:
            return await client.play(
                lobby,
                game,
                rules=rules,
                games=games,
                seats=seats,
                opponents=opponents,
                invite=invite,
                on_result=on_result,
                tournament=tournament,
                opponent=opponent,
                rated=rated,
            )

    return asyncio.run(main())
