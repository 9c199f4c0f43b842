# Two entry points for a fresh machine: `make serve` (main job) and `make test` (whole suite).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-dev

.PHONY: install system-deps serve test test-fast lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $@

install: $(STAMP)

# Debian packages the tests need (PostgreSQL, Chromium, fonts): .ci/apt-packages.txt
system-deps:
	bash tools/system-deps.sh

# Until the server exists the main job is the CLI: it lists the variants.
serve: $(STAMP)
	$(BIN)/shanghai variants

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy --strict engine

# The whole suite, slow simulations included; benchmarks run with `make bench`.
test: system-deps lint
	$(BIN)/python -m pytest -m "not benchmark"

test-fast: $(STAMP)
	$(BIN)/python -m pytest -m "not benchmark and not slow" -x -q

bench: $(STAMP)
	$(BIN)/python tests/benchmarks/engine_bench.py

clean:
	rm -rf $(VENV) build *.egg-info
