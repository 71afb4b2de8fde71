# Two commands on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
EXTRAS := server,client,rl,ray,dev,web
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test lint typecheck pytest bench compiled clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[$(EXTRAS)]'
	touch $@

run: $(BIN)/.installed
	$(BIN)/cardtable serve --host $(HOST) --port $(PORT)

lint: $(BIN)/.installed
	$(BIN)/ruff check src tests
	$(BIN)/ruff format --check src tests

typecheck: $(BIN)/.installed
	$(BIN)/mypy src/cardtable/core src/cardtable/games src/cardtable/client

pytest: $(BIN)/.installed
	$(BIN)/pytest -q $(PYTEST_ARGS)

test: lint typecheck pytest

# The optional compiled engine (mypyc; needs a C compiler and the Python headers), built into
# build/compiled: use it with PYTHONPATH=build/compiled (docs/performance.md).
compiled: $(BIN)/.installed
	rm -rf build/compiled build/wheels build/lib.* build/temp.* build/bdist.*
	CARDTABLE_COMPILE=1 $(BIN)/python -m pip wheel --quiet --no-build-isolation --no-deps -w build/wheels .
	$(BIN)/python -m pip install --quiet --no-deps --target build/compiled build/wheels/cardtable-*.whl

bench: compiled
	$(BIN)/cardtable bench kuhhandel --rules classic --seats 4 --bots random --games 2000
	PYTHONPATH=build/compiled $(BIN)/cardtable bench kuhhandel --rules classic --seats 4 --bots random --games 2000

clean:
	rm -rf $(VENV) build *.egg-info
