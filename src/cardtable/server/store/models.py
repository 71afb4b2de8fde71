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
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
)

metadata = MetaData()

#: Registered bots, house bots and people with an account (one namespace). Guests are not
#: stored; their seats carry a name and their identity key only.
players = Table(
    "players",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(32), nullable=False, unique=True),
    Column("kind", String(8), nullable=False),  # "bot" | "house" | "person"
    Column("token_hash", String(128), nullable=True),
    #: A person's password, argon2id (migration 0005); NULL for bots.
    Column("password_hash", String(256), nullable=True),
    #: A person's session generation: a session carrying an older one is signed out.
    Column("session_gen", Integer, nullable=False, server_default="0"),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("suspended_until", DateTime(timezone=True), nullable=True),
    Column("suspended_reason", Text, nullable=True),
    # the name's case folding and confusable skeleton (server/names.py): no two players share
    # either; NULL for house bots and for rows that collided when migration 0004 filled them
    Column("name_fold", String(128), nullable=True),
    Column("name_skeleton", String(128), nullable=True),
    #: A person's language for the pages (cardtable.i18n.SUPPORTED code; migration 0012);
    #: NULL: the browser's Accept-Language decides.
    Column("language", String(8), nullable=True),
    Index("ix_players_name_fold", "name_fold", unique=True),
    Index("ix_players_name_skeleton", "name_skeleton", unique=True),
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
    #: The order game ends were committed (migration 0002): ratings are replayed in this order.
    Column("end_seq", BigInteger, nullable=True),
    Index("ix_games_status_started", "status", "started_at"),
    Index("ix_games_end_seq", "end_seq", unique=True),
    Index("ix_games_game_rules", "game", "rules_name"),
)

game_seats = Table(
    "game_seats",
    metadata,
    Column("game_id", String(32), ForeignKey("games.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("player_id", Integer, ForeignKey("players.id"), nullable=True),
    Column("name", String(64), nullable=False),
    Column("kind", String(8), nullable=False),  # "bot" | "house" | "guest" | "person"
    #: A guest seat's identity key (migration 0005): a guest who claims an account takes the
    #: seats of this key along (player_id set, kind stays "guest": never rated).
    Column("guest_key", String(64), nullable=True),
    Column("place", Integer, nullable=True),
    Column("score", Float, nullable=True),
    Column("faults", Integer, nullable=False, default=0),
    Column("taken_over", Boolean, nullable=False, default=False),
    Column("mu_before", Float, nullable=True),
    Column("sigma_before", Float, nullable=True),
    Column("mu_after", Float, nullable=True),
    Column("sigma_after", Float, nullable=True),
    #: The version string the seat's bot sent in ``hello`` (migration 0008); null if none.
    Column("bot_version", String(64), nullable=True),
    Index("ix_game_seats_player", "player_id"),
    Index("ix_game_seats_guest_key", "guest_key"),
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
    # JSON: what the client reported (exception, file, line...), see FaultRow.detail
    Column("detail", Text, nullable=True),
    Index("ix_faults_player", "player_id"),
    # every game end reads its game's faults (fair_play: a faulted seat counts below the rest)
    Index("ix_faults_game", "game_id"),
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

#: A signed-in browser (migration 0005): the SHA-256 hex of its cookie's token, never the token.
sessions = Table(
    "sessions",
    metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("player_id", Integer, ForeignKey("players.id"), nullable=False),
    Column("gen", Integer, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False),
    Index("ix_sessions_player", "player_id"),
)

#: The expert's analysis of an ended game (issue #26, migration 0006): one row per game and seat
#: (``seat`` -1: every seat). The row is also the job's claim: a worker of any process takes a
#: ``queued`` row by moving it to ``running`` in one UPDATE, so a job runs once in a cluster.
analyses = Table(
    "analyses",
    metadata,
    Column("game_id", String(32), ForeignKey("games.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    # "queued" | "running" | "done" | "failed"
    Column("status", String(16), nullable=False),
    Column("budget_json", Text, nullable=False),
    Column("done", Integer, nullable=False, server_default="0"),
    Column("total", Integer, nullable=False, server_default="0"),
    Column("result_json", Text, nullable=True),
    Column("error", Text, nullable=True),
    Column("claimed_by", String(128), nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("started_at", DateTime(timezone=True), nullable=True),
    Column("finished_at", DateTime(timezone=True), nullable=True),
)

#: Competitions run by an organiser (docs/competitions.md). ``config_json`` holds everything the
#: organiser chose (format, deals, seed, time rules, house fill); ``standings_json`` the final
#: standings, frozen when the last planned game is done.
tournaments = Table(
    "tournaments",
    metadata,
    Column("id", String(16), primary_key=True),
    Column("name", String(64), nullable=False),
    Column("game", String(32), nullable=False),
    Column("rules_name", String(64), nullable=True),
    Column("rules_json", Text, nullable=False),
    Column("seats", Integer, nullable=False),
    Column("config_json", Text, nullable=False),
    # "signup" | "running" | "paused" | "finished" | "cancelled"
    Column("status", String(16), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("started_at", DateTime(timezone=True), nullable=True),
    Column("ended_at", DateTime(timezone=True), nullable=True),
    Column("standings_json", Text, nullable=True),
)

#: The field: one row per entrant, told apart by position (as the arena's line-up).
tournament_entrants = Table(
    "tournament_entrants",
    metadata,
    Column("tournament_id", String(16), ForeignKey("tournaments.id"), primary_key=True),
    Column("position", Integer, primary_key=True),
    Column("name", String(64), nullable=False),
    Column("player_id", Integer, ForeignKey("players.id"), nullable=True),
    Column("faults", Integer, nullable=False, default=0),
    #: Games in which the entrant was banned (taken over by the house bot after its faults).
    Column("bans", Integer, nullable=False, default=0),
    Column("suspended", Boolean, nullable=False, default=False),
    Column("suspended_reason", Text, nullable=True),
    #: The organiser's sanction (migration 0008, server/organiser.py): ``banned``,
    #: ``suspended`` (until ``sanction_until``) or ``disqualified``; null when none.
    Column("sanction", String(16), nullable=True),
    Column("sanction_until", DateTime(timezone=True), nullable=True),
    Column("sanction_reason", Text, nullable=True),
    Index("ix_tournament_entrants_name", "tournament_id", "name", unique=True),
)

#: The schedule: every planned game is a row. A game that did not finish (a restart, a crash)
#: turns ``void`` and a new ``planned`` row of the same slot with the next attempt replaces it,
#: so each slot is ``done`` at most once (the unique index on slot and attempt, and the claim).
tournament_games = Table(
    "tournament_games",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("tournament_id", String(16), ForeignKey("tournaments.id"), nullable=False),
    #: The game's place in the canonical order (line-up, deal, rotation).
    Column("slot", Integer, nullable=False),
    Column("attempt", Integer, nullable=False),
    Column("lineup", Integer, nullable=False),
    Column("round", Integer, nullable=False),
    Column("deal", Integer, nullable=False),
    Column("rotation", Integer, nullable=False),
    #: JSON list: the entrant position at each seat.
    Column("seating_json", Text, nullable=False),
    Column("seed", BigInteger, nullable=False),
    # "planned" | "running" | "done" | "void"
    Column("state", String(8), nullable=False),
    Column("game_id", String(32), nullable=True),
    Column("instance", String(128), nullable=True),
    Column("claimed_at", DateTime(timezone=True), nullable=True),
    Column("ended_at", DateTime(timezone=True), nullable=True),
    Column("note", Text, nullable=True),
    Index("ix_tournament_games_slot", "tournament_id", "slot", "attempt", unique=True),
    Index("ix_tournament_games_state", "tournament_id", "state"),
)

#: Table chat (``server/chat/``, migration 0010): every line said at a table, kept with its game
#: for the operator only (never in the public record). ``text`` or ``preset`` is set.
chat_lines = Table(
    "chat_lines",
    metadata,
    Column("game_id", String(32), primary_key=True),
    Column("id", Integer, primary_key=True),
    Column("seat", Integer, nullable=False),
    Column("name", String(64), nullable=False),
    Column("text", Text, nullable=True),
    Column("preset", String(16), nullable=True),
    Column("said_at", DateTime(timezone=True), nullable=False),
)

#: A chat line a seat reported to the operator (a copy of the line: it holds even if the line
#: itself was not stored yet).
chat_reports = Table(
    "chat_reports",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("game_id", String(32), nullable=False),
    Column("line_id", Integer, nullable=False),
    Column("reporter", String(64), nullable=False),
    Column("reporter_seat", Integer, nullable=False),
    Column("seat", Integer, nullable=False),
    Column("name", String(64), nullable=False),
    Column("text", Text, nullable=True),
    Column("preset", String(16), nullable=True),
    Column("reason", Text, nullable=True),
    Column("said_at", DateTime(timezone=True), nullable=False),
    Column("reported_at", DateTime(timezone=True), nullable=False),
    Index("ix_chat_reports_line", "game_id", "line_id", "reporter_seat", unique=True),
)

#: A hosted bot's uploaded versions (migration 0011, server/submissions/): the archive itself,
#: its SHA-256 and manifest, and the outcome of its validation game.
bot_versions = Table(
    "bot_versions",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("player_id", Integer, ForeignKey("players.id"), nullable=False),
    #: 1, 2, 3... per bot
    Column("number", Integer, nullable=False),
    Column("name", String(64), nullable=False),
    Column("language", String(16), nullable=False),
    Column("entry", String(256), nullable=False),
    Column("sha256", String(64), nullable=False),
    Column("size", Integer, nullable=False),
    Column("files", Integer, nullable=False),
    Column("archive", LargeBinary, nullable=False),
    Column("uploaded_at", DateTime(timezone=True), nullable=False),
    #: "new" (not validated yet) | "valid" | "invalid"
    Column("status", String(16), nullable=False),
    #: JSON: the validation game's id, result, faults, build output
    Column("validation_json", Text, nullable=True),
    Column("validated_at", DateTime(timezone=True), nullable=True),
    Index("ix_bot_versions_player_number", "player_id", "number", unique=True),
)

#: Which version of a hosted bot plays (one row per bot that has picked one).
hosted_bots = Table(
    "hosted_bots",
    metadata,
    Column("player_id", Integer, ForeignKey("players.id"), primary_key=True),
    Column("version_id", Integer, ForeignKey("bot_versions.id"), nullable=False),
    Column("chosen_at", DateTime(timezone=True), nullable=False),
)

#: The stderr of a hosted bot in one game (bounded), for its author and the organiser only.
hosted_logs = Table(
    "hosted_logs",
    metadata,
    Column("game_id", String(32), primary_key=True),
    Column("player_id", Integer, ForeignKey("players.id"), primary_key=True),
    Column("version_id", Integer, ForeignKey("bot_versions.id"), nullable=False),
    Column("stderr", Text, nullable=False),
    Column("bytes", Integer, nullable=False),
    Column("truncated", Boolean, nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
    Index("ix_hosted_logs_player", "player_id"),
)
