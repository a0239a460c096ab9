# One environment (.venv) holds everything; every target creates it when missing.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
ENV ?= dev
export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION = 20

.PHONY: venv dev test lint

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

venv: $(STAMP)

# Embedded PostgreSQL 16 + pgvector, migrations, a dev tenant and key, the API on 127.0.0.1:$(PORT).
dev: venv
	$(PY) -m engram_local.serve

test: venv
	$(PY) -m pytest

lint: venv
	$(VENV)/bin/ruff check .
