"""``harness loop`` as a user runs it, loop scenarios as they are written and refused, and
request bodies read as histories: what a program that misbehaves gets told."""

from __future__ import annotations

import json
import os
import sys
from textwrap import dedent

import pytest

from harness._errors import ScenarioError
from harness.cli import main
from harness.history import HistoryFormatError
from harness.history.requests import read_request
from harness.loop import run_loop
from harness.loop.find import find_loop_scenario
from harness.model.history import TextBlock, ThinkingBlock, ToolResultBlock, ToolUseBlock
from harness.model.loop import LoopRequest, StreamedCall, StreamedTurn
from harness.rules.loop import LoopFacts
from harness.scenario import LoopScenario, parse_scenario
from tests.scenarios_for_tests import ROOT

LOOP = ROOT / "scenarios" / "loop"
ENV = {
    **os.environ,
    "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
}


def python(code: str) -> list[str]:
    """A program: this Python running ``code``, which may use ``post(path, body)``, a POST to
    the stand-in that returns the status and the body."""
    helpers = dedent(
        """\
        import json, os, sys, urllib.request, urllib.error
        def post(path, body):
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            request = urllib.request.Request(os.environ["HARNESS_LOOP_URL"] + path, data=data,
                headers={"content-type": "application/json"}, method="POST")
            try:
                with urllib.request.urlopen(request) as answer:
                    return answer.status, answer.read().decode()
            except urllib.error.HTTPError as error:
                return error.code, error.read().decode()
        """
    )
    return [sys.executable, "-c", helpers + dedent(code)]


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


# -- the command line ---------------------------------------------------------------------------


def test_a_program_is_required_after_the_dashes(capsys):
    code, _, err = run_cli(capsys, "loop", str(LOOP))
    assert code == 2 and "give the program to run after --" in err


def test_a_program_that_cannot_start_is_a_usage_error(capsys):
    text_only = str(LOOP / "text-only-answer.yaml")
    code, _, err = run_cli(capsys, "loop", text_only, "--", "/nonexistent/agent")
    assert code == 2 and "cannot run '/nonexistent/agent'" in err


def test_an_unknown_dialect_is_a_usage_error(capsys):
    code, _, err = run_cli(capsys, "loop", str(LOOP), "--dialect", "gemini", "--", "true")
    assert code == 2 and "loops are served in anthropic, openai-chat, openai-responses" in err


def test_paths_without_a_loop_scenario_are_a_usage_error(capsys):
    session = ROOT / "scenarios" / "session" / "tool-first-turn.yaml"
    code, _, err = run_cli(capsys, "loop", str(session), "--", "true")
    assert code == 2 and "no loop scenario" in err


def test_a_program_that_sends_nothing_fails_with_what_it_did(capsys):
    text_only = str(LOOP / "text-only-answer.yaml")
    code, out, _ = run_cli(capsys, "loop", text_only, "--settle", "0", "--", "true")
    assert code == 1
    assert "the program sent no request to the stand-in (it exited with status 0" in out
    assert "reproduce: python -m harness loop" in out and "-- true" in out


@pytest.mark.slow
def test_a_reference_loop_passes_and_json_lists_its_requests(capsys, monkeypatch):
    pytest.importorskip("openai")
    from harness.adapters.loop import LOOPS

    command = LOOPS["loop-openai-chat-reference"].command()
    monkeypatch.setenv("PYTHONPATH", ENV["PYTHONPATH"])
    code, out, _ = run_cli(
        capsys,
        "loop",
        str(LOOP / "two-tool-cycles.yaml"),
        "--settle",
        "0.05",
        "--format",
        "json",
        "--",
        *command,
    )
    assert code == 0, out
    (result,) = json.loads(out)["results"]
    assert result["status"] == "pass" and result["dialect"] == "openai-chat"
    assert [r["path"] for r in result["requests"]] == ["/v1/chat/completions"] * 3
    assert [r["response"] for r in result["requests"]] == [0, 1, 2]
    assert result["exit_status"] == 0


def test_a_program_of_another_dialect_is_skipped_and_nothing_is_checked(capsys):
    thinking = str(LOOP / "thinking-tool-turn.yaml")
    program = python('post("/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse", {})')
    code, out, err = run_cli(capsys, "loop", thinking, "--settle", "0", "--", *program)
    assert code == 5, out
    assert "SKIP  loop-thinking-tool-turn" in out and "the program speaks gemini" in out
    assert "nothing was checked (exit 5)" in err


def test_a_dialect_the_scenario_does_not_run_in_is_a_skip():
    scenario = find_loop_scenario("loop-text-only-answer")
    narrowed = parse_scenario(
        (LOOP / "text-only-answer.yaml").read_text() + "dialects: [anthropic]\n", "narrow.yaml"
    )
    assert isinstance(narrowed, LoopScenario)
    assert scenario.dialects != narrowed.dialects
    result = run_loop(narrowed, ["true"], dialect="openai-chat", env=ENV)
    assert result.status == "skip" and result.skip_reason == "it runs in anthropic, not openai-chat"


# -- what a misbehaving program is told ----------------------------------------------------------


def test_garbage_an_extra_request_and_a_get_are_each_answered_and_judged():
    """A body that is no request is named; a request past the responses gets a 400 with the
    dialect's JSON error saying why; a GET gets a 404 and is not judged."""
    program = python(
        """\
        print(post("/v1/messages", b"not json")[0])
        try:
            urllib.request.urlopen(os.environ["HARNESS_LOOP_URL"] + "/v1/models", timeout=5)
        except urllib.error.HTTPError as error:
            print("GET", error.code)
        status, body = post("/v1/messages", {"stream": True, "model": "m", "max_tokens": 9,
            "messages": [{"role": "user", "content": "again"}]})
        print(status, body)
        """
    )
    scenario = find_loop_scenario("loop-text-only-answer")
    result = run_loop(scenario, program, settle=0, timeout=20, env=ENV)
    assert result.status == "fail"
    assert {"loop-request-readable", "loop-request-count"} <= set(result.rules_broken)
    messages = [v.message for v in result.violations]
    assert any("request 1 (POST /v1/messages): the body is not a request" in m for m in messages)
    assert any("request 2 (POST /v1/messages): the scenario has 1 response" in m for m in messages)
    assert [r.number for r in result.requests] == [1, 2]  # the GET is not a model request
    assert result.outcome is not None
    assert "GET 404" in result.outcome.output
    answer = result.outcome.output.strip().splitlines()[-1]
    status, _, body = answer.partition(" ")
    assert status == "400"
    error = json.loads(body)
    assert error["type"] == "error" and error["error"]["type"] == "invalid_request_error"
    assert "all served" in error["error"]["message"]


def test_a_request_of_another_dialect_mid_run_is_named():
    program = python(
        """\
        post("/v1/chat/completions", {"stream": True, "model": "m",
            "messages": [{"role": "user", "content": "go"}]})
        print(post("/v1/messages", {"stream": True, "messages": []})[0])
        """
    )
    scenario = find_loop_scenario("loop-parallel-calls")
    result = run_loop(scenario, program, settle=0, timeout=20, env=ENV)
    assert result.dialect == "openai-chat"
    messages = [v.message for v in result.violations if v.rule == "loop-request-readable"]
    assert messages == [
        "request 2 (POST /v1/messages): POST /v1/messages is not a request of the openai-chat "
        "dialect this run serves (POST /v1/chat/completions)"
    ]
    assert result.outcome is not None and result.outcome.output.strip() == "404"


def test_a_request_that_asks_for_no_stream_is_named():
    program = python(
        'post("/v1/chat/completions", {"model": "m", "messages": [{"role": "user", "content": "q"}]})'
    )
    result = run_loop(find_loop_scenario("loop-text-only-answer"), program, settle=0, env=ENV)
    (violation,) = result.violations
    assert violation.rule == "loop-request-readable"
    assert "does not ask for a stream ('stream' is null)" in violation.message


# -- loop scenarios as written ---------------------------------------------------------------------

HEADER = "id: x\ntitle: t\ndescription: d\nsource: s\nlayer: loop\n"
TEXT = "  - trace:\n      - cycle: {blocks: [{text: done}]}\n"


def call(call_id: str, extra: str = "") -> str:
    return (
        "  - trace:\n      - cycle:\n          blocks:\n"
        f"            - tool_use: {{id: {call_id}, name: f, input: {{a: 1}}{extra}}}\n"
    )


@pytest.mark.parametrize(
    ("responses", "line", "says"),
    [
        (call("c1"), 7, "response 1 ends with calls, so the client sends their results"),
        (call("c1") + call("c1") + TEXT, 11, "the call id 'c1' is also used by response 1"),
        (TEXT + TEXT, 9, "the conversation 'main' ended at response 1"),
        (
            "  - trace:\n      - cycle: {stop_reason: max_tokens, blocks: "
            "[{tool_use: {id: c1, name: f, input: {}}}]}\n" + TEXT,
            8,
            "a turn cut by max_tokens ends in the block it cut",
        ),
        (
            "  - trace:\n      - cycle: {blocks: [{text: a}]}\n      - cycle: {blocks: [{text: b}]}\n",
            8,
            "a response holds one message (one cycle)",
        ),
        (
            "  - trace:\n      - cycle: {blocks: [{tool_use: {id: c1, name: f, arguments: "
            "'{\"a\": '}}]}\n" + TEXT,
            8,
            "the call 'c1' completes with arguments that are not JSON",
        ),
        (
            "  - quirks: [no_such_quirk]\n    trace:\n      - cycle: {blocks: [{text: done}]}\n",
            7,
            "no loop dialect knows the quirk",
        ),
        (" []", 7, "'responses' is empty"),
    ],
)
def test_a_loop_scenario_that_cannot_run_is_refused_at_its_line(responses, line, says):
    text = HEADER + "responses:\n" + responses
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(text, "bad.yaml")
    found = [(p.line, p.message) for p in caught.value.problems]
    assert any(says in message for _, message in found), found
    assert any(says in message and at == line for at, message in found), found


def test_a_sub_agent_conversation_may_start_after_its_parent_calls():
    text = (
        HEADER
        + "responses:\n"
        + call("c1")
        + "  - agent: helper\n    trace:\n      - cycle: {blocks: [{text: done}]}\n"
        + TEXT
    )
    scenario = parse_scenario(text, "ok.yaml")
    assert isinstance(scenario, LoopScenario)
    assert scenario.agents == ("main", "helper", "main")


# -- request bodies read as histories --------------------------------------------------------------


def test_an_anthropic_request_is_read_with_its_thinking_signature():
    body = {
        "stream": True,
        "messages": [
            {"role": "user", "content": "go"},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "hm", "signature": "sig"},
                    {"type": "tool_use", "id": "c1", "name": "f", "input": {"a": 1}},
                ],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "c1", "content": "ok"}],
            },
        ],
    }
    read = read_request(json.dumps(body).encode(), "anthropic")
    assert read.history[1].blocks == (
        ThinkingBlock("hm", "sig"),
        ToolUseBlock("c1", "f", '{"a": 1}'),
    )
    assert read.problems == () and read.stream is True
    assert read.names == ("message 1 (user)", "message 2 (assistant)", "message 3 (user)")


def test_a_chat_request_with_cut_arguments_is_read_and_keeps_them():
    body = {
        "messages": [
            {"role": "user", "content": "go"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "f", "arguments": '{"a": '},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        ]
    }
    read = read_request(json.dumps(body).encode(), "openai-chat")
    (use,) = read.history[1].blocks
    assert isinstance(use, ToolUseBlock) and read.arguments(use) == '{"a": '
    assert read.history[2].blocks == (ToolResultBlock("c1", "ok"),)


def test_responses_input_items_make_one_assistant_message_per_turn():
    items = [
        {"role": "user", "content": "go"},
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "hm"}]},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Checking."}],
        },
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
        {"type": "function_call", "call_id": "c2", "name": "f", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c2", "output": "two"},
        {"type": "function_call_output", "call_id": "c1", "output": "one"},
    ]
    read = read_request(json.dumps({"stream": True, "input": items}).encode(), "openai-responses")
    assert [m.role for m in read.history] == ["user", "assistant", "user"]
    assert read.history[1].blocks == (
        ThinkingBlock("hm", "rs_1"),
        TextBlock("Checking."),
        ToolUseBlock("c1", "f", "{}"),
        ToolUseBlock("c2", "f", "{}"),
    )
    assert read.names == ("input item 1", "input items 2-5", "input items 6-7")
    assert read.problems == ()


def test_a_responses_output_without_its_call_is_named_by_its_items():
    items = [
        {"role": "user", "content": "go"},
        {"type": "function_call_output", "call_id": "c9", "output": "x"},
    ]
    read = read_request(json.dumps({"input": items}).encode(), "openai-responses")
    (problem,) = read.problems
    assert problem.kind == "orphan_result"
    assert "function_call_output for 'c9' in input item 2" in problem.message


@pytest.mark.parametrize(
    ("body", "dialect", "says"),
    [
        (b"\xff", "anthropic", "not UTF-8"),
        (b"[1]", "anthropic", "the body is a list, not a JSON object"),
        (b"{}", "openai-chat", "no 'messages' field"),
        (
            json.dumps(
                {"messages": [{"role": "tool", "tool_call_id": "c", "content": "x"}]}
            ).encode(),
            "anthropic",
            "message 1 is in OpenAI Chat Completions's shape",
        ),
        (
            json.dumps({"previous_response_id": "resp_1", "input": []}).encode(),
            "openai-responses",
            "previous_response_id",
        ),
    ],
)
def test_a_body_that_is_no_request_says_why(body, dialect, says):
    with pytest.raises(HistoryFormatError, match=says):
        read_request(body, dialect)


# -- the rules, on facts made by hand -----------------------------------------------------------


def _facts(*bodies: object, dialect: str = "anthropic") -> LoopFacts:
    turn = StreamedTurn(
        "Checking.",
        (),
        (StreamedCall("c1", "f", '{"a": 1}', True), StreamedCall("c2", "f", '{"b": ', False)),
        "max_tokens",
        False,
    )
    requests = tuple(
        LoopRequest(n, "POST", "/v1/messages", json.dumps(body).encode(), n - 1)
        for n, body in enumerate(bodies, 1)
    )
    answer = StreamedTurn("Done.", (), (), "end_turn", False)
    return LoopFacts(dialect, (turn, answer), ("main", "main"), requests)


def _found(facts: LoopFacts) -> dict[str, list[str]]:
    from harness.rules import rules_for

    out: dict[str, list[str]] = {}
    for rule in rules_for("loop"):
        for violation in rule.check(facts):
            out.setdefault(violation.rule, []).append(violation.message)
    return out


def _sent(call_input: object, name: str = "f", text: str = "Checking.") -> dict[str, object]:
    return {
        "stream": True,
        "messages": [
            {"role": "user", "content": "go"},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": text},
                    {"type": "tool_use", "id": "c1", "name": name, "input": call_input},
                ],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "c1", "content": "x"}],
            },
        ],
    }


FIRST = {"stream": True, "messages": [{"role": "user", "content": "go"}]}


def test_a_turn_sent_back_as_streamed_breaks_nothing():
    assert _found(_facts(FIRST, _sent({"a": 1}))) == {}


@pytest.mark.parametrize(
    ("sent", "says"),
    [
        (_sent({"a": True}), "with arguments '{\"a\": true}' instead of '{\"a\": 1}'"),
        (_sent({"a": 1}, name="g"), "with name 'g' instead of 'f'"),
        (_sent({"a": 1}, text="Something else."), "sends back the text 'Something else.'"),
    ],
)
def test_a_turn_sent_back_changed_is_named(sent, says):
    found = _found(_facts(FIRST, sent))
    assert list(found) == ["loop-turn-sent-back"]
    assert says in found["loop-turn-sent-back"][0]
