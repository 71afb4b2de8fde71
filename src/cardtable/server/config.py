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
    #: Name of this server process. On start, running games of this instance are marked
    #: aborted; give each process its own name when several share one PostgreSQL.
    instance: str = "main"
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
    #: Seconds a disconnected seat keeps its place before the fallback plays the rest anyway
    #: (it still plays each decision meanwhile; this only decides whether resume is possible).
    resume_window_s: float = 300.0
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
    #: Largest message a client may send.
    kh_max_message_bytes: int = 256 * 1024

    @property
    def public_url(self) -> str:
        return f"http://{self.host}:{self.port}"


_SCALARS = {
    f.name: f.type
    for f in dataclasses.fields(Settings)
    if f.type in ("str", "int", "float", "bool")
}


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
    for key, value in (overrides or {}).items():
        if value is None:
            continue
        if key not in names:
            raise ValueError(f"unknown setting {key!r}")
        setattr(settings, key, _convert(key, value) if key in _SCALARS else value)
    return settings
