"""Persisted history: what a correct store keeps, and the transcript a resume must rebuild."""

from __future__ import annotations

from textwrap import dedent

from harness.model import history as h
from harness.model import projection
from harness.model import session as ev
from harness.rules.session_ledger import project_history
from tests.scenarios_for_tests import parse_session

TRACE = dedent(
    """\
    id: hist
    title: hist
    description: a turn with a thought, two tools and a sub-session
    source: tests
    layer: session
    trace:
      - user_message: {text: "Fix the build."}
      - interaction_start: {id: i1}
      - message: {id: t1, role: thought, text: "Check the log first."}
      - message: {id: m1, text: "Reading the log."}
      - tool_completed:
          calls: [{id: toolu_01, name: workspace_read, input: {path: build.log}}, {id: toolu_02, name: bash_command, input: {cmd: make}}]
          results: [{id: toolu_01, content: "error: x"}, {id: toolu_02, content: "ok", is_error: true}]
      - subsession_start: {session: sub, parent: main}
      - message: {session: sub, id: s1, text: "sub-agent text"}
      - tool: {session: sub, id: toolu_09, name: fetch_file, result: "sub result"}
      - message: {id: m2, text: "Fixed."}
      - interaction_end: {id: i1}
      - resume: {history: live}
    """
)


def test_live_history_keeps_the_session_and_pairs_results_after_their_calls():
    scenario = parse_session(TRACE, "h.yaml")
    resume = scenario.trace[-1]
    assert isinstance(resume, ev.Resume)
    roles = [m.role for m in resume.history]
    assert roles == ["user", "assistant", "user", "assistant"]
    assistant = resume.history[1]
    assert assistant.blocks == (
        h.ThinkingBlock("Check the log first."),
        h.TextBlock("Reading the log."),
        h.ToolUseBlock("toolu_01", "workspace_read", '{"path": "build.log"}'),
        h.ToolUseBlock("toolu_02", "bash_command", '{"cmd": "make"}'),
    )
    assert resume.history[2].blocks == (
        h.ToolResultBlock("toolu_01", "error: x"),
        h.ToolResultBlock("toolu_02", "ok", True),
    )
    assert resume.history[3].blocks == (h.TextBlock("Fixed."),)
    all_text = str(resume.history)
    assert "sub-agent text" not in all_text and "toolu_09" not in all_text


def test_projection_attaches_calls_as_the_live_stream_did():
    history = (
        h.HistoryMessage("user", (h.TextBlock("go"),)),
        h.HistoryMessage("assistant", (h.ToolUseBlock("toolu_01", "workspace_read", "{}"),)),
        h.HistoryMessage("user", (h.ToolResultBlock("toolu_01", "A"),)),
        h.HistoryMessage(
            "assistant", (h.TextBlock("Read it."), h.ToolUseBlock("toolu_02", "bash_command", "{}"))
        ),
        h.HistoryMessage("user", (h.ToolResultBlock("toolu_02", "B"),)),
        h.HistoryMessage("assistant", (h.ToolUseBlock("toolu_03", "bash_command", "{}"),)),
    )
    messages = project_history("main", history)
    assert [(m.role, m.text) for m in messages] == [("user", "go"), ("assistant", "Read it.")]
    # a tool-first call attaches forward; a call after text attaches back; no result, no call
    assert [c.id for c in messages[1].tool_calls] == ["toolu_01", "toolu_02"]
    assert [c.result for c in messages[1].tool_calls] == ["A", "B"]


def test_history_to_events_replays_blocks_as_the_live_events_in_order():
    history = (
        h.HistoryMessage("user", (h.TextBlock("go"),)),
        h.HistoryMessage(
            "assistant",
            (
                h.ThinkingBlock("hmm"),
                h.ToolUseBlock("toolu_01", "x", '{"a": 1}'),
                h.ToolUseBlock("toolu_02", "y"),
            ),
        ),
        h.HistoryMessage("user", (h.ToolResultBlock("toolu_01", "A", is_error=True),)),
    )
    assert list(projection.history_to_events("main", history)) == [
        ev.UserMessage(session_id="main", message_id="resumed-1", text="go"),
        ev.MessageStart(session_id="main", message_id="resumed-2", role="thought"),
        ev.MessageDelta(session_id="main", message_id="resumed-2", text="hmm"),
        ev.MessageEnd(session_id="main", message_id="resumed-2"),
        # the calls of one message complete together, with their results from later messages;
        # toolu_02 has no result, so it never completed
        ev.ToolCompleted(
            session_id="main",
            calls=(ev.ToolCall("toolu_01", "x", '{"a": 1}'),),
            results=(ev.ToolResult("toolu_01", "A", is_error=True),),
        ),
    ]


def test_to_json_is_provider_shaped():
    message = h.HistoryMessage(
        "assistant", (h.TextBlock("hi"), h.ToolUseBlock("toolu_01", "x", '{"a": 1}'))
    )
    assert message.to_json() == {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "hi"},
            {"type": "tool_use", "id": "toolu_01", "name": "x", "input": {"a": 1}},
        ],
    }
