# wasmbox task runner. `make help` lists the targets; `make run` and `make test` do all set-up.
.DEFAULT_GOAL := help
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# The browser engines the engine-matrix tests run in (a bare pytest: chromium); `make test` runs
# the whole suite in Chromium, then ENGINE_TESTS in MATRIX_BROWSERS (docs/browsers.md).
WASMBOX_BROWSERS ?= chromium
export WASMBOX_BROWSERS
MATRIX_BROWSERS ?= firefox,webkit
ENGINE_TESTS := tests/browser/sandbox/test_basics.py tests/browser/sandbox/test_files.py \
	tests/browser/sandbox/test_cancel.py tests/browser/sandbox/test_watchdog.py \
	tests/browser/sandbox/test_isolation.py tests/browser/sandbox/test_modes.py \
	tests/browser/sandbox/test_memory_budget.py tests/browser/sandbox/test_refusal.py \
	tests/browser/sandbox/test_host_tools.py tests/browser/sandbox/test_plot_snapshot.py \
	tests/browser/app/test_engines.py
ENGINE_TESTS += tests/browser/static/test_static_sdk.py tests/browser/static/test_static_isolation.py \
	tests/browser/static/test_embed.py tests/browser/static/test_offline_engines.py \
	tests/browser/static/test_static_engines.py \
	tests/browser/sessions/test_engines.py tests/browser/local_model/test_engines.py
# `make test` lists its 20 slowest tests (setup and teardown included), so growth is seen.
SLOWEST := --durations=20
# `PARALLEL="-n 2 --dist loadscope"` runs the Chromium pass on pytest-xdist workers, each taking
# whole modules (tests/support/parallel.py), for machines with cores to spare; on 2 cores it was
# no faster (CHANGELOG.md), so one process is the default. Tests marked `timing` (a deadline or
# grace in wall-clock time, which a busy core can miss) run after it in one process, as does the
# engine matrix.
PARALLEL ?=
# The engines `make bench-sandbox` measures, a column each: chromium, firefox, webkit (comma-separated).
BROWSER ?= chromium

.PHONY: help setup protocol runtime js build run browser lint format typecheck test test-matrix test-engines test-js test-fast bench-runtime redis bench-proxy bench-sandbox bench-app bench-static bench-coverage bench-anywhere bench-agent bench-local-model llama clean

help: ## list the targets
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*## "}; {printf "  %-16s %s\n", $$1, $$2}'

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --disable-pip-version-check -e '.[dev]'
	touch $@

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

setup: $(VENV)/.installed node_modules/.installed ## virtualenv + npm packages

protocol: setup ## write the ExecutionResult JSON Schema the Python client reads, from protocol/schema.ts
	node --import tsx -e 'import("./wasm_runtime/protocol/json-schema.ts").then((m) => require("node:fs").writeFileSync(m.RESULT_SCHEMA_FILE, m.resultSchemaText()))'

runtime: setup ## build the offline Pyodide runtime into build/runtime
	$(BIN)/wasmbox build

js: setup ## bundle the SDK and the sandbox frame + worker into build/js
	npm run --silent build

build: runtime js ## everything the app serves

run: build ## start the app and print its URL
	$(BIN)/wasmbox serve

browser: setup ## make sure the engines in WASMBOX_BROWSERS are installed (apt-get when root)
	scripts/ensure-browser.sh

lint: setup ## ruff (lint + format check), eslint, prettier (format check of TS/JS)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	node_modules/.bin/eslint --max-warnings 0 .
	node_modules/.bin/prettier --check --log-level warn "**/*.{ts,js,mjs}"

format: setup ## rewrite Python and TS/JS in the project's format (ruff, prettier)
	$(BIN)/ruff format .
	node_modules/.bin/prettier --write --log-level warn "**/*.{ts,js,mjs}"

typecheck: setup ## mypy --strict and tsc --strict
	$(BIN)/mypy
	npm run --silent typecheck

test: build browser redis llama lint typecheck test-js ## the whole suite: lint, types, TS unit, Python unit, backend, browser; then the engine matrix
	WASMBOX_BROWSERS=$(MATRIX_BROWSERS) scripts/ensure-browser.sh
	$(BIN)/pytest $(PARALLEL) $(SLOWEST) -m "not timing"
	$(BIN)/pytest $(SLOWEST) -m timing
	WASMBOX_BROWSERS=$(MATRIX_BROWSERS) $(BIN)/pytest $(SLOWEST) $(ENGINE_TESTS)

test-matrix: build ## the guarantee tests and the app smoke test in MATRIX_BROWSERS (Firefox and WebKit)
	WASMBOX_BROWSERS=$(MATRIX_BROWSERS) scripts/ensure-browser.sh
	WASMBOX_BROWSERS=$(MATRIX_BROWSERS) $(BIN)/pytest $(ENGINE_TESTS)

test-engines: build ## the guarantee tests and the app smoke test in Chromium, Firefox and WebKit
	WASMBOX_BROWSERS=chromium,firefox,webkit scripts/ensure-browser.sh
	WASMBOX_BROWSERS=chromium,firefox,webkit $(BIN)/pytest $(ENGINE_TESTS)

test-js: setup ## TypeScript unit tests (node --test, no browser)
	node --import tsx --test tests/js/*.test.ts

test-fast: setup ## unit tests only (no browser, no runtime build, no real model)
	$(BIN)/pytest -m "not browser and not network and not realmodel"

llama: ## llama-cpp-python's server for the real-model tests (wheel built once, cached in ~/.cache/wasmbox/llama)
	scripts/ensure-llama.sh

bench-runtime: build browser ## runtime figures: build time, bytes, boot time in Chromium
	$(BIN)/python -m tests.bench.runtime

redis: ## redis-server for the shared rate-limit tests (apt-get when root; else those tests skip)
	@if command -v redis-server >/dev/null; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server) \
		|| echo "could not install redis-server: the Redis tests will be skipped"; \
	else echo "redis-server is missing and this is not root: the Redis tests will be skipped"; fi

bench-proxy: setup ## proxy overhead: 500 concurrent streams through the proxy vs direct (loopback)
	$(BIN)/python -m tests.bench.proxy_load --clients 500

bench-sandbox: build browser ## sandbox figures W1-W11, spare, files; BROWSER=chromium,firefox,webkit: one table, a column per engine
	WASMBOX_BROWSERS=$(BROWSER) scripts/ensure-browser.sh
	$(BIN)/python -m tests.bench.sandbox --browser $(BROWSER)

bench-reliability: build browser ## stack depths, overflow and C-loop settle times, files/s, first plot, pairplot vs native
	$(BIN)/python -m tests.bench.reliability

bench-static: build browser ## exported folder, no COOP/COEP: embed's first result cold, repeat, offline; bytes
	$(BIN)/python -m tests.bench.static

bench-coverage: build browser ## DataFrameBench tasks (PyPI, pinned): passes natively and in the sandbox before/after the data-task packages, missing modules
	$(BIN)/pip install -q --disable-pip-version-check -r tests/bench/coverage-requirements.txt
	$(BIN)/python -m tests.bench.coverage

bench-app: build browser ## web-app figures: open → input usable → sandbox ready, cold and warm cache; charts (BENCH_APP_ARGS="--only charts")
	$(BIN)/python -m tests.bench.app $(BENCH_APP_ARGS)

bench-anywhere: build browser ## Python client and `wasmbox mcp` timings: cold start, warm 1+1 (and mcp-run-python when it can run)
	$(BIN)/python -m tests.bench.anywhere

bench-agent: build browser llama ## the example tasks with Qwen2.5-Coder-1.5B (local, ~1.1 GB once): pass rate, steps, time, parser paths
	$(BIN)/python -m tests.bench.agent $(BENCH_AGENT_ARGS)

bench-local-model: build browser llama ## the in-page model vs llama.cpp's native server: load, prompt and generation tok/s, next step (BENCH_LOCAL_ARGS="--models smollm2 qwen-coder")
	$(BIN)/python -m tests.bench.local_model $(BENCH_LOCAL_ARGS)

clean: ## remove build output (the download cache in ~/.cache/wasmbox stays)
	rm -rf build
