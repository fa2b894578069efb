# One command for each thing a user wants. `make help` lists them.
SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: help venv test lint format data bench reproduce clean

help:  ## list the targets
	@grep -E '^[a-zA-Z_%-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

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

data: $(STAMP)  ## copy (DATA_MIRROR) or download every dataset into data/raw, checksummed
	$(PY) -m data fetch all

bench: $(STAMP)  ## CPU cost of one epoch of each solver vs the one-pass memory bound
	$(PY) benchmarks/epoch_cost.py

reproduce: $(STAMP)  ## set up, fetch data, run every experiment, build every figure and table
	@echo "make reproduce: experiments and figures are added by later issues"

clean:  ## remove generated outputs (keeps .venv, data/raw and reports)
	rm -rf output .pytest_cache .ruff_cache
