# Two set-up commands for a fresh machine with Python >= 3.11:
#   make run   - create .venv, install, start the app on http://localhost:8501
#   make test  - install test dependencies (Python packages, checkov in .venv-tools; Chromium, a CJK font,
#                PostgreSQL and nginx from Debian when missing), run the whole suite: lint, unit, property,
#                store, app, browser and deployment tests
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
TOOLS  ?= .venv-tools
PORT   ?= 8501

.PHONY: run test lint bench bench-load install install-dev clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed: requirements.txt | $(BIN)/python
	$(BIN)/pip install -q -r requirements.txt
	touch $@

$(VENV)/.installed-dev: requirements.txt requirements-dev.txt | $(BIN)/python
	$(BIN)/pip install -q -r requirements-dev.txt
	touch $(VENV)/.installed $@

$(TOOLS)/.installed: requirements-tools.txt
	$(PYTHON) -m venv $(TOOLS)
	$(TOOLS)/bin/pip install -q -r requirements-tools.txt
	touch $@

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev $(TOOLS)/.installed

run: install
	$(BIN)/streamlit run server.py --server.port $(PORT) --server.headless true

lint: install-dev
	$(BIN)/ruff check .

test: install-dev
	bash scripts/system-deps.sh
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -q

bench: install-dev
	PYTHONPATH=. $(BIN)/python bench/model_bench.py
	PYTHONPATH=. $(BIN)/python bench/app_bench.py
	PYTHONPATH=. $(BIN)/python bench/pdf_bench.py

bench-load: install-dev   # needs Debian's nginx and postgresql (make test installs them) and port 8080
	PYTHONPATH=. $(BIN)/python bench/load_bench.py

clean:
	rm -rf $(VENV) $(TOOLS) .pytest_cache .ruff_cache .hypothesis
