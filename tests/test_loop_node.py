"""A program in another language under ``harness loop``: the stdlib Node agent loop of
examples/loops/node passes every loop scenario Chat Completions carries, and its bug is caught.
Without ``node`` these tests skip, except in CI (``CI=true``), where a missing ``node`` fails."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from tests.scenarios_for_tests import ROOT

AGENT = ROOT / "examples" / "loops" / "node" / "agent.mjs"
LOOP = ROOT / "scenarios" / "loop"

pytestmark = pytest.mark.slow


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        why = "`node` is not on PATH: the Node agent loop needs Node 20"
        if os.environ.get("CI") == "true":
            pytest.fail(why + "; CI must have it")
        pytest.skip(why)
    return node


def harness_loop(*arguments: str) -> tuple[int, list[dict[str, object]]]:
    """``harness loop`` run as a user runs it; its exit code and its results."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "harness", "loop", *arguments],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, json.loads(done.stdout)["results"]


def test_the_node_agent_passes_every_loop_scenario_chat_completions_carries():
    node = _node()
    code, results = harness_loop(
        str(LOOP),
        "--dialect",
        "openai-chat",
        "--settle",
        "0.05",
        "--format",
        "json",
        "--",
        node,
        str(AGENT),
    )
    assert code == 0, [r for r in results if r["status"] != "pass"]
    assert len(results) >= 7 and {r["status"] for r in results} == {"pass"}


def test_the_node_agent_pairing_results_by_position_is_caught():
    node = _node()
    code, (result,) = harness_loop(
        str(LOOP / "two-tool-cycles.yaml"),
        "--settle",
        "0.05",
        "--format",
        "json",
        "--",
        node,
        str(AGENT),
        "--bug=pair-by-position",
    )
    assert code == 1 and result["dialect"] == "openai-chat"
    rules = {v["rule"] for v in result["violations"]}  # type: ignore[attr-defined]
    assert {"loop-forward-pairing", "loop-reverse-pairing"} <= rules
