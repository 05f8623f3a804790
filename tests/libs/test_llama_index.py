"""The LlamaIndex adapters (``harness.adapters.libs.llama_index``) replayed over single cases: a
plain scenario passes through each of its classes, and what a bug of each hands the user shows as
the rule it breaks."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.adapters.registry import resolve_adapter
from harness.replay import cases_to_run, replay
from harness.replay.result import ScenarioResult
from harness.scenario import load_scenario

pytest.importorskip(
    "llama_index.llms.openai", reason="llama-index is not installed (extra 'llama-index')"
)
pytest.importorskip(
    "llama_index.llms.anthropic", reason="llama-index is not installed (extra 'llama-index')"
)

DRIVER = Path(__file__).resolve().parents[2] / "scenarios" / "driver"
OPENAI = "harness.adapters.libs.llama_index:make_openai_adapter"
ANTHROPIC = "harness.adapters.libs.llama_index:make_anthropic_adapter"


def run(adapter: str, scenario: str, *quirks: str) -> ScenarioResult:
    """The one case of ``scenario`` with ``quirks`` added (none: as written)."""
    info = resolve_adapter(adapter)
    loaded = [load_scenario(DRIVER / f"{scenario}.yaml")]
    (case,) = cases_to_run(loaded, info, quirks=quirks or "none")
    return replay(case, info)


def rules_broken(result: ScenarioResult) -> set[str]:
    return {v.rule for v in result.violations}


@pytest.mark.parametrize("adapter", [OPENAI, ANTHROPIC])
@pytest.mark.parametrize("scenario", ["text-before-tool-call", "parallel-calls"])
def test_a_plain_stream_passes(adapter: str, scenario: str) -> None:
    result = run(adapter, scenario)
    assert result.status == "pass", result.violations


def test_the_openai_class_glues_parallel_calls_sent_at_one_index() -> None:
    result = run(OPENAI, "same-index-parallel-calls")
    assert "parallel-apart" in rules_broken(result)


def test_the_openai_class_loses_the_second_call_of_a_chunk() -> None:
    result = run(OPENAI, "parallel-calls", "calls_in_one_chunk")
    never = [v.message for v in result.violations if v.rule == "emit-once-early"]
    assert any("'call_2'" in m and "never emitted" in m for m in never), never


def test_both_classes_hand_over_a_cut_call_as_complete() -> None:
    for adapter in (OPENAI, ANTHROPIC):
        result = run(adapter, "cut-mid-arguments")
        assert "strict-assembly" in rules_broken(result), adapter


def test_the_anthropic_class_sees_nothing_without_event_lines() -> None:
    result = run(ANTHROPIC, "error-after-text", "no_event_lines")
    assert "error-surfaced" in rules_broken(result)
