"""What the suite spends: generated examples per tier, and time limits on a slow machine.

The tiers (README, *Developing*; Makefile): ``make test`` and ``make test-fast`` run every
property with a fixed seed (hypothesis's ``derandomize``: the same examples on every run and
every machine) and a tenth of its budget (``examples``); ``make test-exhaustive`` sets
``HARNESS_EXHAUSTIVE=1``, which gives each property its whole budget of fresh random examples,
and runs the tests marked ``exhaustive`` (every mutant explored, every quirk case through the
process drivers). tests/conftest.py loads the hypothesis profile of the tier.

A time limit in a test is there to stop a hang, not to measure speed: ``within(seconds)`` is a
limit for work that takes ``seconds`` on an idle developer machine, on a machine
``HARNESS_TEST_SLOWER`` (4 unless set) times slower. A limit that a test means to hit (a process
that never answers) stays small; what the test waits for before it (a process starting) is kept
out of it.
"""

from __future__ import annotations

import os

#: ``make test-exhaustive``: whole budgets, random examples (``HARNESS_EXHAUSTIVE=1``)
EXHAUSTIVE = os.environ.get("HARNESS_EXHAUSTIVE", "") == "1"
#: the hypothesis profile tests/conftest.py loads
PROFILE = "exhaustive" if EXHAUSTIVE else "fixed-seed"
#: how many times slower than an idle developer machine this one may be
SLOWER = float(os.environ.get("HARNESS_TEST_SLOWER", "4"))


def examples(budget: int) -> int:
    """``budget`` examples in the exhaustive tier; a tenth of it (at least 10) otherwise."""
    return budget if EXHAUSTIVE else max(10, budget // 10)


def within(seconds: float) -> float:
    """A time limit for work that takes ``seconds`` on an idle developer machine."""
    return seconds * SLOWER
