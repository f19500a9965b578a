# Developer and CI entry points. .ci/run runs `make test`, then `make test-slow`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# pytest-xdist workers: more than the cores, as most tests wait (on servers, bots, subprocesses) rather than compute
TEST_WORKERS ?= 8
# one test at a time to whichever worker is free, in the order tests/conftest.py gives (the longest first)
TEST_DIST := --maxschedchunk 1
PACKAGES := engine store botlink ratings envs runtime cli service tournament clients

.PHONY: venv test suite lint test-slow bench demo openapi clean fuzz browser toolchains

venv: $(VENV)/.installed

# Reinstall whenever pyproject.toml changes (new dependency, new tool config).
$(VENV)/.installed: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

# The suite without the long statistical and end-to-end runs (marked slow), and beside it the linters (`lint`, a
# minute of one core, run while the suite starts: after it, they added that minute to the run); their output is
# printed after the suite's, and either failing fails `make test`. The project's modules are compiled once first
# (not by each of the workers at once), and Python may cache compiled modules (and pytest its rewritten tests) even
# where PYTHONDONTWRITEBYTECODE is set: each of the suite's hundreds of Python processes would compile them again.
test: venv browser toolchains
	$(BIN)/python -m compileall -q -j 0 $(PACKAGES) benchmarks tests
	@log=$$(mktemp); $(MAKE) --no-print-directory lint > $$log 2>&1 & linting=$$!; \
	$(MAKE) --no-print-directory suite; suite=$$?; \
	wait $$linting; linted=$$?; cat $$log; rm -f $$log; \
	test $$suite = 0 && test $$linted = 0

suite:
	PYTHONDONTWRITEBYTECODE= $(BIN)/pytest -n $(TEST_WORKERS) $(TEST_DIST) -m "not slow"

# ruff, mypy and the layers' contracts (docs/architecture.md).
lint: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy $(PACKAGES) benchmarks
	$(BIN)/lint-imports

# The long runs only (`@pytest.mark.slow`: the full-size demo, benchmarks at full size).
test-slow: venv browser toolchains
	PYTHONDONTWRITEBYTECODE= $(BIN)/pytest -n $(TEST_WORKERS) $(TEST_DIST) -m slow

# Debian's chromium for the page tests (tests/service/web/browser.py: Playwright drives it, downloads no browser).
# Quick when installed; without root it only says so (the browser tests then skip locally and fail in CI).
browser:
	@command -v chromium >/dev/null 2>&1 || { \
		if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
		else echo "make browser: chromium is missing; install it as root: apt-get install chromium"; fi; }

# Debian's Node and Go for the starter bots' tests (tests/starters/: starters/js, starters/go; standard library
# only, nothing downloaded at build time). Quick when installed; without root it only says so (those tests then
# skip locally and fail in CI).
toolchains:
	@missing=""; command -v node >/dev/null 2>&1 || missing=" nodejs"; \
	command -v go >/dev/null 2>&1 || missing="$$missing golang-go"; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
		else echo "make toolchains: missing$$missing; install as root: apt-get install$$missing"; fi; fi

# The bench extra is installed on demand only, so `make test` never needs it.
bench: venv
	$(BIN)/python -m pip install --quiet -e '.[test,bench]'
	$(BIN)/python benchmarks/engine.py
	$(BIN)/python benchmarks/tournament.py

# Schemathesis over every operation with a large example budget (the default suite runs 25 per operation).
FUZZ_EXAMPLES ?= 1000
fuzz: venv
	SORRY_ARENA_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/pytest tests/service/test_schemathesis.py --hypothesis-show-statistics

# Rewrite openapi/openapi.json from the code (tests/service/test_openapi_file.py fails while it is stale).
openapi: venv
	$(BIN)/sorry-arena openapi --output openapi/openapi.json

# The main job: a local round robin between the example bots (SQLite, in-process queue), standings printed.
# It needs the runtime dependencies only (a fresh machine installs them in about half the time of the test extra).
# Its install says one line: pip's output (its warnings and notices too) is kept aside and shown only if it fails,
# so that the demo's own lines and progress bar are what a newcomer sees.
demo: $(VENV)/.runtime
	$(BIN)/sorry-arena demo

QUIET_PIP := $(BIN)/python -m pip install --quiet --disable-pip-version-check
# $(call quietly,COMMAND): COMMAND with its output kept aside, printed to stderr only if it fails (its exit status)
quietly = log=$$(mktemp) && { $(1) >$$log 2>&1 || { status=$$?; cat $$log >&2; rm -f $$log; exit $$status; }; } \
	&& rm -f $$log

$(VENV)/.runtime: pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@echo "installing sorry-arena and its dependencies into $(VENV) (once, and after pyproject.toml changes)"
	@$(call quietly,$(QUIET_PIP) --upgrade pip)
	@$(call quietly,$(QUIET_PIP) -e .)
	@touch $@

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis test-output
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
