"""The replayer against adapters that misbehave: each gives an error result, the run goes on."""

from __future__ import annotations

import time
from collections.abc import Callable
from textwrap import dedent

import pytest

from harness.adapters.registry import AdapterInfo, resolve_adapter
from harness.replay import replay
from harness.scenario import parse_scenario
from tests import adapters_for_tests as bad

SCENARIO = dedent(
    """\
    id: small
    title: small
    description: one tool call after a message
    source: tests
    layer: session
    trace:
      - user_message: {text: "go"}
      - interaction_start: {id: i1}
      - message: {id: m1, text: "Looking."}
      - tool: {id: toolu_01, name: workspace_read, input: {path: a}, result: "A"}
      - interaction_end: {id: i1}
      - user_turn_start:
    """
)


@pytest.fixture
def scenario():
    return parse_scenario(SCENARIO, "small.yaml")


def adapter(cls: Callable[[], object]) -> AdapterInfo:
    return AdapterInfo(getattr(cls, "__name__", "test"), "session", "external", cls)


def test_reference_passes(scenario):
    assert replay(scenario, "session-reference").status == "pass"


def test_plain_dict_observations_are_accepted(scenario):
    result = replay(scenario, adapter(bad.DictAdapter))
    assert (result.status, result.error) == ("pass", None)


def test_async_adapter_passes(scenario):
    assert replay(scenario, adapter(bad.AsyncReference)).status == "pass"


def test_raising_adapter_is_an_error_naming_the_event(scenario):
    result = replay(scenario, adapter(bad.RaisesOnCompletion))
    assert result.status == "error" and result.error is not None
    completed = next(i for i, e in enumerate(scenario.trace) if e.kind == "tool_completed")
    assert f"on event {completed} (tool_completed, line 10)" in result.error
    assert "KeyError" in result.error and "toolu_01" in result.error


def test_the_adapter_error_behind_an_error_result_carries_the_event_index(scenario):
    from harness import AdapterError
    from harness.replay._watchdog import Hung, Progress, run_guarded
    from harness.replay.session import SessionReplay
    from harness.rules.registry import rules_for

    completed = next(i for i, e in enumerate(scenario.trace) if e.kind == "tool_completed")
    with pytest.raises(AdapterError) as raised:
        SessionReplay(scenario, rules_for("session")).run(bad.RaisesOnCompletion(), Progress())
    assert raised.value.index == completed
    # a hang is an AdapterError too, at the event being fed
    run = SessionReplay(scenario, rules_for("session"))
    with pytest.raises(Hung) as hung:
        run_guarded(lambda progress: run.run(bad.HangsOnCompletion(), progress), limit=0.3)
    assert isinstance(hung.value, AdapterError) and hung.value.index == completed


def test_factory_that_raises_is_an_error(scenario):
    result = replay(scenario, adapter(bad.make_failing_factory))
    assert result.status == "error" and result.error is not None
    assert "creating the adapter raised RuntimeError: cannot connect" in result.error


@pytest.mark.parametrize("cls", [bad.HangsOnCompletion, bad.AsyncHangs], ids=["sync", "async"])
def test_hanging_adapter_is_an_error_within_the_time_limit(scenario, cls):
    started = time.monotonic()
    result = replay(scenario, adapter(cls), timeout=0.5)
    elapsed = time.monotonic() - started
    assert result.status == "error" and result.error is not None
    completed = next(i for i, e in enumerate(scenario.trace) if e.kind == "tool_completed")
    assert f"feed() was handling event {completed}" in result.error
    assert "0.5s" in result.error
    assert elapsed < 3


@pytest.mark.parametrize(
    ("cls", "words"),
    [
        (bad.BadStatus, "notifications[0].status is 'running'"),
        (bad.TranscriptNotAMapping, "transcript should be an object, got list"),
    ],
)
def test_malformed_observation_is_an_error_with_its_path(scenario, cls, words):
    result = replay(scenario, adapter(cls))
    assert result.status == "error" and result.error is not None
    assert "malformed observation" in result.error and words in result.error


def test_adapter_without_the_layer_is_skipped_with_the_reason(scenario):
    result = replay(scenario, adapter(bad.DriverOnly))
    assert result.status == "skip"
    assert result.skip_reason == "needs the session layer; the adapter implements: driver"


def test_a_run_goes_on_after_a_hang(scenario):
    hung = replay(scenario, adapter(bad.HangsOnCompletion), timeout=0.3)
    after = replay(scenario, "session-reference")
    assert (hung.status, after.status) == ("error", "pass")


def test_module_factory_reference_resolves():
    info = resolve_adapter("tests.adapters_for_tests:DictAdapter")
    assert (info.kind, info.factory) == ("external", bad.DictAdapter)


@pytest.mark.parametrize(
    ("reference", "words"),
    [
        ("no-such-adapter", "unknown adapter 'no-such-adapter'"),
        ("tests.no_such_module:make", "cannot import the adapter module 'tests.no_such_module'"),
        ("tests.adapters_for_tests:nothing_here", "has no attribute 'nothing_here'"),
    ],
)
def test_bad_adapter_references_are_usage_errors(reference, words):
    from harness._errors import UsageError

    with pytest.raises(UsageError, match=words):
        resolve_adapter(reference)


def test_violation_points_at_the_event_and_its_line(scenario):
    result = replay(scenario, "session-mutant-no-message-updated")
    assert result.status == "fail"
    (violation,) = result.violations
    completed = next(i for i, e in enumerate(scenario.trace) if e.kind == "tool_completed")
    assert (violation.rule, violation.event_index, result.line_of(violation)) == (
        "backward-attachment",
        completed,
        10,
    )
