"""Server settings: defaults, then a TOML file, then ``CARDTABLE_*`` environment variables, then
command-line flags (each later source wins).

Every scalar setting ``name`` can be set by the environment variable ``CARDTABLE_NAME`` (for
example ``CARDTABLE_DB=postgresql+psycopg://...``, ``CARDTABLE_DEADLINE_MS=1500``). Tables
(``ranked_table_size``, ``house_bots``, ``fallback_bot``, ``ranked_rules``) come from TOML only.
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEFAULT_DB = "sqlite:///var/cardtable.db"


@dataclass
class Settings:
    """Everything the server can be told. Times are milliseconds unless the name says otherwise."""

    host: str = "127.0.0.1"
    port: int = 8000
    #: SQLAlchemy URL: ``sqlite:///path.db`` (WAL mode) or ``postgresql+psycopg://user@host/db``.
    db: str = DEFAULT_DB
    #: Redis URL (``redis://host:6379/0``): set it to run several processes as one competition
    #: (docs/server.md, "A cluster"); empty: this process alone (no Redis needed).
    redis_url: str = ""
    #: Prefix of every Redis key and channel of this competition (several may share a Redis).
    redis_prefix: str = "cardtable"
    #: A cluster process that has not renewed its lease for this long is taken for dead: its
    #: running games are marked aborted.
    lease_ms: int = 3000
    #: Cluster: every this often a process holding far more than its share of the cluster's bot
    #: connections asks some of them to reconnect (server/rebalance.py). 0: never. -1: every 3 s
    #: when the process shares its port (``--workers``, ``--reuse-port``: a reconnection may
    #: reach another process), else never (a client would come back to the same process).
    rebalance_ms: int = -1
    #: Cluster ranked queue: a bot is matched only with bots connected to the same process
    #: (its table then runs there, no seat relayed) until it has waited this long; then with
    #: anyone. 0: always with anyone (the closest ratings whatever their process).
    local_wait_ms: int = 1000
    #: ... unless the whole queue offers a table whose ratings are closer than the local one by
    #: more than this many rating points (μ − 3σ): then that table, relays and all.
    local_rating_slack: float = 3.0
    #: Name of this server process. On start, running games of this instance are marked
    #: aborted; give each process its own name when several share one PostgreSQL.
    instance: str = "main"
    #: The organiser's token: ``Authorization: Bearer TOKEN`` on ``POST /api/tournaments`` and
    #: the pause/resume/cancel calls (docs/competitions.md). Empty: no one can organise.
    admin_token: str = ""
    #: A new bot plays one unrated validation game against house bots before its first ranked
    #: one (server/validation.py); false: it is queued at once.
    validation_games: bool = True
    #: Per-decision deadline for bots and for people.
    deadline_ms: int = 2000
    person_deadline_ms: int = 60000
    #: Extra time per game a seat may spend beyond its deadlines, for bots and for people.
    time_bank_ms: int = 10000
    person_time_bank_ms: int = 120000
    #: Open auctions: quiet period after which the server closes the auction (people / bots only).
    quiet_ms: int = 5000
    bot_quiet_ms: int = 500
    #: Ranked lobby: how long a queue waits for other clients before house bots fill the table.
    fill_wait_ms: int = 3000
    #: Faults in one game after which the fallback plays the rest of that game for the seat.
    max_faults_per_game: int = 3
    #: A bot taken over in ``suspend_after_games`` of its last ``suspend_window_games`` games is
    #: suspended for ``suspend_minutes``.
    suspend_after_games: int = 3
    suspend_window_games: int = 5
    suspend_minutes: float = 10.0
    #: Flood control: sustained messages per second and burst per connection.
    flood_rate: float = 50.0
    flood_burst: int = 200
    max_frame_bytes: int = 64 * 1024
    # -- limits against abuse (docs/server.md "Limits") -------------------------------------
    #: Largest HTTP request body (413 above; a declared Content-Length is checked first).
    max_body_bytes: int = 64 * 1024
    #: Open connections (HTTP and WebSocket) per client address; more are refused with 429.
    max_connections_per_address: int = 256
    #: Addresses the per-address cap does not apply to, comma-separated (a reverse proxy on this
    #: machine, load tests); empty or ``none``: none.
    connection_cap_exempt: str = "127.0.0.1,::1"
    #: Reverse proxies whose ``X-Forwarded-For`` and ``X-Forwarded-Proto`` are believed:
    #: addresses or networks (``["127.0.0.1", "10.0.0.0/8"]``; the environment variable takes
    #: them comma-separated). Empty: none, every client is its connection's peer
    #: (docs/server.md, "Running it in public").
    trusted_proxies: list[str] = field(default_factory=list)
    #: Open connections and requests of the whole process (uvicorn answers 503 above; 0: none).
    max_connections: int = 4096
    #: Seconds a connection may take to send a complete request head, from its first byte (from
    #: connecting, for the first request): silent sockets, slowloris, endless heads.
    header_timeout_s: float = 10.0
    #: Largest HTTP request head (request line and headers); a longer one gets 431 and the
    #: connection is closed, before any parser holds it.
    max_head_bytes: int = 16 * 1024
    #: Seconds a WebSocket client may take to send hello.
    hello_timeout_s: float = 10.0
    #: A client whose unsent messages exceed this many bytes does not read: it is dropped.
    max_send_buffer_bytes: int = 1024 * 1024
    #: Wrong tokens per address (over all names) within ``bad_token_window_s`` before logins
    #: from that address are refused (``throttled``; Kuh-Handel: 429) for the rest of the window.
    #: Wrong organiser tokens (``admin_token``) are counted alike, in a window of their own.
    bad_token_limit: int = 30
    bad_token_window_s: float = 60.0
    #: A wrong token makes that (name, token) pair wait this long before its next try, doubling
    #: with each wrong try up to ``bad_token_backoff_max_s`` (0: no delays); other tokens and
    #: other bots from the same address are not held up (server/lockouts.py).
    bad_token_backoff_s: float = 1.0
    bad_token_backoff_max_s: float = 60.0
    #: Bot registrations (``POST /api/bots``) per address within ``registration_window_s``,
    #: then 429 with Retry-After (0: no limit).
    registration_limit_per_address: int = 20
    registration_window_s: float = 600.0
    #: Expensive reads per address within ``read_window_s`` (game lists and records, bot and
    #: player pages, leaderboards, tournaments, Kuh-Handel results), then 429 with Retry-After.
    read_limit_per_address: int = 60
    read_window_s: float = 10.0
    #: Addresses these rate limits do not apply to, comma-separated (load tests on this
    #: machine); empty or ``none``: none. Behind a reverse proxy the address is the client's
    #: only when the proxy is trusted (docs/server.md, "Running it in public").
    rate_limit_exempt: str = "127.0.0.1,::1"
    # -- accounts (docs/server.md "Accounts") ----------------------------------------------
    #: A wrong password makes that (name, address) pair wait this long before its next sign-in,
    #: doubling with each wrong one up to ``sign_in_backoff_max_s`` (0: no delays); the name
    #: from another address is not held up (server/lockouts.py).
    sign_in_backoff_s: float = 1.0
    sign_in_backoff_max_s: float = 300.0
    #: Wrong passwords from one address over all names within ``sign_in_window_s`` before its
    #: sign-ins are refused with 429 and Retry-After (against one address spraying names).
    sign_in_limit_per_address: int = 20
    sign_in_window_s: float = 300.0
    #: Account sign-ups per address within ``sign_in_window_s`` (each costs an argon2 hash:
    #: 64 MiB and tens of ms), then 429 with Retry-After.
    sign_up_limit_per_address: int = 10
    #: The argon2id cost of a new password hash (argon2-cffi's defaults: 3 passes over 64 MiB,
    #: 4 lanes; about 0.17 s of CPU per sign-up or sign-in on a 2-core machine). A hash keeps
    #: the cost it was made with; a sign-in of a hash of another cost stores it again at this
    #: one. Lower only where the machine cannot afford it (the tests: their servers do not
    #: guard real passwords).
    password_time_cost: int = 3
    password_memory_kib: int = 65536
    password_lanes: int = 4
    #: How often the event loop's lateness is sampled (``loop_lag`` of ``GET /api/metrics``):
    #: each sample wakes the loop, about 1% of a core at 10 ms (the tests' servers: 100).
    loop_lag_ms: int = 10
    #: How long a session cookie lasts (days).
    session_days: float = 30.0
    #: Seconds a disconnected seat keeps its place before the fallback plays the rest anyway
    #: (it still plays each decision meanwhile; this only decides whether resume is possible).
    resume_window_s: float = 300.0
    #: Pace of a table with a person when its creator chooses none: ``normal`` (a bot's move
    #: 0.6-1 s after the one before, a finished trick stays 1.2 s), ``fast`` (a third of that)
    #: or ``instant``. Tables of bots only default to instant; ranked tables are always instant.
    pace: str = "normal"
    #: The slowest pace a table with people plays at while none of them is present, so a person
    #: can take the seat back before the end (``instant``: it races to the end).
    away_pace: str = "normal"
    #: A person who disconnects keeps its open decision this long (no fault, no fallback); a
    #: reconnect with the same identity gets the same request. Then the fallback answers.
    grace_ms: int = 30000
    #: Every pace delay is multiplied by this (0 turns pacing off whatever the tables ask, e.g.
    #: for test servers that play whole games through the page; 2 plays twice as slowly).
    pace_scale: float = 1.0
    #: Ranked table size per game (clamped to the game's seat range).
    ranked_table_size: dict[str, int] = field(
        default_factory=lambda: {"kuhhandel": 4, "cunegonda": 4}
    )
    #: Rule sets offered in the ranked lobby per game (empty/missing: every preset).
    ranked_rules: dict[str, list[str]] = field(default_factory=dict)
    #: House bot used to fill ranked tables, per game (missing: the strongest built-in bot).
    house_bots: dict[str, str] = field(default_factory=dict)
    #: Bot that answers faulty decisions, per game (missing: the strongest built-in bot).
    fallback_bot: dict[str, str] = field(default_factory=dict)
    #: Request kinds that close an open auction when nobody acts for the quiet period.
    quiet_close_kinds: list[str] = field(default_factory=lambda: ["knock"])
    #: Log level for the ``cardtable`` loggers.
    log_level: str = "info"
    # -- Kuh-Handel compatible endpoint /kuh-handel/ (docs/kuh-handel.md) -------------------
    kh_enabled: bool = True
    #: House bots that fill Kuh-Handel tables, comma-separated, one picked at random per seat:
    #: a built-in bot (``expert``, ``heuristic``, ``random``), ``simple`` (reference-style, random
    #: risk) or ``simple:0.7``, or a bot file ``path/bot.py[:Class]``. Empty: ``expert`` if
    #: registered, else ``heuristic``.
    kh_house_bots: str = ""
    #: Bot that answers for a client that timed out, sent an unusable reply or left. Empty: the
    #: default house bot.
    kh_fallback_bot: str = ""
    #: Players per table (the reference: 3 to 6).
    kh_min_seats: int = 3
    kh_max_seats: int = 6
    #: Reply deadline per message (the reference: 500 ms; interactive games 5 minutes).
    kh_reply_timeout_ms: int = 500
    kh_interactive_timeout_ms: int = 300000
    #: Timeouts in one game after which the connection is closed (the reference: the first).
    kh_max_timeouts: int = 3
    #: pvp: real bots needed before a table forms at once, and how long the oldest waiting bot
    #: waits for them before house bots fill its table (0: wait for ever, like the reference).
    kh_pvp_min_bots: int = 3
    kh_fill_wait_ms: int = 3000
    kh_interactive_fill_wait_ms: int = 60000
    #: A lobby forms tables only when no bot arrived for this long (bots of one batch reconnect
    #: together after a game and should land at the same tables).
    kh_settle_ms: int = 500
    #: The reference adds a random number of house bots to every pvp table (up to the max seats);
    #: false: house bots only up to the minimum.
    kh_random_fill: bool = True
    #: pvp: new tables form only after every table of the previous batch ended (the reference).
    kh_sync_starts: bool = True
    #: Where house bots sit: ``last`` (the reference: connected bots first, so a house bot always
    #: sits last and under competition rules never starts) or ``rotate`` (for measuring: the
    #: seats of a table turn by one each game, and the n games of a cycle at one table size deal
    #: the same cards with the same house bots: seat rotation with duplicate deals).
    kh_house_seats: str = "last"
    #: Largest message a client may send.
    kh_max_message_bytes: int = 256 * 1024
    #: The expert's analysis of ended games (docs/analysis.md): worker processes (each at low
    #: priority, ``os.nice``), jobs waiting or running at most (more are refused with 429),
    #: sampled worlds per decision, and the time one game's analysis may take before it fails.
    analysis_workers: int = 1
    analysis_queue: int = 8
    analysis_worlds: int = 24
    analysis_time_s: float = 300.0
    # -- operations (docs/server.md, "Operations") ------------------------------------------
    #: ``text`` or ``json``: every log line of the process as one JSON object (oplog.py), with
    #: one line per HTTP request (``cardtable.access``) and per game end (``cardtable.games``).
    log_format: str = "text"
    #: ``GET /metrics`` (Prometheus): empty, anyone may read it, as ``GET /api/metrics``; set,
    #: only with ``Authorization: Bearer METRICS_TOKEN`` (a scraper's own secret, not the admin's).
    metrics_token: str = ""
    # -- hosted bots (docs/hosted-bots.md, server/submissions/) ----------------------------
    #: Largest uploaded archive of a hosted bot (the only HTTP body allowed past max_body_bytes).
    hosted_archive_bytes: int = 1024 * 1024
    #: Its unpacked size and its number of files.
    hosted_unpacked_bytes: int = 16 * 1024 * 1024
    hosted_files: int = 200
    #: Bytes of one game's stderr kept per hosted bot (the rest is cut, said at the end).
    hosted_log_bytes: int = 64 * 1024
    #: Versions kept per bot (an upload past it is refused: delete is the organiser's).
    hosted_versions: int = 50

    @property
    def public_url(self) -> str:
        return f"http://{self.host}:{self.port}"


_SCALARS = {
    f.name: f.type
    for f in dataclasses.fields(Settings)
    if f.type in ("str", "int", "float", "bool")
}

#: List settings the environment may set too, comma-separated.
_LISTS = ("trusted_proxies",)


def _convert(name: str, value: Any) -> Any:
    kind = _SCALARS.get(name)
    try:
        if kind == "int":
            return int(value)
        if kind == "float":
            return float(value)
        if kind == "bool":
            if isinstance(value, str):
                return value.strip().lower() in ("1", "true", "yes", "on")
            return bool(value)
        if kind == "str":
            return str(value)
    except (TypeError, ValueError):
        raise ValueError(f"setting {name}: {value!r} is not a {kind}") from None
    return value


def load_settings(
    config_file: str | Path | None = None,
    env: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> Settings:
    """Build settings from defaults, the TOML file, the environment and ``overrides`` (flags).

    ``overrides`` values of ``None`` are ignored (a flag that was not given). Raises
    ``ValueError`` for an unknown setting name in the TOML file or a value of the wrong type.
    """
    settings = Settings()
    names = {f.name for f in dataclasses.fields(Settings)}
    if config_file is not None:
        path = Path(config_file)
        try:
            data = tomllib.loads(path.read_text())
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise ValueError(f"config file {path}: {exc}") from None
        data = data.get("server", data)  # either top-level keys or a [server] table
        for key, value in data.items():
            if key not in names:
                raise ValueError(f"config file {path}: unknown setting {key!r}")
            if key in _SCALARS:
                value = _convert(key, value)
            elif not isinstance(value, dict | list):
                raise ValueError(f"config file {path}: {key} must be a table or list")
            setattr(settings, key, value)
    env = os.environ if env is None else env
    for key in _SCALARS:
        text = env.get(f"CARDTABLE_{key.upper()}")
        if text is not None and text != "":
            setattr(settings, key, _convert(key, text))
    for key in _LISTS:
        text = env.get(f"CARDTABLE_{key.upper()}")
        if text is not None and text != "":
            setattr(settings, key, [part.strip() for part in text.split(",") if part.strip()])
    for key, value in (overrides or {}).items():
        if value is None:
            continue
        if key not in names:
            raise ValueError(f"unknown setting {key!r}")
        setattr(settings, key, _convert(key, value) if key in _SCALARS else value)
    return settings


def redacted_url(url: str) -> str:
    """A URL (``redis_url``, for the logs) without its password."""
    if "@" in url:
        scheme, rest = url.split("://", 1) if "://" in url else ("redis", url)
        return f"{scheme}://***@{rest.split('@', 1)[1]}"
    return url
