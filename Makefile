# Two commands on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
EXTRAS := server,client,rl,ray,dev,web
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test lint typecheck pytest bench clean

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

bench: $(BIN)/.installed
	$(BIN)/cardtable bench kuhhandel --rules classic --seats 4 --bots random --games 2000

clean:
	rm -rf $(VENV) build *.egg-info
