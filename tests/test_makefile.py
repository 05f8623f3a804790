"""The Makefile's environment: an unsupported Python stops it clearly, before any .venv exists,
and a .venv left broken by an earlier run is made again rather than breaking every later one.
Its test tiers: what each selects, and a run that collects nothing is a failure."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")

#: stand-ins for interpreters: the Makefile asks them their version and makes venvs with them
OLD_PYTHON = """#!/bin/sh
case "$1" in --version) echo "Python 3.9.2";; -c) exit 1;; esac
"""
#: a supported Python whose venvs' python records what it is asked to install
GOOD_PYTHON = """#!/bin/sh
case "$1" in
  --version) echo "Python 3.11.9";;
  -c) exit 0;;
  -m) mkdir -p "$3/bin"
      printf '#!/bin/sh\\ncase "$1" in -c) exit 0;; esac\\necho "$@" >> "$0.log"\\n' > "$3/bin/python"
      chmod +x "$3/bin/python";;
esac
"""


def _project(tmp_path: Path) -> Path:
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy(ROOT / name, tmp_path / name)
    for name, text in (("oldpy", OLD_PYTHON), ("goodpy", GOOD_PYTHON)):
        (tmp_path / name).write_text(text)
        (tmp_path / name).chmod(0o755)
    return tmp_path


def _make(project: Path, python: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["make", "--no-print-directory", ".venv/.installed", f"PYTHON=./{python}"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_an_unsupported_python_stops_clearly_and_leaves_no_venv(tmp_path):
    project = _project(tmp_path)
    done = _make(project, "oldpy")
    assert done.returncode != 0
    assert "needs Python 3.11 or newer; ./oldpy is Python 3.9.2" in done.stderr
    assert "PYTHON=python3.11" in done.stderr
    assert not (project / ".venv").exists()


def test_a_broken_venv_is_made_again_and_the_install_says_what_it_installs(tmp_path):
    project = _project(tmp_path)
    broken = project / ".venv" / "bin" / "python"
    broken.parent.mkdir(parents=True)
    broken.write_text(OLD_PYTHON)  # as a run with an old Python left it
    broken.chmod(0o755)
    done = _make(project, "goodpy")
    assert done.returncode == 0, done.stderr
    assert ".venv is broken or made by an unsupported Python: making it again" in done.stdout
    assert "creating .venv with Python 3.11.9" in done.stdout
    assert "installing streamharness and its test tools and consumer libraries" in done.stdout
    asked = (project / ".venv" / "bin" / "python.log").read_text().splitlines()
    assert asked[-1] == "-m pip install --progress-bar off -e .[test,libs]"
    assert (project / ".venv" / ".installed").exists()
    # a sound venv is kept: nothing is made again
    (project / ".venv" / ".installed").unlink()
    again = _make(project, "goodpy")
    assert again.returncode == 0 and "making it again" not in again.stdout


#: stands in for pytest: says what it was given, exits with the code in $EXIT
FAKE_PYTEST = """#!/bin/sh
echo "HARNESS_EXHAUSTIVE=$HARNESS_EXHAUSTIVE $*"
exit "${EXIT:-0}"
"""


@pytest.mark.parametrize(
    ("target", "selects", "exhaustive"),
    [
        ("test", "-m not exhaustive and not matrix", ""),
        ("test-fast", "-m not slow and not exhaustive and not matrix", ""),
        ("test-exhaustive", "-m (exhaustive or hypothesis) and not matrix", "1"),
    ],
)
def test_each_tier_selects_its_tests_and_fails_when_none_is_collected(
    tmp_path, target, selects, exhaustive
):
    project = _project(tmp_path)
    fake = project / "fake-pytest"
    fake.write_text(FAKE_PYTEST)
    fake.chmod(0o755)

    def make(code: int) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            # the venv counts as installed; no Go examples are built
            [
                "make",
                "--no-print-directory",
                "-o",
                ".venv/.installed",
                target,
                "HAVE_GO=",
                f"PYTEST={fake}",
            ],
            cwd=project,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            env={
                **{k: v for k, v in os.environ.items() if k != "HARNESS_EXHAUSTIVE"},
                "EXIT": str(code),
            },
        )

    done = make(0)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"HARNESS_EXHAUSTIVE={exhaustive} {selects}\n"
    # pytest's 5 is "collected nothing": a broken suite, never a pass
    nothing = make(5)
    assert nothing.returncode != 0 and "pytest collected no tests" in nothing.stderr
    assert make(1).returncode != 0
