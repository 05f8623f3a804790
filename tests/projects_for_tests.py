"""The example projects under examples/, copied and run as their teams run them, and what is read
from the output of a pytest run with the harness plugin."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
# This machine's Python has pytest-benchmark installed, and langchain-core brings langsmith's
# plugin (a second of imports in each run); pytest accepts -p no:NAME for a plugin that is not
# installed, so the options are harmless elsewhere.
PYTEST = [
    *(sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:benchmark"),
    *("-p", "no:langsmith_plugin"),
]


def outside_xdist(monkeypatch: Any) -> None:
    """A pytester run happens in this process: it must not take itself for a worker of this
    suite's own xdist run."""
    for name in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID"):
        monkeypatch.delenv(name, raising=False)


def copy_example(name: str, into: Path) -> Path:
    """A fresh copy of ``examples/NAME`` at ``into``, without caches."""
    shutil.copytree(
        EXAMPLES / name, into, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache")
    )
    return into


def run_as_its_team(
    command: Sequence[str],
    cwd: Path,
    *,
    unset: tuple[str, ...] = (),
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """``command`` in ``cwd``, its output in ``stdout`` (stderr merged), in an environment
    without the variables that start with ``PYTEST_`` or one of ``unset``, plus ``env``."""
    # A user's shell has none of the PYTEST_* variables this (outer) run sets or was given.
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", *unset))}
    return subprocess.run(
        list(command),
        cwd=cwd,
        env=clean | dict(env or {}),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=300,
        check=False,
    )


def outcomes(output: str, word: str) -> set[str]:
    """The test ids pytest's ``-rA``/``-r`` summary lists under ``word`` (``PASSED``, ...)."""
    return set(re.findall(rf"^{word} (\S+)", output, re.M))


def rule_table(output: str) -> dict[str, tuple[int, int, int]]:
    """The plugin's "conformance by rule" table: rule -> (passed, failed, skipped)."""
    section = re.search(r"conformance by rule =+\n(.*?)(?:\n=|\Z)", output, re.S)
    assert section, output
    rows = re.findall(r"^([a-z-]+)\s+(\d+)\s+(\d+)\s+(\d+)$", section.group(1), re.M)
    return {rule: (int(p), int(f), int(s)) for rule, p, f, s in rows}
