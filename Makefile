# Developer and CI entry points. `make test` is what .ci/run runs.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: venv test bench demo openapi clean

venv: $(VENV)/.installed

# Reinstall whenever pyproject.toml changes (new dependency, new tool config).
$(VENV)/.installed: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

test: venv
	$(BIN)/pytest
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy engine cli service tournament clients
	$(BIN)/lint-imports

# The bench extra is installed on demand only, so `make test` never needs it.
bench: venv
	$(BIN)/python -m pip install --quiet -e '.[test,bench]'
	$(BIN)/python benchmarks/engine.py
	$(BIN)/python benchmarks/tournament.py

# Rewrite openapi/openapi.json from the code (tests/test_openapi_file.py fails while it is stale).
openapi: venv
	$(BIN)/sorry-arena openapi --output openapi/openapi.json

# The main job: a local round robin between the example bots (SQLite, in-process queue), standings printed.
demo: venv
	$(BIN)/sorry-arena demo

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis test-output
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
