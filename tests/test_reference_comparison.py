"""The reference comparison: behind the specific rules, every observed field against the bundled
reference consumer's, after normalising what the contract leaves free.

False positives are measured here on every correct consumer the repository has in Python (the
second history reference, the tests' own correct adapters, the downstream example's adapter)
and on the templates; the JavaScript session consumer and the Go store pass the whole library,
this rule included, in tests/test_process_adapter.py and tests/test_examples_go.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from harness.adapters.registry import BUNDLED, AdapterInfo, resolve_adapter
from harness.library import library_path
from harness.model.history import HistoryMessage, TextBlock, ToolResultBlock, ToolUseBlock
from harness.model.observation import AttachedCall, Message, Notification, SessionView, Transcript
from harness.replay import ScenarioResult, replay
from harness.replay import reference as reference_replay
from harness.rules import RULES
from harness.rules.history import StoredSession
from harness.rules.reference import (
    HISTORY_RULE,
    REFERENCE_RULES,
    SESSION_RULE,
    TraceMarks,
    differences,
    history_data,
    session_data,
    trace_marks,
)
from harness.scenario import SessionScenario
from tests.scenarios_for_tests import as_session, load_folder, parse_session

SCENARIOS, _ = load_folder(library_path())
SESSION = [as_session(s) for s in SCENARIOS if s.layer == "session"]
HISTORY = [as_session(s) for s in SCENARIOS if s.layer == "history"]

#: the bugs no specific rule targets, and the rule that sees them
ONLY_THE_COMPARISON = {
    "session-mutant-stream-response-kept-first": SESSION_RULE,
    "session-mutant-subsession-deltas-dropped": SESSION_RULE,
    "session-mutant-subsession-thoughts-as-text": SESSION_RULE,
    "history-mutant-request-drops-text-beside-results": HISTORY_RULE,
    "history-mutant-arguments-not-stored": HISTORY_RULE,
}

#: correct consumers other than the layer's reference (which is not compared with itself)
CORRECT = [
    "history-openai-reference",
    "tests.adapters_for_tests:DictAdapter",
    "tests.adapters_for_tests:AsyncReference",
    "tests.test_public_api:AsyncStore",
]


def _library(adapter: AdapterInfo) -> list[SessionScenario]:
    return SESSION if adapter.layer == "session" else HISTORY


def _compared(results: list[ScenarioResult], rule: str) -> list[str]:
    return [
        f"{r.scenario.id}: {v.message}" for r in results for v in r.violations if v.rule == rule
    ]


@pytest.mark.parametrize("name", CORRECT)
def test_a_correct_consumer_differs_from_the_reference_nowhere(name: str) -> None:
    adapter = resolve_adapter(name)
    results = [replay(s, adapter) for s in _library(adapter)]
    assert len(results) >= 25
    assert [r.scenario.id for r in results if r.status != "pass"] == []
    assert "reference-comparison" in RULES and all(rule in RULES for rule in REFERENCE_RULES)


@pytest.mark.parametrize(
    ("name", "layer"),
    [
        ("examples/downstream:chatui_testing:make_adapter", "session"),
        ("examples/templates:session_sync:make_adapter", "session"),
        ("examples/templates:session_async:make_adapter", "session"),
        ("examples/templates:history_sync:make_adapter", "history"),
        ("examples/templates:history_async:make_adapter", "history"),
    ],
)
def test_an_example_consumer_is_never_failed_by_the_comparison_alone(
    name: str, layer: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The templates fail specific rules on purpose (docs/ADAPTERS.md lists them); wherever
    they pass those, they must pass the comparison too."""
    folder, factory = name.split(":", 1)
    monkeypatch.syspath_prepend(str(library_path().parent / folder))
    adapter = resolve_adapter(factory)
    results = [replay(s, adapter) for s in (SESSION if layer == "session" else HISTORY)]
    rule = SESSION_RULE if layer == "session" else HISTORY_RULE
    assert _compared(results, rule) == []


@pytest.mark.parametrize("mutant", sorted(ONLY_THE_COMPARISON))
def test_a_bug_no_specific_rule_targets_is_caught_by_the_comparison(mutant: str) -> None:
    adapter = BUNDLED[mutant]
    rule = ONLY_THE_COMPARISON[mutant]
    without = [replay(s, adapter, skip_rules=[rule]) for s in _library(adapter)]
    assert [r.scenario.id for r in without if r.status != "pass"] == []  # missed today
    results = [replay(s, adapter) for s in _library(adapter)]
    caught = [r for r in results if r.status == "fail"]
    assert caught
    assert {v.rule for r in caught for v in r.violations} == {rule}
    assert all(len(r.violations) == 1 for r in caught)  # once, at the first point that differs


def test_the_message_names_the_field_and_both_values() -> None:
    scenario = next(s for s in SESSION if s.id == "streamed-summary-replaced")
    result = replay(scenario, "session-mutant-stream-response-kept-first")
    (violation,) = result.violations
    assert violation.rule == SESSION_RULE
    assert "sessions.main.tool_streams.call_9Kd4gitStatus.tool_response: " in violation.message
    assert (
        'expected "Bash command executed successfully", observed "Running: git status"'
        in violation.message
    )
    assert "user turn start" in violation.message


def test_a_specific_rule_speaks_first_and_the_comparison_stays_quiet() -> None:
    scenario = next(s for s in SESSION if s.id == "backward-attachment-basic")
    result = replay(scenario, "session-mutant-no-message-updated")
    assert result.status == "fail"
    assert {v.rule for v in result.violations} == {"backward-attachment"}


def test_the_reference_is_replayed_once_per_scenario(monkeypatch: pytest.MonkeyPatch) -> None:
    scenario = parse_session(
        """\
id: once
title: t
description: d
source: tests
layer: session
trace:
  - user_message: {text: "Read it."}
  - interaction_start: {id: i1}
  - message: {id: m1, text: "Reading."}
  - tool: {id: toolu_01, name: read, input: {path: a}, result: "text"}
  - interaction_end: {id: i1}
"""
    )
    made: list[Any] = []
    real = reference_replay._replayed

    def counting(*args: Any) -> Any:
        made.append(args)
        return real(*args)

    monkeypatch.setattr(reference_replay, "_replayed", counting)
    for adapter in ("session-mutant-no-cleanup-user-turn", "tests.adapters_for_tests:DictAdapter"):
        replay(scenario, adapter)
    replay(scenario, "session-reference")
    assert len(made) == 1


PLAIN_TEXT_REQUEST = """\
id: plain-text-request
title: a request of plain text only reads the same in both shapes
description: found by exploring history-openai-reference
source: tests
layer: history
observe: every_event
trace:
  - user_message: {id: u1, text: "Sum it up."}
  - interaction_start: {id: i1}
  - message: {id: m1, text: "Reading step 1."}
  - message: {id: m2, role: thought, text: "Comparing step 2."}
  - interaction_end: {id: i1}
  - user_turn_start:
"""


def test_a_request_of_plain_text_is_compared_in_what_both_shapes_carry() -> None:
    """The OpenAI converter's request, text only, is read as Anthropic's (plain text reads the
    same in both); it holds no thinking, which its shape cannot carry."""
    scenario = parse_session(PLAIN_TEXT_REQUEST)
    result = replay(scenario, "history-openai-reference")
    assert result.status == "pass", [v.message for v in result.violations]


# -- what the normalisation leaves free -----------------------------------------------------------

TRACE = """\
id: norm
title: t
description: d
source: tests
layer: session
trace:
  - user_message: {id: u1, text: "Go."}
  - interaction_start: {id: i1}
  - message: {id: m1, text: "On it."}
  - tool_select: {calls: [{id: toolu_a, name: read}, {id: toolu_b, name: read}]}
  - tool_completed: {calls: [{id: toolu_a, name: read, input: {p: 1}}], results: [{id: toolu_a, content: "A"}]}
"""


def _marks() -> TraceMarks:
    return trace_marks(parse_session(TRACE).trace)


#: the last event of TRACE: toolu_a's result is given, toolu_b has none
C = 6


def _transcript(*messages: Message) -> Transcript:
    return Transcript(sessions={"main": SessionView(messages=messages), "empty": SessionView()})


def test_notification_order_made_up_ids_empty_sessions_and_call_order_are_free() -> None:
    marks = _marks()
    a = AttachedCall("toolu_a", "read", {"p": 1}, "A")
    b = AttachedCall("toolu_b", "read", '{"q": 2}', "B")
    b_parsed = AttachedCall("toolu_b", "read", {"q": 2}, "B")
    one = session_data(
        marks,
        C,
        (Notification("main", "b", "read", "using"), Notification("main", "a", "read", "using")),
        _transcript(Message("made-up-7", "user", "Go."), Message("m1", "assistant", "x", (a, b))),
    )
    other = session_data(
        marks,
        C,
        (Notification("main", "a", "read", "using"), Notification("main", "b", "read", "using")),
        Transcript(
            sessions={
                "main": SessionView(
                    messages=(
                        Message(None, "user", "Go."),
                        Message("m1", "assistant", "x", (b_parsed, a)),
                    )
                )
            }
        ),
    )
    assert list(differences(one, other)) == []
    # an id the trace gave is compared
    given = session_data(
        marks,
        C,
        (Notification("main", "b", "read", "using"), Notification("main", "a", "read", "using")),
        _transcript(Message("u1", "user", "Go."), Message("m1", "assistant", "x", (a, b))),
    )
    assert list(differences(one, given)) == [
        ("sessions.main.messages[0].id", 'expected null, observed "u1"')
    ]


def _stored(history: tuple[HistoryMessage, ...], shape: str = "anthropic") -> StoredSession:
    return StoredSession("main", history, [], [], shape, history, None, at_rest=True)


def test_a_result_the_consumer_wrote_and_its_call_may_be_left_out_or_worded_freely() -> None:
    marks = _marks()
    use_b = ToolUseBlock("toolu_b", "read", "{}")
    closed = (
        HistoryMessage("user", (TextBlock("Go."),)),
        HistoryMessage(
            "assistant", (TextBlock("On it."), ToolUseBlock("toolu_a", "read", '{"p":1}'), use_b)
        ),
        HistoryMessage(
            "user",
            (ToolResultBlock("toolu_b", "Interrupted.", True), ToolResultBlock("toolu_a", "A")),
        ),
    )
    dropped = (
        HistoryMessage("user", (TextBlock("Go."), TextBlock(""))),
        HistoryMessage(
            "assistant", (TextBlock("On it."), ToolUseBlock("toolu_a", "read", '{"p": 1}'))
        ),
        HistoryMessage("user", (ToolResultBlock("toolu_a", "A"),)),
    )
    one = history_data(marks, C, {"main": _stored(closed)}, "anthropic")
    assert one["main"]["history"][2]["results"] == [
        {"tool_result": "toolu_a", "content": "A", "is_error": False}
    ]
    other = history_data(marks, C, {"main": _stored(dropped)}, "anthropic")
    assert list(differences(one, other)) == []
    # a real result is compared: content and error flag
    wrong = (*dropped[:2], HistoryMessage("user", (ToolResultBlock("toolu_a", "A", True),)))
    found = list(differences(one, history_data(marks, C, {"main": _stored(wrong)}, "anthropic")))
    assert found == [
        ("main.history[2].results[0].is_error", "expected false, observed true"),
        ("main.request[2].results[0].is_error", "expected false, observed true"),
    ]
    # ... except the error flag, in the projection of a request shape that cannot carry it
    as_openai = history_data(marks, C, {"main": _stored(closed)}, "openai")
    request_only = {"main": _stored(wrong, "openai")}
    found = list(differences(as_openai, history_data(marks, C, request_only, "openai")))
    assert [path for path, _ in found] == ["main.history[2].results[0].is_error"]
