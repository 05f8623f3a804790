"""The Go example consumers (protocol 2): a driver and a history store, each with a bug flag.

Built with the Debian ``golang-go`` package, standard library only. Without ``go`` these tests
skip, except in CI (``CI=true``), where a missing ``go`` is a failure.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
DRIVER = ROOT / "examples" / "drivers" / "go"
STORE = ROOT / "examples" / "history" / "go"

pytestmark = pytest.mark.slow


def _go() -> str:
    go = shutil.which("go")
    if go is None:
        why = "`go` is not on PATH: the Go examples need it (apt-get install golang-go)"
        if os.environ.get("CI") == "true":
            pytest.fail(why + "; CI must have it")
        pytest.skip(why)
    return go


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Both examples built into this test session's own folder (workers never share a binary)."""
    go = _go()
    out = tmp_path_factory.mktemp("go-examples")
    env = dict(os.environ)
    env.setdefault("GOCACHE", str(tmp_path_factory.getbasetemp() / "gocache"))
    env.setdefault("GOPATH", str(tmp_path_factory.getbasetemp() / "gopath"))
    binaries = {}
    for name, source in (("driver", DRIVER), ("store", STORE)):
        binaries[name] = out / name
        subprocess.run(
            [go, "build", "-o", str(binaries[name]), "."], cwd=source, env=env, check=True
        )
    return binaries


def run(adapter: list[str], *arguments: str) -> tuple[int, list[dict[str, Any]]]:
    """``harness run`` with an exec: adapter; its exit code and its results."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "harness",
            "run",
            "--format",
            "json",
            "--adapter",
            "exec:" + shlex.join(adapter),
            *arguments,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    try:
        results = json.loads(done.stdout)["results"]
    except (ValueError, KeyError):
        pytest.fail(f"harness run gave no results (exit {done.returncode}):\n{done.stderr[-2000:]}")
    return done.returncode, results


def broken(results: list[dict[str, Any]]) -> set[str]:
    return {v["rule"] for r in results for v in r.get("violations", ())}


def not_passed(results: list[dict[str, Any]]) -> list[str]:
    return [
        f"{r['scenario']}: {r['status']} {r.get('error') or ''} {sorted(broken([r]))}"
        for r in results
        if r["status"] not in ("pass", "skip")
    ]


@pytest.mark.parametrize(
    "quirks",
    [
        "none",  # make test: the library as written
        pytest.param("all", marks=pytest.mark.exhaustive),  # and under every quirk of its dialect
    ],
)
def test_go_driver_passes_the_driver_library(built: dict[str, Path], quirks: str) -> None:
    code, results = run([str(built["driver"])], "--quirks", quirks, "scenarios/driver")
    assert not_passed(results) == []
    assert code == 0
    assert any(r["status"] == "pass" for r in results)


def test_go_driver_with_its_bug_fails_on_assembly_or_emission(built: dict[str, Path]) -> None:
    adapter = [str(built["driver"]), "--bug=emits-partial-calls"]
    code, results = run(adapter, "--quirks", "none", "scenarios/driver")
    assert code != 0
    assert {r["status"] for r in results} <= {"pass", "fail", "skip"}
    assert broken(results) & {"strict-assembly", "emit-once-early"}


def test_go_store_passes_the_history_library(built: dict[str, Path]) -> None:
    code, results = run([str(built["store"])], "scenarios/history")
    assert not_passed(results) == []
    assert code == 0


def test_go_store_with_its_bug_fails_on_parent_isolation(built: dict[str, Path]) -> None:
    code, results = run([str(built["store"]), "--bug=subagent-into-parent"], "scenarios/history")
    assert code != 0
    assert "parent-isolation" in broken(results)
    assert not [r for r in results if r["status"] == "error"]
