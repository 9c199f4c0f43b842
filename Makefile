# Two entry points for a fresh machine: `make serve` (main job) and `make test` (whole suite).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP_RUN := $(VENV)/.installed-run
STAMP := $(VENV)/.installed-dev

.PHONY: install system-deps serve test test-fast test-slow fuzz lint bench clean

# The server needs only the runtime; tests also need the `train` extra (ultralytics and
# PyTorch, ~5.5 GB) for the training smoke run and the ONNX parity test.
$(STAMP_RUN): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e .
	touch $@

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev,train]'
	touch $@ $(STAMP_RUN)

install: $(STAMP)

# Debian packages the tests need (PostgreSQL, Chromium, fonts): .ci/apt-packages.txt
system-deps:
	bash tools/system-deps.sh

# The main job: the table companion on http://127.0.0.1:8000/ (SQLite in ~/.local/share/shanghai/).
serve: $(STAMP_RUN)
	$(BIN)/shanghai serve

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	bash tools/typecheck.sh

# The whole suite; benchmarks run with `make bench`. The npm SVG decks are fetched once
# into data/cache/ so the data tests cover every deck look.
test: system-deps lint
	$(BIN)/shanghai data fetch-decks
	$(BIN)/python -m pytest -m "not benchmark and not train"
	$(BIN)/python -m pytest -m "train"

# Thousands of simulated games per variant with invariants after every action (hours).
test-slow: $(STAMP)
	SHANGHAI_SLOW_GAMES=$${SHANGHAI_SLOW_GAMES:-1000} $(BIN)/python -m pytest -m slow tests/engine/test_simulator.py

# The API fuzzed far beyond CI's budget, on SQLite and PostgreSQL (minutes; docs/server.md).
fuzz: $(STAMP)
	SHANGHAI_FUZZ_EXAMPLES=$${SHANGHAI_FUZZ_EXAMPLES:-300} SHANGHAI_FUZZ_STEPS=$${SHANGHAI_FUZZ_STEPS:-200} \
		$(BIN)/python -m pytest tests/server/test_fuzz_api.py tests/server/test_fuzz_guards.py -q

test-fast: $(STAMP)
	$(BIN)/python -m pytest -m "not benchmark and not slow and not train" -x -q

bench: $(STAMP)
	$(BIN)/python tests/benchmarks/engine_bench.py

clean:
	rm -rf $(VENV) build *.egg-info
