# Two commands on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
EXTRAS := server,client,rl,ray,dev,web
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test lint typecheck pytest bench compiled wheel engine clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[$(EXTRAS)]'
	touch $@

# `make run` serves with the compiled (mypyc) engine: tools/build_engine.py compiles it into
# build/compiled when the engines' sources changed (45 s of CPU), or says in one line why the
# plain build runs instead (no C compiler, no Python headers, no mypyc). The `cardtable` command
# uses build/compiled by itself whenever it is current (src/cardtable/engine_build.py), so after
# `make test` or `make run` every `cardtable ...` runs compiled; CARDTABLE_ENGINE=plain forces the
# plain build. `make test` tests the plain build (tests/conftest.py sets CARDTABLE_ENGINE=plain);
# tests/games/kuhhandel/test_compiled.py checks the compiled one (it starts from build/compiled).
COMPILED := build/compiled

engine: $(BIN)/.installed
	$(BIN)/python tools/build_engine.py $(COMPILED)

run: engine
	$(BIN)/cardtable serve --host $(HOST) --port $(PORT)

lint: $(BIN)/.installed
	$(BIN)/ruff check src tests
	$(BIN)/ruff format --check src tests

typecheck: $(BIN)/.installed
	$(BIN)/mypy src/cardtable/core src/cardtable/games src/cardtable/client src/cardtable/i18n src/cardtable/clock

# pytest runs its tests in parallel, two pytest-xdist workers per core (PYTEST_JOBS; 0 runs them
# all in one process, auto one per core). Much of the suite's time is waiting for servers, browsers
# and bots: with one worker per core 2 idle cores were half busy (562 s of CPU in a 557 s run), with
# two per core the same suite took 424 s there. Tests marked xdist_group stay in one worker
# (--dist loadgroup, in pyproject.toml). It first sets up the compiled engine (`make engine`,
# compiled only when the engines' sources changed), which tests/games/kuhhandel/test_compiled.py
# then checks. It prints the 25 slowest tests and the time per test folder (tests/conftest.py), so
# the cost stays visible. Bytecode is written (PYTHONDONTWRITEBYTECODE unset, __pycache__ is
# git-ignored): the suite starts many server and bot processes, and without .pyc files each
# compiled our ~120 modules again (about 0.25 s of CPU a process).
PYTEST_JOBS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) * 2 )))

pytest: engine
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/pytest -q -n $(PYTEST_JOBS) --durations=25 $(PYTEST_ARGS)

test: lint typecheck pytest

# Compile again even if up to date; fails (instead of falling back) where it cannot be built.
# The wheel it leaves in build/wheels installs the compiled build elsewhere (same Python and
# platform): pip install 'build/wheels/cardtable-<version>-cp311-...whl[server]'.
compiled wheel: $(BIN)/.installed
	$(BIN)/python tools/build_engine.py $(COMPILED) --force --strict

# Both builds and the bare skeleton of the game, side by side (docs/performance.md).
bench: engine
	CARDTABLE_ENGINE=plain $(BIN)/cardtable bench kuhhandel --rules classic --seats 4 --bots random --games 2000 --skeleton
	$(BIN)/cardtable bench kuhhandel --rules classic --seats 4 --bots random --games 2000 --skeleton

clean:
	rm -rf $(VENV) build *.egg-info
