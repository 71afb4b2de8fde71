"""Direct challenges (the ``challenge`` lobby): a bot challenges a chosen bot, outside the
ranked queue, with the settings it chooses (as on lichess).

This module owns the open challenges of one server process and their life: made, offered,
accepted (the game starts) or declined, withdrawn, expired. docs/protocol.md ("Challenges")
says it for authors:

- ``join {lobby: "challenge", opponent: NAME, game, rules, seats, rated}``: challenge the
  registered bot ``NAME``; the seats beyond the two are played by the house bot; unrated unless
  ``rated: true``. The challenger waits (``waiting``) until the answer.
- The challenged bot is sent ``{type: "challenge", challenge_id, from, game, rules, seats,
  rated}`` at once when it is connected to this process and not playing, else at its next
  ``join`` (of any lobby). ``join {lobby: "challenge"}`` without an opponent waits for
  challenges only.
- It answers ``join {lobby: "challenge", accept: ID}`` (it leaves any queue, private table or
  tournament lobby it waited in, and the game starts, lobby ``challenge``, with both bots) or
  ``join {lobby: "challenge", decline: ID}`` (the challenger gets the error
  ``challenge_declined``). An accept while it plays a game is kept for its next join.
- A challenge the challenger withdraws (``leave``, or its connection closes) or that nobody
  answered within :data:`CHALLENGE_TTL_S` is gone (an expired one is declined for it).

Challenges live in one process: in a cluster both bots must be connected to the same process.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import select

from cardtable.server.store.models import players

if TYPE_CHECKING:
    from cardtable.server.lobby import Hub, Member

LOBBY = "challenge"
#: An unanswered challenge is gone after this long.
CHALLENGE_TTL_S = 600.0
#: Open challenges one bot may have made, and may have waiting for it (hostile input: bounded).
MAX_OPEN = 8


@dataclass(eq=False)
class Challenge:
    id: str
    challenger: Member
    opponent: str
    spec: Any
    rules: Any
    rules_name: str | None
    seats: int
    rated: bool
    made: float
    offered: bool = False

    def message(self) -> dict[str, Any]:
        return {
            "type": "challenge",
            "challenge_id": self.id,
            "from": self.challenger.name,
            "game": self.spec.name,
            "rules": self.rules_name or "custom",
            "seats": self.seats,
            "rated": self.rated,
        }


class Challenges:
    """The open challenges of this process (see the module docstring)."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.open: dict[str, Challenge] = {}
        #: bots waiting for challenges only (``join {lobby: "challenge"}`` with no opponent)
        self.listening: set[str] = set()

    def waiting(self, key: str) -> bool:
        """Whether ``key`` waits for the answer to a challenge it made."""
        return any(c.challenger.key == key for c in self.open.values())

    async def join(self, member: Member, message: Mapping[str, Any]) -> None:
        from cardtable.server.lobby import JoinError

        if member.kind != "bot" or member.player_id is None:
            raise JoinError("bad_join", "challenges are between registered bots")
        self._expire()
        if "accept" in message:
            await self._accept(member, str(message["accept"]))
        elif "decline" in message:
            self._decline(member, str(message["decline"]))
        elif message.get("opponent"):
            await self._make(member, message)
        else:
            self.listening.add(member.key)
            member.peer.send(
                {
                    "type": "waiting",
                    "lobby": LOBBY,
                    "game": str(message.get("game") or "kuhhandel"),
                    "rules": str(message.get("rules") or "any"),
                    "queued": sum(c.opponent == member.name for c in self.open.values()),
                }
            )
            self.deliver(member)

    def deliver(self, member: Member) -> None:
        """Offer ``member`` the challenges waiting for it (called at each of its joins)."""
        if member.kind != "bot":
            return
        for c in list(self.open.values()):
            if c.opponent == member.name and not c.offered:
                c.offered = True
                member.peer.send(c.message())

    def withdraw(self, key: str) -> None:
        """The challenger left or went away: its challenges are gone; a listener stops."""
        self.listening.discard(key)
        for cid, c in list(self.open.items()):
            if c.challenger.key == key:
                del self.open[cid]

    async def _make(self, member: Member, message: Mapping[str, Any]) -> None:
        from cardtable.server.lobby import JoinError

        hub = self.hub
        opponent = str(message["opponent"])
        if opponent == member.name:
            raise JoinError("bad_join", "a bot cannot challenge itself")
        if hub.busy(member.key) or self.waiting(member.key):
            raise JoinError("busy", "already queued, playing, or waiting for a challenge's answer")
        if member.key in hub.tournaments.waiting_in:
            raise JoinError("busy", "waiting in a tournament")
        if sum(c.opponent == opponent for c in self.open.values()) >= MAX_OPEN:
            raise JoinError("busy", f"{opponent} has {MAX_OPEN} challenges waiting already")
        rated = message.get("rated", False)
        if type(rated) is not bool:
            raise JoinError("bad_join", "rated is true or false")
        spec, rules, rules_name = hub.spec_and_rules(
            message.get("game"), message.get("rules"), presets_only=False
        )
        low, high = spec.seat_range(rules)
        seats = int(message.get("seats") or max(2, hub.table_size(spec, rules)))
        if not max(2, low) <= seats <= high:
            raise JoinError("bad_join", f"{spec.name} is played by {low} to {high} seats")
        bots = [hub.house_bot(spec)] * (seats - 2)
        hub.check_bots(spec, bots, rules, seats)
        loop = asyncio.get_running_loop()
        kind = await loop.run_in_executor(hub.db_executor, self._kind, opponent)
        if kind != "bot":
            raise JoinError("unknown_game", f"no registered bot {opponent!r} to challenge")
        c = Challenge(
            secrets.token_hex(6),
            member,
            opponent,
            spec,
            rules,
            rules_name,
            seats,
            rated,
            time.monotonic(),
        )
        self.open[c.id] = c
        self.listening.discard(member.key)
        member.peer.send(
            {
                "type": "waiting",
                "lobby": LOBBY,
                "game": spec.name,
                "rules": rules_name or "custom",
                "queued": 1,
            }
        )
        session = hub.online.get(f"bot:{opponent}")
        target = getattr(session, "member", None)
        if target is not None and not hub.running_games(target.key):
            self.deliver(target)  # connected and not playing: at once

    async def _accept(self, member: Member, cid: str) -> None:
        from cardtable.server.lobby import JoinError

        hub = self.hub
        c = self.open.get(cid)
        if c is None or c.opponent != member.name:
            raise JoinError("bad_join", f"no open challenge {cid!r} for {member.name}")
        if hub.online.get(c.challenger.key) is not c.challenger.peer:
            del self.open[cid]
            raise JoinError("bad_join", f"{c.challenger.name} is gone: the challenge with it")
        if hub.running_games(member.key) or hub.running_games(c.challenger.key):
            c.offered = False  # offered again at its next join
            return
        del self.open[cid]
        for m in (member, c.challenger):  # out of any queue, private table, tournament lobby
            hub.leave(m)
            self.listening.discard(m.key)
        bots = [hub.house_bot(c.spec)] * (c.seats - 2)
        await hub.start_table(
            c.spec,
            c.rules,
            c.rules_name,
            LOBBY,
            [c.challenger, member],
            bots,
            rated=c.rated,
            shuffle=True,
            house_players=await hub.house_identities(bots) if c.rated and bots else None,
            extra_meta={"challenge": {"id": c.id, "from": c.challenger.name, "to": member.name}},
        )

    def _decline(self, member: Member, cid: str) -> None:
        from cardtable.server.lobby import JoinError

        c = self.open.get(cid)
        if c is None or c.opponent != member.name:
            raise JoinError("bad_join", f"no open challenge {cid!r} for {member.name}")
        del self.open[cid]
        self._refused(c, f"{member.name} declined your challenge")

    def _expire(self) -> None:
        at = time.monotonic()
        for cid, c in list(self.open.items()):
            if at - c.made > CHALLENGE_TTL_S:
                del self.open[cid]
                self._refused(c, f"{c.opponent} did not answer within {CHALLENGE_TTL_S:g} s")

    @staticmethod
    def _refused(c: Challenge, reason: str) -> None:
        c.challenger.peer.send({"type": "error", "code": "challenge_declined", "reason": reason})

    def _kind(self, name: str) -> str | None:
        with self.hub.store.engine.connect() as conn:
            row = conn.execute(select(players.c.kind).where(players.c.name == name)).first()
        return None if row is None else str(row.kind)
