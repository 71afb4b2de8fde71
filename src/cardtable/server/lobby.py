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
from collections.abc import Mapping
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

from cardtable.core import GameSpec, game_names, game_spec
from cardtable.server import ratings as rating_math
from cardtable.server.config import Settings
from cardtable.server.metrics import ServerMetrics
from cardtable.server.store.db import Identity, Store
from cardtable.server.table import Peer, SeatState, Table, TableSetup

log = logging.getLogger("cardtable.server.lobby")

#: Built-in bots from strongest to weakest; the first a game has is its house and fallback bot.
STRENGTH_ORDER = ("expert", "strong", "heuristic", "simple", "random")


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
    key: str  # "bot:NAME" or "guest:TOKEN-HASH"
    name: str
    kind: str  # "bot" | "guest"
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

    @property
    def open_seats(self) -> int:
        return self.seats - len(self.bots) - len(self.members)


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
        self._matchmaker: asyncio.Task[None] | None = None
        self._watcher: asyncio.Task[None] | None = None
        self.games_started = 0
        #: Decision latency and bot thinking time of this process (``GET /api/metrics``).
        self.metrics = ServerMetrics()

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
        self._watcher = asyncio.create_task(self.metrics.watch_loop(), name="loop-lag")

    async def shutdown(self) -> None:
        if self._matchmaker is not None:
            self._matchmaker.cancel()
        if self._watcher is not None:
            self._watcher.cancel()
        tasks = list(self.tasks.values())
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)

    def available_games(self) -> dict[str, GameSpec]:
        specs = {}
        for name in game_names():
            try:
                specs[name] = game_spec(name)
            except Exception:
                continue
        return specs

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
        self._unqueue(member_key)
        self._leave_private(member_key, peer)
        for game_id in list(self.seats_by_key.get(member_key, {})):
            table = self.tables.get(game_id)
            if table is not None:
                table.detach(peer)
        for table in self.tables.values():
            table.spectators.discard(peer)

    # -- joining ----------------------------------------------------------------------------

    def _spec_and_rules(
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

    def busy(self, key: str) -> bool:
        return key in self.queued or key in self.private_of or bool(self.running_games(key))

    async def join(self, member: Member, message: Mapping[str, Any]) -> None:
        """Serve a ``join`` message; raises :class:`JoinError`."""
        if self.busy(member.key):
            raise JoinError("busy", "already queued, at a private table or playing a game")
        lobby = message["lobby"]
        if lobby == "ranked":
            await self._join_ranked(member, message)
        elif lobby == "practice":
            await self._join_practice(member, message)
        else:
            await self._join_private(member, message)

    async def _join_ranked(self, member: Member, message: Mapping[str, Any]) -> None:
        if member.kind != "bot" or member.player_id is None:
            raise JoinError("bad_join", "the ranked lobby is for registered bots (POST /api/bots)")
        spec, _rules, rules_name = self._spec_and_rules(
            message.get("game"), message.get("rules"), presets_only=True
        )
        assert rules_name is not None
        if rules_name not in self.ranked_rules(spec):
            offered = ", ".join(self.ranked_rules(spec))
            raise JoinError("bad_join", f"{rules_name!r} is not ranked here (ranked: {offered})")
        loop = asyncio.get_running_loop()
        pid = member.player_id
        mu, sigma = await loop.run_in_executor(
            self.db_executor, lambda: self.store.rating(pid, spec.name, rules_name)
        )
        queue_key = (spec.name, rules_name)
        queue = self.queues.setdefault(queue_key, [])
        queue.append(QueueEntry(member, rating_math.conservative(mu, sigma), time.monotonic()))
        self.queued[member.key] = queue_key
        member.peer.send(
            {
                "type": "waiting",
                "lobby": "ranked",
                "game": spec.name,
                "rules": rules_name,
                "queued": len(queue),
                "fill_after_ms": self.settings.fill_wait_ms,
            }
        )

    async def _join_practice(self, member: Member, message: Mapping[str, Any]) -> None:
        spec, rules, rules_name = self._spec_and_rules(
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
        self._check_bots(spec, bots)
        await self.start_table(
            spec, rules, rules_name, "practice", [member], bots, rated=False, shuffle=True
        )

    async def _join_private(self, member: Member, message: Mapping[str, Any]) -> None:
        invite = message.get("invite")
        create = message.get("create")
        if invite is not None:
            table = self.private.get(str(invite).upper())
            if table is None:
                raise JoinError("unknown_invite", f"no open private table {invite!r}")
            if table.open_seats <= 0:
                raise JoinError("bad_join", "that table is full")
            table.members.append(member)
            self.private_of[member.key] = table.invite
            await self._private_changed(table)
            return
        create = dict(create or {})
        spec, rules, rules_name = self._spec_and_rules(
            message.get("game"), create.get("rules", message.get("rules")), presets_only=False
        )
        low, high = spec.seat_range(rules)
        seats = int(create.get("seats") or message.get("seats") or self.table_size(spec, rules))
        if not low <= seats <= high:
            raise JoinError("bad_join", f"{spec.name} is played by {low} to {high} seats")
        bots = list(create.get("bots") or [])
        if len(bots) > seats - 1:
            raise JoinError("bad_join", "leave at least one seat for the creator")
        self._check_bots(spec, bots)
        quiet_ms = create.get("quiet_ms")
        if quiet_ms is not None and (type(quiet_ms) is not int or not 500 <= quiet_ms <= 60000):
            raise JoinError("bad_join", "quiet_ms is a whole number of ms from 500 to 60000")
        code = _invite_code()
        while code in self.private:
            code = _invite_code()
        table = PrivateTable(code, spec, rules, rules_name, seats, bots, [member])
        table.quiet_ms = quiet_ms
        table.listed = bool(create.get("listed", False))
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
        }
        for m in table.members:
            m.peer.send(message)
        if table.open_seats == 0:
            del self.private[table.invite]
            for m in table.members:
                self.private_of.pop(m.key, None)
            started = await self.start_table(
                table.spec,
                table.rules,
                table.rules_name,
                "private",
                table.members,
                table.bots,
                rated=False,
                shuffle=True,
                extra_meta={"invite": table.invite},
            )
            if table.quiet_ms is not None:
                # the table's task has not run yet: its first auction already uses this
                started.quiet_s = table.quiet_ms / 1000.0

    def _check_bots(self, spec: GameSpec, bots: list[str]) -> None:
        for bot in bots:
            # only built-in names: a client must never make the server import a file
            if bot not in spec.bots:
                known = ", ".join(spec.bots)
                raise JoinError("unknown_game", f"no house bot {bot!r} for {spec.name} ({known})")

    def leave(self, member: Member) -> None:
        """``leave``: out of the queue or private table; from running games (fallback plays)."""
        self._unqueue(member.key)
        self._leave_private(member.key, member.peer)
        for game_id in self.running_games(member.key):
            self.tables[game_id].leave(member.peer)

    def _unqueue(self, key: str) -> None:
        queue_key = self.queued.pop(key, None)
        if queue_key is not None:
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
            if member.kind == "guest":
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
    ) -> Table:
        """Seat ``members`` and house ``bots`` and start the game (its task runs on its own)."""
        seed = secrets.randbits(62)
        settings = self.settings
        seats: list[SeatState] = []
        for m in members:
            person = m.kind == "guest"
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
        if shuffle:
            random.Random(seed).shuffle(seats)
        for i, seat in enumerate(seats):
            seat.index = i
        game_id = secrets.token_hex(8)
        setup = TableSetup(
            game_id, spec, rules, rules_name, seed, lobby, rated, seats, dict(extra_meta or {})
        )
        table = Table(
            setup,
            settings=settings,
            store=self.store,
            db_executor=self.db_executor,
            bot_executor=self.bot_executor,
            instance=self.instance,
            fallback_name=self.fallback_bot(spec),
            on_end=self._table_ended,
            metrics=self.metrics,
        )
        self.tables[game_id] = table
        for seat in seats:
            if seat.key is not None:
                self.seats_by_key.setdefault(seat.key, {})[game_id] = seat.index
        self.tasks[game_id] = asyncio.create_task(self._run_table(table), name=f"table-{game_id}")
        self.games_started += 1
        log.info(
            "game %s started: %s/%s %s %s", game_id, spec.name, rules_name, lobby, list(table.names)
        )
        return table

    async def _run_table(self, table: Table) -> None:
        try:
            result = await table.run()
            log.info("game %s ended: %s %s", table.id, result.termination.value, result.places)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("game %s could not be stored", table.id)
            self._table_ended(table)

    def _table_ended(self, table: Table) -> None:
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
        now = time.monotonic()
        wait = self.settings.fill_wait_ms / 1000.0
        for (game, rules_name), queue in list(self.queues.items()):
            if not queue:
                continue
            spec = game_spec(game)
            rules = spec.resolve_rules(rules_name)
            size = self.table_size(spec, rules)
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
