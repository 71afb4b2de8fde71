"""The database schema (SQLAlchemy Core). Every change goes with a new alembic migration."""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
)

metadata = MetaData()

#: Registered bots and house bots. Guests (people) are not stored; their seats carry a name only.
players = Table(
    "players",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(32), nullable=False, unique=True),
    Column("kind", String(8), nullable=False),  # "bot" | "house"
    Column("token_hash", String(128), nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("suspended_until", DateTime(timezone=True), nullable=True),
    Column("suspended_reason", Text, nullable=True),
)

games = Table(
    "games",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("game", String(32), nullable=False),
    Column("rules_name", String(64), nullable=True),
    Column("rules_json", Text, nullable=False),
    Column("seats", Integer, nullable=False),
    Column("seed", BigInteger, nullable=False),
    Column("lobby", String(16), nullable=False),
    Column("rated", Boolean, nullable=False),
    # "running" | "finished" | "aborted"
    Column("status", String(16), nullable=False),
    Column("instance", String(128), nullable=False),
    Column("names_json", Text, nullable=False),
    Column("started_at", DateTime(timezone=True), nullable=False),
    Column("ended_at", DateTime(timezone=True), nullable=True),
    Column("termination", String(16), nullable=True),
    Column("result_json", Text, nullable=True),
    Column("record_json", Text, nullable=True),
    Index("ix_games_status_started", "status", "started_at"),
    Index("ix_games_game_rules", "game", "rules_name"),
)

game_seats = Table(
    "game_seats",
    metadata,
    Column("game_id", String(32), ForeignKey("games.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("player_id", Integer, ForeignKey("players.id"), nullable=True),
    Column("name", String(64), nullable=False),
    Column("kind", String(8), nullable=False),  # "bot" | "house" | "guest"
    Column("place", Integer, nullable=True),
    Column("score", Float, nullable=True),
    Column("faults", Integer, nullable=False, default=0),
    Column("taken_over", Boolean, nullable=False, default=False),
    Column("mu_before", Float, nullable=True),
    Column("sigma_before", Float, nullable=True),
    Column("mu_after", Float, nullable=True),
    Column("sigma_after", Float, nullable=True),
    Index("ix_game_seats_player", "player_id"),
)

faults = Table(
    "faults",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("game_id", String(32), ForeignKey("games.id"), nullable=False),
    Column("seat", Integer, nullable=False),
    Column("player_id", Integer, ForeignKey("players.id"), nullable=True),
    Column("decision", Integer, nullable=False),
    Column("request_kind", String(32), nullable=False),
    Column("code", String(32), nullable=False),
    Column("reason", Text, nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
    Index("ix_faults_player", "player_id"),
)

ratings = Table(
    "ratings",
    metadata,
    Column("player_id", Integer, ForeignKey("players.id"), primary_key=True),
    Column("game", String(32), primary_key=True),
    Column("rules", String(64), primary_key=True),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("games", Integer, nullable=False),
    Column("wins", Integer, nullable=False),
    Column("last_played", DateTime(timezone=True), nullable=True),
)
