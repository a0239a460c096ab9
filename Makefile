# One environment (.venv) holds everything; every target creates it when missing.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
ENV ?= dev
export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION = 20

.PHONY: venv dev test lint fast check unit integration infra e2e

# Exactly locks/dev.txt (pip checks every hash; `make lock` refreshes it), then this project and the
# Python SDK (engram_client, tested against the local server) as editable packages, built by the locked
# setuptools. An existing .venv is reused whatever its Python (3.11 or 3.12: the lock holds for both).
$(STAMP): pyproject.toml clients/python/pyproject.toml locks/dev.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --no-deps --require-hashes -r locks/dev.txt
	$(PY) -m pip install -q --no-deps --no-build-isolation -e . -e clients/python
	touch $(STAMP)

venv: $(STAMP)

# Embedded PostgreSQL 16 + pgvector, migrations, a dev tenant and key, the API on 127.0.0.1:$(PORT).
dev: venv
	$(PY) -m engram_local.serve

test: venv browser ts-modules strands-env
	$(PY) -m pytest

# The gate, as CI runs it (.ci/run), in two stages. First `make fast` (41 s from a cold mypy cache on
# 2 busy cores, 2026-11-27): the locks, lint (with a 50-statement limit per function), formatting, the
# import contracts, types (mypy strict) and the unit tests (one keeps each module of layers/engram under
# 500 lines); a failure there stops the gate before the long suite. Then every other test, with the unit
# stage's coverage appended: coverage counts layers/engram, engram_http and engram_mcp (not engram_local,
# a development stack) and the run fails below COVERAGE_FLOOR (94.1% of the three on 2026-11-27, minus
# a little).
COVERAGE_FLOOR ?= 93
# The first stage types the shipped code (layers, functions, the SDK: ~35 s from a cold cache on 2 busy
# cores) while the unit tests run beside it; the second adds infra/ and bench/ from the same cache
# (aws-cdk's types alone take a cold cache over a minute).
FAST_PYTEST_ARGS ?=
fast: venv
	$(PY) infra/locks.py --check
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports
	$(PY) -m mypy layers functions clients/python/engram_client & types=$$!; \
	$(PY) -m pytest -m unit -q $(FAST_PYTEST_ARGS); tests=$$?; wait $$types && exit $$tests

check: venv browser strands-env
	$(MAKE) fast FAST_PYTEST_ARGS="--cov --cov-report="
	$(MAKE) typescript
	$(PY) -m mypy
	$(PY) -m pytest -m "not unit" --cov --cov-append --cov-report=term --cov-fail-under=$(COVERAGE_FLOOR)

# One level of tests (markers set by folder in tests/conftest.py).
unit: venv
	$(PY) -m pytest -m unit
integration: venv
	$(PY) -m pytest -m integration
infra: venv
	$(PY) -m pytest -m infra
e2e: venv browser ts-modules strands-env  # tests/e2e/test_mcp_oauth.py drives the consent page in Chromium
	$(PY) -m pytest -m e2e

lint: venv
	$(VENV)/bin/ruff check .

# The TypeScript SDK (clients/typescript): its node modules exactly as package-lock.json says (`npm ci`),
# then tsc (strict) and the offline vitest tests (retries, timeouts, errors, pages, every call a documented
# route, src/openapi.ts what docs/openapi.json generates). Its live tests run from pytest
# (tests/e2e/test_sdk_typescript.py starts the local server for them).
TS := clients/typescript
TS_STAMP := $(TS)/node_modules/.installed-stamp
.PHONY: ts-modules typescript
$(TS_STAMP): $(TS)/package.json $(TS)/package-lock.json
	npm --prefix $(TS) ci --no-audit --no-fund --loglevel=error
	touch $(TS_STAMP)
ts-modules: $(TS_STAMP)
typescript: ts-modules
	npm --prefix $(TS) run --silent typecheck
	npm --prefix $(TS) run --silent test:unit

# The environment the Strands adapter is tested in (tests/e2e/test_adapter_strands.py): Strands pins mcp
# below 2.2 and the server's MCP endpoint needs 2.3, so it cannot share .venv. Exactly locks/strands.txt,
# then the SDK as an editable package.
STRANDS_VENV := .venv-strands
STRANDS_STAMP := $(STRANDS_VENV)/.installed-stamp
.PHONY: strands-env
$(STRANDS_STAMP): locks/strands.txt clients/python/pyproject.toml
	test -x $(STRANDS_VENV)/bin/python || $(PYTHON) -m venv $(STRANDS_VENV)
	$(STRANDS_VENV)/bin/python -m pip install -q --no-deps --require-hashes -r locks/strands.txt
	$(STRANDS_VENV)/bin/python -m pip install -q --no-deps --no-build-isolation -e clients/python
	touch $(STRANDS_STAMP)
strands-env: $(STRANDS_STAMP)

# Headless Chromium and its driver for tests/browser (Debian's packages). Installed when missing and
# we are root (CI); otherwise the browser tests fail and name this target.
CHROMIUM ?= /usr/bin/chromium
CHROMEDRIVER ?= /usr/bin/chromedriver
.PHONY: browser console-screenshots
browser:
	@if [ -x $(CHROMIUM) ] && [ -x $(CHROMEDRIVER) ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver >/dev/null \
		|| { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver >/dev/null; }; \
	else echo "tests/browser needs $(CHROMIUM) and $(CHROMEDRIVER): sudo apt-get install chromium chromium-driver"; fi

# The console's screenshots in docs/console (linked from the README), from the browser tests.
console-screenshots: venv browser
	ENGRAM_CONSOLE_SCREENSHOTS=docs/console $(PY) -m pytest tests/browser -q

# docs/openapi.json from the same routers and models that serve GET /v1/openapi.json (a test fails
# when the two differ), and the TypeScript SDK's types from it (clients/typescript/src/openapi.ts: its
# unit tests fail while they differ): run after changing a route or an edge model, and commit both.
.PHONY: openapi
openapi: venv mcp-tools ts-modules
	$(PY) -c 'import json, pathlib; from engram_http.api import openapi_document; pathlib.Path("docs/openapi.json").write_text(json.dumps(openapi_document(), indent=2) + "\n")'
	npm --prefix $(TS) run --silent types:generate

# layers/engram_mcp/contract.json, the MCP tool contract (names, descriptions, input schemas from the
# routes' models, scopes) that tools/list serves; `make openapi` writes it too, as a route's model is
# also a tool's schema. Commit the file (a test fails until you do).
.PHONY: mcp-tools
mcp-tools: venv
	$(PY) -c 'import json, pathlib; from engram_mcp.server import tool_contract; pathlib.Path("layers/engram_mcp/contract.json").write_text(json.dumps(tool_contract(), indent=2) + "\n")'

# schemathesis (coverage + fuzzing, seed 8, 5 min) against a fresh local server on loopback over a
# throwaway database; passes with 0 server errors and 0 response-schema violations (bench/fuzz.py).
.PHONY: fuzz
fuzz: venv
	$(PY) bench/fuzz.py

# ---- AWS: build, synth, deploy (see infra/README.md) ----
CDK := infra/node_modules/.bin/cdk
CDK_APP := --app "$(PY) infra/app.py" -c env=$(ENV)

.PHONY: build synth nag deploy destroy bench lock verify-build

# locks/layer.txt (the Lambda layer: arm64, CPython 3.12) and locks/dev.txt (.venv) from pyproject.toml,
# with uv and PyPI; commit both. `make build`, `make check` and tests/infra fail while they are stale.
lock: venv
	$(PY) infra/locks.py

$(CDK): infra/package.json infra/package-lock.json
	npm --prefix infra ci --no-audit --no-fund
	touch $(CDK)

# Lambda code + layers (arm64, CPython 3.12, pip --platform from locks/layer.txt, no Docker) into
# build/lambda; prints sizes. Fails without a CPython 3.12 for the bytecode unless ALLOW_NO_BYTECODE=1.
build: venv
	$(PY) infra/build_assets.py $(if $(ALLOW_NO_BYTECODE),--allow-no-bytecode)

# The built assets proven as Lambda runs them (infra/verify_build.py): an x86_64 twin of the layer from
# the same lock, every handler of the dev/staging/prod templates imported by CPython 3.12 -I -S with only
# its folder, its layers, the standard library and boto3, GET /v1/health and /v1/openapi.json invoked,
# sizes checked, cold import timed from sources and with the shipped bytecode. CI runs it after check.
verify-build: build
	$(PY) infra/verify_build.py

# Offline synthesis with cdk-nag, no CLI or AWS account; uses build/ when present.
synth: venv
	$(PY) infra/synth.py --env $(ENV)

# All environments; every nag acknowledgement with its reason.
nag: venv
	$(PY) infra/synth.py --all --report

deploy: build $(CDK)
	$(CDK) deploy $(CDK_APP) --require-approval broadening

destroy: venv $(CDK)
	$(CDK) destroy $(CDK_APP) -c engram:assets=auto

# The speed figures the README quotes, printed (minutes; not part of the tests). Every other bench and its
# command: bench/README.md.
bench: venv
	$(PY) -m bench.perf.cold_import
	$(PY) -m bench.perf.ingest_throughput
	$(PY) -m bench.perf.http_latency
	$(PY) -m bench.perf.mcp_latency
	$(PY) -m bench.perf.recall_latency
	$(PY) -m bench.perf.embed_throughput
	$(PY) -m bench.perf.document_ingest
	$(PY) -m bench.quality.conversation_recall
