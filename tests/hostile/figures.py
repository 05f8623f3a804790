"""The figures of the hostile-input tests: per class of input, how many were tried, how many were
refused, and the worst time and peak memory (tracemalloc) one input took.

    python -m tests.hostile.figures [EXAMPLES_PER_TEST] [TEST_FILE ...]

With test files named (``test_cassette_bombs.py``), only those run.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def main() -> int:
    os.environ["HARNESS_HOSTILE_MEMORY"] = "1"
    os.environ["HARNESS_HOSTILE_EXAMPLES"] = sys.argv[1] if len(sys.argv) > 1 else "100"
    import pytest

    named = set(sys.argv[2:])
    files = sorted(
        str(p) for p in Path(__file__).parent.glob("test_*.py") if not named or p.name in named
    )
    code = int(pytest.main(["-q", "-p", "no:cacheprovider", "-p", "no:randomly", *files]))
    from tests.hostile.for_tests import FIGURES  # after the run: pytest imports it first

    print(f"\n{'class':<22} {'inputs':>7} {'refused':>8} {'worst s':>8} {'worst MiB':>10}")
    for kind, figures in sorted(FIGURES.items()):
        print(
            f"{kind:<22} {figures.inputs:>7} {figures.errors:>8} "
            f"{figures.worst_seconds:>8.2f} {figures.worst_bytes / (1 << 20):>10.1f}"
        )
    return code


if __name__ == "__main__":
    raise SystemExit(main())
