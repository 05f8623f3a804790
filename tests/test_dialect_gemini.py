"""The Gemini dialects (``gemini-sse``, ``gemini-json-array``): codecs, reference drivers, real
recordings, and the driver scenarios replayed through the harness.

The replays here pass this module's codec objects with ``replay(..., codecs=CODECS)``, so they
exercise exactly these instances whatever the registry holds.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.adapters.driver.gemini import GeminiDriver, GeminiJSONArrayDriver
from harness.adapters.registry import AdapterInfo
from harness.codecs import Codec
from harness.codecs.gemini import (
    ARRAY_QUIRKS,
    SSE_QUIRKS,
    GeminiArrayCodec,
    GeminiSSECodec,
    decode_responses,
    json_path,
    parse_json_path,
)
from harness.model import driver as dv
from harness.model.driver import (
    DriverOutput,
    ErrorReport,
    TextOut,
    ToolCallOut,
    TurnEnd,
    WireChunk,
    turn_facts,
)
from harness.replay import replay
from harness.scenario import DriverScenario, recorded_scenario
from harness.wire import WireError, parse_json_array_stream, parse_jsonl, parse_sse, read_cassette
from harness.wire.recordings import recorded_streams
from tests.budgets import examples
from tests.scenarios_for_tests import load_driver, parse_driver

ROOT = Path(__file__).resolve().parent.parent
TRAFFIC = ROOT / "cassettes" / "real-traffic"
SCENARIO_FILES = sorted((ROOT / "scenarios" / "driver").glob("*.yaml"))

SSE, ARRAY = GeminiSSECodec(), GeminiArrayCodec()
CODECS = (SSE, ARRAY)
DRIVERS: dict[str, type[GeminiDriver]] = {
    SSE.name: GeminiDriver,
    ARRAY.name: GeminiJSONArrayDriver,
}


# -- helpers --------------------------------------------------------------------------------------


def cycle(
    *blocks: tuple[Any, ...], stop: dv.StopReason | None = None, message_id: str = "resp-1"
) -> list[Any]:
    """A one-cycle turn, as the scenario loader writes it: ("text", [pieces]), ("thinking",
    [pieces]), ("tool_use", id, name, [fragments]) or ("tool_use", id, name, [fragments], False)
    for a call cut off before its block_stop."""
    out: list[Any] = [dv.CycleStart(message_id=message_id)]
    calls = False
    for index, block in enumerate(blocks):
        kind = block[0]
        if kind == "tool_use":
            calls = True
            out.append(dv.BlockStart(index=index, block="tool_use", id=block[1], name=block[2]))
            out += [dv.ArgumentsDelta(index=index, fragment=f) for f in block[3]]
            if len(block) < 5 or block[4]:
                out.append(dv.BlockStop(index=index))
        else:
            out.append(dv.BlockStart(index=index, block=kind))
            delta = dv.TextDelta if kind == "text" else dv.ThinkingDelta
            out += [delta(index=index, text=t) for t in block[1]]
            out.append(dv.BlockStop(index=index))
    reason: dv.StopReason = stop or ("tool_use" if calls else "end_turn")
    return [*out, dv.CycleDelta(stop_reason=reason), dv.CycleStop()]


def normal(turn: Iterable[dv.TurnEvent]) -> list[dv.TurnEvent]:
    """The turn with each call's argument fragments as one (the wire does not keep the split),
    and end_turn after calls as tool_use (Gemini says STOP for both)."""
    out: list[dv.TurnEvent] = []
    called = False
    for event in turn:
        called = called or (isinstance(event, dv.BlockStart) and event.block == "tool_use")
        if isinstance(event, dv.CycleDelta) and event.stop_reason == "end_turn" and called:
            event = dv.CycleDelta(stop_reason="tool_use")
        if isinstance(event, dv.ArgumentsDelta):
            if not event.fragment:
                continue
            last = out[-1] if out else None
            if isinstance(last, dv.ArgumentsDelta) and last.index == event.index:
                out[-1] = dv.ArgumentsDelta(
                    index=event.index, fragment=last.fragment + event.fragment
                )
                continue
        out.append(event)
    return out


def body(chunks: Sequence[WireChunk]) -> str:
    return "".join(c.data for c in chunks)


def responses(codec: Any, chunks: Sequence[WireChunk]) -> list[dict[str, Any]]:
    """The GenerateContentResponse objects on the wire."""
    if codec is SSE:
        return [json.loads(e.data) for e in parse_sse(body(chunks), source="t")]
    return [c.value for c in parse_json_array_stream(body(chunks), "t")]


class Feed:
    """The chunks a driver reads, counting reads and noticing a read past the end."""

    def __init__(self, pieces: Sequence[str]) -> None:
        self.pieces = list(pieces)
        self.reads = 0
        self.overread = self.closed = False

    def __iter__(self) -> Feed:
        return self

    def __next__(self) -> str:
        if self.reads >= len(self.pieces):
            self.overread = True
            raise StopIteration
        self.reads += 1
        return self.pieces[self.reads - 1]

    def close(self) -> None:
        self.closed = True


def drive(driver: type[GeminiDriver], pieces: Sequence[str]) -> tuple[list[Any], Feed]:
    feed = Feed(pieces)
    return list(driver().drive(feed)), feed


def calls_of(outputs: Iterable[Any]) -> list[tuple[str, str, str, bool]]:
    return [(o.id, o.name, o.arguments, o.valid) for o in outputs if isinstance(o, ToolCallOut)]


def text_of(outputs: Iterable[Any]) -> str:
    return "".join(o.text for o in outputs if isinstance(o, TextOut))


def ends_of(outputs: Iterable[Any]) -> list[str]:
    return [o.stop_reason for o in outputs if isinstance(o, TurnEnd)]


def check_driver(codec: Any, turn: Sequence[dv.TurnEvent], chunks: Sequence[WireChunk]) -> None:
    """The reference driver emits what the turn says, reads every chunk, and no more."""
    facts = turn_facts(turn)
    outputs, feed = drive(DRIVERS[codec.name], [c.data for c in chunks])
    assert calls_of(outputs) == [(c.id, c.name, c.arguments, c.valid) for c in facts.calls]
    assert text_of(outputs) == "".join(text for _, text in facts.texts)
    assert ends_of(outputs) == [facts.final_reason]
    assert (feed.reads, feed.overread, feed.closed) == (len(chunks), False, True)
    assert outputs[-1] == TurnEnd(facts.final_reason)


def round_trip(codec: Any, turn: Sequence[dv.TurnEvent], quirks: Iterable[str] = ()) -> None:
    quirks = tuple(quirks)
    assert codec.can_express(turn, quirks) is None
    chunks = codec.encode(turn, quirks)
    decoded = codec.decode(body(chunks), source="t")
    assert normal(decoded) == normal(turn)
    again = codec.encode(decoded, quirks)
    assert [c.data for c in again] == [c.data for c in chunks]
    origins = [c.origin for c in chunks]
    assert origins == sorted(origins)
    check_driver(codec, turn, chunks)


WEATHER = json.dumps({"city": "Paris", "units": "metric", "days": [1, 2], "deep": {"x": None}})
TURN = cycle(
    ("thinking", ["Checking the ", "weather tool."]),
    ("text", ["Let me ", "look that up."]),
    ("tool_use", "call_1", "get_weather", [WEATHER[:7], WEATHER[7:20], WEATHER[20:]]),
    ("tool_use", "", "list_units", [""]),
    ("tool_use", "call_3", "get_time", ['{"zone": "Europe/Par', 'is", "h24": true}']),
)


# -- codecs ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("codec", CODECS, ids=lambda c: c.name)
def test_hand_built_turn_round_trips(codec: Any) -> None:
    round_trip(codec, TURN)
    chunks = codec.encode(TURN)
    sent = responses(codec, chunks)
    calls = [
        p["functionCall"]
        for r in sent
        for p in r["candidates"][0]["content"]["parts"]
        if "functionCall" in p
    ]
    assert calls == [
        {"name": "get_weather", "args": json.loads(WEATHER), "id": "call_1"},
        {"name": "list_units"},  # no id: the canonical id is ""; no args: the text is ""
        {"name": "get_time", "args": {"zone": "Europe/Paris", "h24": True}, "id": "call_3"},
    ]
    assert [r["candidates"][0].get("finishReason") for r in sent][-1] == "STOP"
    assert all(r["responseId"] == "resp-1" for r in sent)


@pytest.mark.parametrize("codec", CODECS, ids=lambda c: c.name)
def test_end_turn_after_calls_is_gemini_stop(codec: Any) -> None:
    """A stop that says end of turn beside tool calls (ollama/ollama#7963) is Gemini's normal
    habit: STOP after function calls."""
    turn = cycle(
        ("text", ["Restarting."]), ("tool_use", "t1", "restart", ['{"s": "w"}']), stop="end_turn"
    )
    round_trip(codec, turn)
    assert responses(codec, codec.encode(turn))[-1]["candidates"][0]["finishReason"] == "STOP"
    decoded = codec.decode(body(codec.encode(turn)), source="t")
    assert turn_facts(decoded).final_reason == turn_facts(turn).final_reason == "tool_use"


@pytest.mark.parametrize(
    ("codec", "quirks"),
    [(c, (q,)) for c in CODECS for q in c.quirks] + [(c, tuple(c.quirks)) for c in CODECS],
    ids=lambda x: x.name if hasattr(x, "name") else "+".join(x),
)
def test_quirks_round_trip_and_keep_the_calls(codec: Any, quirks: tuple[str, ...]) -> None:
    round_trip(codec, TURN, quirks)
    round_trip(codec, cycle(("text", ["Done."])), quirks)
    round_trip(codec, cycle(("tool_use", "c", "f", ['{"a": 1}'])), quirks)


def parts_of(sent: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    return [r["candidates"][0]["content"]["parts"] for r in sent]


@pytest.mark.parametrize("codec", CODECS, ids=lambda c: c.name)
def test_each_quirk_shows_on_the_wire(codec: Any) -> None:
    plain = codec.encode(TURN)
    if "crlf" in codec.quirks:
        assert all(
            c.data.endswith("\r\n\r\n") and "\n\n" not in c.data
            for c in codec.encode(TURN, ["crlf"])
        )
        assert all(c.data.endswith("}\n\n") for c in plain)
    signed = parts_of(responses(codec, codec.encode(TURN, ["thought_signature"])))
    with_signature = [p for parts in signed for p in parts if "thoughtSignature" in p]
    assert len(with_signature) == 1 and with_signature[0]["functionCall"]["name"] == "get_weather"
    final = responses(codec, codec.encode(TURN, ["empty_text_final_chunk"]))
    assert (
        parts_of(final)[-1] == [{"text": ""}]
        and final[-1]["candidates"][0]["finishReason"] == "STOP"
    )
    assert "finishReason" not in final[-2]["candidates"][0]
    assert len(final) == len(responses(codec, plain)) + 1
    parallel = parts_of(responses(codec, codec.encode(TURN, ["parallel_calls_one_chunk"])))
    assert [len(p) for p in parallel if "functionCall" in p[0]] == [3]
    streamed = parts_of(responses(codec, codec.encode(TURN, ["streamed_args"])))
    calls = [p[0]["functionCall"] for p in streamed if "functionCall" in p[0]]
    assert calls[0] == {"name": "get_weather", "willContinue": True, "id": "call_1"}
    assert calls[1]["partialArgs"][:2] == [
        {"jsonPath": "$.city", "stringValue": "Paris", "willContinue": True},
        {"jsonPath": "$.city", "stringValue": ""},
    ]
    # the string split across two fragments comes in two pieces, one per fragment
    time = calls[calls.index({"name": "get_time", "willContinue": True, "id": "call_3"}) + 1 :]
    assert [c.get("partialArgs") for c in time] == [
        [{"jsonPath": "$.zone", "stringValue": "Europe/Par", "willContinue": True}],
        [
            {"jsonPath": "$.zone", "stringValue": "is", "willContinue": True},
            {"jsonPath": "$.zone", "stringValue": ""},
            {"jsonPath": "$.h24", "boolValue": True},
        ],
        None,
    ]
    assert calls.count({}) == 2  # each streamed call ends with an empty functionCall
    assert {"name": "list_units"} in calls  # a call without arguments goes whole
    if "split_elements" in codec.quirks:
        split = codec.encode(TURN, ["split_elements"])
        assert len(split) == 2 * len(plain) - 1 and body(split) == body(plain)


@pytest.mark.parametrize("codec", CODECS, ids=lambda c: c.name)
def test_streamed_arguments_carry_a_call_cut_off_by_max_tokens(codec: Any) -> None:
    text = '{"path": "db/0042.sql", "n": 3, "content": "CREATE INDEX CONCURRENTLY idx_ord'
    turn = cycle(
        ("text", ["Writing it."]),
        ("tool_use", "toolu_1", "write_file", [text[:15], text[15:40], text[40:]], False),
        stop="max_tokens",
    )
    reason = codec.can_express(turn)
    assert reason is not None and "streamed_args" in reason
    with pytest.raises(ValueError, match="cannot carry"):
        codec.encode(turn)
    round_trip(codec, turn, ["streamed_args"])
    sent = responses(codec, codec.encode(turn, ["streamed_args"]))
    assert sent[-1]["candidates"][0]["finishReason"] == "MAX_TOKENS"
    outputs, _ = drive(DRIVERS[codec.name], [c.data for c in codec.encode(turn, ["streamed_args"])])
    assert calls_of(outputs) == [("toolu_1", "write_file", text, False)]
    # cut after a whole number or string, too; but not inside a key, after a colon or a comma
    for cut in ('{"a": 12', '{"a": "x"', '{"a": "', '{"a": ["x", "y'):
        round_trip(
            codec, cycle(("tool_use", "c", "f", [cut], False), stop="max_tokens"), ["streamed_args"]
        )
    for cut in ('{"ke', '{"a": ', '{"a": 1, ', '{"a": [1]', '{"a": "\\u00'):
        assert codec.can_express(
            cycle(("tool_use", "c", "f", [cut], False), stop="max_tokens"), ["streamed_args"]
        )


@pytest.mark.parametrize(
    ("turn", "words"),
    [
        ([*cycle(("tool_use", "a", "f", ["{}"])), *cycle(("text", ["x"]))], "one message cycle"),
        ([*cycle(("text", ["x"]))[:2], dv.Ping(), *cycle(("text", ["x"]))[2:]], "ping"),
        (cycle(("text", ["x"]), stop="stop_sequence"), "stop sequence"),
        (cycle(("text", ["x"]), stop="tool_use"), "without a function call"),
        (cycle(("tool_use", "a", "f", ['{"a":1}'])), "json.dumps"),
        (
            cycle(("tool_use", "a", "f", ['{"a": 1']), stop="max_tokens"),
            "not a complete JSON object",
        ),
        (cycle(("tool_use", "a", "f", ['{"a": 1}'], False)), "no block_stop"),
        (cycle(("tool_use", "a", "", ['{"a": 1}'])), "always has a name"),
        (cycle(("text", ["x"]), ("text", ["y"])), "in a row"),
        (cycle(("text", ["x", ""])), "empty text delta"),
        (cycle(("text", ["x"]))[:-2], "finishReason"),
    ],
)
def test_what_gemini_cannot_carry_is_refused(turn: list[Any], words: str) -> None:
    for codec in CODECS:
        reason = codec.can_express(turn)
        assert reason is not None and words in reason, reason
        with pytest.raises(ValueError, match="cannot carry"):
            codec.encode(turn)


def test_json_paths_round_trip() -> None:
    for path in [("a",), ("a", "b", 0, "c"), ("odd key", 3), ("", "x.y", 'q"t'), ("_9",)]:
        assert parse_json_path(json_path(path)) == path
    assert parse_json_path("$.recipe.ingredients[0].amount") == (
        "recipe",
        "ingredients",
        0,
        "amount",
    )
    assert parse_json_path("$['a b']") == ("a b",)
    for bad in ("a.b", "$", "$[0]", "$.a[", "$..a"):
        with pytest.raises(ValueError):
            parse_json_path(bad)


def test_decode_reports_errors_at_their_line() -> None:
    error = {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}
    body = f'data: {{"candidates": []}}\n\ndata: {json.dumps({"error": error})}\n\n'
    turn = SSE.decode(body, source="s")
    assert turn[-1] == dv.StreamError(error_type="UNAVAILABLE", message="The model is overloaded.")
    assert turn[-1].line == 3 and not any(isinstance(e, dv.CycleStop) for e in turn)
    entry = {"jsonPath": "$.a", "stringValue": "x"}
    orphan = {"candidates": [{"content": {"parts": [{"functionCall": {"partialArgs": [entry]}}]}}]}
    with pytest.raises(WireError, match="no function call is streaming"):
        ARRAY.decode(json.dumps([orphan]), source="a")
    with pytest.raises(WireError):
        ARRAY.decode('[{"candidates": []}', source="a")


# -- generated turns ------------------------------------------------------------------------------

TEXT = st.text(st.characters(exclude_categories=["Cs"]), min_size=1, max_size=12)
KEYS = st.text(st.characters(exclude_categories=["Cs"]), max_size=6) | st.sampled_from(["a", "b_1"])
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(10**12), 10**12)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(exclude_categories=["Cs"]), max_size=10)
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3),
    max_leaves=8,
)
ARGUMENTS = st.just("") | st.dictionaries(KEYS, VALUES, max_size=4).map(json.dumps)


@st.composite
def split(draw: st.DrawFn, text: str, empty: bool = False) -> list[str]:
    """``text`` in contiguous pieces (empty pieces only if asked)."""
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=5)))
    pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    return pieces if empty else [p for p in pieces if p]


@st.composite
def turns(draw: st.DrawFn) -> list[Any]:
    blocks: list[tuple[Any, ...]] = []
    for n in range(draw(st.integers(0, 5))):
        kind = draw(st.sampled_from(["text", "thinking", "tool_use"]))
        if kind == "tool_use":
            arguments = draw(ARGUMENTS)
            call_id = draw(st.sampled_from(["", f"call_{n}", f"toolu_{n}x"]))
            name = draw(st.sampled_from(["read_file", "get_weather", "f"]))
            blocks.append(("tool_use", call_id, name, draw(split(arguments, empty=True))))
        else:
            pieces = draw(st.lists(TEXT, max_size=3))
            if blocks and blocks[-1][0] == kind:  # two text blocks in a row read back as one
                blocks[-1] = (kind, [*blocks[-1][1], *pieces])
            else:
                blocks.append((kind, pieces))
    calls = any(b[0] == "tool_use" for b in blocks)
    stops: list[dv.StopReason] = ["max_tokens", "end_turn"]
    if calls:
        stops.append("tool_use")
    stop = draw(st.sampled_from(stops))
    return cycle(*blocks, stop=stop, message_id=draw(st.sampled_from(["", "resp-9"])))


def quirk_sets(codec: Any) -> st.SearchStrategy[list[str]]:
    return st.lists(st.sampled_from(sorted(codec.quirks)), unique=True)


@pytest.mark.slow
@settings(max_examples=examples(150), deadline=None)
@given(data=st.data(), turn=turns())
def test_generated_turns_round_trip_and_drive(data: st.DataObject, turn: list[Any]) -> None:
    codec = data.draw(st.sampled_from(CODECS))
    round_trip(codec, turn, data.draw(quirk_sets(codec)))


@settings(max_examples=examples(100), deadline=None)
@given(data=st.data(), turn=turns())
def test_drivers_read_the_stream_however_it_is_cut(data: st.DataObject, turn: list[Any]) -> None:
    codec = data.draw(st.sampled_from(CODECS))
    chunks = codec.encode(turn, data.draw(quirk_sets(codec)))
    facts = turn_facts(turn)
    pieces = data.draw(split(body(chunks)))
    outputs, feed = drive(DRIVERS[codec.name], pieces)
    assert calls_of(outputs) == [(c.id, c.name, c.arguments, c.valid) for c in facts.calls]
    assert text_of(outputs) == "".join(text for _, text in facts.texts)
    assert ends_of(outputs) == [facts.final_reason]
    assert not feed.overread


def has_empty_container(value: Any) -> bool:
    if isinstance(value, dict):
        return not value or any(has_empty_container(v) for v in value.values())
    if isinstance(value, list):
        return not value or any(has_empty_container(v) for v in value)
    return False


@pytest.mark.slow
@settings(max_examples=examples(150), deadline=None)
@given(data=st.data(), arguments=st.dictionaries(KEYS, VALUES, min_size=1, max_size=4))
def test_cut_off_streamed_arguments_round_trip_when_carried(
    data: st.DataObject, arguments: dict[str, Any]
) -> None:
    codec = data.draw(st.sampled_from(CODECS))
    text = json.dumps(arguments)
    cut = text[: data.draw(st.integers(1, len(text) - 1))]
    turn = cycle(("tool_use", "c1", "f", data.draw(split(cut))), stop="max_tokens")
    if codec.can_express(turn, ["streamed_args"]) is None:
        round_trip(codec, turn, ["streamed_args"])
    if text.endswith('"}') and not has_empty_container(arguments):
        # a cut just before the closing quote is carried, if a leaf stands for every part
        turn = cycle(("tool_use", "c1", "f", [text[:-2]], False), stop="max_tokens")
        round_trip(codec, turn, ["streamed_args"])


# -- real recordings ------------------------------------------------------------------------------

# What the files hold, read from them by hand: (file, interaction, calls (id, name, arguments),
# text, stop reason)
RECORDINGS = [
    ("llm-gemini/test_tools.yaml", 0, [("", "pelican_name_generator", "{}")], "", "tool_use"),
    ("llm-gemini/test_tools.yaml", 1, [("", "pelican_name_generator", "{}")], "", "tool_use"),
    ("llm-gemini/test_tools.yaml", 2, [], "How about Charles and Sammy?", "end_turn"),
    (
        "llm-gemini/test_tools_with_gemini_3_thought_signatures.yaml",
        0,
        [("", "multiply", '{"y": 3, "x": 5}')],
        "",
        "tool_use",
    ),
    (
        "llm-gemini/test_tools_with_gemini_3_thought_signatures.yaml",
        1,
        [],
        "5 times 3 is 15.",
        "end_turn",
    ),
    (
        "llm-gemini/test_tools_with_nested_pydantic_models.yaml",
        0,
        [
            (
                "whZntcQw",
                "add_person",
                '{"age": 30, "name": "Alice", "address": {"street": "123 Main St", '
                '"city": "San Francisco", "zipcode": "94102"}}',
            )
        ],
        "",
        "tool_use",
    ),
    (
        "llm-gemini/test_tools_with_nested_pydantic_models.yaml",
        1,
        [],
        "Alice (age 30) living at 123 Main St, San Francisco, CA 94102 has been successfully added "
        "to the database.",
        "end_turn",
    ),
    (
        "pydantic-ai/test_google_model_iter_stream.yaml",
        0,
        [("", "get_capital", '{"country": "France"}')],
        "",
        "tool_use",
    ),
    (
        "pydantic-ai/test_google_model_iter_stream.yaml",
        1,
        [("", "get_temperature", '{"city": "Paris"}')],
        "",
        "tool_use",
    ),
    (
        "pydantic-ai/test_google_model_iter_stream.yaml",
        2,
        [],
        "The temperature in Paris is 30°C.\n",
        "end_turn",
    ),
    (
        "pydantic-ai/test_google_streaming_tool_call_thought_signature.yaml",
        0,
        [("", "get_country", "{}")],
        "",
        "tool_use",
    ),
    (
        "pydantic-ai/test_google_streaming_tool_call_thought_signature.yaml",
        1,
        [],
        "The capital of Mexico is Mexico City.",
        "end_turn",
    ),
]


def cut_every(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


@pytest.mark.parametrize(("path", "interaction", "calls", "text", "reason"), RECORDINGS)
def test_real_recordings_decode_and_drive(
    path: str, interaction: int, calls: list[tuple[str, str, str]], text: str, reason: str
) -> None:
    recorded = read_cassette(TRAFFIC / path)[interaction]
    sse = "alt=sse" in recorded.request_uri
    codec = SSE if sse else ARRAY
    if sse:
        assert "\r\n\r\n" in recorded.response_body  # pydantic-ai's recordings are CRLF-framed
    turn = codec.decode(recorded.response_body, source=recorded.response_source)
    facts = turn_facts(turn)
    assert [(c.id, c.name, c.arguments) for c in facts.calls] == calls
    assert all(c.valid for c in facts.calls)
    assert "".join(t for _, t in facts.texts) == text
    assert facts.final_reason == reason
    assert normal(codec.decode(body(codec.encode(turn)), source="again")) == normal(turn)
    for size in (1, 7, 64, len(recorded.response_body)):
        outputs, feed = drive(DRIVERS[codec.name], cut_every(recorded.response_body, size))
        assert [(i, n, a) for i, n, a, _ in calls_of(outputs)] == calls
        assert text_of(outputs) == text
        assert ends_of(outputs) == [reason]
        assert not feed.overread


def test_real_recordings_show_the_gemini_habits() -> None:
    """The quirks are taken from these files."""
    thinking = ARRAY.decode(
        read_cassette(TRAFFIC / "llm-gemini/test_tools.yaml")[0].response_body, source="t"
    )
    assert any(isinstance(e, dv.ThinkingDelta) and "Pelican" in e.text for e in thinking)
    gemini3 = read_cassette(
        TRAFFIC / "llm-gemini/test_tools_with_gemini_3_thought_signatures.yaml"
    )[0]
    elements = [c.value for c in parse_json_array_stream(gemini3.response_body, "g3")]
    assert "thoughtSignature" in elements[0]["candidates"][0]["content"]["parts"][0]
    assert elements[-1]["candidates"][0]["content"]["parts"] == [{"text": ""}]
    assert "\n,\r\n" in gemini3.response_body


VERCEL = TRAFFIC / "vercel-ai" / "google-stream-tool-call-arguments.chunks.txt"
VERCEL_CALLS = [
    ("", "getWeather", '{"location": "Boston"}', True),
    ("", "getWeather", '{"location": "San Francisco"}', True),
]


def test_vertex_streamed_function_call_arguments() -> None:
    lines = parse_jsonl(VERCEL.read_text(encoding="utf-8"), str(VERCEL))
    turn = decode_responses(((c.value, c.line) for c in lines), source=str(VERCEL))
    facts = turn_facts(turn)
    assert [(c.id, c.name, c.arguments, c.valid) for c in facts.calls] == VERCEL_CALLS
    assert facts.final_reason == "tool_use"
    # each call ends at its empty functionCall (lines 4 and 8), not at the end of the response
    assert [e.line for e in turn if isinstance(e, dv.BlockStop)] == [4, 8]
    raw = [json.dumps(c.value) for c in lines]
    for driver, text in (
        (GeminiDriver, "".join(f"data: {r}\r\n\r\n" for r in raw)),
        (GeminiJSONArrayDriver, "[" + "\n,\r\n".join(raw) + "\n]"),
    ):
        outputs, feed = drive(driver, cut_every(text, 40))
        assert calls_of(outputs) == VERCEL_CALLS
        assert ends_of(outputs) == ["tool_use"]
        assert not feed.overread


class _Edited(GeminiDriver):
    """The reference, each tool call it emits edited as it goes: ``edit(call, k)`` gives the
    calls to emit instead of the k-th one."""

    edit: Any = staticmethod(lambda call, k: [call])

    def drive(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        calls = 0
        for output in super().drive(chunks):
            if isinstance(output, ToolCallOut):
                yield from self.edit(output, calls)
                calls += 1
            else:
                yield output


def _edited(edit: Any) -> AdapterInfo:
    driver = type("Edited", (_Edited,), {"edit": staticmethod(edit)})
    return AdapterInfo("driver-gemini-sse-edited", "driver", "mutant", driver)


def test_calls_without_ids_are_told_apart_by_their_order_name_and_arguments() -> None:
    """Gemini gives these two calls no id; a driver that emits both once each passes, with ids
    of its own too, and one that loses, repeats or garbles one is caught on that call."""
    (stream,) = recorded_streams(VERCEL)
    scenario = recorded_scenario(stream)
    for name in ("driver-gemini-sse-reference", "driver-gemini-sse-bytes-reference"):
        assert replay(scenario, name).status == "pass"
    made_up = _edited(lambda call, k: [dataclasses.replace(call, id=f"call-{k}")])
    assert replay(scenario, made_up).status == "pass"
    boston = VERCEL_CALLS[0][2]
    cases = {
        "second lost": (lambda call, k: [call] if k == 0 else [], "'#2' (getWeather)"),
        "first twice": (lambda call, k: [call, call] if k == 0 else [call], "'#1'"),
        "second with the first's arguments": (
            lambda call, k: [call if k == 0 else dataclasses.replace(call, arguments=boston)],
            "'#2'",
        ),
        "second renamed": (
            lambda call, k: [call if k == 0 else dataclasses.replace(call, name="getTime")],
            "'#2'",
        ),
    }
    for what, (edit, said) in cases.items():
        result = replay(scenario, _edited(edit))
        messages = [f"{v.rule}: {v.message}" for v in result.violations]
        assert result.status == "fail" and any(said in m for m in messages), (what, messages)


# -- scenarios through the replay -----------------------------------------------------------------


def adapter(driver: type[Any]) -> AdapterInfo:
    return AdapterInfo(f"driver-{driver.dialect}-test", "driver", "reference", driver)


VARIANTS = {"plain": (), "streamed_args": ("streamed_args",), "all-quirks": None}


def variant(scenario: DriverScenario, codec: Codec, name: str) -> DriverScenario:
    extra = VARIANTS[name]
    quirks = tuple(codec.quirks) if extra is None else extra
    return dataclasses.replace(scenario, quirks=(*scenario.quirks, *quirks))


@pytest.mark.parametrize("quirks", list(VARIANTS))
@pytest.mark.parametrize("codec", CODECS, ids=lambda c: c.name)
@pytest.mark.parametrize("path", SCENARIO_FILES, ids=lambda p: p.stem)
def test_scenarios_replay_through_the_gemini_drivers(path: Path, codec: Any, quirks: str) -> None:
    scenario = variant(load_driver(path), codec, quirks)
    result = replay(scenario, adapter(DRIVERS[codec.name]), codecs=CODECS)
    if result.status == "skip":  # e.g. a cancellation point past the end of a short encoding
        assert result.skip_reason
        return
    assert result.status == "pass", result.error or "\n".join(
        f"[{v.rule}] event {v.event_index}: {v.message}" for v in result.violations
    )


@pytest.mark.parametrize(
    ("dialect", "cassette", "interaction", "calls"),
    [
        ("gemini-json-array", "llm-gemini/test_tools_with_gemini_3_thought_signatures.yaml", 0, 1),
        ("gemini-json-array", "llm-gemini/test_tools.yaml", 2, 0),
        ("gemini-sse", "pydantic-ai/test_google_model_iter_stream.yaml", 0, 1),
        ("gemini-sse", "pydantic-ai/test_google_streaming_tool_call_thought_signature.yaml", 1, 0),
    ],
)
def test_recorded_streams_replay_as_scenarios(
    dialect: str, cassette: str, interaction: int, calls: int
) -> None:
    """A scenario whose turn is a recording (``wire:``) runs through the Gemini drivers."""
    text = (
        "id: recorded\ntitle: t\ndescription: d\nsource: s\nlayer: driver\n"
        f"wire: {{dialect: {dialect}, cassette: ../../cassettes/real-traffic/{cassette}, "
        f"interaction: {interaction}}}\n"
    )
    scenario = parse_driver(text, str(ROOT / "scenarios" / "driver" / "recorded.yaml"))
    assert len(turn_facts(scenario.turn).calls) == calls
    result = replay(scenario, adapter(DRIVERS[dialect]), codecs=CODECS)
    assert result.status == "pass", result.error or [v.message for v in result.violations]


def test_the_library_has_scenarios_gemini_carries() -> None:
    carried = {
        (p.stem, c.name)
        for p in SCENARIO_FILES
        for c in CODECS
        if (s := load_driver(p))
        and not s.raw_wire
        and (not s.dialects or c.name in s.dialects)
        and c.can_express(s.turn) is None
    }
    for stem in ("parallel-calls", "empty-arguments", "cancel-mid-arguments"):
        assert {(stem, SSE.name), (stem, ARRAY.name)} <= carried
    truncated = load_driver(ROOT / "scenarios/driver/truncated-arguments-max-tokens.yaml")
    assert SSE.can_express(truncated.turn) is not None
    assert SSE.can_express(truncated.turn, ["streamed_args"]) is None


# -- the rules catch a driver with one bug --------------------------------------------------------


def _until_first_call(responses: Iterator[Any]) -> Iterator[Any]:
    for data in responses:
        yield data
        if '"functionCall"' in json.dumps(data):
            return


class EndsAtFirstCall(GeminiDriver):
    """Bug: the turn ends with the first response that holds a functionCall."""

    def response(self, responses: Iterator[Any]) -> Iterator[Any]:
        for output in super().response(_until_first_call(responses)):
            # what it read is, to it, the whole turn
            yield (
                TurnEnd("tool_use" if self.calls else "end_turn")
                if isinstance(output, ErrorReport)
                else output
            )


def _calls_dropped_at_stop(responses: Iterator[Any]) -> Iterator[Any]:
    for data in responses:
        for candidate in data.get("candidates") or ():
            if candidate.get("finishReason") == "STOP":
                content = candidate.get("content") or {}
                content["parts"] = [
                    p for p in content.get("parts") or () if "functionCall" not in p
                ]
        yield data


class FinishStopDropsCalls(GeminiDriver):
    """Bug: finishReason STOP is taken for "done, no tools": the calls in that response are lost."""

    def response(self, responses: Iterator[Any]) -> Iterator[Any]:
        yield from super().response(_calls_dropped_at_stop(responses))


class ForwardsPartialArgs(GeminiDriver):
    """Bug: each partialArgs chunk is forwarded as a complete call."""

    def function_call(self, fc: dict[str, Any]) -> Iterator[Any]:
        yield from super().function_call(fc)
        if self.streaming is not None and fc.get("partialArgs"):
            partial = self.streaming.arguments(cut=True)
            yield ToolCallOut(self.streaming.id, self.streaming.name, partial, True)


def _array(driver: type[GeminiDriver]) -> type[GeminiDriver]:
    return type(driver.__name__ + "Array", (driver, GeminiJSONArrayDriver), {})


@pytest.mark.slow
@pytest.mark.parametrize(
    ("mutant", "rules"),
    [
        (EndsAtFirstCall, {"emit-once-early", "turn-lifetime"}),
        (FinishStopDropsCalls, {"emit-once-early"}),
        (ForwardsPartialArgs, {"emit-once-early"}),
    ],
    ids=lambda x: x.__name__ if isinstance(x, type) else "",
)
@pytest.mark.parametrize("codec", CODECS, ids=lambda c: c.name)
def test_a_driver_with_one_bug_is_caught(
    mutant: type[GeminiDriver], rules: set[str], codec: Any
) -> None:
    driver = mutant if codec is SSE else _array(mutant)
    assert driver.dialect == codec.name
    broken: set[str] = set()
    for path in SCENARIO_FILES:
        for name in ("plain", "streamed_args"):
            scenario = variant(load_driver(path), codec, name)
            result = replay(scenario, adapter(driver), codecs=CODECS)
            assert result.status != "error", result.error
            if result.status == "fail":
                broken |= set(result.rules_broken)
    assert rules <= broken, f"{mutant.__name__} is caught only by {sorted(broken)}"


def test_quirk_tables_are_documented() -> None:
    assert {
        "crlf",
        "thought_signature",
        "empty_text_final_chunk",
        "parallel_calls_one_chunk",
    } <= set(SSE_QUIRKS)
    assert set(SSE_QUIRKS) - {"crlf", "lone_cr"} <= set(ARRAY_QUIRKS)
    assert all(isinstance(v, str) and v for v in {**SSE_QUIRKS, **ARRAY_QUIRKS}.values())
    assert (SSE.name, ARRAY.name) == ("gemini-sse", "gemini-json-array")
    assert (GeminiDriver.dialect, GeminiJSONArrayDriver.dialect) == (SSE.name, ARRAY.name)
