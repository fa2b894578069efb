# One command for each thing a user wants. `make help` lists them.
SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: help venv test lint format mutation data bench bench-peers features bench-optima bench-distributed bench-spark reproduce smoke prepare experiments figures docs clean FORCE

help:  ## list the targets
	@grep -hE '^[a-zA-Z_%.-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	@touch $@

venv: $(STAMP)  ## create .venv and install the project with its test extra

lint: $(STAMP)  ## ruff lint and format check
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: $(STAMP)  ## apply ruff formatting and safe fixes
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

test: lint  ## lint, then run the whole test suite (fails on zero tests collected)
	$(PY) -m pytest

# mutation testing of the bookkeeping modules (tools/mutation.py): slow, never part of `test`
# or CI; run it when those modules change. MUTATION_ARGS: modules and options, e.g.
# MUTATION_ARGS="spec optima --max-mutants 50" (--list names them, --report reprints)
DEV_STAMP := $(VENV)/.dev-installed
MUTATION_ARGS ?=
$(DEV_STAMP): pyproject.toml | $(STAMP)
	$(PY) -m pip install --quiet -e '.[test,dev]'
	@touch $@

mutation: $(DEV_STAMP)  ## mutation score per bookkeeping module and its survivors (slow)
	$(PY) tools/mutation.py $(MUTATION_ARGS)

data: $(STAMP)  ## copy (DATA_MIRROR) or download every dataset into data/raw, checksummed
	$(PY) -m sdca_pegasos.data fetch all

bench: $(STAMP)  ## epoch cost vs the one-pass memory bound; the warm lambda path vs cold fits
	$(PY) benchmarks/epoch_cost.py
	@if $(PY) -c 'from sdca_pegasos import data; import sys; sys.exit(not data.available("blood-cells"))'; then \
	  $(MAKE) --no-print-directory prepare && $(PY) benchmarks/lambda_path.py; \
	else echo "blood-cell images missing: no lambda-path benchmark (python -m sdca_pegasos.data fetch blood-cells)"; fi

BENCH_STAMP := $(VENV)/.bench-installed
BENCH_ARGS ?=

# the peers are an optional extra, never runtime dependencies; lightning has no wheel for
# Python 3.11 and its sdist imports NumPy and Cython in setup.py: built without isolation,
# and skipped (the benchmark says why) when that fails
$(BENCH_STAMP): pyproject.toml | $(STAMP)
	$(PY) -m pip install --quiet -e '.[bench]'
	$(PY) -m pip install --quiet cython && \
	  $(PY) -m pip install --quiet --no-build-isolation sklearn-contrib-lightning || \
	  echo "lightning could not be built here: benchmarks/peers.py skips it"
	@touch $@

# the catalogue's optima and the exact engine's target regimes (add `beyond` for a problem
# too large on both sides for the interior point)
OPTIMA_REGIMES ?= catalogue targets
bench-optima: $(STAMP)  ## catalogue optima and engine targets from scratch: method, gap, CPU s
	$(PY) benchmarks/optima.py --n-jobs $(N_JOBS) --regimes $(OPTIMA_REGIMES)

features: $(STAMP)  ## class weights on skin and the warm lambda path (hours: not in reproduce), drawn
	$(PY) -m sdca_pegasos.experiments features
	$(PY) -m sdca_pegasos.figures.beyond_features

bench-peers: $(BENCH_STAMP)  ## time to 1e-2/1e-4/1e-6 vs liblinear, Snap ML, skglm, ReHLine, lightning
	$(PY) benchmarks/peers.py $(BENCH_ARGS)

bench-distributed: $(STAMP)  ## CoCoA+ on a LocalCluster, K = 1, 2, 4, 8 blocks, vs SDCA (BENCH_ARGS: --full)
	$(PY) benchmarks/distributed.py $(BENCH_ARGS)

# PySpark, the optional `.[spark]` extra, as bench-peers installs its own; it needs Java 17+
SPARK_STAMP := $(VENV)/.spark-installed
$(SPARK_STAMP): pyproject.toml | $(STAMP)
	$(PY) -m pip install --quiet -e '.[spark]'
	@touch $@

bench-spark: $(SPARK_STAMP)  ## Spark MLlib LinearSVC (local[2]) vs DaskSVMClassifier, time to 1e-2/1e-4/1e-6 (BENCH_ARGS)
	$(PY) benchmarks/spark_svc.py $(BENCH_ARGS)

# ------------------------------------------------------------------ reproduce
# SEEDS empty: each experiment's own count (100; 10 for the raw-crop lambda sweep)
SEEDS ?=
SEEDS_FLAG = $(if $(SEEDS),--seeds $(SEEDS))
N_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
TIMINGS := output/timings.tsv
# deferred: evaluated by the sub-makes that `reproduce` starts after fetching the data
EXPERIMENTS = $(shell $(PY) -m sdca_pegasos.experiments list --names --available 2>/dev/null)
FIGURE_TARGETS = $(shell $(PY) -m sdca_pegasos.figures targets 2>/dev/null)

# run a stage, append "<name>\t<seconds>" to $(TIMINGS)
define stage
	@start=$$(date +%s.%N); $(2); \
	awk -v n="$(1)" -v s="$$start" -v e="$$(date +%s.%N)" 'BEGIN {printf "%s\t%.1f\n", n, e - s}' >> $(TIMINGS)
endef

reproduce: $(STAMP)  ## everything: data -> experiments (100 seeds) -> figures -> REPRODUCTION.md
	@mkdir -p output && : > $(TIMINGS)
	$(call stage,data (fetch + verify),$(PY) -m sdca_pegasos.data fetch all --allow-missing)
	$(call stage,blood crops + PCA,$(MAKE) --no-print-directory prepare)
	$(call stage,experiments,$(MAKE) --no-print-directory experiments)
	$(call stage,figures and tables,$(MAKE) --no-print-directory figures REPORTS_CURRENT=1)
	$(call stage,scorecard,$(MAKE) --no-print-directory REPRODUCTION.md)
	@echo; echo "Stage timings (wall seconds, SEEDS=$(or $(SEEDS),catalogue), N_JOBS=$(N_JOBS)):"
	@awk -F'\t' '{printf "  %-22s %8.1f\n", $$1, $$2; t += $$2} END {printf "  %-22s %8.1f\n", "total", t}' $(TIMINGS)
	@echo; $(PY) -m sdca_pegasos.data status
	@missing="$$($(PY) -m sdca_pegasos.experiments list --names --missing)"; \
	if [ -n "$$missing" ]; then echo "Not run (dataset missing; see the table above):"; \
	  echo "$$missing" | sed 's/^/  /'; fi

smoke: $(STAMP)  ## the whole pipeline with 5 seeds per configuration (minutes)
	$(MAKE) --no-print-directory reproduce SEEDS=5

prepare: $(STAMP)  ## blood-cell crops, PCA-40 and singular values (cached; ~10 min cold)
	@if $(PY) -c 'from sdca_pegasos import data; import sys; sys.exit(not data.available("blood-cells"))'; then \
	  $(PY) -m sdca_pegasos.data prepare blood --pca 40 --singular-values; \
	else echo "blood-cell images missing: no crops (see python -m sdca_pegasos.data fetch blood-cells)"; fi

# one process for all of them: its workers import, compile and load each dataset once, and
# certify the missing optima in the same pool as the runs (overlapping them)
experiments: $(STAMP)  ## every experiment whose dataset is present (SEEDS, N_JOBS)
	$(PY) -m sdca_pegasos.experiments run $(EXPERIMENTS) $(SEEDS_FLAG) --n-jobs $(N_JOBS)

# The runner decides what is stale (run keys hash the definition and the code) and leaves
# an up-to-date report untouched, so FORCE costs a check, and figures are rebuilt only
# when their report really changed.
# REPORTS_CURRENT=1 (reproduce's figures stage, right after its experiments stage): no check
# to start per report, only that it exists
reports/%.parquet: FORCE | $(STAMP)
	$(if $(REPORTS_CURRENT),@test -f $@ || { echo "$@ is missing: make experiments" >&2; exit 1; },$(PY) -m sdca_pegasos.experiments run $* $(SEEDS_FLAG) --n-jobs $(N_JOBS))
.PRECIOUS: reports/%.parquet
# the coefficient table is written by the same run as its report (shorter stem: this wins)
reports/%_coef.parquet: reports/%.parquet
	@test -f $@ || { echo "$@: $* stores no coefficients" >&2; exit 1; }
FORCE:

figures: output/figures.mk  ## every figure and table whose inputs are present
	@$(MAKE) --no-print-directory -j$(N_JOBS) $(FIGURE_TARGETS)

output/figures.mk: sdca_pegasos/figures/__init__.py sdca_pegasos/figures/__main__.py sdca_pegasos/experiments/catalogue.py | $(STAMP)
	@mkdir -p $(@D)
	$(PY) -m sdca_pegasos.figures deps --recipe > $@

ifneq ($(filter output/%,$(MAKECMDGOALS)),)
include output/figures.mk
endif

docs: figures  ## README gallery (docs/*.png) and its generated λ findings, from the reports
	$(PY) -m sdca_pegasos.figures gallery
	$(PY) -m sdca_pegasos.figures readme

# prerequisites: the reports' sidecars (rewritten with every rebuilt report) and the optima,
# not reports/*.parquet, whose FORCE rule would start one check of every experiment; the
# scorecard itself refuses a stale report (its claims are "not run", naming the target)
REPRODUCTION.md: $(addprefix sdca_pegasos/figures/,scorecard.py claims.py common.py study001_table2.py study001_fig7.py beyond_lambda.py) $(wildcard reports/*.json reports/optima/*.json)  ## the scorecard
	$(PY) -m sdca_pegasos.figures.scorecard --out $@

clean:  ## remove generated outputs (keeps .venv, data/raw and reports)
	rm -rf output .pytest_cache .ruff_cache
