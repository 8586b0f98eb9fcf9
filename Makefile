# Two commands do all the set-up on a fresh clone (Python 3.11+ and make):
#   make demo   — install into .venv and run `gymnasia demo` (offline, embedded SQLite)
#   make test   — install into .venv and run the whole test suite
# Two more run the Coach on a real model on this machine (neither is part of `make test`):
#   make local-model — fetch, build and start llama-server with a small model (outside the repo)
#   make test-local  — the live-local suite against it
#   make eval-local  — the recovery evaluation (four arms) on it, into build/eval-local
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test lint bench install clean lock docs local-model test-local eval-local dist release-check

# Both distributions are installed editable from packages/, with the development tools of the
# root's `dev` dependency group (pip reads dependency groups since 25.1, hence the upgrade), at
# the versions pinned in constraints.txt (`make lock` regenerates it).
$(STAMP): pyproject.toml packages/surefoot/pyproject.toml packages/gymnasia/pyproject.toml constraints.txt
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --upgrade 'pip>=25.1'
	$(PY) -m pip install --quiet --disable-pip-version-check -c constraints.txt \
		-e 'packages/surefoot[providers,postgres]' -e 'packages/gymnasia[web]' --group dev
	@touch $(STAMP)

# uv resolves the workspace; the lock is exported as plain pins. uv.lock itself is not kept: it
# records the index's address beside every package, and the repository names no index.
lock: $(STAMP)
	$(PY) -m pip install --quiet --disable-pip-version-check uv
	$(VENV)/bin/uv lock
	$(VENV)/bin/uv export --frozen --all-packages --all-extras --group dev --no-hashes \
		--no-emit-workspace --no-annotate --no-header --output-file constraints.txt
	rm -f uv.lock

install: $(STAMP)

# Wheels and sdists of both distributions, for installing where no index has them
# (`pip install --find-links dist surefoot`). Each wheel is built from its sdist, so a file
# the sdist leaves out fails here.
DIST ?= dist
dist: $(STAMP)
	@mkdir -p $(DIST)
	rm -f $(DIST)/surefoot-* $(DIST)/gymnasia-*
	$(PY) -m build --outdir $(DIST) packages/surefoot
	$(PY) -m build --outdir $(DIST) packages/gymnasia

# Refuses (one line, exit 1) a version the two pyproject.toml files and surefoot.__version__
# do not agree on, or one without its dated section in CHANGELOG.md. Needs no .venv.
release-check:
	@$(PYTHON) scripts/release_check.py

demo: $(STAMP)
	$(VENV)/bin/gymnasia demo

# The suite with branch coverage of surefoot; pyproject.toml sets the floor (fail_under). The
# suite waits more than it computes (child processes, servers, a browser), so it runs in
# PYTEST_WORKERS processes (pytest-xdist): on two cores three workers halve its time. Tests
# share nothing: each PostgreSQL test has its own schema, each server its own port, each
# SQLite file its own directory.
PYTEST_WORKERS ?= 3
test: lint docs
	@$(PY) -m pytest -n $(PYTEST_WORKERS) --cov --cov-report=term; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests: nothing was proven" >&2; exit 1; fi; \
	exit $$rc

lint: $(STAMP)
	$(VENV)/bin/ruff check packages tests benchmarks examples scripts
	$(VENV)/bin/ruff format --check packages tests benchmarks examples scripts
	$(VENV)/bin/mypy

# The docs site (MkDocs Material + mkdocstrings), built offline; any warning fails the build.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir site

bench: $(STAMP)
	$(PY) benchmarks/bench_executor.py

# A real model on this machine: Qwen2.5-Coder-1.5B on llama.cpp's llama-server, fetched and
# built into LOCAL_MODEL_CACHE (outside the repository; the first run takes about 3.5 minutes
# on two cores, later ones seconds) and served on 127.0.0.1:LOCAL_MODEL_PORT. A healthy server
# already there is left alone; `scripts/local-model.sh stop` stops the one it started.
LOCAL_MODEL_CACHE ?= $(HOME)/.cache/surefoot-local-model
LOCAL_MODEL_PORT ?= 8088
LOCAL_MODEL_ENV = LOCAL_MODEL_CACHE='$(LOCAL_MODEL_CACHE)' LOCAL_MODEL_PORT='$(LOCAL_MODEL_PORT)'
local-model:
	$(LOCAL_MODEL_ENV) PYTHON='$(PYTHON)' scripts/local-model.sh up

# The live-local suite (tests/live_local) against that server: the harness's invariants on a
# real small model, its results in build/local-results.json. It takes 10-20 minutes on two
# cores (the first request processes the Coach's 6k-token prompt cold, about 2 minutes).
test-local: $(STAMP) local-model
	SUREFOOT_LOCAL_BASE_URL=http://127.0.0.1:$(LOCAL_MODEL_PORT)/v1 SUREFOOT_LOCAL_REQUIRED=1 \
		$(PY) -m pytest -m live_local tests/live_local

# The recovery evaluation (docs/eval.md) on that server: the Gymnasia suite in the four arms,
# into EVAL_DIR (runs.jsonl, summary.json, chart-<arm>.png; the table on stdout). The server
# runs at temperature 0 (scripts/local-model.sh), so a repeat gives the same answers: N is one
# run of each task in each arm (EVAL_REPEAT), over twelve of the suite's 27 tasks, one or two
# per fault kind (EVAL_TASKS: ids or prefixes; EVAL_TASKS=measure.,memory.,diet.,training.,github.
# runs them all). By arm, so the server's prompt cache keeps each arm's system prompt and tools
# warm. The twelve took 40 minutes on one thread of two shared cores (docs/eval.md); the 27
# take more than twice that. A request may take EVAL_TIMEOUT seconds (a busy machine slows the
# server down).
EVAL_DIR ?= build/eval-local
EVAL_REPEAT ?= 1
EVAL_TASKS ?= measure.article-fallback,measure.read-transient,measure.read-permanent,$\
	measure.write-before-commit,measure.write-after-commit,measure.write-unknown,$\
	measure.out-of-range,memory.looks-like-error,memory.delete-denied,diet.add-unknown,$\
	diet.add-after-commit,training.create-unknown
EVAL_TIMEOUT ?= 300
eval-local: $(STAMP) local-model
	$(VENV)/bin/gymnasia eval --provider openai-chat --model qwen2.5-coder-1.5b \
		--base-url http://127.0.0.1:$(LOCAL_MODEL_PORT)/v1 --arms contract,plain,no-recovery,naive \
		--repeat $(EVAL_REPEAT) --order by-arm --timeout $(EVAL_TIMEOUT) --out $(EVAL_DIR) $(if $(EVAL_TASKS),--tasks $(EVAL_TASKS))

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache site dist

# Many people at once (not part of `make test`): Gymnasia web with accounts on
# `serve --workers 4` over a PostgreSQL cluster of its own (initdb in a temporary directory),
# a fake model at a fixed latency, 100 Locust people for 120 s with a worker killed, the
# database restarted and the model slow for a while; then the end-state checks (exit 1 when
# one fails). LOAD_ARGS passes options (`--db-url postgresql://...`, `--users`, `--duration`,
# `--no-faults`); see benchmarks/load/run.py.
.PHONY: load
LOAD_ARGS ?=
load: $(STAMP)
	$(PY) -m pip install --quiet --disable-pip-version-check -c constraints.txt -e 'packages/gymnasia[load]'
	$(PY) benchmarks/load/run.py $(LOAD_ARGS)
