"""The OpenAI Responses dialect: its codec (encode, decode, quirks) and its reference driver."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from textwrap import dedent
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.adapters.driver.openai_responses import Call, OpenAIResponsesDriver
from harness.adapters.registry import AdapterInfo
from harness.codecs.openai_responses import QUIRKS, OpenAIResponsesCodec
from harness.model import driver as dv
from harness.model.driver import DriverOutput, TextOut, ToolCallOut, TurnEnd, WireChunk, turn_facts
from harness.replay import ScenarioResult, replay
from harness.scenario import DriverScenario
from harness.wire import WireError, parse_sse, read_cassette
from tests.budgets import examples
from tests.scenarios_for_tests import load_driver, parse_driver, turn_scenario

ROOT = Path(__file__).resolve().parent.parent
DRIVER_SCENARIOS = sorted((ROOT / "scenarios" / "driver").glob("*.yaml"))
REAL = ROOT / "cassettes" / "real-traffic"
CODEC = OpenAIResponsesCodec()
QUIRK_SETS: list[tuple[str, ...]] = [
    (),
    *((q,) for q in QUIRKS),
    ("interleaved_calls", "no_done_events"),
    tuple(QUIRKS),
]


def reference(cls: type[OpenAIResponsesDriver] = OpenAIResponsesDriver) -> AdapterInfo:
    return AdapterInfo(f"openai-responses-{cls.__name__}", "driver", "reference", cls)


def drive(
    chunks: Sequence[str], cls: type[OpenAIResponsesDriver] = OpenAIResponsesDriver
) -> list[DriverOutput]:
    return list(cls().drive(iter(chunks)))


def encoded(turn: Sequence[dv.TurnEvent], quirks: Sequence[str] = ()) -> tuple[WireChunk, ...]:
    return CODEC.encode(turn, quirks)


def body(chunks: Sequence[WireChunk]) -> str:
    return "".join(c.data for c in chunks)


def calls_of(turn: Sequence[dv.TurnEvent]) -> list[tuple[str, str, str, bool]]:
    return [(c.id, c.name, c.arguments, c.valid) for c in turn_facts(turn).calls]


def emitted_calls(outputs: Sequence[DriverOutput]) -> list[tuple[str, str, str, bool]]:
    return [(o.id, o.name, o.arguments, o.valid) for o in outputs if isinstance(o, ToolCallOut)]


def payloads(chunks: Sequence[WireChunk]) -> list[dict[str, Any]]:
    out = []
    for chunk in chunks:
        (event,) = parse_sse(chunk.data, source="chunk")
        data = json.loads(event.data)
        assert event.event == data["type"]
        out.append(data)
    return out


# -- hand-built turns -------------------------------------------------------------------------

MS, BS, BE = dv.CycleStart, dv.BlockStart, dv.BlockStop

TEXT_THEN_TWO_CALLS: tuple[dv.TurnEvent, ...] = (
    MS(message_id="resp_01"),
    BS(index=0, block="thinking"),
    dv.ThinkingDelta(index=0, text="Both files "),
    dv.ThinkingDelta(index=0, text="are needed."),
    BE(index=0),
    BS(index=1, block="text"),
    dv.TextDelta(index=1, text="Writing "),
    dv.TextDelta(index=1, text="both files."),
    BE(index=1),
    BS(index=2, block="tool_use", id="call_a", name="write_file"),
    dv.ArgumentsDelta(index=2, fragment='{"path": '),
    dv.ArgumentsDelta(index=2, fragment='"a.rs"}'),
    BE(index=2),
    BS(index=3, block="tool_use", id="call_b", name="write_file"),
    dv.ArgumentsDelta(index=3, fragment='{"path": "b.rs",'),
    dv.ArgumentsDelta(index=3, fragment=' "content": "fn b() {}"'),
    dv.ArgumentsDelta(index=3, fragment="}"),
    BE(index=3),
    dv.CycleDelta(stop_reason="tool_use"),
    dv.CycleStop(),
)
TEXT_ONLY: tuple[dv.TurnEvent, ...] = (
    MS(message_id="resp_02"),
    BS(index=0, block="text"),
    dv.TextDelta(index=0, text="It is 18 degrees in Paris."),
    BE(index=0),
    dv.CycleDelta(stop_reason="end_turn"),
    dv.CycleStop(),
)
CUT_BY_MAX_TOKENS: tuple[dv.TurnEvent, ...] = (
    MS(message_id="resp_03"),
    BS(index=0, block="tool_use", id="call_mig", name="write_file"),
    dv.ArgumentsDelta(index=0, fragment='{"path": "db/0042.sql", '),
    dv.ArgumentsDelta(index=0, fragment='"content": "CREATE INDEX'),
    dv.CycleDelta(stop_reason="max_tokens"),
    dv.CycleStop(),
)
EMPTY_ARGUMENTS: tuple[dv.TurnEvent, ...] = (
    MS(message_id="resp_04"),
    BS(index=0, block="tool_use", id="call_list", name="list_incidents"),
    BE(index=0),
    dv.CycleDelta(stop_reason="tool_use"),
    dv.CycleStop(),
)
#: a canonical turn whose two calls already interleave
INTERLEAVED_TURN: tuple[dv.TurnEvent, ...] = (
    MS(message_id="resp_05"),
    BS(index=0, block="tool_use", id="call_x", name="get_weather"),
    BS(index=1, block="tool_use", id="call_y", name="get_time"),
    dv.ArgumentsDelta(index=1, fragment='{"tz": "CET"}'),
    dv.ArgumentsDelta(index=0, fragment='{"city": '),
    BE(index=1),
    dv.ArgumentsDelta(index=0, fragment='"Paris"}'),
    BE(index=0),
    dv.CycleDelta(stop_reason="tool_use"),
    dv.CycleStop(),
)
HAND_BUILT = {
    "text-thinking-two-calls": TEXT_THEN_TWO_CALLS,
    "text-only": TEXT_ONLY,
    "cut-by-max-tokens": CUT_BY_MAX_TOKENS,
    "empty-arguments": EMPTY_ARGUMENTS,
    "interleaved-turn": INTERLEAVED_TURN,
}


@pytest.mark.parametrize("turn", HAND_BUILT.values(), ids=HAND_BUILT.keys())
def test_hand_built_turns_round_trip(turn: tuple[dv.TurnEvent, ...]) -> None:
    assert CODEC.can_express(turn) is None
    assert CODEC.decode(body(encoded(turn)), source="encoded") == turn
    assert CODEC.decode(body(encoded(turn, ["obfuscation"])), source="encoded") == turn


def test_encoding_has_the_real_shapes() -> None:
    events = payloads(encoded(TEXT_THEN_TWO_CALLS))
    kinds = [e["type"] for e in events]
    assert kinds[:2] == ["response.created", "response.in_progress"]
    assert [e["sequence_number"] for e in events] == list(range(len(events)))
    added = [e["item"] for e in events if e["type"] == "response.output_item.added"]
    assert [i["type"] for i in added] == ["reasoning", "message", "function_call", "function_call"]
    calls = [i for i in added if i["type"] == "function_call"]
    assert [(i["call_id"], i["name"], i["arguments"]) for i in calls] == [
        ("call_a", "write_file", ""),
        ("call_b", "write_file", ""),
    ]
    assert all(i["id"].startswith("fc_") for i in calls) and calls[0]["id"] != calls[1]["id"]
    deltas = [e for e in events if e["type"] == "response.function_call_arguments.delta"]
    assert {(d["item_id"], d["output_index"]) for d in deltas} == {
        (calls[0]["id"], 2),
        (calls[1]["id"], 3),
    }
    assert "response.reasoning_summary_text.delta" in kinds
    assert "response.output_text.delta" in kinds
    done = [e for e in events if e["type"] == "response.function_call_arguments.done"]
    assert [d["arguments"] for d in done] == [
        '{"path": "a.rs"}',
        '{"path": "b.rs", "content": "fn b() {}"}',
    ]
    final = events[-1]
    assert final["type"] == "response.completed" and final["response"]["status"] == "completed"
    assert final["response"]["usage"]["total_tokens"] > 0
    listed = [o for o in final["response"]["output"] if o["type"] == "function_call"]
    assert [(o["call_id"], o["status"]) for o in listed] == [
        ("call_a", "completed"),
        ("call_b", "completed"),
    ]
    assert not any("obfuscation" in e for e in events)


def test_max_tokens_is_an_incomplete_response() -> None:
    final = payloads(encoded(CUT_BY_MAX_TOKENS))[-1]
    assert final["type"] == "response.incomplete"
    assert final["response"]["incomplete_details"] == {"reason": "max_output_tokens"}
    assert [o["status"] for o in final["response"]["output"]] == ["incomplete"]
    assert drive([c.data for c in encoded(CUT_BY_MAX_TOKENS)]) == [
        ToolCallOut(
            "call_mig", "write_file", '{"path": "db/0042.sql", "content": "CREATE INDEX', False
        ),
        TurnEnd("max_tokens"),
    ]


def test_end_turn_is_a_completed_response() -> None:
    assert payloads(encoded(TEXT_ONLY))[-1]["type"] == "response.completed"
    assert drive([c.data for c in encoded(TEXT_ONLY)]) == [
        TextOut("It is 18 degrees in Paris."),
        TurnEnd("end_turn"),
    ]


def test_obfuscation_pads_every_delta() -> None:
    events = payloads(encoded(TEXT_THEN_TWO_CALLS, ["obfuscation"]))
    deltas = [e for e in events if e["type"].endswith(".delta")]
    assert len(deltas) == 9
    assert all(isinstance(d["obfuscation"], str) and d["obfuscation"] for d in deltas)


def test_no_done_events_drops_every_done_event() -> None:
    kinds = [e["type"] for e in payloads(encoded(TEXT_THEN_TWO_CALLS, ["no_done_events"]))]
    assert not [k for k in kinds if k.endswith(".done")]
    assert kinds[-1] == "response.completed"


def test_interleaved_calls_alternate_by_output_index() -> None:
    events = payloads(encoded(TEXT_THEN_TWO_CALLS, ["interleaved_calls"]))
    kinds = [e["type"] for e in events]
    first_delta = kinds.index("response.function_call_arguments.delta")
    added = [n for n, k in enumerate(kinds) if k == "response.output_item.added"]
    assert added[-1] < first_delta  # both calls are added before any argument streams
    indices = [
        e["output_index"] for e in events if e["type"] == "response.function_call_arguments.delta"
    ]
    assert indices == [2, 3, 2, 3, 3]


def test_can_express_refuses_what_one_response_cannot_carry() -> None:
    two_cycles = (*TEXT_THEN_TWO_CALLS, *TEXT_ONLY)
    assert "one message cycle" in (CODEC.can_express(two_cycles) or "")
    with_ping = (*TEXT_ONLY[:2], dv.Ping(), *TEXT_ONLY[2:])
    assert "ping" in (CODEC.can_express(with_ping) or "")
    stop_sequence = (
        *TEXT_ONLY[:-2],
        dv.CycleDelta(stop_reason="stop_sequence"),
        dv.CycleStop(),
    )
    assert "stop sequences" in (CODEC.can_express(stop_sequence) or "")
    calls_end_turn = (
        *TEXT_THEN_TWO_CALLS[:-2],
        dv.CycleDelta(stop_reason="end_turn"),
        dv.CycleStop(),
    )
    assert "tool_use" in (CODEC.can_express(calls_end_turn) or "")
    assert CODEC.can_express(()) is not None


# -- generated turns --------------------------------------------------------------------------


@st.composite
def single_cycle_turns(draw: st.DrawFn) -> tuple[dv.TurnEvent, ...]:
    """One message cycle: text, thinking and tool_use blocks, their events possibly
    interleaved, a stop the Responses API can say; with max_tokens a block may stay open."""
    kinds = draw(st.lists(st.sampled_from(["text", "thinking", "tool_use"]), max_size=5))
    has_calls = "tool_use" in kinds
    reasons: list[dv.StopReason] = (
        ["tool_use", "max_tokens"] if has_calls else ["end_turn", "max_tokens"]
    )
    reason = draw(st.sampled_from(reasons))
    queues: list[list[dv.TurnEvent]] = []
    for index, kind in enumerate(kinds):
        pieces = draw(st.lists(st.text(max_size=12), max_size=4))
        queue: list[dv.TurnEvent]
        if kind == "tool_use":
            call_id = f"call_{index}_" + draw(st.text(max_size=6))
            name = draw(st.text(min_size=1, max_size=10))
            if draw(st.booleans()):  # real JSON most of the time, cut into pieces
                text = json.dumps(
                    draw(st.dictionaries(st.text(max_size=5), st.integers(), max_size=3))
                )
                cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=3)))
                pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
            queue = [BS(index=index, block="tool_use", id=call_id, name=name)]
            queue += [dv.ArgumentsDelta(index=index, fragment=p) for p in pieces]
        elif kind == "text":
            queue = [
                BS(index=index, block="text"),
                *(dv.TextDelta(index=index, text=p) for p in pieces),
            ]
        else:
            queue = [
                BS(index=index, block="thinking"),
                *(dv.ThinkingDelta(index=index, text=p) for p in pieces),
            ]
        if reason != "max_tokens" or draw(st.booleans()):
            queue.append(BE(index=index))
        queues.append(queue)
    events: list[dv.TurnEvent] = [MS(message_id="resp_" + draw(st.text(max_size=8)))]
    if draw(st.booleans()):  # block after block, as servers stream
        events += [e for q in queues for e in q]
    else:
        while any(queues):
            pick = draw(st.sampled_from([n for n, q in enumerate(queues) if q]))
            events.append(queues[pick].pop(0))
    return (*events, dv.CycleDelta(stop_reason=reason), dv.CycleStop())


@pytest.mark.slow
@settings(max_examples=examples(300), deadline=None)
@given(single_cycle_turns())
def test_generated_turns_round_trip(turn: tuple[dv.TurnEvent, ...]) -> None:
    assert CODEC.can_express(turn) is None
    assert CODEC.decode(body(encoded(turn)), source="encoded") == turn
    assert CODEC.decode(body(encoded(turn, ["obfuscation"])), source="encoded") == turn


@pytest.mark.slow
@settings(max_examples=examples(200), deadline=None)
@given(single_cycle_turns(), st.sampled_from(QUIRK_SETS))
def test_every_quirk_keeps_the_tool_calls(
    turn: tuple[dv.TurnEvent, ...], quirks: tuple[str, ...]
) -> None:
    chunks = encoded(turn, quirks)
    origins = [c.origin for c in chunks]
    assert origins == sorted(origins) and origins[-1] == len(turn) - 1
    expected = calls_of(turn)
    # the decoded turn says the same calls (the quirks may reorder them, not change them)
    assert sorted(calls_of(CODEC.decode(body(chunks), source="encoded"))) == sorted(expected)
    outputs = drive([c.data for c in chunks])
    got = emitted_calls(outputs)
    assert sorted(got) == sorted(expected) and len(got) == len(expected)
    text = "".join(e.text for e in turn if isinstance(e, dv.TextDelta))
    assert "".join(o.text for o in outputs if isinstance(o, TextOut)) == text
    facts = turn_facts(turn)
    assert [o for o in outputs if isinstance(o, TurnEnd)] == [TurnEnd(facts.final_reason)]
    assert isinstance(outputs[-1], TurnEnd)


def test_a_quirk_free_turn_keeps_its_calls_in_order_under_every_quirk() -> None:
    for quirks in QUIRK_SETS:
        outputs = drive([c.data for c in encoded(TEXT_THEN_TWO_CALLS, quirks)])
        assert outputs == [
            TextOut("Writing "),
            TextOut("both files."),
            ToolCallOut("call_a", "write_file", '{"path": "a.rs"}', True),
            ToolCallOut("call_b", "write_file", '{"path": "b.rs", "content": "fn b() {}"}', True),
            TurnEnd("tool_use"),
        ], quirks


# -- real recordings --------------------------------------------------------------------------

#: (cassette, interaction) -> what the recording holds, read from the files: the calls
#: (call_id, name, argument text), the whole text, and the stop
RECORDED: dict[tuple[str, int], tuple[list[tuple[str, str, str]], str, str]] = {
    ("llm/test_responses_tool_use_streaming.yaml", 0): (
        [("call_sVidsfFJ6zlzRpelrPkTPlpd", "multiply", '{"a":1231,"b":2331}')],
        "",
        "tool_use",
    ),
    ("llm/test_responses_tool_use_streaming.yaml", 1): (
        [],
        "1231 \u00d7 2331 = **2,869,461**",
        "end_turn",
    ),
    ("openllmetry/test_music_composer_handoff_hierarchy.yaml", 1): (
        [("call_0huubaIPG7y97doHmNEbKQi3", "transfer_to_symphony_composer", "{}")],
        "",
        "tool_use",
    ),
    ("openllmetry/test_music_composer_handoff_hierarchy.yaml", 2): (
        [
            (
                "call_B6pmEGgYkNcOtg8K8wpLVj1b",
                "compose_music",
                '{"style":"symphony","key":"D major"}',
            )
        ],
        "",
        "tool_use",
    ),
    ("openllmetry/test_music_composer_handoff_hierarchy.yaml", 4): (
        [],
        "I've composed a beautiful symphony piece in D major for you. If you want more details "
        "or adjustments, feel free to let me know!",
        "end_turn",
    ),
    ("pydantic-ai/test_openai_responses_streaming_usage.yaml", 0): (
        [("call_CWXgs68YprAjp6t0371hiPOI", "final_result", '{"result":6666}')],
        "",
        "tool_use",
    ),
}


def recorded_body(cassette: str, index: int) -> tuple[str, str]:
    interaction = read_cassette(REAL / cassette)[index]
    return interaction.response_body, interaction.response_source


def test_every_responses_interaction_of_the_recordings_is_listed() -> None:
    for cassette in {c for c, _ in RECORDED}:
        with_body = {i.index for i in read_cassette(REAL / cassette) if i.response_body}
        assert with_body == {n for c, n in RECORDED if c == cassette}, cassette


@pytest.mark.parametrize(("cassette", "index"), RECORDED, ids=[f"{c}[{n}]" for c, n in RECORDED])
def test_real_recordings_decode(cassette: str, index: int) -> None:
    calls, text, reason = RECORDED[cassette, index]
    raw, source = recorded_body(cassette, index)
    turn = CODEC.decode(raw, source=source)
    facts = turn_facts(turn)
    assert [(c.id, c.name, c.arguments) for c in facts.calls] == calls
    assert all(c.valid for c in facts.calls)
    assert "".join(t for _, t in facts.texts) == text
    assert facts.final_reason == reason
    assert isinstance(turn[0], dv.CycleStart) and turn[0].message_id.startswith("resp_")
    assert all(e.line > 0 for e in turn)
    assert CODEC.can_express(turn) is None
    # what the codec writes for the decoded turn reads back the same
    assert CODEC.decode(body(encoded(turn)), source="re-encoded") == turn


@pytest.mark.parametrize(("cassette", "index"), RECORDED, ids=[f"{c}[{n}]" for c, n in RECORDED])
def test_the_driver_reads_real_recordings(cassette: str, index: int) -> None:
    calls, text, reason = RECORDED[cassette, index]
    raw, _ = recorded_body(cassette, index)
    events = [part + "\n\n" for part in raw.split("\n\n") if part.strip()]
    for chunks in (events, [raw]):  # one chunk per event, and the whole body at once
        outputs = drive(chunks)
        assert [(o.id, o.name, o.arguments) for o in outputs if isinstance(o, ToolCallOut)] == calls
        assert all(o.valid for o in outputs if isinstance(o, ToolCallOut))
        assert "".join(o.text for o in outputs if isinstance(o, TextOut)) == text
        assert outputs[-1] == TurnEnd(reason)


def test_the_driver_stops_reading_at_the_terminal_event() -> None:
    raw, _ = recorded_body("llm/test_responses_tool_use_streaming.yaml", 0)
    events = [part + "\n\n" for part in raw.split("\n\n") if part.strip()]
    read: list[str] = []

    class Upstream:
        closed = False

        def __iter__(self) -> Upstream:
            return self

        def __next__(self) -> str:
            if len(read) == len(events):
                pytest.fail("the driver read past response.completed")
            read.append(events[len(read)])
            return read[-1]

        def close(self) -> None:
            self.closed = True

    upstream = Upstream()
    outputs = list(OpenAIResponsesDriver().drive(upstream))
    assert outputs[-1] == TurnEnd("tool_use") and len(read) == len(events) and upstream.closed
    # with more on the line, it still stops at the end of the response
    events.append(events[0])
    read.clear()
    list(OpenAIResponsesDriver().drive(Upstream()))
    assert len(read) == len(events) - 1


@pytest.mark.parametrize("quirks", QUIRK_SETS, ids=lambda q: "+".join(q) or "plain")
@pytest.mark.parametrize(("cassette", "index"), RECORDED, ids=[f"{c}[{n}]" for c, n in RECORDED])
def test_decoded_real_turns_replay_clean_through_the_driver(
    cassette: str, index: int, quirks: tuple[str, ...]
) -> None:
    """Every driver rule holds for the reference driver on each decoded real turn."""
    raw, source = recorded_body(cassette, index)
    scenario = turn_scenario(
        CODEC.decode(raw, source=source), id="real", dialects=(CODEC.name,), quirks=quirks
    )
    result = replay_reference(scenario)
    assert (result.status, result.error, result.violations) == ("pass", None, ())


# -- decode errors ----------------------------------------------------------------------------


def sse(*events: dict[str, Any]) -> str:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


CREATED = {"type": "response.created", "response": {"id": "resp_x"}}


@pytest.mark.parametrize(
    ("events", "line", "message"),
    [
        ((CREATED, {"type": "response.output_sparkles.delta"}), 4, "unknown event type"),
        (
            ({"type": "response.output_text.delta", "item_id": "m", "delta": "x"},),
            1,
            "before response.created",
        ),
        (
            (
                CREATED,
                {
                    "type": "response.function_call_arguments.delta",
                    "item_id": "fc_9",
                    "output_index": 0,
                    "delta": "{",
                },
            ),
            4,
            "never added",
        ),
        (
            (CREATED, {"type": "response.completed", "response": {}}, CREATED),
            7,
            "after the response ended",
        ),
    ],
)
def test_decode_errors_name_the_line(
    events: tuple[dict[str, Any], ...], line: int, message: str
) -> None:
    with pytest.raises(WireError) as caught:
        CODEC.decode(sse(*events), source="body")
    assert caught.value.line == line and message in caught.value.message


@pytest.mark.parametrize(
    ("failure", "error"),
    [
        (
            {"type": "error", "code": "server_is_overloaded", "message": "overloaded"},
            dv.StreamError(error_type="server_is_overloaded", message="overloaded"),
        ),
        (
            {"type": "response.failed", "response": {"error": {"code": "server_error"}}},
            dv.StreamError(error_type="server_error", message=""),
        ),
    ],
)
def test_a_failure_ends_the_turn_with_its_error(failure: dict[str, Any], error: Any) -> None:
    # the other failure event after the first says the same failure again
    other = {"type": "error" if failure["type"] != "error" else "response.failed"}
    turn = CODEC.decode(sse(CREATED, failure, other), source="body")
    assert turn[1:] == (error,) and turn[1].line == 4


def test_decode_skips_what_has_no_canonical_counterpart() -> None:
    text = sse(
        CREATED,
        {"type": "response.in_progress", "response": {"id": "resp_x"}},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {"id": "ws_1", "type": "web_search_call"},
        },
        {"type": "response.web_search_call.searching", "item_id": "ws_1", "output_index": 0},
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "item": {"id": "ws_1", "type": "web_search_call"},
        },
        {
            "type": "response.output_item.added",
            "output_index": 1,
            "item": {"id": "msg_1", "type": "message", "content": []},
        },
        {"type": "response.output_text.annotation.added", "item_id": "msg_1", "output_index": 1},
        {
            "type": "response.output_item.done",
            "output_index": 1,
            "item": {
                "id": "msg_1",
                "type": "message",
                "content": [{"type": "output_text", "text": "Found it."}],
            },
        },
        {"type": "response.completed", "response": {"output": []}},
    )
    assert [e.kind for e in CODEC.decode(text, source="body")] == [
        "message_start",
        "block_start",
        "text_delta",  # the message told whole at its output_item.done
        "block_stop",
        "message_delta",
        "message_stop",
    ]
    assert drive([text]) == [TextOut("Found it."), TurnEnd("end_turn")]


# -- the scenario library through the driver --------------------------------------------------

APPLICABLE = {
    "parallel-calls",
    "empty-arguments",
    "truncated-arguments-max-tokens",
    "cancel-mid-arguments",
}


def replay_reference(
    scenario: DriverScenario, cls: type[OpenAIResponsesDriver] = OpenAIResponsesDriver
) -> ScenarioResult:
    return replay(scenario, reference(cls))


@pytest.mark.parametrize("path", DRIVER_SCENARIOS, ids=lambda p: p.stem)
def test_reference_driver_passes_every_scenario_it_can_run(path: Path) -> None:
    scenario = load_driver(path)
    result = replay_reference(scenario)
    if result.status == "skip":
        assert result.skip_reason
        assert (scenario.dialects and CODEC.name not in scenario.dialects) or CODEC.can_express(
            scenario.turn
        ) == result.skip_reason
        assert path.stem not in APPLICABLE
        return
    assert result.status == "pass", result.error or "\n".join(
        f"[{v.rule}] event {v.event_index}: {v.message}" for v in result.violations
    )


def test_the_scenarios_this_dialect_can_carry_do_run() -> None:
    ran = {p.stem for p in DRIVER_SCENARIOS if replay_reference(load_driver(p)).status == "pass"}
    assert ran >= APPLICABLE


def quirked(path: Path, quirks: Sequence[str]) -> DriverScenario:
    """A library scenario again, in this dialect only, with the quirks asked for."""
    lines = [
        line
        for line in path.read_text().splitlines()
        if not line.startswith(("dialects:", "quirks:"))
    ]
    header = f"dialects: [{CODEC.name}]\nquirks: [{', '.join(quirks)}]\n"
    return parse_driver(header + "\n".join(lines) + "\n", f"{path.stem}+{'+'.join(quirks)}.yaml")


@pytest.mark.parametrize("quirks", QUIRK_SETS[1:], ids="+".join)
@pytest.mark.parametrize("name", sorted(APPLICABLE))
def test_reference_driver_passes_under_every_quirk(name: str, quirks: tuple[str, ...]) -> None:
    result = replay_reference(quirked(ROOT / "scenarios" / "driver" / f"{name}.yaml", quirks))
    assert result.status == "pass", result.error or "\n".join(
        f"[{v.rule}] event {v.event_index}: {v.message}" for v in result.violations
    )


# -- copies of the driver with one bug each ---------------------------------------------------


class EmitsEveryDelta(OpenAIResponsesDriver):
    """Forwards the call after every argument fragment, as if complete."""

    def arguments(self, call: Call, fragment: str) -> Iterator[DriverOutput]:
        yield from super().arguments(call, fragment)
        arguments = "".join(call.parts)
        yield ToolCallOut(call.call_id, call.name, arguments, True)


class LastAddedCall(OpenAIResponsesDriver):
    """Gives every argument delta to the call added last, ignoring item_id and output_index."""

    def find(self, data: dict[str, Any]) -> Call:
        if data.get("item_id") in self.calls and "delta" not in data:
            return self.calls[data["item_id"]]
        return list(self.calls.values())[-1]


class NeedsDoneEvents(OpenAIResponsesDriver):
    """Emits a call only at its done events: without them it is lost (a call cut short by
    max_tokens may be dropped: that is no bug)."""

    def flush(self) -> Iterator[DriverOutput]:
        yield from ()


class IncompleteIsEndTurn(OpenAIResponsesDriver):
    """Reads response.incomplete as an ordinary end: the turn ends with end_turn."""

    def finish(self, kind: str, response: dict[str, Any]) -> Iterator[DriverOutput]:
        yield from super().finish("response.completed", response)


MUTANTS: list[tuple[type[OpenAIResponsesDriver], str, tuple[str, ...], str]] = [
    (EmitsEveryDelta, "parallel-calls", (), "emit-once-early"),
    (LastAddedCall, "parallel-calls", ("interleaved_calls",), "strict-assembly"),
    (NeedsDoneEvents, "parallel-calls", ("no_done_events",), "emit-once-early"),
    (IncompleteIsEndTurn, "truncated-arguments-max-tokens", (), "turn-lifetime"),
]


@pytest.mark.parametrize(
    ("cls", "name", "quirks", "rule"),
    MUTANTS,
    ids=[f"{m[0].__name__}-{m[1]}{'+' if m[2] else ''}{'+'.join(m[2])}" for m in MUTANTS],
)
def test_a_driver_with_one_bug_is_caught(
    cls: type[OpenAIResponsesDriver], name: str, quirks: tuple[str, ...], rule: str
) -> None:
    path = ROOT / "scenarios" / "driver" / f"{name}.yaml"
    scenario = quirked(path, quirks) if quirks else load_driver(path)
    assert replay_reference(scenario).status == "pass"
    result = replay_reference(scenario, cls)
    assert result.status == "fail", result.error
    assert rule in {v.rule for v in result.violations}, [v.message for v in result.violations]


def test_scenarios_can_name_this_dialect_and_its_quirks() -> None:
    text = dedent(
        """\
        id: responses-interleaved
        title: t
        description: d
        source: tests
        layer: driver
        dialects: [openai-responses]
        quirks: [interleaved_calls, obfuscation]
        trace:
          - cycle:
              blocks:
                - tool_use: {id: call_1, name: a, input: {x: 1}}
                - tool_use: {id: call_2, name: b, input: {y: 2}}
        """
    )
    scenario = parse_driver(text)
    assert scenario.dialects == ("openai-responses",)
    assert replay_reference(scenario).status == "pass"
    assert replay_reference(scenario, LastAddedCall).status == "fail"
