"""The hub: who is connected, the lobbies (ranked, practice, private) and the running tables.

- **ranked**: registered bots only, per game and preset. Every tick the matchmaker forms full
  tables from the queue (the oldest waiter with the closest ratings); when the oldest has waited
  ``fill_wait_ms`` the table is filled with house bots. Rated.
- **practice**: one client against house bots of its choice, at once. Not rated.
- **private**: a table with an invite code, its own rule set (a preset or full JSON), seats and
  house bots; it starts when every open seat is taken. Not rated.

Other front ends (the browser table, the Kuh-Handel compat endpoint) use the same hub: anything
with ``send``/``send_text`` can sit at a table (:class:`~cardtable.server.table.Peer`).
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cardtable.core import GameSpec, game_names, game_spec
from cardtable.core.registry import OutsideBot, bot_refusal
from cardtable.server import fair_play, oplog
from cardtable.server import ratings as rating_math
from cardtable.server.boards import rated_refusal
from cardtable.server.challenges import Challenges
from cardtable.server.config import Settings
from cardtable.server.departure import server_ended
from cardtable.server.metrics import ServerMetrics
from cardtable.server.organiser import ladder_suspension
from cardtable.server.rematch import arrange, offer, seat_order
from cardtable.server.store.db import Identity, Store
from cardtable.server.table import PACES, PEOPLE, Peer, SeatState, Table, TableSetup
from cardtable.server.tournament_lobby import TournamentLobby
from cardtable.server.validation import validate_first

if TYPE_CHECKING:
    from cardtable.server.cluster import Cluster

log = logging.getLogger("cardtable.server.lobby")

#: Built-in bots from strongest to weakest; the first a game has is its house and fallback bot.
STRENGTH_ORDER = ("expert", "strong", "heuristic", "simple", "random")
#: The longest spectator delay a table may ask for.
MAX_SPECTATOR_DELAY_MS = 600_000


class JoinError(ValueError):
    """A join cannot be served; ``code`` is a protocol error code."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


@dataclass(eq=False)
class Member:
    """A client as the lobby sees it: its connection and identity."""

    peer: Peer
    key: str  # "bot:NAME", "person:ID" or "guest:TOKEN-HASH"
    name: str
    kind: str  # "bot" | "person" | "guest"
    player_id: int | None = None


@dataclass(eq=False)
class QueueEntry:
    member: Member
    rating: float
    since: float


@dataclass(eq=False)
class PrivateTable:
    invite: str
    spec: GameSpec
    rules: Any
    rules_name: str | None
    seats: int
    bots: list[str]
    members: list[Member] = field(default_factory=list)
    #: Open auctions at this table close after this quiet period (``None``: the server's).
    quiet_ms: int | None = None
    #: Shown in the lobby listing (``GET /api/tables``) so anyone may take an open seat.
    listed: bool = False
    #: The pace chosen at creation (``None``: the default) and the spectators' delay.
    pace: str | None = None
    spectator_delay_ms: int = 0
    #: The game is rated (the creator chose it; only identities may sit: no guests).
    rated: bool = False
    #: "Play again": the game this table plays again, and the identity keys of its players
    #: (only they may take its seats).
    again: str | None = None
    reserved: frozenset[str] = frozenset()
    #: The ended game's seat order, kept by its rematch (:func:`.rematch.seat_order`).
    order: tuple[str, ...] = ()

    @property
    def open_seats(self) -> int:
        return self.seats - len(self.bots) - len(self.members)


@dataclass(frozen=True)
class Ended:
    """What "play again" needs of a game that just ended on this process."""

    spec: GameSpec
    rules: Any
    rules_name: str | None
    seats: int
    bots: tuple[str, ...]
    keys: frozenset[str]
    rated: bool
    pace: str | None
    spectator_delay_ms: int
    quiet_ms: int | None
    order: tuple[str, ...] = ()


#: Ended games remembered for "play again" (the oldest are forgotten first).
MAX_ENDED = 2000


class Hub:
    """Lobbies and tables of one server process."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        *,
        db_executor: Executor,
        bot_executor: Executor,
    ) -> None:
        self.settings = settings
        self.store = store
        self.db_executor = db_executor
        self.bot_executor = bot_executor
        self.instance = settings.instance
        self.tables: dict[str, Table] = {}
        #: identity key -> its live connection (a second hello with the same identity replaces it)
        self.online: dict[str, Any] = {}
        self.tasks: dict[str, asyncio.Task[Any]] = {}
        #: identity key -> {game_id: seat}
        self.seats_by_key: dict[str, dict[str, int]] = {}
        self.queues: dict[tuple[str, str], list[QueueEntry]] = {}
        self.queued: dict[str, tuple[str, str]] = {}  # key -> queue
        self.private: dict[str, PrivateTable] = {}
        self.private_of: dict[str, str] = {}  # key -> invite
        self._house_ids: dict[str, int] = {}
        #: Games that ended here lately (game id -> what "play again" needs), and the private
        #: table playing each again (game id -> invite).
        self.ended: dict[str, Ended] = {}
        self.again_of: dict[str, str] = {}
        self._matchmaker: asyncio.Task[None] | None = None
        self._watcher: asyncio.Task[None] | None = None
        self.games_started = 0
        #: Decision latency and bot thinking time of this process (``GET /api/metrics``).
        self.metrics = ServerMetrics(lag_ms=settings.loop_lag_ms)
        #: Several processes, one competition (``redis_url`` set): see cluster.py.
        self.cluster: Cluster | None = None
        #: The tournaments' lobby and scheduler (tournament_lobby.py).
        self.tournaments = TournamentLobby(self)
        #: The process is stopping: the connections it closes cost no fault (departure.py).
        self.leaving = False
        #: Direct challenges between bots (challenges.py).
        self.challenges = Challenges(self)

    # -- life cycle -------------------------------------------------------------------------

    async def start(self) -> None:
        """Warm up the games and house bots, then start the matchmaker."""
        for name in game_names():
            try:
                spec = game_spec(name)
            except Exception as exc:  # a game that does not import is left out, loudly
                log.error("game %s is unavailable: %r", name, exc)
                continue
            log.info(
                "game %s: presets %s, house bot %s",
                name,
                ", ".join(spec.presets),
                self.house_bot(spec),
            )
        self._matchmaker = asyncio.create_task(self._match_loop(), name="matchmaker")
        await self.tournaments.start(recover_all=self.cluster is None)
        self._watcher = asyncio.create_task(self.metrics.watch_loop(), name="loop-lag")

    async def shutdown(self) -> None:
        await self.tournaments.stop()
        if self._matchmaker is not None:
            self._matchmaker.cancel()
        if self._watcher is not None:
            self._watcher.cancel()
        tasks = list(self.tasks.values())
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        await self.tournaments.drain()

    def available_games(self) -> dict[str, GameSpec]:
        specs = {}
        for name in game_names():
            try:
                specs[name] = game_spec(name)
            except Exception:
                continue
        return specs

    def house_bots(self, spec: GameSpec) -> list[str]:
        """The built-in bots a table may seat: every one this install can build (``learned``
        needs numpy). Some fit some tables only (``learned``: its weights' tables): a join
        asking for one elsewhere is refused with the bot's reason (:meth:`check_bots`)."""
        return [name for name in spec.bots if not _missing(spec.bots[name])]

    def house_bot(self, spec: GameSpec) -> str:
        configured = self.settings.house_bots.get(spec.name)
        if configured:
            return configured
        for name in STRENGTH_ORDER:
            if name in spec.bots:
                return name
        return next(iter(spec.bots), "random")

    def fallback_bot(self, spec: GameSpec) -> str:
        return self.settings.fallback_bot.get(spec.name) or self.house_bot(spec)

    def ranked_rules(self, spec: GameSpec) -> list[str]:
        return list(self.settings.ranked_rules.get(spec.name) or spec.presets)

    def table_size(self, spec: GameSpec, rules: Any) -> int:
        low, high = spec.seat_range(rules)
        wanted = self.settings.ranked_table_size.get(spec.name, low)
        return max(low, min(high, wanted))

    # -- identities -------------------------------------------------------------------------

    def running_games(self, key: str) -> list[str]:
        return [g for g in self.seats_by_key.get(key, {}) if g in self.tables]

    def forget(self, member_key: str, peer: Peer) -> None:
        """The connection of ``member_key`` closed: leave queues and detach from tables."""
        self._unqueue(member_key, peer)
        self.tournaments.forget(member_key)
        excused = server_ended(self, peer)
        self.challenges.withdraw(member_key)
        if self.cluster is not None:
            self.cluster.forget(member_key, peer, excused=excused)
        self._leave_private(member_key, peer)
        for game_id in list(self.seats_by_key.get(member_key, {})):
            table = self.tables.get(game_id)
            if table is not None:
                table.detach(peer, excused=excused)
        for table in self.tables.values():
            table.spectators.discard(peer)

    # -- joining ----------------------------------------------------------------------------

    def spec_and_rules(
        self, game: str | None, rules: str | Mapping[str, Any] | None, *, presets_only: bool
    ) -> tuple[GameSpec, Any, str | None]:
        name = game or "kuhhandel"
        specs = self.available_games()
        if name not in specs:
            raise JoinError("unknown_game", f"no game {name!r} here (games: {', '.join(specs)})")
        spec = specs[name]
        if presets_only and rules is not None and not isinstance(rules, str):
            raise JoinError("bad_join", "this lobby takes a preset name, not a custom rule set")
        try:
            resolved = spec.resolve_rules(rules)
        except (ValueError, TypeError, KeyError) as exc:
            raise JoinError("unknown_game", str(exc)) from None
        rules_name = (
            rules if isinstance(rules, str) else (spec.default_rules if rules is None else None)
        )
        return spec, resolved, rules_name

    def pace_for(self, chosen: str | None, members: list[Member]) -> str:
        """The pace of an unrated table: the one chosen, else the server's ``pace`` when a
        person is seated, else instant (bots alone are never slowed)."""
        if chosen is not None:
            return chosen
        return self.settings.pace if any(m.kind in PEOPLE for m in members) else "instant"

    def busy(self, key: str) -> bool:
        return (
            key in self.queued
            or key in self.private_of
            or bool(self.running_games(key))
            or (self.cluster is not None and self.cluster.busy(key))
        )

    async def join(self, member: Member, message: Mapping[str, Any]) -> None:
        """Serve a ``join`` message; raises :class:`JoinError`."""
        cluster = self.cluster
        if cluster is not None:
            await cluster.refresh(member.key)
            key = member.key
            here = key in self.queued or key in self.private_of or bool(self.running_games(key))
            if cluster.busy(key) and not here and hasattr(member.peer, "cid"):
                # another process holds a seat for this identity (a table formed from its
                # previous connection's queue entry): it gets that seat back, as by resume
                cluster.resume(member.peer, None, 0)  # type: ignore[arg-type]
                return
        lobby = message["lobby"]
        refusal = ladder_suspension(member.peer) if lobby != "tournament" else None
        if refusal is not None:  # tournaments use their own sanctions only (organiser.py)
            raise JoinError("suspended", refusal)
        self.challenges.deliver(member)  # challenges waiting for this bot: at its next join
        if lobby == "challenge":
            await self.challenges.join(member, message)
            return
        self.challenges.listening.discard(member.key)
        if lobby == "tournament":
            await self.tournaments.join(member, message)
            return
        if (
            self.busy(member.key)
            or member.key in self.tournaments.waiting_in
            or self.challenges.waiting(member.key)
        ):
            raise JoinError("busy", "already queued, at a private table or playing a game")
        if lobby == "ranked":
            await self._join_ranked(member, message)
        elif lobby == "practice":
            await self._join_practice(member, message)
        else:
            await self._join_private(member, message)

    async def _join_ranked(self, member: Member, message: Mapping[str, Any]) -> None:
        if member.kind != "bot" or member.player_id is None:
            raise JoinError("bad_join", "the ranked lobby is for registered bots (POST /api/bots)")
        spec, _rules, rules_name = self.spec_and_rules(
            message.get("game"), message.get("rules"), presets_only=True
        )
        assert rules_name is not None
        if rules_name not in self.ranked_rules(spec):
            offered = ", ".join(self.ranked_rules(spec))
            raise JoinError("bad_join", f"{rules_name!r} is not ranked here (ranked: {offered})")
        loop = asyncio.get_running_loop()
        pid = member.player_id
        refusal = await loop.run_in_executor(
            self.db_executor, fair_play.suspension_of, self.store, pid, member.name
        )
        if refusal is not None:  # a suspended bot plays no validation game either
            raise JoinError("suspended", refusal)
        if await validate_first(self, member, spec, _rules, rules_name):
            return  # a new bot's unrated validation game first (validation.py)
        mu, sigma = await loop.run_in_executor(
            self.db_executor, lambda: self.store.rating(pid, spec.name, rules_name)
        )
        queue_key = (spec.name, rules_name)
        rating = rating_math.conservative(mu, sigma)
        if self.cluster is not None:  # one queue for every process
            self.queued[member.key] = queue_key
            queued = await self.cluster.enqueue(member.peer, queue_key, rating)  # type: ignore[arg-type]
        else:
            queue = self.queues.setdefault(queue_key, [])
            queue.append(QueueEntry(member, rating, time.monotonic()))
            self.queued[member.key] = queue_key
            queued = len(queue)
        member.peer.send(
            {
                "type": "waiting",
                "lobby": "ranked",
                "game": spec.name,
                "rules": rules_name,
                "queued": queued,
                "fill_after_ms": self.settings.fill_wait_ms,
            }
        )

    async def _join_practice(self, member: Member, message: Mapping[str, Any]) -> None:
        spec, rules, rules_name = self.spec_and_rules(
            message.get("game"), message.get("rules"), presets_only=False
        )
        low, high = spec.seat_range(rules)
        seats = int(message.get("seats") or self.table_size(spec, rules))
        if not low <= seats <= high:
            raise JoinError("bad_join", f"{spec.name} is played by {low} to {high} seats")
        opponents = message.get("opponents")
        if opponents is None:
            bots = [self.house_bot(spec)] * (seats - 1)
        elif isinstance(opponents, str):
            bots = [opponents] * (seats - 1)
        else:
            bots = list(opponents)
            if len(bots) != seats - 1:
                raise JoinError("bad_join", f"give one opponent per other seat ({seats - 1})")
        self.check_bots(spec, bots, rules, seats)
        pace, delay_ms = _pace_options(message)
        rated = _rated_option(message, member, spec, rules)
        await self.start_table(
            spec,
            rules,
            rules_name,
            "practice",
            [member],
            bots,
            rated=rated,
            shuffle=True,
            house_players=await self.house_identities(bots) if rated else None,
            pace=pace,
            spectator_delay_ms=delay_ms,
        )

    async def _join_private(self, member: Member, message: Mapping[str, Any]) -> None:
        invite = message.get("invite")
        create = message.get("create")
        if message.get("again") is not None:
            await self._join_again(member, str(message["again"]))
            return
        if invite is not None:
            table = self.private.get(str(invite).upper())
            if table is None:
                raise JoinError("unknown_invite", f"no open private table {invite!r}")
            if table.open_seats <= 0:
                raise JoinError("bad_join", "that table is full")
            if table.reserved and member.key not in table.reserved:
                raise JoinError(
                    "bad_join", f"this table plays game {table.again} again: its players only"
                )
            if table.rated and member.player_id is None:
                raise JoinError(
                    "bad_join", "this table is rated: sign in to play at it (guests play unrated)"
                )
            table.members.append(member)
            self.private_of[member.key] = table.invite
            await self._private_changed(table)
            return
        create = dict(create or {})
        spec, rules, rules_name = self.spec_and_rules(
            message.get("game"), create.get("rules", message.get("rules")), presets_only=False
        )
        low, high = spec.seat_range(rules)
        seats = int(create.get("seats") or message.get("seats") or self.table_size(spec, rules))
        if not low <= seats <= high:
            raise JoinError("bad_join", f"{spec.name} is played by {low} to {high} seats")
        bots = list(create.get("bots") or [])
        if len(bots) > seats - 1:
            raise JoinError("bad_join", "leave at least one seat for the creator")
        self.check_bots(spec, bots, rules, seats)
        quiet_ms = create.get("quiet_ms")
        if quiet_ms is not None and (type(quiet_ms) is not int or not 500 <= quiet_ms <= 60000):
            raise JoinError("bad_join", "quiet_ms is a whole number of ms from 500 to 60000")
        pace, delay_ms = _pace_options(create)
        code = _invite_code()
        while code in self.private:
            code = _invite_code()
        table = PrivateTable(code, spec, rules, rules_name, seats, bots, [member])
        table.quiet_ms = quiet_ms
        table.pace = pace
        table.spectator_delay_ms = delay_ms
        table.listed = bool(create.get("listed", False))
        table.rated = _rated_option(create, member, spec, rules)
        self.private[code] = table
        self.private_of[member.key] = code
        await self._private_changed(table)

    async def _private_changed(self, table: PrivateTable) -> None:
        message = {
            "type": "table",
            "invite": table.invite,
            "game": table.spec.name,
            "rules": _rules_json(table.spec, table.rules),
            "seats": table.seats,
            "players": [m.name for m in table.members] + [f"house-{b}" for b in table.bots],
            "open_seats": table.open_seats,
            "pace": self.pace_for(table.pace, table.members),
            "spectator_delay_ms": table.spectator_delay_ms,
            "rated": table.rated,
        }
        if table.again is not None:
            message["again"] = table.again
        for m in table.members:
            m.peer.send(message)
        offer(self, table, message)
        if table.open_seats == 0:
            del self.private[table.invite]
            if table.again is not None:
                self.again_of.pop(table.again, None)
            for m in table.members:
                self.private_of.pop(m.key, None)
            started = await self.start_table(
                table.spec,
                table.rules,
                table.rules_name,
                "private",
                table.members,
                table.bots,
                rated=table.rated,
                shuffle=not table.order,
                order=table.order,
                house_players=await self.house_identities(table.bots) if table.rated else None,
                extra_meta={"invite": table.invite, "listed": table.listed},
                pace=table.pace,
                spectator_delay_ms=table.spectator_delay_ms,
            )
            if table.quiet_ms is not None:
                # the table's task has not run yet: its first auction already uses this
                started.quiet_s = table.quiet_ms / 1000.0

    async def _join_again(self, member: Member, game_id: str) -> None:
        """ "Play again": the first player of an ended game to ask opens a private table with
        the same rules, seats and house bots (and the same rated choice, pace and quiet
        period); each other player confirms by asking too; registered bots of that game that
        are online and idle are seated again at once. The table starts when all are back."""
        ended = self.ended.get(game_id)
        if ended is None:
            raise JoinError("unknown_game", f"no game {game_id!r} ended here lately")
        if member.key not in ended.keys:
            raise JoinError("bad_join", f"only the players of game {game_id} can play it again")
        code = self.again_of.get(game_id)
        table = self.private.get(code) if code is not None else None
        if table is not None:
            if any(m.key == member.key for m in table.members):
                raise JoinError("busy", "you are already at that table")
            table.members.append(member)
            self.private_of[member.key] = table.invite
            await self._private_changed(table)
            return
        code = _invite_code()
        while code in self.private:
            code = _invite_code()
        table = PrivateTable(
            code, ended.spec, ended.rules, ended.rules_name, ended.seats, list(ended.bots)
        )
        table.members.append(member)
        table.quiet_ms = ended.quiet_ms
        table.pace = ended.pace
        table.spectator_delay_ms = ended.spectator_delay_ms
        table.rated = ended.rated
        table.again = game_id
        table.reserved = ended.keys
        table.order = ended.order
        # registered bots come back on their own when they are here and idle
        for key in sorted(ended.keys):
            if not key.startswith("bot:") or key == member.key or self.busy(key):
                continue
            session = self.online.get(key)
            bot = getattr(session, "member", None)
            if bot is not None and table.open_seats > 0:
                table.members.append(bot)
                self.private_of[key] = code
        self.private[code] = table
        self.again_of[game_id] = code
        self.private_of[member.key] = code
        await self._private_changed(table)

    async def house_identities(self, bots: list[str]) -> list[Identity]:
        """Stored identities for the house seats of a rated practice or private table, in the
        order of ``bots``: ``house-BOT-1``, ``house-BOT-2``... per bot (as in ranked)."""
        wanted: dict[str, int] = {}
        for bot in bots:
            wanted[bot] = wanted.get(bot, 0) + 1
        found = {bot: await self._house_players(bot, n) for bot, n in wanted.items()}
        taken: dict[str, int] = {}
        out = []
        for bot in bots:
            out.append(found[bot][taken.get(bot, 0)])
            taken[bot] = taken.get(bot, 0) + 1
        return out

    def check_bots(self, spec: GameSpec, bots: list[str], rules: Any, seats: int) -> None:
        for bot in bots:
            # only built-in names: a client must never make the server import a file
            if bot not in self.house_bots(spec):
                known = ", ".join(self.house_bots(spec))
                raise JoinError("unknown_game", f"no house bot {bot!r} for {spec.name} ({known})")
        for bot in set(bots):
            reason = bot_refusal(spec, bot, rules, seats)
            if reason is not None:  # a bot that fits some tables only: not this one
                raise JoinError("bad_join", f"house bot {bot!r} cannot play this table: {reason}")

    def leave(self, member: Member) -> None:
        """``leave``: out of the queue or private table; from running games (fallback plays)."""
        self._unqueue(member.key, member.peer)
        self.tournaments.forget(member.key)
        self.challenges.withdraw(member.key)
        if self.cluster is not None:
            self.cluster.leave(member)
        self._leave_private(member.key, member.peer)
        for game_id in self.running_games(member.key):
            self.tables[game_id].leave(member.peer)

    def _unqueue(self, key: str, peer: Peer | None = None) -> None:
        queue_key = self.queued.pop(key, None)
        if queue_key is not None and self.cluster is not None:
            self.cluster.dequeue(key, queue_key, peer)
        elif queue_key is not None:
            self.queues[queue_key] = [e for e in self.queues[queue_key] if e.member.key != key]

    def _leave_private(self, key: str, peer: Peer) -> None:
        code = self.private_of.pop(key, None)
        if code is None or code not in self.private:
            return
        table = self.private[code]
        table.members = [m for m in table.members if m.key != key]
        if not table.members:
            del self.private[code]
            return
        asyncio.get_running_loop().create_task(self._private_changed(table))

    def resume(self, member: Member, game_id: str | None, since: int) -> list[str]:
        """Bind ``member``'s connection to its seats (one game or all); returns the game ids."""
        games = self.running_games(member.key)
        if game_id is not None:
            games = [g for g in games if g == game_id]
        for g in games:
            table = self.tables[g]
            seat = self.seats_by_key[member.key][g]
            if member.kind in PEOPLE:
                # a person who comes back takes the seat back from the house bot
                table.seats[seat].taken_over = False
            table.attach(seat, member.peer, since)
        return games

    def spectate(self, game_id: str, peer: Peer) -> bool:
        table = self.tables.get(game_id)
        if table is None:
            return False
        table.spectate(peer)
        return True

    # -- tables -----------------------------------------------------------------------------

    async def start_table(
        self,
        spec: GameSpec,
        rules: Any,
        rules_name: str | None,
        lobby: str,
        members: list[Member],
        bots: list[str],
        *,
        rated: bool,
        shuffle: bool,
        house_players: list[Identity] | None = None,
        extra_meta: dict[str, Any] | None = None,
        pace: str | None = None,
        spectator_delay_ms: int = 0,
        game_id: str | None = None,
        order: tuple[str, ...] = (),
    ) -> Table:
        """Seat ``members`` and house ``bots`` and start the game (its task runs on its own):
        shuffled, or in ``order`` (a rematch, :mod:`.rematch`).

        ``pace`` (``None``: the server's ``pace`` when a person is seated, else instant; a rated
        table always plays instantly) sets the tempo of the moves a person did not make."""
        seed = secrets.randbits(62)
        settings = self.settings
        # a rated table of bots only plays instantly; people get the pace they chose
        people = any(m.kind in PEOPLE for m in members)
        pace = "instant" if rated and not people else self.pace_for(pace, members)
        seats: list[SeatState] = []
        for m in members:
            person = m.kind in PEOPLE
            seats.append(
                SeatState(
                    index=0,
                    name=m.name,
                    kind=m.kind,
                    player_id=m.player_id,
                    key=m.key,
                    conn=m.peer,
                    deadline_ms=settings.person_deadline_ms if person else settings.deadline_ms,
                    bank_ms=settings.person_time_bank_ms if person else settings.time_bank_ms,
                )
            )
        counts: dict[str, int] = {}
        for i, bot in enumerate(bots):
            counts[bot] = counts.get(bot, 0) + 1
            identity = house_players[i] if house_players else None
            name = identity.name if identity else f"house-{bot}"
            if identity is None and bots.count(bot) > 1:
                name = f"house-{bot}-{counts[bot]}"
            seats.append(
                SeatState(
                    index=0,
                    name=name,
                    kind="house",
                    house=bot,
                    player_id=identity.id if identity else None,
                )
            )
        if order:
            seats = arrange(seats, order)
        elif shuffle:
            random.Random(seed).shuffle(seats)
        for i, seat in enumerate(seats):
            seat.index = i
        game_id = game_id or secrets.token_hex(8)
        setup = TableSetup(
            game_id,
            spec,
            rules,
            rules_name,
            seed,
            lobby,
            rated,
            seats,
            dict(extra_meta or {}),
            pace=pace,
            spectator_delay_ms=spectator_delay_ms,
        )
        return self.launch(setup)

    def launch(
        self, setup: TableSetup, *, settings: Settings | None = None, fallback_name: str = ""
    ) -> Table:
        """Start the table of ``setup`` (its task runs on its own); a tournament's table comes
        with its own ``settings`` (deadlines, faults before a ban) and fallback bot."""
        spec = setup.spec
        seats = setup.seats
        game_id = setup.game_id
        lobby = setup.lobby
        rules_name = setup.rules_name
        table = Table(
            setup,
            settings=settings or self.settings,
            store=self.store,
            db_executor=self.db_executor,
            bot_executor=self.bot_executor,
            instance=self.instance,
            fallback_name=fallback_name or self.fallback_bot(spec),
            on_end=self._table_ended,
            metrics=self.metrics,
        )
        self.tables[game_id] = table
        for seat in seats:
            if seat.key is not None:
                self.seats_by_key.setdefault(seat.key, {})[game_id] = seat.index
        self.tasks[game_id] = asyncio.create_task(self._run_table(table), name=f"table-{game_id}")
        if self.cluster is not None:
            self.cluster.table_started(table)
        self.games_started += 1
        log.info(
            "game %s started: %s/%s %s %s", game_id, spec.name, rules_name, lobby, list(table.names)
        )
        return table

    async def _run_table(self, table: Table) -> None:
        try:
            result = await table.run()
            oplog.game_ended(self.metrics, table, result)  # the log line and the count
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("game %s could not be stored", table.id)
            self._table_ended(table)

    def _table_ended(self, table: Table) -> None:
        if table.setup.lobby == "tournament" and table.id in self.tables:
            self.tournaments.table_ended(table)
        if self.cluster is not None and table.id in self.tables:
            self.cluster.table_ended(table)
        if table.id in self.tables and table.setup.lobby in ("practice", "private"):
            setup = table.setup
            self.ended[table.id] = Ended(
                setup.spec,
                setup.rules,
                setup.rules_name,
                len(table.seats),
                tuple(s.house for s in table.seats if s.kind == "house" and s.house),
                frozenset(s.key for s in table.seats if s.key is not None),
                setup.rated,
                setup.pace,
                setup.spectator_delay_ms,
                None if table.quiet_s is None else int(table.quiet_s * 1000),
                seat_order(table.seats),
            )
            while len(self.ended) > MAX_ENDED:
                del self.ended[next(iter(self.ended))]
        self.tables.pop(table.id, None)
        self.tasks.pop(table.id, None)
        for seat in table.seats:
            if seat.key is not None:
                games = self.seats_by_key.get(seat.key)
                if games is not None:
                    games.pop(table.id, None)
                    if not games:
                        del self.seats_by_key[seat.key]

    # -- matchmaking ------------------------------------------------------------------------

    async def _match_loop(self) -> None:
        while True:
            await asyncio.sleep(0.1)
            try:
                await self.match_once()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("matchmaker failed")

    async def match_once(self) -> None:
        """Form every ranked table that can be formed now."""
        if self.cluster is not None:
            await self._match_cluster(self.cluster)
            return
        now = time.monotonic()
        wait = self.settings.fill_wait_ms / 1000.0
        for (game, rules_name), queue in list(self.queues.items()):
            if not queue:
                continue
            spec = game_spec(game)
            rules = spec.resolve_rules(rules_name)
            size = self.table_size(spec, rules)
            if len(queue) >= size or now - queue[0].since >= wait:
                for entry, refusal in await fair_play.drop_suspended(
                    self.store, self.db_executor, queue
                ):
                    self.queued.pop(entry.member.key, None)
                    entry.member.peer.send(refusal)
            while len(queue) >= size or (queue and now - queue[0].since >= wait):
                oldest = queue[0]
                others = sorted(queue[1:], key=lambda e: abs(e.rating - oldest.rating))
                chosen = [oldest, *others[: size - 1]]
                for entry in chosen:
                    queue.remove(entry)
                    self.queued.pop(entry.member.key, None)
                missing = size - len(chosen)
                bot = self.house_bot(spec)
                house = await self._house_players(bot, missing)
                await self.start_table(
                    spec,
                    rules,
                    rules_name,
                    "ranked",
                    [e.member for e in chosen],
                    [bot] * missing,
                    rated=True,
                    shuffle=True,
                    house_players=house,
                )

    async def _match_cluster(self, cluster: Cluster) -> None:
        """The matching over the cluster's queues, on one process at a time (the leader): bots
        connected to the same process are grouped first (:func:`next_cluster_table`), and each
        table runs on the process most of its bots are connected to (:meth:`Cluster.seat`), so
        tables spread over the processes and a relayed seat is the exception."""
        if not await cluster.is_leader():
            return
        settings = self.settings
        fill, local = settings.fill_wait_ms / 1000.0, settings.local_wait_ms / 1000.0
        games = self.available_games()  # every queue read in one round trip (cluster_queues.py)
        ranked = [(g, r) for g, spec in games.items() for r in self.ranked_rules(spec)]
        for queue_key, queue in (await cluster.take_queues(ranked)).items():
            name, rules_name = queue_key
            spec = games[name]
            if not queue:
                continue
            rules = spec.resolve_rules(rules_name)
            size = self.table_size(spec, rules)
            now = time.monotonic()
            while True:
                chosen = next_cluster_table(
                    queue,
                    size,
                    now,
                    host=cluster.host_of,
                    local_wait=local,
                    fill_wait=fill,
                    slack=settings.local_rating_slack,
                )
                if chosen is None:
                    break
                refused = await fair_play.drop_suspended(self.store, self.db_executor, chosen)
                if refused:  # suspended while queued (on any process): never seated
                    for entry, refusal in refused:
                        queue.remove(entry)
                        await cluster.refuse(queue_key, entry, refusal)
                    continue
                for entry in chosen:
                    queue.remove(entry)
                if not await cluster.claim(queue_key, chosen):
                    break  # one left meanwhile: read the queue again next tick
                missing = size - len(chosen)
                bot = self.house_bot(spec)
                house = await self._house_players(bot, missing)
                await cluster.seat(queue_key, chosen, [bot] * missing, house)

    async def _house_players(self, bot: str, count: int) -> list[Identity]:
        """Stored identities ``house-BOT-1`` .. ``house-BOT-count``: each house seat of a ranked
        table is its own rated player, so one table never rates one player twice."""
        names = [f"house-{bot}-{k}" for k in range(1, count + 1)]
        missing = [n for n in names if n not in self._house_ids]
        if missing:
            loop = asyncio.get_running_loop()
            found = await loop.run_in_executor(
                self.db_executor, lambda: [self.store.house_player(n) for n in missing]
            )
            for identity in found:
                self._house_ids[identity.name] = identity.id
        return [Identity(self._house_ids[n], n, "house") for n in names]


def next_cluster_table(
    queue: list[QueueEntry],
    size: int,
    now: float,
    *,
    host: Callable[[QueueEntry], str],
    local_wait: float,
    fill_wait: float,
    slack: float,
) -> list[QueueEntry] | None:
    """The entries of the next ranked table a cluster's leader forms from ``queue`` (oldest
    first), or ``None``; fewer than ``size`` entries: house bots fill the rest.

    For each entry, oldest first: if the process it is connected to (``host``) has ``size - 1``
    other entries, the closest-rated of them make a table with it, which runs on that process
    with no seat relayed, unless the whole queue offers one whose ratings are closer by more
    than ``slack``. An entry without enough company on its own process waits, at most
    ``local_wait`` seconds (and never beyond ``fill_wait``); then it is matched with the
    closest ratings in the whole queue, the same process first among equals. An entry that has
    waited ``fill_wait`` takes whoever is there and house bots (the rule of one process alone,
    where every entry has the same host).
    """
    company: dict[str, int] = {}  # entries per process
    for entry in queue:
        company[host(entry)] = company.get(host(entry), 0) + 1
    for oldest in queue:
        waited = now - oldest.since
        mine = host(oldest)
        if size <= len(queue) and company[mine] < size and waited < min(local_wait, fill_wait):
            continue  # it waits for company on its own process (no sorting for it)
        others = sorted(
            (e for e in queue if e is not oldest),
            key=lambda e: (abs(e.rating - oldest.rating), host(e) != mine),
        )
        if len(others) < size - 1:
            if waited >= fill_wait:
                return [oldest, *others]
            continue
        best = others[: size - 1]
        local = [e for e in others if host(e) == mine][: size - 1]
        if len(local) == size - 1:
            if _spread(oldest, local) <= _spread(oldest, best) + slack:
                return [oldest, *local]
            return [oldest, *best]  # the ratings need the whole queue
        if waited >= min(local_wait, fill_wait):
            return [oldest, *best]
    return None


def _spread(oldest: QueueEntry, others: list[QueueEntry]) -> float:
    return max((abs(e.rating - oldest.rating) for e in others), default=0.0)


def _pace_options(message: Mapping[str, Any]) -> tuple[str | None, int]:
    """``pace`` and ``spectator_delay_ms`` of a join (or its ``create``); raises JoinError."""
    pace = message.get("pace")
    if pace is not None and pace not in PACES:
        raise JoinError("bad_join", f"pace is one of {', '.join(PACES)}, not {pace!r}")
    delay = message.get("spectator_delay_ms", 0)
    if delay is None:
        delay = 0
    if type(delay) is not int or not 0 <= delay <= MAX_SPECTATOR_DELAY_MS:
        raise JoinError(
            "bad_join",
            f"spectator_delay_ms is a whole number of ms from 0 to {MAX_SPECTATOR_DELAY_MS}",
        )
    return pace, delay


def _rated_option(message: Mapping[str, Any], member: Member, spec: GameSpec, rules: Any) -> bool:
    """``rated`` of a practice join or a private table's ``create``; raises JoinError for a
    guest or a rule set without a board of its own (boards.py)."""
    rated = message.get("rated", False)
    if type(rated) is not bool:
        raise JoinError("bad_join", "rated is true or false")
    if rated and (refusal := rated_refusal(member.player_id, spec, rules)):
        raise JoinError("bad_join", refusal)
    return rated


def _invite_code() -> str:
    alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O or 1/I: read aloud safely
    return "".join(secrets.choice(alphabet) for _ in range(6))


def _rules_json(spec: GameSpec, rules: Any) -> dict[str, Any]:
    to_json = getattr(rules, "to_json", None)
    if to_json is not None:
        data = to_json()
        if isinstance(data, dict):
            return data
    game = spec.new_game(rules, spec.seat_range(rules)[0], 0)
    return game.rules_json()


def _missing(factory: Any) -> bool:
    """Whether a bot of ``factory`` cannot be built here (a bot outside the engines whose module
    needs what this install lacks, such as numpy for ``learned``)."""
    if not isinstance(factory, OutsideBot):
        return False
    try:
        factory.factory()
    except ValueError:
        return True
    return False
