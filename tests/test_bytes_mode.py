"""Drivers that read the body as bytes (``reads = "bytes"``): how the body is cut
(``harness.wire.chunking``), how the bundled framers rebuild events from any cut, the bytes
references over the library, the framing mutants, and what a scenario's ``byte_cuts`` does."""

from __future__ import annotations

import json
from collections.abc import Iterator
from itertools import accumulate
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness._errors import ScenarioError
from harness.adapters.driver.framing import JSONArrayFramer, SSEFramer
from harness.adapters.registry import BUNDLED, AdapterInfo
from harness.codecs import dialects
from harness.model.driver import DriverOutput, TextOut, TurnEnd, WireChunk
from harness.replay import replay
from harness.replay.driver import recorded_chunks
from harness.scenario import DriverScenario, parse_scenario
from harness.wire import parse_sse
from harness.wire.chunking import body_of, byte_chunks, check_cuts, default_cuts
from tests.scenarios_for_tests import library, library_driver
from tests.scenarios_for_tests import parse_driver as scenario

DIALECTS = (
    "anthropic",
    "anthropic-agent",
    "openai-chat",
    "openai-responses",
    "gemini-sse",
    "gemini-json-array",
    "ag-ui",
)
TEXT = st.text(alphabet='ab :{}[]"\\,é€😀\t', max_size=12)


def encoded(s: DriverScenario, dialect: str) -> tuple[WireChunk, ...]:
    codec = dialects()[dialect]
    return recorded_chunks(s) or codec.encode(s.turn, s.quirks)


@st.composite
def chunks_and_cuts(draw: st.DrawFn) -> tuple[list[WireChunk], list[int]]:
    ends = draw(st.sampled_from(["\n", "\r\n"]))
    texts = draw(st.lists(TEXT.map(lambda t: f"data: {t}{ends}{ends}"), min_size=1, max_size=8))
    chunks = [
        WireChunk(text, origin, carries=draw(st.booleans())) for origin, text in enumerate(texts)
    ]
    size = len(body_of(chunks))
    cuts = draw(st.sets(st.integers(1, size + 3)))  # a few beyond the body: left out
    return chunks, sorted(cuts)


# -- slicing --------------------------------------------------------------------------------------


@given(chunks_and_cuts())
def test_the_reads_are_the_body_and_each_chunk_is_delivered_once_by_its_last_byte(
    case: tuple[list[WireChunk], list[int]],
) -> None:
    chunks, cuts = case
    reads = byte_chunks(chunks, cuts)
    body = body_of(chunks)
    assert b"".join(r.data for r in reads) == body
    assert all(r.data for r in reads)  # no empty read
    inside = [c for c in cuts if c < len(body)]
    assert len(reads) == len(inside) + 1
    origins = [r.origin for r in reads]
    assert origins == sorted(origins)  # the chunks' origins rise, so do the reads'
    delivered = [part for r in reads for part in r.parts]
    assert delivered == chunks  # each once, in order
    ends = list(accumulate(len(c.data.encode()) for c in chunks))
    for chunk, end in zip(chunks, ends, strict=True):
        last = end - (2 if chunk.data.endswith("\r\n") else 1)  # a CRLF is complete at its CR
        holder = sum(1 for c in inside if c <= last)
        assert chunk in reads[holder].parts
    for r in reads:
        carrying = [p for p in r.parts if p.carries]
        assert r.carries == bool(carrying)
        if carrying:
            assert r.origin == max(p.origin for p in carrying)


def test_a_cut_list_is_checked_with_a_sentence() -> None:
    assert check_cuts([1, 5, 9]) is None
    assert check_cuts("5") == "byte cuts should be a list of byte offsets, got '5'"
    assert check_cuts([4, 4]) == (
        "byte cut 1 (4) does not come after the one before it (4); the offsets must be strictly "
        "increasing"
    )
    assert check_cuts([0]) == "byte cut 0 is 0; an offset cuts after at least one byte (>= 1)"
    assert check_cuts([True]) == "byte cut 0 should be an integer byte offset, got True"
    with pytest.raises(ValueError, match="strictly increasing"):
        byte_chunks([WireChunk("data: x\n\n", 0)], [3, 2])


def _hazards(chunks: tuple[WireChunk, ...]) -> dict[str, bool]:
    body = body_of(chunks)
    cuts = default_cuts(body, list(accumulate(len(c.data.encode()) for c in chunks)))
    reads = byte_chunks(chunks, cuts)
    multibyte = [n for n, byte in enumerate(body) if byte >= 0xC0]
    crlf = [n + 1 for n in range(len(body) - 1) if body[n : n + 2] == b"\r\n"]
    return {
        "several events in one read": any(len(r.parts) > 1 for r in reads),
        "an event across reads": any(not r.parts for r in reads),
        "every character split": all(n + 1 in cuts for n in multibyte),
        "a CRLF split": not crlf or any(c in cuts for c in crlf),
    }


@pytest.mark.parametrize(
    ("name", "dialect"),
    [
        ("anthropic-framing-quirks", "anthropic-agent"),
        ("parallel-calls", "openai-chat"),
        ("text-before-tool-call", "gemini-json-array"),
        ("recorded-gemini-non-ascii-crlf", "gemini-sse"),
    ],
)
def test_the_default_plan_meets_every_hazard_at_once(name: str, dialect: str) -> None:
    chunks = encoded(library_driver(name), dialect)
    hazards = _hazards(chunks)
    if len(chunks) < 3:  # two events: the second is cut (inside its character), not joined
        del hazards["several events in one read"]
    assert hazards == dict.fromkeys(hazards, True)
    body = body_of(chunks)
    assert default_cuts(body) == default_cuts(body)  # deterministic


def test_the_default_plan_without_boundaries_finds_events_by_their_blank_lines() -> None:
    body = "data: a\n\ndata: bé\n\ndata: c\n\ndata: d\n\n".encode()
    cuts = default_cuts(body)
    assert cuts == (3, 9, 13, 17, 32)
    # events at [0, 9), [9, 20), [20, 29), [29, 38): 3 inside the first, 9 at its end; 13 inside
    # the second, 17 inside é; the third is whole, in the read that ends the second; 32 inside
    # the fourth


# -- the framers ----------------------------------------------------------------------------------


@st.composite
def sse_bodies(draw: st.DrawFn) -> tuple[str, list[int]]:
    end = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    blocks = []
    for _ in range(draw(st.integers(1, 5))):
        lines = [f": {draw(TEXT)}"] if draw(st.booleans()) else []
        if draw(st.booleans()):
            lines.append(f"event: {draw(st.sampled_from(['ping', 'delta', 'stop']))}")
        lines += [f"data: {draw(TEXT)}" for _ in range(draw(st.integers(1, 3)))]
        blocks.append(end.join(lines) + end + end)
    text = "".join(blocks)
    cuts = draw(st.sets(st.integers(1, max(1, len(text.encode()) - 1))))
    return text, sorted(cuts)


def _pieces(body: bytes, cuts: list[int]) -> Iterator[bytes]:
    for start, stop in zip([0, *cuts], [*cuts, len(body)], strict=True):
        yield body[start:stop]


@given(sse_bodies())
def test_the_sse_framer_frames_any_cut_as_the_whole_body_parses(
    case: tuple[str, list[int]],
) -> None:
    text, cuts = case
    framer = SSEFramer()
    framed = [event for piece in _pieces(text.encode(), cuts) for event in framer.feed(piece)]
    framed += framer.close()

    def fields(source: str) -> list[tuple[str | None, str]]:
        return [(e.event, e.data) for e in parse_sse(source, source="t")]

    assert [f for event in framed for f in fields(event)] == fields(text)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=6,
)


@given(st.lists(st.dictionaries(TEXT, JSON_VALUES, max_size=3), max_size=4), st.data())
def test_the_json_array_framer_hands_each_element_on_in_the_read_of_its_last_byte(
    elements: list[dict[str, Any]], data: st.DataObject
) -> None:
    texts = [json.dumps(e, ensure_ascii=False, indent=1) for e in elements]
    body = ("[" + "\n,\r\n".join(texts) + "\n]").encode()
    cuts = sorted(data.draw(st.sets(st.integers(1, len(body) - 1))))
    # where each element's closing brace is, in bytes
    closes, at = [], 1
    for n, text in enumerate(texts):
        at += len(text.encode()) + (len(b"\n,\r\n") if n else 0)
        closes.append(at)
    framer, out, stop = JSONArrayFramer(), [], 0
    for piece in _pieces(body, cuts):
        out += framer.feed(piece)
        stop += len(piece)
        assert len([p for p in out if not p.endswith("]")]) == sum(1 for c in closes if c <= stop)
    out += framer.close()
    assert json.loads("".join(out) if elements else out[0]) == elements


# -- the bytes references and the framing mutants ---------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("dialect", DIALECTS)
def test_every_bytes_reference_passes_what_its_events_reference_passes(dialect: str) -> None:
    events_info = BUNDLED[f"driver-{dialect}-reference"]
    bytes_info = BUNDLED[f"driver-{dialect}-bytes-reference"]
    assert getattr(bytes_info.factory(), "reads", None) == "bytes"
    passed = 0
    for s in library():
        if s.layer != "driver":
            continue
        mine, theirs = replay(s, bytes_info), replay(s, events_info)
        assert mine.status == theirs.status, (s.id, mine.violations, mine.error)
        assert mine.status in ("pass", "skip"), (s.id, mine.violations, mine.error)
        passed += mine.status == "pass"
    assert passed >= 10


@pytest.mark.parametrize(
    ("mutant", "caught_by", "rules"),
    [
        (
            "driver-mutant-gemini-decodes-each-read",
            {"recorded-gemini-non-ascii-crlf", "non-ascii-text-and-arguments"},
            {"order"},
        ),
        (
            "driver-mutant-anthropic-frames-on-lf-only",
            {"anthropic-framing-quirks"},
            {"emit-once-early", "turn-lifetime"},
        ),
        ("driver-mutant-openai-chat-read-ends-line", None, {"robust-framing"}),
    ],
)
def test_the_framing_mutants_are_caught_in_bytes_mode(
    mutant: str, caught_by: set[str] | None, rules: set[str]
) -> None:
    failed: dict[str, set[str]] = {}
    for s in library():
        if s.layer == "driver":
            result = replay(s, mutant)
            assert result.status != "error", (s.id, result.error)
            if result.status == "fail":
                failed[s.id] = {v.rule for v in result.violations}
    if caught_by is not None:
        assert set(failed) == caught_by
    else:
        assert len(failed) > 20  # a line split across reads breaks almost every stream
    assert rules <= set().union(*failed.values())


def test_the_sdk_backed_library_adapters_read_bytes() -> None:
    from harness.adapters.libs import (
        anthropic_sdk,
        langchain_core,
        openai_chat,
        openai_responses,
        pydantic_ai,
    )

    for cls in (
        anthropic_sdk.AnthropicMessagesStream,
        openai_chat.OpenAIChatStreamEvents,
        openai_chat.OpenAIChatFinalCompletion,
        openai_responses.OpenAIResponsesStream,
        pydantic_ai.PydanticAIStreamedResponse,
        # through the openai client, as langchain-openai reads it
        langchain_core.LangChainMessageChunks,
    ):
        assert getattr(cls, "reads", None) == "bytes", cls


# -- the replayer -----------------------------------------------------------------------------------


class Recorder:
    """Reads the whole stream as bytes, keeps each read, emits the text once at the end."""

    layers = ("driver",)
    dialect = "anthropic"
    reads = "bytes"

    def __init__(self) -> None:
        self.got: list[bytes] = []

    def drive(self, chunks: Iterator[bytes]) -> Iterator[DriverOutput]:
        try:
            for data in chunks:
                self.got.append(data)
        finally:
            getattr(chunks, "close", lambda: None)()
        yield TextOut("Hello there.")
        yield TurnEnd("end_turn")


HELLO = """\
id: hello
title: one text block
description: a message with one text delta
source: tests
layer: driver
dialects: [anthropic]
"""
TRACE = """\
trace:
  - cycle:
      blocks:
        - text: "Hello there."
"""


def run(text: str) -> tuple[Recorder, Any]:
    made: list[Recorder] = []

    def make() -> Recorder:
        made.append(Recorder())
        return made[-1]

    result = replay(scenario(text), AdapterInfo("recorder", "driver", "external", make))
    return made[0], result


def test_byte_cuts_cut_the_body_where_they_say_and_those_past_its_end_are_left_out() -> None:
    recorder, result = run(HELLO + "byte_cuts: [5, 10, 100000]\n" + TRACE)
    assert result.status == "pass", result.violations
    body = body_of(encoded(scenario(HELLO + TRACE), "anthropic"))
    assert recorder.got == [body[:5], body[5:10], body[10:]]


def test_a_cancelled_bytes_driver_has_read_exactly_the_chunks_before_the_cancellation() -> None:
    recorder, result = run(HELLO + "cancel_after_reads: 3\n" + TRACE)
    chunks = encoded(scenario(HELLO + TRACE), "anthropic")
    assert b"".join(recorder.got) == body_of(chunks[:3])
    assert result.status == "pass", result.violations  # the cancellation ended it, closed


def test_an_unknown_reads_value_is_an_adapter_error() -> None:
    class Lines(Recorder):
        reads = "lines"

    result = replay(scenario(HELLO + TRACE), AdapterInfo("lines", "driver", "external", Lines))
    assert result.status == "error"
    assert "reads is 'lines'" in (result.error or "")
    assert "'events' or 'bytes'" in (result.error or "")


@pytest.mark.parametrize(
    ("cuts", "line", "message"),
    [
        ("[3, x]", 7, "byte cut 1 should be an integer byte offset, got 'x'"),
        ("[3, 3]", 7, "byte cut 1 (3) does not come after the one before it (3)"),
    ],
)
def test_bad_byte_cuts_are_a_located_error(cuts: str, line: int, message: str) -> None:
    text = HELLO + f"byte_cuts: {cuts}\n" + TRACE
    with pytest.raises(ScenarioError) as info:
        parse_scenario(text, "cuts.yaml")
    (problem,) = info.value.problems
    assert (problem.line, message in problem.message) == (line, True), problem


def test_an_events_adapter_still_gets_whole_chunks() -> None:
    got: list[Any] = []

    class Events:
        layers = ("driver",)
        dialect = "anthropic"

        def drive(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
            got.extend(chunks)
            yield TextOut("Hello there.")
            yield TurnEnd("end_turn")

    replay(scenario(HELLO + TRACE), AdapterInfo("events", "driver", "external", Events))
    assert got == [c.data for c in encoded(scenario(HELLO + TRACE), "anthropic")]


def test_a_whole_chunk_delivers_itself() -> None:
    chunk = WireChunk("data: x\n\n", 3)
    assert chunk.delivered == (chunk,)
