# Two set-up commands for a fresh machine with Python >= 3.11:
#   make run   - create .venv, install, start the app on http://localhost:8501
#   make test  - install test dependencies (Python packages, checkov in .venv-tools; Chromium, a CJK font,
#                PostgreSQL, nginx, podman, runc and mmdebstrap from Debian when missing), run the whole
#                suite: lint, unit, property, store, app, browser, deployment and container-image tests, on
#                TEST_WORKERS pytest-xdist workers (each with its own ports, databases and Chromium; one test
#                file on one worker, so a module's server starts once)
# Python packages come from requirements.lock / requirements-dev.lock (exact versions with hashes, made
# from requirements*.txt by `make lock`); `make image` builds the container image with podman.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
TOOLS  ?= .venv-tools
PORT   ?= 8501
# pytest-xdist workers for `make test`: 3 on the 2-core machine, since the browser, server and
# container tests spend much of their time waiting (README "Benchmarks" has the suite's times)
TEST_WORKERS ?= 3

.PHONY: run test lint bench bench-load install install-dev clean lock image test-image

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

# the locks, not the ranges: the same versions as the image (a requirement added to requirements*.txt
# without `make lock` stops here with its name)
$(VENV)/.installed: requirements.txt requirements.lock | $(BIN)/python
	$(BIN)/pip install -q --require-hashes -r requirements.lock
	$(BIN)/python scripts/lock_check.py requirements.txt requirements.lock
	touch $@

$(VENV)/.installed-dev: requirements.txt requirements-dev.txt requirements.lock requirements-dev.lock | $(BIN)/python
	$(BIN)/pip install -q --require-hashes -r requirements-dev.lock
	$(BIN)/python scripts/lock_check.py requirements-dev.txt requirements-dev.lock
	touch $(VENV)/.installed $@

$(TOOLS)/.installed: requirements-tools.txt
	$(PYTHON) -m venv $(TOOLS)
	$(TOOLS)/bin/pip install -q -r requirements-tools.txt
	touch $@

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev $(TOOLS)/.installed

run: install
	$(BIN)/streamlit run server.py --server.port $(PORT) --server.headless true \
	  $$(PYTHONPATH=. $(BIN)/python -m webui.reports.brand --theme-flags)

lint: install-dev
	$(BIN)/ruff check .
	PYTHONPATH=. $(BIN)/lint-imports --no-cache

test: install-dev
	bash scripts/system-deps.sh
	$(BIN)/ruff check .
	PYTHONPATH=. $(BIN)/lint-imports --no-cache
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadfile

bench: install-dev
	PYTHONPATH=. $(BIN)/python bench/model_bench.py
	PYTHONPATH=. $(BIN)/python bench/app_bench.py
	PYTHONPATH=. $(BIN)/python bench/first_content_bench.py
	PYTHONPATH=. $(BIN)/python bench/pdf_bench.py

bench-load: install-dev   # needs Debian's nginx and postgresql (make test installs them) and port 8080
	PYTHONPATH=. $(BIN)/python bench/load_bench.py

# requirements*.txt -> requirements*.lock: one resolution for Python 3.11 on Linux, every wheel's hash
# (x86-64 and arm64); the versions already locked are kept unless a range excludes them
lock: $(TOOLS)/.installed
	$(TOOLS)/bin/uv pip compile -q --native-tls --generate-hashes --python-version 3.11 --python-platform linux \
	  --custom-compile-command "make lock" requirements-dev.txt -o requirements-dev.lock
	$(TOOLS)/bin/uv pip compile -q --native-tls --generate-hashes --python-version 3.11 --python-platform linux \
	  --custom-compile-command "make lock" --constraint requirements-dev.lock requirements.txt -o requirements.lock

# the container image with Debian's podman, no registry (docs/deploy.md "Building and testing the
# image with podman"); `make test` runs tests/image too, `make test-image` runs only those
image:
	bash scripts/system-deps.sh
	bash scripts/image/build.sh fabric-tco:1.0.0

test-image: install-dev
	bash scripts/system-deps.sh
	$(BIN)/python -m pytest -q tests/image

clean:
	rm -rf $(VENV) $(TOOLS) .pytest_cache .ruff_cache .hypothesis
