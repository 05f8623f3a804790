"""examples/custom-rule: a rule written outside the package, registered for one test and gone
after it, and typed end to end (mypy --strict refuses it registered for another layer)."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from types import ModuleType

import pytest

import harness
from harness.adapters.session.reference import ReferenceSessionConsumer
from harness.model.observation import Message, Transcript

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "custom-rule"
SCENARIO = "scenarios/session/duplicate-completion.yaml"


def _team_rules() -> ModuleType:
    spec = importlib.util.spec_from_file_location("team_rules", EXAMPLE / "team_rules.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class LeavesTypingBubble(ReferenceSessionConsumer):
    """Shows an empty "typing..." assistant bubble at the end of the main session, and never
    takes it away."""

    def transcript(self) -> Transcript:
        shown = super().transcript()
        sessions = dict(shown.sessions)
        main = sessions["main"]
        bubble = Message("typing", "assistant", "")
        sessions["main"] = replace(main, messages=(*main.messages, bubble))
        return Transcript(sessions, shown.updates)


@pytest.fixture
def team_rules() -> Iterator[ModuleType]:
    module = _team_rules()
    assert module.RULE_ID not in harness.RULES
    with harness.scoped_registrations():
        module.register()
        yield module
    assert module.RULE_ID not in harness.RULES


def test_a_teams_rule_catches_its_bug_only_while_registered(team_rules: ModuleType) -> None:
    scenario = harness.load_scenario(SCENARIO)
    bubble = harness.AdapterInfo("bubble", "session", "external", LeavesTypingBubble)
    found = harness.replay(scenario, bubble)
    assert found.status == "fail"
    assert [v.rule for v in found.violations] == [team_rules.RULE_ID]
    assert "'typing' with no text and no tool call" in found.violations[0].message
    reference = harness.replay(scenario, "session-reference")
    assert reference.status == "pass" and team_rules.RULE_ID in reference.rules_checked


def test_the_rule_is_gone_after_its_test() -> None:
    scenario = harness.load_scenario(SCENARIO)
    bubble = harness.AdapterInfo("bubble", "session", "external", LeavesTypingBubble)
    # without the team's rule, only the comparison with the reference consumer sees the bubble
    assert harness.replay(scenario, bubble).rules_broken == ("reference-comparison",)


def _mypy(path: Path) -> subprocess.CompletedProcess[str]:
    if shutil.which("mypy") is None and importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (the test extra installs it)")
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(path)],
        capture_output=True,
        text=True,
        cwd=path.parent,
        env={**os.environ, "MYPYPATH": ""},
        check=False,
    )


@pytest.mark.slow
def test_the_rule_is_typed_end_to_end(tmp_path: Path) -> None:
    good = _mypy(EXAMPLE / "team_rules.py")
    assert good.returncode == 0, good.stdout
    # registered for the driver layer, the session check is refused: the layer names the facts
    wrong = tmp_path / "team_rules.py"
    source = (EXAMPLE / "team_rules.py").read_text(encoding="utf-8")
    wrong.write_text(source.replace('layer="session"', 'layer="driver"'), encoding="utf-8")
    refused = _mypy(wrong)
    assert refused.returncode == 1
    assert '"Callable[[SessionFacts], Iterator[Finding]]"' in refused.stdout
    assert 'type variable "DriverCheck"' in refused.stdout  # a check of DriverTimeline
