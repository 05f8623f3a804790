# Two commands on a fresh machine with Python 3.11 and make:
#   make demo   the built-in scenario library against every bundled adapter
#   make test   the whole test suite
# and for contributors:
#   make test-fast   the suite without the tests marked slow, in seconds
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-fast lint bench clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	@# libs: the consumer libraries the tests in tests/libs reproduce behaviour of
	$(BIN)/python -m pip install --quiet -e '.[test,libs]'
	@touch $(STAMP)

demo: $(STAMP)
	$(BIN)/harness demo

# Tests run on every core (pytest-xdist, -n auto). pytest exits 5 when it collected nothing:
# that is a broken suite, not a pass.
PYTEST = $(BIN)/python -m pytest -n auto
define run_pytest
	@$(PYTEST) $(1); status=$$?; \
	if [ $$status -eq 5 ]; then echo "error: pytest collected no tests" >&2; exit 1; fi; \
	exit $$status
endef

test: $(STAMP)
	$(call run_pytest,)

test-fast: $(STAMP)
	$(call run_pytest,-m "not slow")

# mypy reads its files from pyproject.toml: harness/ (strict), tests/ and conftest.py
lint: $(STAMP)
	$(BIN)/ruff check harness tests conftest.py examples
	$(BIN)/ruff format --check harness tests conftest.py examples
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/harness bench

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
