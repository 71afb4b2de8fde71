CREATE TABLE alembic_version (
	version_num VARCHAR(32) NOT NULL, 
	CONSTRAINT alembic_version_pkc PRIMARY KEY (version_num)
)
;
CREATE TABLE players (
	id INTEGER NOT NULL, 
	name VARCHAR(32) NOT NULL, 
	kind VARCHAR(8) NOT NULL, 
	token_hash VARCHAR(128), 
	created_at DATETIME NOT NULL, 
	suspended_until DATETIME, 
	suspended_reason TEXT, name_fold VARCHAR(128), name_skeleton VARCHAR(128), password_hash VARCHAR(256), session_gen INTEGER DEFAULT '0' NOT NULL, language VARCHAR(8), 
	PRIMARY KEY (id), 
	UNIQUE (name)
)
;
CREATE TABLE games (
	id VARCHAR(32) NOT NULL, 
	game VARCHAR(32) NOT NULL, 
	rules_name VARCHAR(64), 
	rules_json TEXT NOT NULL, 
	seats INTEGER NOT NULL, 
	seed BIGINT NOT NULL, 
	lobby VARCHAR(16) NOT NULL, 
	rated BOOLEAN NOT NULL, 
	status VARCHAR(16) NOT NULL, 
	instance VARCHAR(128) NOT NULL, 
	names_json TEXT NOT NULL, 
	started_at DATETIME NOT NULL, 
	ended_at DATETIME, 
	termination VARCHAR(16), 
	result_json TEXT, 
	record_json TEXT, end_seq BIGINT, 
	PRIMARY KEY (id)
)
;
CREATE INDEX ix_games_status_started ON games (status, started_at)
;
CREATE INDEX ix_games_game_rules ON games (game, rules_name)
;
CREATE TABLE game_seats (
	game_id VARCHAR(32) NOT NULL, 
	seat INTEGER NOT NULL, 
	player_id INTEGER, 
	name VARCHAR(64) NOT NULL, 
	kind VARCHAR(8) NOT NULL, 
	place INTEGER, 
	score FLOAT, 
	faults INTEGER NOT NULL, 
	taken_over BOOLEAN NOT NULL, 
	mu_before FLOAT, 
	sigma_before FLOAT, 
	mu_after FLOAT, 
	sigma_after FLOAT, guest_key VARCHAR(64), bot_version VARCHAR(64), 
	PRIMARY KEY (game_id, seat), 
	FOREIGN KEY(game_id) REFERENCES games (id), 
	FOREIGN KEY(player_id) REFERENCES players (id)
)
;
CREATE INDEX ix_game_seats_player ON game_seats (player_id)
;
CREATE TABLE faults (
	id INTEGER NOT NULL, 
	game_id VARCHAR(32) NOT NULL, 
	seat INTEGER NOT NULL, 
	player_id INTEGER, 
	decision INTEGER NOT NULL, 
	request_kind VARCHAR(32) NOT NULL, 
	code VARCHAR(32) NOT NULL, 
	reason TEXT NOT NULL, 
	at DATETIME NOT NULL, detail TEXT, 
	PRIMARY KEY (id), 
	FOREIGN KEY(game_id) REFERENCES games (id), 
	FOREIGN KEY(player_id) REFERENCES players (id)
)
;
CREATE INDEX ix_faults_player ON faults (player_id)
;
CREATE TABLE ratings (
	player_id INTEGER NOT NULL, 
	game VARCHAR(32) NOT NULL, 
	rules VARCHAR(64) NOT NULL, 
	mu FLOAT NOT NULL, 
	sigma FLOAT NOT NULL, 
	games INTEGER NOT NULL, 
	wins INTEGER NOT NULL, 
	last_played DATETIME, 
	PRIMARY KEY (player_id, game, rules), 
	FOREIGN KEY(player_id) REFERENCES players (id)
)
;
CREATE UNIQUE INDEX ix_games_end_seq ON games (end_seq)
;
CREATE UNIQUE INDEX ix_players_name_fold ON players (name_fold)
;
CREATE UNIQUE INDEX ix_players_name_skeleton ON players (name_skeleton)
;
CREATE INDEX ix_game_seats_guest_key ON game_seats (guest_key)
;
CREATE TABLE sessions (
	token_hash VARCHAR(64) NOT NULL, 
	player_id INTEGER NOT NULL, 
	gen INTEGER NOT NULL, 
	created_at DATETIME NOT NULL, 
	expires_at DATETIME NOT NULL, 
	PRIMARY KEY (token_hash), 
	FOREIGN KEY(player_id) REFERENCES players (id)
)
;
CREATE INDEX ix_sessions_player ON sessions (player_id)
;
CREATE TABLE analyses (
	game_id VARCHAR(32) NOT NULL, 
	seat INTEGER NOT NULL, 
	status VARCHAR(16) NOT NULL, 
	budget_json TEXT NOT NULL, 
	done INTEGER DEFAULT '0' NOT NULL, 
	total INTEGER DEFAULT '0' NOT NULL, 
	result_json TEXT, 
	error TEXT, 
	claimed_by VARCHAR(128), 
	created_at DATETIME NOT NULL, 
	started_at DATETIME, 
	finished_at DATETIME, 
	PRIMARY KEY (game_id, seat), 
	FOREIGN KEY(game_id) REFERENCES games (id)
)
;
CREATE TABLE tournaments (
	id VARCHAR(16) NOT NULL, 
	name VARCHAR(64) NOT NULL, 
	game VARCHAR(32) NOT NULL, 
	rules_name VARCHAR(64), 
	rules_json TEXT NOT NULL, 
	seats INTEGER NOT NULL, 
	config_json TEXT NOT NULL, 
	status VARCHAR(16) NOT NULL, 
	created_at DATETIME NOT NULL, 
	started_at DATETIME, 
	ended_at DATETIME, 
	standings_json TEXT, 
	PRIMARY KEY (id)
)
;
CREATE TABLE tournament_entrants (
	tournament_id VARCHAR(16) NOT NULL, 
	position INTEGER NOT NULL, 
	name VARCHAR(64) NOT NULL, 
	player_id INTEGER, 
	faults INTEGER DEFAULT '0' NOT NULL, 
	bans INTEGER DEFAULT '0' NOT NULL, 
	suspended BOOLEAN DEFAULT 0 NOT NULL, 
	suspended_reason TEXT, sanction VARCHAR(16), sanction_until DATETIME, sanction_reason TEXT, 
	PRIMARY KEY (tournament_id, position), 
	FOREIGN KEY(tournament_id) REFERENCES tournaments (id), 
	FOREIGN KEY(player_id) REFERENCES players (id)
)
;
CREATE UNIQUE INDEX ix_tournament_entrants_name ON tournament_entrants (tournament_id, name)
;
CREATE TABLE tournament_games (
	id INTEGER NOT NULL, 
	tournament_id VARCHAR(16) NOT NULL, 
	slot INTEGER NOT NULL, 
	attempt INTEGER NOT NULL, 
	lineup INTEGER NOT NULL, 
	round INTEGER NOT NULL, 
	deal INTEGER NOT NULL, 
	rotation INTEGER NOT NULL, 
	seating_json TEXT NOT NULL, 
	seed BIGINT NOT NULL, 
	state VARCHAR(8) NOT NULL, 
	game_id VARCHAR(32), 
	instance VARCHAR(128), 
	claimed_at DATETIME, 
	ended_at DATETIME, 
	note TEXT, 
	PRIMARY KEY (id), 
	FOREIGN KEY(tournament_id) REFERENCES tournaments (id)
)
;
CREATE UNIQUE INDEX ix_tournament_games_slot ON tournament_games (tournament_id, slot, attempt)
;
CREATE INDEX ix_tournament_games_state ON tournament_games (tournament_id, state)
;
CREATE INDEX ix_faults_game ON faults (game_id)
;
CREATE TABLE chat_lines (
	game_id VARCHAR(32) NOT NULL, 
	id INTEGER NOT NULL, 
	seat INTEGER NOT NULL, 
	name VARCHAR(64) NOT NULL, 
	text TEXT, 
	preset VARCHAR(16), 
	said_at DATETIME NOT NULL, 
	PRIMARY KEY (game_id, id)
)
;
CREATE TABLE chat_reports (
	id INTEGER NOT NULL, 
	game_id VARCHAR(32) NOT NULL, 
	line_id INTEGER NOT NULL, 
	reporter VARCHAR(64) NOT NULL, 
	reporter_seat INTEGER NOT NULL, 
	seat INTEGER NOT NULL, 
	name VARCHAR(64) NOT NULL, 
	text TEXT, 
	preset VARCHAR(16), 
	reason TEXT, 
	said_at DATETIME NOT NULL, 
	reported_at DATETIME NOT NULL, 
	PRIMARY KEY (id)
)
;
CREATE UNIQUE INDEX ix_chat_reports_line ON chat_reports (game_id, line_id, reporter_seat)
;
CREATE TABLE bot_versions (
	id INTEGER NOT NULL, 
	player_id INTEGER NOT NULL, 
	number INTEGER NOT NULL, 
	name VARCHAR(64) NOT NULL, 
	language VARCHAR(16) NOT NULL, 
	entry VARCHAR(256) NOT NULL, 
	sha256 VARCHAR(64) NOT NULL, 
	size INTEGER NOT NULL, 
	files INTEGER NOT NULL, 
	archive BLOB NOT NULL, 
	uploaded_at DATETIME NOT NULL, 
	status VARCHAR(16) NOT NULL, 
	validation_json TEXT, 
	validated_at DATETIME, 
	PRIMARY KEY (id), 
	FOREIGN KEY(player_id) REFERENCES players (id)
)
;
CREATE UNIQUE INDEX ix_bot_versions_player_number ON bot_versions (player_id, number)
;
CREATE TABLE hosted_bots (
	player_id INTEGER NOT NULL, 
	version_id INTEGER NOT NULL, 
	chosen_at DATETIME NOT NULL, 
	PRIMARY KEY (player_id), 
	FOREIGN KEY(player_id) REFERENCES players (id), 
	FOREIGN KEY(version_id) REFERENCES bot_versions (id)
)
;
CREATE TABLE hosted_logs (
	game_id VARCHAR(32) NOT NULL, 
	player_id INTEGER NOT NULL, 
	version_id INTEGER NOT NULL, 
	stderr TEXT NOT NULL, 
	bytes INTEGER NOT NULL, 
	truncated BOOLEAN NOT NULL, 
	at DATETIME NOT NULL, 
	PRIMARY KEY (game_id, player_id), 
	FOREIGN KEY(player_id) REFERENCES players (id), 
	FOREIGN KEY(version_id) REFERENCES bot_versions (id)
)
;
CREATE INDEX ix_hosted_logs_player ON hosted_logs (player_id)
;
INSERT INTO alembic_version (version_num) VALUES ('0012')
;
