# Two commands on a fresh machine with Python 3.11 and make:
#   make demo   the built-in scenario library against every bundled adapter
#   make test   the test suite: every property, each with a fixed seed and a sample of its cases
#               (about sixteen minutes on two cores, once installed)
# and for contributors:
#   make examples   build the Go example consumers (needs go; the JavaScript one needs no build)
#   make test-fast   make test without the tests marked slow (subprocesses, the whole library,
#                    explorations): under 30 seconds on two cores
#   make test-exhaustive   what make test samples, all of it: the tests marked exhaustive (every
#                    mutant explored, every quirk case through the process drivers) and every
#                    hypothesis property at its whole budget of random examples; CI runs it after
#                    make test (about 30 minutes on two cores)
#   make matrix   the conformance matrix of the consumer libraries, each extra in an environment of
#                    its own (nox): writes docs/conformance.md and .json; CI runs it and fails on
#                    any difference from the committed files
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-fast test-exhaustive matrix lint bench clean examples

# A Python older than 3.11 stops here, before any .venv is made; a .venv whose python is
# missing, broken or too old (left by an earlier run, or made by another Python) is made again,
# so a failed run never breaks the next one.
SUPPORTED = import sys; sys.exit(sys.version_info < (3, 11))

# $(call usable_venv,DIR): DIR holds a virtual environment of a supported Python afterwards
define usable_venv
	@$(PYTHON) -c '$(SUPPORTED)' 2>/dev/null || { \
		echo "error: streamharness needs Python 3.11 or newer; $(PYTHON) is $$($(PYTHON) --version 2>&1 || echo missing)." >&2; \
		echo "       Give another one: make $(MAKECMDGOALS) PYTHON=python3.11" >&2; exit 1; }
	@if [ -e $(1) ] && ! $(1)/bin/python -c '$(SUPPORTED)' 2>/dev/null; then \
		echo "$(1) is broken or made by an unsupported Python: making it again"; rm -rf $(1); fi
	@test -x $(1)/bin/python || { echo "creating $(1) with $$($(PYTHON) --version 2>&1)"; $(PYTHON) -m venv $(1); }
endef

$(STAMP): pyproject.toml
	$(call usable_venv,$(VENV))
	@echo "installing streamharness and its test tools and consumer libraries into $(VENV) (a minute or so):"
	$(BIN)/python -m pip install --quiet --upgrade pip
	@# libs: the consumer libraries the tests in tests/libs reproduce behaviour of
	$(BIN)/python -m pip install --progress-bar off -e '.[test,libs]'
	@touch $(STAMP)

demo: $(STAMP)
	$(BIN)/harness demo

# Tests run on every core (pytest-xdist, -n auto). pytest exits 5 when it collected nothing:
# that is a broken suite, not a pass.
# $(call run_pytest,OPTIONS[,VARIABLES]): pytest with OPTIONS, in the environment plus VARIABLES
PYTEST = $(BIN)/python -m pytest -n auto
define run_pytest
	@$(2) $(PYTEST) $(1); status=$$?; \
	if [ $$status -eq 5 ]; then echo "error: pytest collected no tests" >&2; exit 1; fi; \
	exit $$status
endef

# The Go examples: standard library only, one binary each in their bin/. Their tests build them
# too; `make test` builds them first where go is installed.
GO ?= go
HAVE_GO := $(shell command -v $(GO) 2>/dev/null)

examples:
	cd examples/drivers/go && $(GO) build -o bin/driver .
	cd examples/history/go && $(GO) build -o bin/store .

# The tiers (README, Developing): -m picks the tests; HARNESS_EXHAUSTIVE=1 gives each hypothesis
# property its whole budget of random examples (tests/budgets.py; a tenth, with a fixed seed,
# otherwise).
test: $(STAMP) $(if $(HAVE_GO),examples)
	$(call run_pytest,-m "not exhaustive and not matrix")

test-fast: $(STAMP)
	$(call run_pytest,-m "not slow and not exhaustive and not matrix")

test-exhaustive: $(STAMP) $(if $(HAVE_GO),examples)
	$(call run_pytest,-m "(exhaustive or hypothesis) and not matrix",HARNESS_EXHAUSTIVE=1)

# The conformance matrix (docs/conformance.md and .json): each extra of consumer libraries in
# an environment of its own (nox, noxfile.py: their pins conflict), every library over every
# quirk case, every cause explained and its reproduction run, then the parts merged.
matrix: $(STAMP)
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/nox

# mypy reads its files from pyproject.toml: harness/ (strict), tests/ and conftest.py
lint: $(STAMP)
	$(BIN)/ruff check harness tests conftest.py examples
	$(BIN)/ruff format --check harness tests conftest.py examples
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/harness bench

clean:
	rm -rf $(VENV) .nox build *.egg-info .pytest_cache .mypy_cache .ruff_cache
