# `make run` on a fresh machine: creates .venv, installs, starts the embedded services and runs the nightly job.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Test processes: a file's tests stay in one (module fixtures are built once); 2 fits CI's two cores.
TEST_WORKERS ?= 2
# The tests start hundreds of Python processes (crawls, runs, the CLI): each reads the project's compiled modules
# instead of compiling them again, and pytest keeps its rewritten test modules, even where the environment says
# not to write bytecode (collection alone 82 s -> 55 s a process on these cores).
PYTEST := PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest

.PHONY: setup run test test-fast ui mirror bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV) || { \
	  echo "venv module missing: installing python3-venv"; \
	  apt-get update -qq && apt-get install -y -qq python3-venv python3.11-venv; \
	  $(PYTHON) -m venv $(VENV); }
	@command -v tesseract >/dev/null || { apt-get update -qq && apt-get install -y -qq tesseract-ocr tesseract-ocr-ces tesseract-ocr-eng; } || echo "tesseract not installed: scanned pages can't be OCR'd"
	@command -v chromium >/dev/null || { apt-get update -qq && apt-get install -y -qq chromium; } || echo "chromium not installed: JavaScript-rendered boards can't be crawled"
	@command -v redis-server >/dev/null || { apt-get update -qq && apt-get install -y -qq redis-server; } || echo "redis-server not installed: the Celery executor test is skipped"
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -c constraints.txt -e '.[test]'
	$(BIN)/python -m pip uninstall -q -y openvino-telemetry  # openvino pulls it in; it reports usage (pyproject.toml)
	$(BIN)/python -m mendel.index.prepare_encoder  # the encoder's weights converted and compiled once, here
	@touch $@

run: setup
	$(BIN)/mendel run

test: setup
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/lint-imports  # the layer contracts in pyproject.toml
	$(PYTEST) -q -n $(TEST_WORKERS) --dist loadfile

test-fast: setup  # the inner loop: no nightly, no crawl, no browser, nothing over ~5 s (markers in pyproject.toml)
	$(PYTEST) -q -n $(TEST_WORKERS) --dist loadfile -m "not e2e and not browser and not slow"

ui: setup
	$(BIN)/mendel ui

mirror: setup
	$(BIN)/mendel mirror

bench: run  # the retrieval benchmarks need the demo bundle (a second run is incremental: ~30 s)
	@for script in benchmarks/bench_*.py; do echo "== $$script"; $(BIN)/python $$script || exit 1; done
	$(BIN)/python benchmarks/plots.py

clean:
	rm -rf .mendel
