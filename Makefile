# Two commands set everything up on a fresh machine (Python >= 3.11 with venv):
#   make arena   - create .venv, install boardzoo[arena] (torch CPU, SB3), run a Connect Four tournament
#   make test    - create .venv, install boardzoo with its dev extras, run the whole test suite
#                  (and the RLlib tests in .venv-rllib: RLlib pins gymnasium 1.2.2, the dev
#                  venv keeps the newest gymnasium; and the rules and drop-in tests in
#                  .venv-oldest on the oldest supported numpy, gymnasium and PettingZoo)
VENV ?= .venv
RLLIB_VENV ?= .venv-rllib
OLDEST_VENV ?= .venv-oldest
AGILERL_VENV ?= .venv-agilerl
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-dev
ARENA_STAMP := $(VENV)/.installed-arena
RLLIB_STAMP := $(RLLIB_VENV)/.installed-rllib
OLDEST_STAMP := $(OLDEST_VENV)/.installed-oldest
AGILERL_STAMP := $(AGILERL_VENV)/.installed-agilerl
# what `make test-oldest` runs: the bitboard games, the registry and the classic drop-ins
OLDEST_TESTS := tests/test_connect_four.py tests/test_othello.py tests/test_chess.py \
	tests/test_tictactoe.py tests/test_classic.py tests/test_registry.py
PIP_INSTALL := $(PY) -m pip install --quiet -c constraints.txt
# CI has 2 cores: one pytest worker per core
PYTEST_WORKERS ?= 2

.PHONY: arena test typecheck test-fast test-slow test-rllib test-oldest test-agilerl bench docs \
	clean wheel

$(STAMP): pyproject.toml constraints.txt
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PIP_INSTALL) -e ".[dev]"
	touch $(STAMP)

# `make arena` installs only what it needs (no open_spiel, pygame or test tools)
$(ARENA_STAMP): pyproject.toml constraints.txt
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PIP_INSTALL) -e ".[arena]"
	$(VENV)/bin/boardzoo compile connect_four
	touch $(ARENA_STAMP)

# RLlib with the gymnasium it pins, and nothing else it does not need
$(RLLIB_STAMP): pyproject.toml constraints.txt
	python3 -m venv $(RLLIB_VENV)
	$(RLLIB_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(RLLIB_VENV)/bin/python -m pip install --quiet -c constraints.txt -e ".[rllib]" "pytest>=8.0"
	touch $(RLLIB_STAMP)

# boardzoo alone on the oldest versions it supports (constraints-oldest.txt), no extras
$(OLDEST_STAMP): pyproject.toml constraints-oldest.txt
	python3 -m venv $(OLDEST_VENV)
	$(OLDEST_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(OLDEST_VENV)/bin/python -m pip install --quiet -c constraints-oldest.txt -e . \
		"pytest>=8.0" "pytest-xdist>=3.5" "hypothesis>=6.100" "pygame-ce>=2.4" "chess>=1.10"
	touch $(OLDEST_STAMP)

# AgileRL with its own pins (requirements-agilerl.txt: numpy<2) and boardzoo; torch is the CPU
# build, not AgileRL's torch==2.5.1, so AgileRL goes in without its dependencies, and
# deepspeed (an sdist that imports torch to build) without build isolation
$(AGILERL_STAMP): pyproject.toml requirements-agilerl.txt
	python3 -m venv $(AGILERL_VENV)
	$(AGILERL_VENV)/bin/python -m pip install --quiet --upgrade pip setuptools wheel
	$(AGILERL_VENV)/bin/python -m pip install --quiet -r requirements-agilerl.txt -e .
	$(AGILERL_VENV)/bin/python -m pip install --quiet --no-deps --no-build-isolation \
		deepspeed==0.16.9 agilerl==2.2.1
	touch $(AGILERL_STAMP)

arena: $(ARENA_STAMP)
	$(VENV)/bin/boardzoo arena

# every suite runs even if one before it failed; the last lines say which passed, which failed
# (and the command that reruns it alone) and which did not run; the exit status is non-zero
# if any failed
SUITES := typecheck test-fast test-slow test-rllib test-oldest
test:
	@MAKE="$(MAKE)" .ci/suites $(SUITES)

# mypy over the whole package ([tool.mypy] files in pyproject.toml)
typecheck: $(STAMP)
	$(VENV)/bin/mypy

test-fast: $(STAMP)
	OMP_NUM_THREADS=1 $(PY) -m pytest -m "not slow" -n $(PYTEST_WORKERS) -q

# exit status 5 = no test is marked slow (nothing to run), which is fine
test-slow: $(STAMP)
	OMP_NUM_THREADS=1 $(PY) -m pytest -m slow -n $(PYTEST_WORKERS) -q || [ $$? -eq 5 ]

# RLlib's tests and the docs' RLlib snippets, and boardzoo's Gymnasium checks on the gymnasium
# RLlib pins; the dev venv skips the RLlib tests (no RLlib there)
test-rllib: $(RLLIB_STAMP)
	OMP_NUM_THREADS=1 $(RLLIB_VENV)/bin/python -m pytest -q \
		tests/test_rllib.py tests/test_works_with.py tests/test_conformance.py -k "rllib or gymnasium"

# the oldest supported numpy (1.26), gymnasium and PettingZoo: a few minutes
test-oldest: $(OLDEST_STAMP)
	OMP_NUM_THREADS=1 $(OLDEST_VENV)/bin/python -m pytest -m "not slow" -n $(PYTEST_WORKERS) -q \
		$(OLDEST_TESTS)

# PettingZoo's AgileRL Connect Four curriculum tutorial as published, the import changed and
# its sizes shrunk (tests/agilerl_tutorial.py), against the same run on PettingZoo's env, and
# works-with.md's AgileRL snippet: the venv (2.3 GB) takes about 6 minutes to build, the tests
# about 2.5 to run, so `make test` leaves this out
test-agilerl: $(AGILERL_STAMP)
	OMP_NUM_THREADS=1 $(AGILERL_VENV)/bin/python -m pytest -q -p no:cacheprovider \
		tests/test_agilerl_tutorial.py tests/test_works_with.py -m "slow or not slow" -k agilerl

bench: $(STAMP)
	$(VENV)/bin/boardzoo bench

# the docs site in strict mode into site/ (open site/index.html); the fast suite builds it too
docs: $(STAMP)
	$(VENV)/bin/mkdocs build --strict

clean:
	rm -rf $(VENV) $(RLLIB_VENV) $(OLDEST_VENV) $(AGILERL_VENV) build dist site *.egg-info .pytest_cache

# the wheel, with every game's compiled code for any x86-64-v2 CPU in it (boardzoo/compiled:
# a new installation loads it instead of compiling; see boardzoo.numba_cache). The folder
# is removed afterwards: the source tree compiles for its own CPU.
wheel: $(STAMP)
	rm -rf boardzoo/compiled dist
	NUMBA_CPU_NAME=x86-64-v2 NUMBA_CPU_FEATURES= BOARDZOO_CACHE_DIR=$(CURDIR)/boardzoo/compiled \
		$(VENV)/bin/boardzoo compile
	$(PY) -m build --wheel --outdir dist >/dev/null
	rm -rf boardzoo/compiled
