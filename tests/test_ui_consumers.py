"""The real consumers of UI protocols (examples/ui-consumers/), installed from their pinned
lock file with ``npm ci`` and replayed as ``exec:`` adapters; each failure is a bug the
folder's reproductions show without the harness, or a decision of the protocol's profile
(docs/ui-protocols.md)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from harness.replay import replay
from harness.replay.result import ScenarioResult
from harness.scenario import SessionScenario, load_scenario
from harness.scenario.variations import select_session_cases

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "examples" / "ui-consumers"
SCENARIOS = ROOT / "scenarios" / "session"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        shutil.which("node") is None or shutil.which("npm") is None, reason="needs node and npm"
    ),
]


@pytest.fixture(scope="module")
def installed() -> Path:
    done = subprocess.run(
        ["npm", "ci", "--no-audit", "--no-fund"],
        cwd=FOLDER,
        capture_output=True,
        text=True,
        timeout=300,
    )
    # CI installs from the npm registry: a failed install is a failure, not a skip
    assert done.returncode == 0, f"npm ci failed in {FOLDER}: {done.stderr[-400:]}"
    return FOLDER


def as_written(name: str, adapter: str) -> ScenarioResult:
    written = load_scenario(SCENARIOS / f"{name}.yaml")
    assert isinstance(written, SessionScenario)
    scenario = select_session_cases(written, "none")[0]
    return replay(scenario, adapter, timeout=30)


AG_UI = "exec:node examples/ui-consumers/ag-ui-client.mjs"

#: scenario -> the rules @ag-ui/client breaks there, as written (none: it passes)
AG_UI_EXPECTED = {
    "tool-first-turn": set(),
    "nested-subsessions-explicit": set(),
    "resume-while-call-running": set(),
    "duplicate-completion": {"exactly-once"},
    "subsession-reuses-tool-id-from-earlier-run": {"backward-attachment", "exactly-once"},
    "resume-live-after-tool-calls": {"notification-lifecycle", "resume-equivalence"},
}


@pytest.mark.parametrize(("name", "broken"), sorted(AG_UI_EXPECTED.items()))
def test_ag_ui_client_breaks_exactly_the_explained_rules(installed, monkeypatch, name, broken):
    monkeypatch.chdir(ROOT)
    result = replay_as_written = as_written(name, AG_UI)
    assert result.status == ("fail" if broken else "pass"), result.error or result.violations
    assert set(replay_as_written.rules_broken) == broken


AI_SDK = "exec:node examples/ui-consumers/ai-sdk-ui.mjs"

#: scenario -> the rules ai's readUIMessageStream breaks there, as written (none: it passes);
#: cleanup-user-turn is the profile's candidate rule for abort (docs/ui-protocols.md)
AI_SDK_EXPECTED = {
    "tool-first-turn": set(),
    "tool-first-then-thought": set(),
    "duplicate-completion": set(),
    "error-flag-live-and-resumed": set(),
    "resume-while-call-running": set(),
    "interaction-without-prompt-continues": set(),
    "subsession-reuses-tool-id-from-earlier-run": set(),
    "cancel-after-executing": {"cleanup-user-turn"},
    "lost-completion-cleared-at-user-turn": {"cleanup-user-turn"},
}


@pytest.mark.parametrize(("name", "broken"), sorted(AI_SDK_EXPECTED.items()))
def test_read_ui_message_stream_breaks_exactly_the_explained_rules(
    installed, monkeypatch, name, broken
):
    monkeypatch.chdir(ROOT)
    result = as_written(name, AI_SDK)
    assert result.status == ("fail" if broken else "pass"), result.error or result.violations
    assert set(result.rules_broken) == broken


# the bugs' scripts are the matrix's (docs/reproductions/LIBRARY/ID.mjs, run by
# tests/libs/test_reproductions.py too); the quirk's is no failure of any case
@pytest.mark.parametrize(
    ("script", "shown"),
    [
        ("docs/reproductions/ag-ui-client/call-id-reused-across-runs", "BUG SHOWN"),
        ("docs/reproductions/ag-ui-client/result-delivered-twice", "BUG SHOWN"),
        ("docs/reproductions/ag-ui-client/snapshot-keeps-old-order", "BUG SHOWN"),
        ("docs/reproductions/ai-sdk-ui/abort-leaves-running-parts", "BUG SHOWN"),
        ("examples/ui-consumers/reproductions/call-id-restarted-in-step", "QUIRK SHOWN"),
    ],
)
def test_each_consumer_bug_is_reproduced_without_the_harness(installed, script, shown):
    done = subprocess.run(
        ["node", f"{script}.mjs"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout[-800:] + done.stderr[-800:]
    assert shown in done.stdout


#: per producer variant of each dialect, a scenario it changes: the real consumer reads the
#: variant's shapes as it reads the codec's own, breaking under it what it breaks as written
VARIANT_CASES = [
    (AG_UI, "tool-first-turn", "chunk-events", AG_UI_EXPECTED),
    (AG_UI, "duplicate-completion", "chunk-events", AG_UI_EXPECTED),
    (AG_UI, "tool-first-turn", "no-role", AG_UI_EXPECTED),
    (AG_UI, "nested-subsessions-explicit", "steps", AG_UI_EXPECTED),
    (AG_UI, "tool-first-turn", "raw-events", AG_UI_EXPECTED),
    (AI_SDK, "resume-while-call-running", "input-not-streamed", AI_SDK_EXPECTED),
    (AI_SDK, "tool-first-then-thought", "message-metadata", AI_SDK_EXPECTED),
    (AI_SDK, "tool-first-turn", "provider-metadata", AI_SDK_EXPECTED),
    (AI_SDK, "cancel-after-executing", "data-parts", AI_SDK_EXPECTED),
]


@pytest.mark.parametrize(
    ("adapter", "name", "variant", "expected"),
    VARIANT_CASES,
    ids=[f"{a.split('/')[-1]}-{n}-{v}" for a, n, v, _ in VARIANT_CASES],
)
def test_each_real_consumer_reads_every_producer_variant_alike(
    installed, monkeypatch, adapter, name, variant, expected
):
    from harness.adapters.registry import resolve_adapter
    from harness.replay.cases import cases_for

    monkeypatch.chdir(ROOT)
    written = load_scenario(SCENARIOS / f"{name}.yaml")
    (case,) = cases_for([written], resolve_adapter(adapter), variations=(variant,), timeout=30)
    assert case.case_id == f"{name}[{variant}]"
    result = replay(case, adapter, timeout=30)
    assert result.status == ("fail" if expected[name] else "pass"), (
        result.error or result.violations
    )
    assert set(result.rules_broken) == expected[name]
