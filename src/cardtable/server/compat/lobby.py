"""The Kuh-Handel lobbies and the service behind ``/kuh-handel/`` (spec §1.3, §1.4).

One :class:`KuhHandel` per server process. It authenticates connections, keeps one matchmaking
loop per lobby (every 100 ms), seats bots and house bots, runs each game as a task
(:class:`~cardtable.server.compat.match.KhMatch`) and stores it in the server's store.

========================  =========  ==============  ============  ========  ==========
lobby (route)             seats      starts with     vs            rated     get_results
========================  =========  ==============  ============  ========  ==========
``pvp_games``             3–6        3 real bots     bots + house  yes       yes
``server_bot_game``       3–6        1 real bot      house only    no        no
``interactive_game``      3          3 real bots     bots + house  no        no
========================  =========  ==============  ============  ========  ==========

Matchmaking as the reference: the waiting bots are shuffled; the players per table ``k`` is the
smallest allowed size dividing their number, else the size leaving the largest remainder; tables
get a random number of house bots up to the maximum size (``kh_random_fill``); real bots sit
first, then the house bots; pvp tables of one batch all end before the next batch starts. Ours
adds: a table forms only once no new bot arrived for ``kh_settle_ms``, and a bot that waited
``kh_fill_wait_ms`` gets its table filled with house bots instead of waiting for ever. With
``kh_house_seats = "rotate"`` the seats turn instead (:class:`SeatCycle`): for fair measurement
of a house bot against outside bots (docs/kuh-handel.md, *Measuring a house bot*).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import secrets
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from starlette.responses import PlainTextResponse
from starlette.websockets import WebSocket

from cardtable.core import Agent, game_spec, load_bot, split_bot_list
from cardtable.games.kuhhandel import COMPETITION
from cardtable.server.compat import store as kh_store
from cardtable.server.compat.connection import BotConnection
from cardtable.server.compat.match import Box, Fault, KhMatch, Player
from cardtable.server.compat.simple import SimpleBot, risk_text
from cardtable.server.compat.wire import rust_float
from cardtable.server.config import Settings
from cardtable.server.fault_log import FaultLog
from cardtable.server.lockouts import BotLogins
from cardtable.server.proxies import client_address
from cardtable.server.store.db import SEAT_DECISION, FaultRow, SeatOutcome, Store

log = logging.getLogger("cardtable.server.compat")

T = TypeVar("T")

#: Built-in bots cheap enough to think on the event loop.
FAST_BOTS = frozenset({"simple", "random", "heuristic"})


@dataclass
class LobbySpec:
    route: str
    store_name: str
    sizes: tuple[int, ...]
    min_bots: int
    only_house: bool
    sync: bool
    timeout_s: float
    fill_wait_s: float | None
    rated: bool
    results: bool


@dataclass(eq=False)
class Lobby:
    spec: LobbySpec
    conns: dict[str, BotConnection] = field(default_factory=dict)
    running: set[asyncio.Task[None]] = field(default_factory=set)
    task: asyncio.Task[None] | None = None


def lobby_specs(settings: Settings) -> dict[str, LobbySpec]:
    low = max(COMPETITION.min_seats, min(settings.kh_min_seats, COMPETITION.max_seats))
    high = max(low, min(settings.kh_max_seats, COMPETITION.max_seats))
    sizes = tuple(range(low, high + 1))
    timeout = settings.kh_reply_timeout_ms / 1000
    fill = settings.kh_fill_wait_ms / 1000 if settings.kh_fill_wait_ms > 0 else None
    ifill = (
        settings.kh_interactive_fill_wait_ms / 1000
        if settings.kh_interactive_fill_wait_ms > 0
        else None
    )
    return {
        "pvp_games": LobbySpec(
            "pvp_games",
            "kh-pvp",
            sizes,
            max(1, settings.kh_pvp_min_bots),
            False,
            settings.kh_sync_starts,
            timeout,
            fill,
            True,
            True,
        ),
        "server_bot_game": LobbySpec(
            "server_bot_game", "kh-server-bot", sizes, 1, True, False, timeout, 0.0, False, False
        ),
        "interactive_game": LobbySpec(
            "interactive_game",
            "kh-interactive",
            (3,),
            3,
            False,
            False,
            settings.kh_interactive_timeout_ms / 1000,
            ifill,
            False,
            False,
        ),
    }


def table_size(n: int, sizes: tuple[int, ...]) -> int:
    """Players per table for ``n`` waiting bots (§1.3 step 3)."""
    if n <= sizes[0]:
        return n
    zero = [s for s in sizes if n % s == 0]
    if zero:
        return min(zero)
    return max(sizes, key=lambda s: (n % s, s))


#: Values of ``kh_house_seats``.
HOUSE_SEATS = ("last", "rotate")


@dataclass
class SeatCycle:
    """Seat rotation with duplicate deals for one lobby (``kh_house_seats = "rotate"``).

    A cycle is ``n`` games at one table size ``n``: the same deal seed and the same house bots,
    the seats turned by one each game, so every player sits in every seat once on the same deal
    (under competition rules seat 0 starts). A table of another size starts a new cycle.
    """

    size: int = 0
    seed: int = 0
    houses: list[HouseBot] = field(default_factory=list)
    turn: int = 0

    def next(self, size: int, rng: random.Random, pick: Callable[[], HouseBot]) -> tuple[int, int]:
        """The deal seed and the seat shift of the next game at a table of ``size``."""
        if size != self.size or self.turn >= size:
            self.size, self.seed, self.turn = size, rng.getrandbits(62), 0
            self.houses = [pick() for _ in range(size)]
        shift = self.turn
        self.turn += 1
        return self.seed, shift


def seat_order(players: list[T], shift: int) -> list[T]:
    """``players`` turned by ``shift`` seats: the player listed first sits in seat ``shift``."""
    n = len(players)
    if n == 0:
        return players
    k = shift % n
    return players[n - k :] + players[: n - k]


def parse_bool(text: str) -> bool | None:
    """serde-aux "bool from anything": true/false, 1/0 (and yes/no, on/off)."""
    value = text.strip().lower()
    if value in ("true", "1", "yes", "on", "t", "y"):
        return True
    if value in ("false", "0", "no", "off", "f", "n"):
        return False
    return None


class HouseBot:
    """A house bot reference: ``simple[:RISK]``, a built-in name or a bot file."""

    def __init__(self, ref: str) -> None:
        self.ref = ref.strip()
        kind, _, arg = self.ref.partition(":")
        self.simple = kind == "simple"
        self.risk: float | None = None
        if self.simple and arg:
            self.risk = float(arg)
            if not 0 <= self.risk <= 1:
                raise ValueError(f"risk {arg} is not in [0, 1]")
        if self.simple:
            self.label = "simple"
        elif ":" in self.ref or self.ref.endswith(".py"):
            self.label = Path(self.ref.split(":")[0]).stem[:16]
        else:
            self.label = self.ref
        self.make(0)  # fails now, at start, for an unknown bot or a broken file

    @property
    def fast(self) -> bool:
        return self.simple or self.ref in FAST_BOTS

    def make(self, seed: int) -> Agent:
        if self.simple:
            return SimpleBot(seed=seed, risk=self.risk)
        return load_bot("kuhhandel", self.ref, seed)

    def wire_name(self, index: int, agent: Agent) -> str:
        if isinstance(agent, SimpleBot):
            return f"server_bot_{index}_risk_{risk_text(agent.risk)}"
        return f"server_bot_{index}_{self.label}"


def default_bot() -> str:
    return "expert" if "expert" in game_spec("kuhhandel").bots else "heuristic"


class KuhHandel:
    """The Kuh-Handel compatible service of one server process."""

    def __init__(self, settings: Settings, store: Store, *, db_executor: Executor) -> None:
        self.settings = settings
        self.store = store
        self.db_executor = db_executor
        self.specs = lobby_specs(settings)
        self.lobbies = {name: Lobby(spec) for name, spec in self.specs.items()}
        self.rng = random.Random(secrets.randbits(64))
        if settings.kh_house_seats not in HOUSE_SEATS:
            raise ValueError(
                f"setting kh_house_seats: {settings.kh_house_seats!r} is not one of "
                + ", ".join(HOUSE_SEATS)
            )
        self.rotate = settings.kh_house_seats == "rotate"
        self.cycles: dict[str, SeatCycle] = {name: SeatCycle() for name in self.specs}
        self.houses = self._house_bots(settings.kh_house_bots)
        fallback = settings.kh_fallback_bot.strip()
        self.fallback = self._house_bots(fallback)[0] if fallback else HouseBot(default_bot())
        self.results: dict[str, list[int]] = {}
        self.durations: deque[float] = deque(maxlen=10)
        self.house_ids: dict[str, int] = {}
        self.games: set[asyncio.Task[None]] = set()
        self.games_played = 0

    def _house_bots(self, text: str) -> list[HouseBot]:
        refs = split_bot_list(text) or [default_bot()]
        bots = []
        for ref in refs:
            try:
                bots.append(HouseBot(ref))
            except Exception as exc:
                log.error("kuh-handel: house bot %r is unusable (%s); left out", ref, exc)
        return bots or [HouseBot(default_bot())]

    async def _db(self, fn: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.db_executor, fn, *args)

    # ------------------------------------------------------------------ life cycle
    async def start(self) -> None:
        pvp = self.specs["pvp_games"].store_name
        self.results = await self._db(kh_store.load_results, self.store, pvp)
        for lobby in self.lobbies.values():
            lobby.task = asyncio.create_task(self._loop(lobby), name=f"kh-{lobby.spec.route}")
        log.info(
            "kuh-handel endpoint: house bots %s, fallback %s, reply timeout %d ms",
            ", ".join(h.ref for h in self.houses),
            self.fallback.ref,
            self.settings.kh_reply_timeout_ms,
        )

    async def stop(self) -> None:
        for lobby in self.lobbies.values():
            if lobby.task is not None:
                lobby.task.cancel()
        tasks = [t for lobby in self.lobbies.values() if lobby.task for t in [lobby.task]]
        tasks += list(self.games)
        for task in self.games:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for lobby in self.lobbies.values():
            for conn in list(lobby.conns.values()):
                await conn.close(1001)
                conn.released.set()

    # ------------------------------------------------------------------ HTTP
    async def register(self, name: str, token: str) -> tuple[int, str]:
        return await self._db(kh_store.register_saying_why, self.store, name, token)

    def results_text(self) -> str:
        return json.dumps({k: self.results[k] for k in sorted(self.results)}, separators=(",", ":"))

    def games_per_second(self) -> str:
        total = sum(self.durations)
        return rust_float(len(self.durations) / total if total > 0 else float("nan"))

    # ------------------------------------------------------------------ WebSocket
    async def serve(self, websocket: WebSocket, route: str) -> None:
        """Handle one connection to ``/kuh-handel/<route>`` from handshake to close."""
        lobby = self.lobbies.get(route)
        #: ``tournament-ID``: an organiser's tournament (docs/competitions.md)
        tournament = route.removeprefix("tournament-") if route.startswith("tournament-") else None
        if lobby is None and tournament is None:
            await _deny(websocket, 404, "Not Found")
            return
        query = websocket.query_params
        for key in ("player_id", "token", "raise_faulty_action_warning"):
            if key not in query:
                await _deny(
                    websocket, 400, f"Failed to deserialize query string: missing field `{key}`"
                )
                return
        name, token = query["player_id"], query["token"]
        warnings = parse_bool(query["raise_faulty_action_warning"])
        if warnings is None:
            await _deny(
                websocket,
                400,
                "Failed to deserialize query string: raise_faulty_action_warning: invalid boolean",
            )
            return
        throttle: BotLogins | None = getattr(websocket.app.state, "token_throttle", None)
        address = client_address(websocket)
        if throttle is not None:
            wait, why = await throttle.retry_after(name, token, address)
            if wait > 0:
                seconds = max(1, int(wait + 0.999))
                await _deny(
                    websocket,
                    429,
                    f"too many wrong tokens ({why}): retry after {seconds} s",
                    {"Retry-After": str(seconds)},
                )
                return
        try:
            player_id = await self._db(kh_store.authenticate, self.store, name, token)
        except Exception:
            log.exception("kuh-handel: authentication failed")
            await _deny(websocket, 503, "the database is not available")
            return
        if player_id is None:
            if throttle is not None:
                await throttle.failed(name, token, address)
            await _deny(websocket, 401, "unknown player_id or wrong token")
            return
        if tournament is not None:
            await self._serve_tournament(websocket, tournament, name, route, warnings, player_id)
            return
        assert lobby is not None
        old = lobby.conns.get(name)
        if old is not None:
            if old.alive:
                await _deny(websocket, 409, f"{name!r} is connected to this lobby already")
                return
            if not old.in_game:
                old.released.set()  # gone while waiting: its handler may end now
        conn = BotConnection(
            websocket,
            name,
            route,
            warnings,
            max_bytes=self.settings.kh_max_message_bytes,
            player_id=player_id,
        )
        lobby.conns[name] = conn
        try:
            await websocket.accept()
        except Exception:
            if lobby.conns.get(name) is conn:
                del lobby.conns[name]
            return
        conn.start_reading()
        try:
            await conn.released.wait()
        finally:
            if lobby.conns.get(name) is conn:
                del lobby.conns[name]
            await conn.close(1000)
            await conn.stop_reading()

    async def _serve_tournament(
        self, websocket: WebSocket, tid: str, name: str, route: str, warnings: bool, pid: int
    ) -> None:
        """A Kuh-Handel bot enters tournament ``tid``: it waits in the tournament's lobby until
        the scheduler seats it at a game (``TournamentLobby.kh_join``), as in a pvp lobby."""
        hub = websocket.app.state.hub
        conn = BotConnection(
            websocket,
            name,
            route,
            warnings,
            max_bytes=self.settings.kh_max_message_bytes,
            player_id=pid,
        )
        refused = await hub.tournaments.kh_join(tid, conn, self)
        if refused is not None:
            await _deny(websocket, refused[0], refused[1])
            return
        try:
            await websocket.accept()
        except Exception:
            hub.tournaments.forget(f"kh:{name}")
            return
        conn.start_reading()
        try:
            await conn.released.wait()
        finally:
            hub.tournaments.forget(f"kh:{name}")
            await conn.close(1000)
            await conn.stop_reading()

    # ------------------------------------------------------------------ matchmaking
    async def _loop(self, lobby: Lobby) -> None:
        while True:
            await asyncio.sleep(0.1)
            try:
                self._tick(lobby)
            except Exception:
                log.exception("kuh-handel lobby %s", lobby.spec.route)

    def _tick(self, lobby: Lobby) -> None:
        spec = lobby.spec
        waiting = []
        for name, conn in list(lobby.conns.items()):
            if conn.in_game:
                continue
            if not conn.alive:
                del lobby.conns[name]
                conn.released.set()
                continue
            waiting.append(conn)
        if not waiting or (spec.sync and lobby.running):
            return
        now = time.monotonic()
        oldest = min(c.since for c in waiting)
        newest = max(c.since for c in waiting)
        settled = now - newest >= self.settings.kh_settle_ms / 1000
        enough = spec.only_house or (len(waiting) >= spec.min_bots and settled)
        filling = spec.fill_wait_s is not None and now - oldest >= spec.fill_wait_s
        if not (enough or filling):
            return
        self.rng.shuffle(waiting)
        k = 1 if spec.only_house else table_size(len(waiting), spec.sizes)
        low, high = spec.sizes[0], spec.sizes[-1]
        for i in range(0, len(waiting), k):
            chunk = waiting[i : i + k]
            m = len(chunk)
            least = max(0, low - m)
            houses = self.rng.randint(least, max(least, high - m))
            if not self.settings.kh_random_fill or spec.route == "interactive_game":
                houses = least
            for conn in chunk:
                conn.in_game = True
            task = asyncio.create_task(self._play(lobby, chunk, houses), name="kh-game")
            self.games.add(task)
            lobby.running.add(task)
            task.add_done_callback(self.games.discard)
            task.add_done_callback(lobby.running.discard)

    async def _house_identity(self, name: str) -> int | None:
        if name not in self.house_ids:
            try:
                identity = await self._db(self.store.house_player, name)
            except Exception:
                log.exception("kuh-handel: house player %s", name)
                return None
            self.house_ids[name] = identity.id
        return self.house_ids[name]

    async def _play(self, lobby: Lobby, conns: list[BotConnection], houses: int) -> None:
        spec = lobby.spec
        seed = self.rng.getrandbits(62)
        shift = 0
        chosen = [self.rng.choice(self.houses) for _ in range(houses)]
        if self.rotate:
            cycle = self.cycles[spec.route]
            seed, shift = cycle.next(
                len(conns) + houses, self.rng, lambda: self.rng.choice(self.houses)
            )
            chosen = cycle.houses[:houses]
        game_id = secrets.token_hex(8)
        players = [Player(c.name, conn=c, label="client", player_id=c.player_id) for c in conns]
        labels: dict[str, int] = {}
        for i, house in enumerate(chosen):
            agent = house.make(seed + 1 + i)
            labels[house.label] = labels.get(house.label, 0) + 1
            ident = f"house-{house.label}-{labels[house.label]}"
            box = Box(agent, 0, None, not house.fast)  # type: ignore[arg-type]
            players.append(
                Player(
                    house.wire_name(i, agent),
                    house=box,
                    label=house.ref if not isinstance(agent, SimpleBot) else f"simple:{agent.risk}",
                    player_id=await self._house_identity(ident),
                )
            )
        players = seat_order(players, shift)
        fallback = self.fallback

        def make_fallback(seat: int) -> tuple[Agent, bool]:
            return fallback.make(seed + 100 + seat), not fallback.fast

        match = KhMatch(
            players,
            seed=seed,
            timeout_s=spec.timeout_s,
            fallback=make_fallback,
            max_timeouts=max(1, self.settings.kh_max_timeouts),
        )
        faults = self.fault_log(game_id, match)
        stored = False
        try:
            await self._db(
                lambda: self.store.start_game(
                    game_id=game_id,
                    game="kuhhandel",
                    rules_name="competition",
                    rules=match.game.rules_json(),
                    seed=seed,
                    lobby=spec.store_name,
                    rated=spec.rated,
                    instance=self.settings.instance,
                    seats=[
                        (p.player_id, p.name, "bot" if p.conn is not None else "house")
                        for p in players
                    ],
                )
            )
            stored = True
            faults.open()
        except Exception:
            log.exception("kuh-handel game %s could not be stored; it is played anyway", game_id)
        log.info("kuh-handel game %s (%s) starts: %s", game_id, spec.route, match.names)
        recorded = False

        async def record_end() -> None:
            # Stored and counted before any client hears End (and at the latest in ``finally``).
            nonlocal recorded
            if recorded:
                return
            recorded = True
            if stored:
                with contextlib.suppress(Exception):
                    await asyncio.shield(self._store_end(game_id, match, faults))
            result = match.result
            if result is not None and result.termination.value != "aborted":
                self.games_played += 1
                if spec.results:
                    for name, place in kh_store.end_places(match.names, result.to_json()).items():
                        self.results.setdefault(name, []).append(place)
                    self.durations.append(match.duration)

        try:
            await match.run(on_end=record_end)
        finally:
            for c in conns:
                c.released.set()
            await record_end()
        log.info("kuh-handel game %s ended: %s", game_id, match.ranking())

    def fault_log(self, game_id: str, match: KhMatch) -> FaultLog:
        """The faults of ``match``, stored as they happen once :meth:`FaultLog.open` is called
        (after the game's start is stored): a process that dies mid-game keeps them."""
        faults = FaultLog(self.store, self.db_executor, game_id)
        players = match.players

        def add(f: Fault) -> None:
            pid = players[f.seat].player_id
            faults.add(
                FaultRow(
                    f.seat,
                    pid,
                    f.decision,
                    f.request_kind,
                    f.code,
                    f.reason,
                    detail={SEAT_DECISION: f.seat_decision},
                )
            )

        match.on_fault = add
        return faults

    async def _store_end(
        self, game_id: str, match: KhMatch, faults: FaultLog | None = None
    ) -> None:
        """Store the end of ``match`` with its faults (those ``faults`` did not store yet)."""
        result = match.result
        if result is None:
            return
        players = match.players
        counts = [0] * len(players)
        for f in match.faults:
            counts[f.seat] += 1
        unstored = None if faults is None else await faults.close()
        try:
            await self._db(
                lambda: self.store.finish_game(
                    game_id,
                    record=match.record().to_json(),
                    result=result.to_json(),
                    seats=[
                        SeatOutcome(s, p.player_id, counts[s], p.taken_over)
                        for s, p in enumerate(players)
                    ],
                    fault_rows=unstored
                    if unstored is not None
                    else [
                        FaultRow(
                            f.seat,
                            players[f.seat].player_id,
                            f.decision,
                            f.request_kind,
                            f.code,
                            f.reason,
                            detail={SEAT_DECISION: f.seat_decision},
                        )
                        for f in match.faults
                    ],
                    suspend_after=0,
                    suspend_window=1,
                    suspend_minutes=0.0,
                )
            )
        except Exception:
            log.exception("kuh-handel game %s: storing the result failed", game_id)


async def _deny(
    websocket: WebSocket, status: int, text: str, headers: dict[str, str] | None = None
) -> None:
    """Refuse the handshake with an HTTP status (before the upgrade, §1.2)."""
    if "websocket.http.response" in websocket.scope.get("extensions", {}):
        await websocket.send_denial_response(
            PlainTextResponse(text, status_code=status, headers=headers)
        )
    else:
        await websocket.close(code=1008)
