"""Codecs: generated canonical turns round-trip through every dialect, quirks keep the calls and
texts, real recorded traffic decodes to what the files say, and malformed wire input is a located
``WireError`` (or a tolerance named in the test's name), never a crash.

The expected values of the real-traffic tests were read from the recordings themselves (raw
files opened and grepped; gzip bodies inflated with plain ``yaml`` + ``gzip``), never copied
from a decoder's output.
"""

from __future__ import annotations

import base64
import gzip
import itertools
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.adapters.registry import BUNDLED
from harness.codecs import dialects
from harness.codecs.openai_chat import OpenAIChatCodec
from harness.model import driver as dv
from harness.model.driver import TextOut, ToolCallOut, TurnEnd, turn_facts
from harness.replay import replay
from harness.wire import WireError, read_cassette
from tests.budgets import examples
from tests.scenarios_for_tests import turn_scenario

ROOT = Path(__file__).resolve().parent.parent
REAL = ROOT / "cassettes" / "real-traffic"
DIALECTS = sorted(dialects())
#: the SSE dialects whose framing, real traffic and malformed input part (b) and (c) check
SSE_DIALECTS = ["anthropic", "openai-chat"]

# -- generated canonical turns --------------------------------------------------------------------

_json_leaf = (
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
_json_value = st.recursive(
    _json_leaf,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
_arguments = st.dictionaries(st.text(max_size=8), _json_value, max_size=4)
_short = st.text(max_size=16)


@dataclass(frozen=True)
class Limits:
    """Canonical shapes a dialect's wire cannot carry, left out of the turns generated for it."""

    #: every text, thinking and argument delta carries at least one character
    nonempty_deltas: bool = False
    #: at most one text or thinking block, and only before the tool calls
    lead_block_then_tools: bool = False
    #: a call's arguments arrive whole, as one fragment (Gemini without streamed arguments)
    whole_arguments: bool = False


# Only where necessary, and why:
#
# openai-chat: a Chat Completions chunk has no block boundaries. A block exists only as the kind
# of delta it streams (``content``, ``reasoning_content``, ``tool_calls[i]``), and a call ends only
# when the next call starts or the choice finishes. So:
# - an empty delta (``"content": ""``, ``"arguments": ""``) carries nothing; the first chunk of
#   every real stream has one, and the decoder rightly drops it: deltas are non-empty here;
# - two text blocks (or two thinking blocks) in a row are one run of ``content``: one block;
# - text and thinking (reasoning_content) have no end of their own: after thinking, text
#   starts a second open block and both close only at finish_reason, so ``thinking, text`` does
#   not come back in normal form (BlockStop right after its last delta);
# - text after a tool call likewise leaves the call open until finish_reason.
# What the wire keeps is: at most one text or thinking block, then the tool calls. (Multi-cycle
# turns are refused by the codec's own ``can_express``, so they need no limit here.)
# Any other dialect, present or added later, gets the full normal form.
LIMITS: dict[str, Limits] = {
    "openai-chat": Limits(nonempty_deltas=True, lead_block_then_tools=True),
    "gemini-sse": Limits(nonempty_deltas=True, whole_arguments=True),
    "gemini-json-array": Limits(nonempty_deltas=True, whole_arguments=True),
}


@st.composite
def _fragments(draw: st.DrawFn, text: str, nonempty: bool) -> list[str]:
    """``text`` cut into 1-5 contiguous fragments (empty ones allowed unless ``nonempty``)."""
    count = draw(st.integers(1, 5))
    if nonempty:
        if len(text) < 2:
            return [text]
        cuts = sorted(
            draw(st.sets(st.integers(1, len(text) - 1), max_size=min(count - 1, len(text) - 1)))
        )
    else:
        cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=count - 1)))
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


@st.composite
def _block_kinds(draw: st.DrawFn, limits: Limits) -> list[dv.BlockKind]:
    if limits.lead_block_then_tools:
        leads: list[list[dv.BlockKind]] = [[], ["text"], ["thinking"]]
        calls: list[dv.BlockKind] = ["tool_use"] * draw(st.integers(0, 3))
        return draw(st.sampled_from(leads)) + calls
    kinds: list[dv.BlockKind] = ["text", "thinking", "tool_use"]
    return draw(st.lists(st.sampled_from(kinds), max_size=4))


@st.composite
def turns(draw: st.DrawFn, dialect: str, distinct_ids: bool = False) -> tuple[dv.TurnEvent, ...]:
    """A canonical turn in normal form: 1-3 message cycles; in each, blocks 0..n-1 in order, each
    with 1-5 deltas and its BlockStop right after the last; tool_use stops every cycle but the
    last, which ends with end_turn (tool_use when it made calls) or max_tokens.

    ``distinct_ids``: every call has its own non-empty id and a non-empty name, for wires where
    nothing else tells calls apart."""
    limits = LIMITS.get(dialect, Limits())
    call_number = 0
    piece = st.text(min_size=1 if limits.nonempty_deltas else 0, max_size=16)
    cycles = draw(st.integers(1, 3))
    out: list[dv.TurnEvent] = []
    for cycle in range(cycles):
        cycle_start = len(out)
        out.append(dv.CycleStart(message_id=draw(_short)))
        for index, kind in enumerate(draw(_block_kinds(limits))):
            if kind == "tool_use":
                call_id, name = draw(_short), draw(_short)
                if distinct_ids:
                    call_id, name = f"{call_id}#{call_number}", name or "f"
                    call_number += 1
                out.append(dv.BlockStart(index=index, block="tool_use", id=call_id, name=name))
                text = json.dumps(draw(_arguments))
                fragments = (
                    [text]
                    if limits.whole_arguments
                    else draw(_fragments(text, limits.nonempty_deltas))
                )
                for fragment in fragments:
                    out.append(dv.ArgumentsDelta(index=index, fragment=fragment))
            else:
                out.append(dv.BlockStart(index=index, block=kind))
                delta = dv.TextDelta if kind == "text" else dv.ThinkingDelta
                for text in draw(st.lists(piece, min_size=1, max_size=5)):
                    out.append(delta(index=index, text=text))
            out.append(dv.BlockStop(index=index))
        last = cycle == cycles - 1
        finals: list[dv.StopReason] = ["end_turn", "max_tokens"]
        reason = draw(st.sampled_from(finals)) if last else "tool_use"
        called = any(
            isinstance(e, dv.BlockStart) and e.block == "tool_use" for e in out[cycle_start:]
        )
        if reason == "end_turn" and called:
            reason = "tool_use"  # the canonical form: a final message with calls waits for them
        out += [dv.CycleDelta(stop_reason=reason), dv.CycleStop()]
    return tuple(out)


def wire(codec: Any, turn: Sequence[dv.TurnEvent], quirks: Sequence[str] = ()) -> str:
    return "".join(chunk.data for chunk in codec.encode(turn, quirks))


ROUND_TRIP = settings(
    max_examples=examples(150),
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@pytest.mark.slow
@pytest.mark.parametrize("name", DIALECTS)
@ROUND_TRIP
@given(data=st.data())
def test_every_dialect_decodes_what_it_encodes(name: str, data: st.DataObject) -> None:
    codec = dialects()[name]
    turn = data.draw(turns(name), label="turn")
    if codec.can_express(turn) is not None:
        return
    assert codec.decode(wire(codec, turn), source="t") == turn


@pytest.mark.slow
def test_the_generator_makes_turns_openai_chat_can_carry_and_turns_it_refuses() -> None:
    """The skip in the round trip is not everything: single-cycle turns reach the decoder."""
    codec = dialects()["openai-chat"]
    seen: set[bool] = set()

    @settings(max_examples=60, deadline=None, database=None)
    @given(turn=turns("openai-chat"))
    def sample(turn: tuple[dv.TurnEvent, ...]) -> None:
        seen.add(codec.can_express(turn) is None)

    sample()
    assert seen == {True, False}


#: quirks that by design change what a driver must recover (which call a fragment belongs to, or
#: the call's id): the decoded turn keeps the number of calls and their arguments. Under them the
#: call's id (and name) is all that tells calls apart, so the turns have distinct, non-empty ids:
#: two calls with no id and no name at the same (or no) index are one call on that wire.
CHANGES_IDENTITY = {"same_index", "no_index", "id_changes"}
QUIRK_CASES = [(name, quirk) for name in DIALECTS for quirk in sorted(dialects()[name].quirks)]


def _calls(turn: Sequence[dv.TurnEvent]) -> list[tuple[int, int, str, str, str]]:
    return [(c.cycle, c.index, c.id, c.name, c.arguments) for c in turn_facts(turn).calls]


def _texts(turn: Sequence[dv.TurnEvent]) -> list[str]:
    return [text for _, text in turn_facts(turn).texts]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "quirk"), QUIRK_CASES)
@settings(
    max_examples=examples(60),
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(data=st.data())
def test_every_quirk_still_decodes_to_the_same_calls_and_texts(
    name: str, quirk: str, data: st.DataObject
) -> None:
    codec = dialects()[name]
    turn = data.draw(turns(name, distinct_ids=quirk in CHANGES_IDENTITY), label="turn")
    if codec.can_express(turn) is not None:
        return
    decoded = codec.decode(wire(codec, turn, [quirk]), source=f"{name} with {quirk}")
    assert _texts(decoded) == _texts(turn)
    if quirk in CHANGES_IDENTITY:
        got, want = turn_facts(decoded).calls, turn_facts(turn).calls
        assert len(got) == len(want)
        assert [c.arguments for c in got] == [c.arguments for c in want]
    else:
        assert _calls(decoded) == _calls(turn)


def _two_call_turn() -> tuple[dv.TurnEvent, ...]:
    return (
        dv.CycleStart(message_id="msg_q"),
        dv.BlockStart(index=0, block="text"),
        dv.TextDelta(index=0, text="Writing both."),
        dv.BlockStop(index=0),
        dv.BlockStart(index=1, block="tool_use", id="call_a", name="write_file"),
        dv.ArgumentsDelta(index=1, fragment='{"path": '),
        dv.ArgumentsDelta(index=1, fragment='"a.rs"}'),
        dv.BlockStop(index=1),
        dv.BlockStart(index=2, block="tool_use", id="call_b", name="write_file"),
        dv.ArgumentsDelta(index=2, fragment='{"path": '),
        dv.ArgumentsDelta(index=2, fragment='"b.rs"}'),
        dv.BlockStop(index=2),
        dv.CycleDelta(stop_reason="tool_use"),
        dv.CycleStop(),
    )


#: quirks of thinking blocks, which the two-call turn has none of
THINKING_QUIRKS = {"signature_delta", "reasoning_events"}
#: quirks of a server's error mid-stream, which the two-call turn has none of
ERROR_QUIRKS = {"error_event_line", "error_event"}


def _error_turn() -> tuple[dv.TurnEvent, ...]:
    """The two-call turn's first call, then the server's error in the second's arguments."""
    return (*_two_call_turn()[:10], dv.StreamError(error_type="server_error", message="boom"))


def _thinking_turn() -> tuple[dv.TurnEvent, ...]:
    return (
        dv.CycleStart(message_id="msg_t"),
        dv.BlockStart(index=0, block="thinking"),
        dv.ThinkingDelta(index=0, text="Both files."),
        dv.BlockStop(index=0),
        *_two_call_turn()[4:],
    )


def _non_ascii_turn() -> tuple[dv.TurnEvent, ...]:
    """The two-call turn with a text of two-, three- and four-byte characters."""
    turn = list(_two_call_turn())
    turn[2] = dv.TextDelta(index=0, text="Écriture des deux — 🙂")
    return tuple(turn)


@pytest.mark.parametrize(("name", "quirk"), QUIRK_CASES)
def test_every_quirk_changes_the_wire(name: str, quirk: str) -> None:
    codec = dialects()[name]
    turn = (
        _thinking_turn()
        if quirk in THINKING_QUIRKS
        else _error_turn()
        if quirk in ERROR_QUIRKS
        else _two_call_turn()
    )
    if quirk == "ascii_escapes":
        turn = _non_ascii_turn()
    if codec.can_express(turn) is not None:
        pytest.skip(f"{name} cannot carry the two-call turn: {codec.can_express(turn)}")
    # a quirk may change only where the body is cut into chunks: compare the chunks
    plain = [chunk.data for chunk in codec.encode(turn)]
    assert [chunk.data for chunk in codec.encode(turn, [quirk])] != plain


@pytest.mark.parametrize("quirk", ["same_index", "no_index", "id_changes"])
def test_openai_identity_quirks_keep_each_call_with_its_first_id(quirk: str) -> None:
    codec = dialects()["openai-chat"]
    decoded = codec.decode(wire(codec, _two_call_turn(), [quirk]), source="t")
    assert [(c.id, c.name, c.arguments) for c in turn_facts(decoded).calls] == [
        ("call_a", "write_file", '{"path": "a.rs"}'),
        ("call_b", "write_file", '{"path": "b.rs"}'),
    ]


# -- real traffic ---------------------------------------------------------------------------------

Call = tuple[str, str, str]  # id, name, the joined argument text


@dataclass(frozen=True)
class Recording:
    path: str
    #: cassette interaction; None for a raw SSE file or a JSON-lines chunk file
    interaction: int | None
    dialect: str
    calls: tuple[Call, ...]
    #: the canonical stop reason, or None when the stream gives no finish reason at all
    reason: str | None
    texts: tuple[str, ...] = ()

    @property
    def id(self) -> str:
        where = "" if self.interaction is None else f"#{self.interaction}"
        return f"{self.path}{where}"


F82 = "openai-python/f82268f2fefd5cfbc7eeb59c297688be2f6ca0849a6e4f17851b517310841d9b.bin"
F2018 = "openai-python/2018feb66ae13fcf5333d61b95849decc68d3f63bd38172889367e1afb1e04f7.bin"
N3 = "openai-python/a491adda08c3d4fde95f5b2ee3f60f7f745f1a56d82e62f58031cc2add502380.bin"
GROQ_ERROR = "pydantic-ai/test_tool_use_failed_error_streaming.yaml"
VARIANT_A = "llm/test_tools_streaming_variant_a.yaml"
FINAL_RESULT = (
    '{"answers":[{"label":"Capital","answer":"The capital of Mexico is Mexico City."},'
    '{"label":"Weather","answer":"The weather in Mexico City is currently sunny."},'
    '{"label":"Product Name","answer":"The product name is Pydantic AI."}]}'
)
TAXES = (
    '{"filename": "taxes.txt", "lines_of_text": [\n'
    '"# COMPREHENSIVE TAX GUIDE FOR INDIVIDUALS WITH MULTIPLE W-2s",\n"",\n'
    '"## INTRODUCTION",\n"",\n"Filing taxes'
)
WRITER = [
    ("5ac885d9b1b54a66b11f014a1ecb5b9d", "Zakopane"),
    ("368eedfd835c4186b5cb97c69d803cf0", "Warsaw"),
    ("af73f77676e3402e9e04a4f867552ddd", "Lodz"),
    ("e9d9b531d7954d789c1ccc21dbdd3be0", "Katowice"),
    ("a5155160b47c4f5c9f02eb234cac9e7c", "Krakow"),
    ("aad9face17d14c7296dd569213e61f47", "Poznan"),
    ("938c427496df48f3b2efb60d6a854461", "Lublin"),
]

RECORDINGS = [
    # Anthropic Messages
    Recording(
        "anthropic-sdk-python/tool_use_response.txt",
        None,
        "anthropic",
        (("toolu_01NRLabsLyVHZPKxbKvkfSMn", "get_weather", '{"location": "Paris"}'),),
        "tool_use",
        ("I'll check the current weather in Paris for you.",),
    ),
    Recording(
        "anthropic-sdk-python/incomplete_partial_json_response.txt",
        None,
        "anthropic",
        (("toolu_01EKqbqmZrGRXy18eN7m9kvY", "make_file", TAXES),),
        "max_tokens",
        (
            "I'll create a comprehensive tax guide for someone with multiple W2s and save it "
            "in a file called taxes.txt. Let me do that for you now.",
        ),
    ),
    Recording(
        "llm-anthropic/test_tools.yaml",
        0,
        "anthropic",
        (
            ("toolu_01LtHJmixrs9NcWQkK8hu8hj", "pelican_name_generator", ""),
            ("toolu_01N8a4jWyf116qKTMqKKmjyt", "pelican_name_generator", ""),
        ),
        "tool_use",
    ),
    Recording("llm-anthropic/test_tools.yaml", 1, "anthropic", (), "end_turn"),
    Recording(
        "llm-anthropic/test_fixed_version_tool_chain_with_thinking_display_regression.yaml",
        0,
        "anthropic",
        (("toolu_01825dXWLSoJwCst1qTsiWdb", "fixed_version", ""),),
        "tool_use",
    ),
    Recording(
        "llm-anthropic/test_fixed_version_tool_chain_with_thinking_display_regression.yaml",
        1,
        "anthropic",
        (),
        "end_turn",
    ),
    Recording(
        "llm-anthropic/test_web_search.yaml",
        0,
        "anthropic",
        (
            (
                "srvtoolu_01SPfvT38PDPAFnkcrMNGUrM",
                "web_search",
                '{"query": "San Francisco weather today"}',
            ),
        ),
        "end_turn",
    ),
    Recording(
        "openllmetry/test_anthropic_tools_streaming_legacy.yaml",
        0,
        "anthropic",
        (
            (
                "toolu_014x5X91kx3fvdhpLvwXZWE2",
                "get_weather",
                '{"location": "San Francisco, CA", "unit": "celsius"}',
            ),
            ("toolu_0121kXsENLvoDZ72LCuAnCCz", "get_time", '{"timezone": "America/Los_Angeles"}'),
        ),
        "tool_use",
        (
            "Certainly! I can help you with that information. To get the weather and current "
            "time in San Francisco, I'll need to use two separate functions. Let me fetch that "
            "data for you.",
        ),
    ),
    # OpenAI Chat Completions (and compatible servers)
    Recording(
        F82,
        None,
        "openai-chat",
        (
            (
                "call_JMW1whyEaYG438VE1OIflxA2",
                "GetWeatherArgs",
                '{"city": "Edinburgh", "country": "GB", "units": "c"}',
            ),
            (
                "call_DNYTawLBoN8fj3KN6qU9N1Ou",
                "get_stock_price",
                '{"ticker": "AAPL", "exchange": "NASDAQ"}',
            ),
        ),
        "tool_use",
    ),
    Recording(
        F2018,
        None,
        "openai-chat",
        (("call_4XzlGBLtUe9dy3GVNV4jhq7h", "get_weather", '{"city":"New York City"}'),),
        "tool_use",
    ),
    Recording(VARIANT_A, 0, "openai-chat", (("0", "llm_version", "{}"),), None),
    Recording(VARIANT_A, 1, "openai-chat", (), "end_turn"),
    Recording(
        "llm/test_tools_streaming_variant_c.yaml",
        0,
        "openai-chat",
        (("llm_version:0", "llm_version", "{}"),),
        "tool_use",
    ),
    Recording("llm/test_tools_streaming_variant_c.yaml", 1, "openai-chat", (), "end_turn"),
    Recording(
        "llm/test_tool_use_basic.yaml",
        0,
        "openai-chat",
        (("call_1EYWDzueHEp8OsB8jJSEp7WB", "multiply", '{"a":1231,"b":2331}'),),
        "tool_use",
    ),
    Recording("llm/test_tool_use_basic.yaml", 1, "openai-chat", (), "end_turn"),
    Recording(
        "opentelemetry-python-contrib/test_chat_completion_multiple_tools_streaming_with_content.yaml",
        0,
        "openai-chat",
        (
            ("call_fHCjJqt9Pysde6vcJcvbXGBx", "get_current_weather", '{"location": "Seattle, WA"}'),
            (
                "call_3J9foSw3CUb48lrqIXoTky6U",
                "get_current_weather",
                '{"location": "San Francisco, CA"}',
            ),
        ),
        "tool_use",
    ),
    *(
        Recording(
            "openllmetry/test_open_ai_function_calls_tools_streaming_parallel.yaml",
            number,
            "openai-chat",
            (
                (first, "get_current_weather", '{"location": "San Francisco"}'),
                (second, "get_current_weather", '{"location": "Boston"}'),
            ),
            "tool_use",
        )
        for number, first, second in [
            (0, "call_cCPjAyfwTzboEKjVlqFrArNF", "call_Zi4He1Ns0mozwT6f85nW1BOW"),
            (1, "call_u0T52evs3Y0byXDiUv5Al8dG", "call_iXfR9wmFaDTHUw5YaVxD1uFH"),
        ]
    ),
    Recording(
        "openllmetry/test_writer_streaming_chat_multiple_tool_call_requests_legacy.yaml",
        0,
        "openai-chat",
        tuple(
            (f"chatcmpl-tool-{suffix}", "get_weather", f'{{"location": "{city}"}}')
            for suffix, city in WRITER
        ),
        "tool_use",
    ),
    Recording(
        "pydantic-ai/test_complex_agent_run.yaml",
        0,
        "openai-chat",
        (
            ("call_q2UyBRP7eXNTzAoR8lEhjc9Z", "get_country", "{}"),
            ("call_b51ijcpFkDiTQG1bQzsrmtW5", "get_product_name", "{}"),
        ),
        "tool_use",
    ),
    Recording(
        "pydantic-ai/test_complex_agent_run.yaml",
        1,
        "openai-chat",
        (("call_LwxJUB9KppVyogRRLQsamRJv", "get_weather", '{"city":"Mexico City"}'),),
        "tool_use",
    ),
    Recording(
        "pydantic-ai/test_complex_agent_run.yaml",
        2,
        "openai-chat",
        (("call_CCGIWaMeYWmxOQ91orkmTvzn", "final_result", FINAL_RESULT),),
        "tool_use",
    ),
    Recording(
        GROQ_ERROR,
        1,
        "openai-chat",
        (
            (
                "fc_bc6fb53e-e06a-4106-bc42-cc5af9731e82",
                "get_something_by_name",
                '{"name":"test_name"}',
            ),
        ),
        "tool_use",
    ),
    Recording(GROQ_ERROR, 2, "openai-chat", (), "end_turn"),
    Recording(
        "vercel-ai/xai-tool-call.chunks.txt",
        None,
        "openai-chat",
        (("call_55117580", "weather", '{"location":"San Francisco"}'),),
        "tool_use",
    ),
    Recording(
        "vercel-ai/groq-tool-call.chunks.txt",
        None,
        "openai-chat",
        (("tk85n1k4m", "weather", "{}"),),
        "tool_use",
    ),
    Recording(
        "vercel-ai/deepseek-tool-call.chunks.txt",
        None,
        "openai-chat",
        (("call_00_IhCAliIHtM9gKpgfqbBV9873", "weather", '{"location": "San Francisco"}'),),
        "tool_use",
    ),
]

#: what the decoder gets wrong on real traffic, as strict xfails (none known now)
DECODER_BUGS: dict[str, str] = {}


def _params(recordings: Sequence[Recording], *, decoded: bool = True) -> list[Any]:
    """Test parameters; where the test relies on the decoder, its known bugs are strict xfails."""
    out = []
    for r in recordings:
        bug = DECODER_BUGS.get(r.id) if decoded else None
        marks = [pytest.mark.xfail(reason=bug, strict=True)] if bug else []
        out.append(pytest.param(r, id=r.id, marks=marks))
    return out


def recording(path: str, interaction: int | None = None) -> Recording:
    (found,) = [r for r in RECORDINGS if (r.path, r.interaction) == (path, interaction)]
    return found


def body_of(recording: Recording) -> tuple[str, str]:
    """The recorded response body as the wire carried it, and how errors name it."""
    path = REAL / recording.path
    if path.name.endswith(".chunks.txt"):
        # JSON-lines chunk files: the SSE framing was stripped when they were saved
        lines = path.read_text(encoding="utf-8").splitlines()
        return "".join(f"data: {line}\n\n" for line in lines if line.strip()), str(path)
    if recording.interaction is None:
        return path.read_bytes().decode("utf-8"), str(path)
    interaction = read_cassette(path)[recording.interaction]
    return interaction.response_body, interaction.response_source


def sse_pieces(body: str) -> list[str]:
    """The body cut after each blank line: one chunk per server-sent event, as it arrived."""
    return [piece for piece in re.findall(r"(?s).*?(?:\r?\n\r?\n|\r\r|\Z)", body) if piece]


def test_every_anthropic_and_chat_completions_recording_is_listed() -> None:
    """The manifest's Anthropic Messages and Chat Completions streams are all checked here."""
    manifest = (REAL / "MANIFEST.md").read_text(encoding="utf-8")
    wanted = set()
    for row in manifest.splitlines():
        cells = [cell.strip() for cell in row.split("|")]
        if len(cells) > 3 and (
            cells[2].startswith("Anthropic Messages")
            or "Chat Completions" in cells[2]
            or "OpenAI-compatible" in cells[2]
        ):
            wanted.add(cells[1].split("…")[0].split(" ")[0])
    # the n=3 stream is several turns at once, refused as one (tests/test_driver_claims.py);
    # test_openai_n3_recording_decodes_each_choice reads its choices one by one
    listed = {r.path for r in RECORDINGS} | {GROQ_ERROR, N3}
    missing = {w for w in wanted if not any(p.startswith(w) for p in listed)}
    assert len(wanted) == 20
    assert missing == set()


@pytest.mark.parametrize("rec", _params(RECORDINGS))
def test_real_stream_decodes_to_the_calls_in_the_file(rec: Recording) -> None:
    body, source = body_of(rec)
    turn = dialects()[rec.dialect].decode(body, source=source)
    facts = turn_facts(turn)
    assert [(c.id, c.name, c.arguments) for c in facts.calls] == list(rec.calls)
    # the stop reason the wire gives (how the rules read it, e.g. calls under end_turn, is theirs)
    reasons = [e.stop_reason for e in turn if isinstance(e, dv.CycleDelta)]
    assert reasons == ([] if rec.reason is None else [rec.reason])
    if rec.texts:
        assert [text for _, text in facts.texts if text] == list(rec.texts)
    assert all(event.line >= 1 for event in turn)


def test_truncated_anthropic_arguments_stay_truncated_and_invalid() -> None:
    body, source = body_of(recording("anthropic-sdk-python/incomplete_partial_json_response.txt"))
    (call,) = turn_facts(dialects()["anthropic"].decode(body, source=source)).calls
    assert call.arguments.endswith('"Filing taxes')
    assert call.valid is False
    with pytest.raises(json.JSONDecodeError):
        json.loads(call.arguments)


def test_anthropic_thinking_is_decoded_and_signature_deltas_skipped() -> None:
    body, source = body_of(
        recording(
            "llm-anthropic/test_fixed_version_tool_chain_with_thinking_display_regression.yaml", 0
        )
    )
    turn = dialects()["anthropic"].decode(body, source=source)
    thinking = "".join(e.text for e in turn if isinstance(e, dv.ThinkingDelta))
    assert thinking == (
        "The user wants me to:\n1. Use the fixed_version tool\n2. Tell them the version\n"
        "3. Make a short joke about it\n\nLet me first call the fixed_version tool to see what "
        "version it returns."
    )
    starts = [(e.index, e.block) for e in turn if isinstance(e, dv.BlockStart)]
    assert starts == [(0, "thinking"), (1, "tool_use")]


def test_anthropic_message_ids_come_from_message_start() -> None:
    body, source = body_of(recording("anthropic-sdk-python/tool_use_response.txt"))
    turn = dialects()["anthropic"].decode(body, source=source)
    assert [e.message_id for e in turn if isinstance(e, dv.CycleStart)] == [
        "msg_019Q1hrJbZG26Fb9BQhrkHEr"
    ]
    assert sum(isinstance(e, dv.Ping) for e in turn) == 1


def test_pydantic_ai_final_result_streams_53_argument_deltas() -> None:
    body, source = body_of(recording("pydantic-ai/test_complex_agent_run.yaml", 2))
    turn = dialects()["openai-chat"].decode(body, source=source)
    fragments = [e.fragment for e in turn if isinstance(e, dv.ArgumentsDelta)]
    assert len(fragments) == 53
    assert fragments[0] == '{"' and fragments[-1] == "]}"
    assert "".join(fragments) == FINAL_RESULT


def test_openai_f82268f2_calls_keep_their_stream_index_order() -> None:
    body, source = body_of(recording(F82))
    turn = dialects()["openai-chat"].decode(body, source=source)
    starts = [(e.index, e.id, e.name) for e in turn if isinstance(e, dv.BlockStart)]
    assert starts == [
        (0, "call_JMW1whyEaYG438VE1OIflxA2", "GetWeatherArgs"),
        (1, "call_DNYTawLBoN8fj3KN6qU9N1Ou", "get_stock_price"),
    ]


@pytest.mark.parametrize(
    ("choice", "temperature"), [(0, 65), (1, 61), (2, 59)], ids=["choice0", "choice1", "choice2"]
)
def test_openai_n3_recording_decodes_each_choice(choice: int, temperature: int) -> None:
    body = (REAL / N3).read_text(encoding="utf-8")
    turn = OpenAIChatCodec().decode(body, source=N3, choice=choice)  # a choice: this codec only
    facts = turn_facts(turn)
    assert facts.calls == ()
    assert [text for _, text in facts.texts] == [
        f'{{"city":"San Francisco","temperature":{temperature},"units":"f"}}'
    ]
    assert facts.final_reason == "end_turn"


def test_writer_stream_without_done_still_ends_its_message() -> None:
    body, source = body_of(
        recording(
            "openllmetry/test_writer_streaming_chat_multiple_tool_call_requests_legacy.yaml", 0
        )
    )
    assert "[DONE]" not in body
    turn = dialects()["openai-chat"].decode(body, source=source)
    assert isinstance(turn[-1], dv.CycleStop)
    assert len(turn_facts(turn).calls) == 7


def test_variant_c_first_line_with_a_leading_space_is_not_a_data_field() -> None:
    """` data:` (leading space) names the field " data", which SSE ignores: the stream starts at
    the next event, with the same message id."""
    body, source = body_of(recording("llm/test_tools_streaming_variant_c.yaml", 0))
    assert body.startswith(" data: ")
    second = next(n for n, line in enumerate(body.splitlines(), 1) if line.startswith("data: "))
    turn = dialects()["openai-chat"].decode(body, source=source)
    assert turn[0] == dv.CycleStart(message_id="gen-1753248108-FGOxpkEzFEwhNKSPpI4a")
    assert turn[0].line == second


def test_groq_error_event_mid_stream_is_the_turns_error_at_its_line() -> None:
    path = REAL / GROQ_ERROR
    lines = path.read_text(encoding="utf-8").splitlines()
    body_starts = next(n for n, line in enumerate(lines, 1) if line.strip() == "string: |+") + 1
    error_at = next(n for n, line in enumerate(lines, 1) if line.strip() == "event: error")
    interaction = read_cassette(path)[0]
    turn = dialects()["openai-chat"].decode(
        interaction.response_body, source=interaction.response_source
    )
    error = turn[-1]
    assert isinstance(error, dv.StreamError)
    assert error.line == error_at - body_starts + 1 == 201
    assert error.error_type == "invalid_request_error"
    assert error.message.startswith("Tool call validation failed")
    facts = turn_facts(turn)
    assert (facts.error, facts.ended, facts.calls) == (len(turn) - 1, False, ())
    assert not any(isinstance(e, (dv.CycleDelta, dv.CycleStop)) for e in turn)


def _reference(dialect: str) -> Any:
    return BUNDLED[f"driver-{dialect}-reference"].factory()


def _drive(dialect: str, chunks: Sequence[str]) -> list[Any]:
    return list(_reference(dialect).drive(iter(chunks)))


def _emitted_calls(outputs: Sequence[Any]) -> list[Call]:
    return [(o.id, o.name, o.arguments) for o in outputs if isinstance(o, ToolCallOut)]


@pytest.mark.parametrize("rec", _params(RECORDINGS, decoded=False))
def test_reference_driver_emits_the_recorded_calls_fed_the_original_body(rec: Recording) -> None:
    body, _ = body_of(rec)
    outputs = _drive(rec.dialect, sse_pieces(body))
    assert _emitted_calls(outputs) == list(rec.calls)
    for output in outputs:
        if isinstance(output, ToolCallOut):
            assert output.valid is (output.arguments == "" or _parses(output.arguments))
    if rec.texts:
        assert "".join(o.text for o in outputs if isinstance(o, TextOut)) == "".join(rec.texts)


def _parses(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False


@pytest.mark.parametrize("rec", _params(RECORDINGS))
def test_reference_driver_emits_the_decoded_calls_re_encoded(rec: Recording) -> None:
    body, source = body_of(rec)
    codec = dialects()[rec.dialect]
    turn = codec.decode(body, source=source)
    outputs = _drive(rec.dialect, [chunk.data for chunk in codec.encode(turn)])
    assert _emitted_calls(outputs) == list(rec.calls)
    ends = [o for o in outputs if isinstance(o, TurnEnd)]
    facts = turn_facts(turn)
    if facts.ended:
        assert ends == [TurnEnd(facts.final_reason)]
    else:  # the turn goes on after the tool results: a driver may say it paused for tools
        assert all(end.stop_reason == "tool_use" for end in ends)


@pytest.mark.parametrize("rec", _params(RECORDINGS))
def test_decoded_real_turn_replays_clean_through_the_reference_driver(rec: Recording) -> None:
    """Every driver rule holds for the reference driver on the decoded real turn."""
    body, source = body_of(rec)
    turn = dialects()[rec.dialect].decode(body, source=source)
    scenario = turn_scenario(turn, id=rec.id, dialects=(rec.dialect,))
    result = replay(scenario, BUNDLED[f"driver-{rec.dialect}-reference"])
    assert (result.status, result.error, result.violations) == ("pass", None, ())


# -- malformed wire input -------------------------------------------------------------------------


def _simple_turn() -> tuple[dv.TurnEvent, ...]:
    return (
        dv.CycleStart(message_id="msg_m"),
        dv.BlockStart(index=0, block="text"),
        dv.TextDelta(index=0, text="Reading."),
        dv.BlockStop(index=0),
        dv.BlockStart(index=1, block="tool_use", id="call_r", name="read_file"),
        dv.ArgumentsDelta(index=1, fragment='{"path": '),
        dv.ArgumentsDelta(index=1, fragment='"a.txt"}'),
        dv.BlockStop(index=1),
        dv.CycleDelta(stop_reason="end_turn"),
        dv.CycleStop(),
    )


def _lines(text: str) -> int:
    return len(re.findall(r"\r\n|\r|\n", text))


@pytest.mark.parametrize("name", SSE_DIALECTS)
def test_invalid_json_in_data_is_a_wire_error_at_the_event_line(name: str) -> None:
    codec = dialects()[name]
    first = codec.encode(_simple_turn())[0].data
    body = first + 'event: content_block_delta\ndata: {"type": "content_block_delta", "ind\n\n'
    with pytest.raises(WireError) as caught:
        codec.decode(body, source="broken.sse")
    assert (caught.value.source, caught.value.line) == ("broken.sse", _lines(first) + 1)
    assert "not valid JSON" in caught.value.message


@pytest.mark.parametrize("name", SSE_DIALECTS)
def test_two_events_without_a_blank_line_between_are_a_wire_error(name: str) -> None:
    """Broken framing: the data lines of two events join into one value that is not JSON."""
    codec = dialects()[name]
    chunks = codec.encode(_simple_turn())
    body = chunks[0].data.rstrip("\r\n") + "\n" + "".join(c.data for c in chunks[1:])
    with pytest.raises(WireError) as caught:
        codec.decode(body, source="run-together.sse")
    assert (caught.value.source, caught.value.line) == ("run-together.sse", 1)
    assert "not valid JSON" in caught.value.message


@pytest.mark.parametrize("name", SSE_DIALECTS)
def test_stream_cut_inside_an_event_is_a_wire_error_at_that_event(name: str) -> None:
    codec = dialects()[name]
    chunks = codec.encode(_simple_turn())
    head = "".join(c.data for c in chunks[:3])
    cut = chunks[3].data[: len(chunks[3].data) // 2]
    with pytest.raises(WireError) as caught:
        codec.decode(head + cut, source="cut.sse")
    assert (caught.value.source, caught.value.line) == ("cut.sse", _lines(head) + 1)


@pytest.mark.parametrize("name", SSE_DIALECTS)
def test_tolerated_last_event_without_its_closing_blank_line(name: str) -> None:
    codec = dialects()[name]
    body = wire(codec, _simple_turn()).rstrip("\n")
    assert codec.decode(body, source="t") == _simple_turn()


@pytest.mark.parametrize("name", SSE_DIALECTS)
def test_tolerated_comments_ids_retry_and_unknown_fields(name: str) -> None:
    codec = dialects()[name]
    extra = ": keep-alive\nid: 7\nretry: 1000\nfoo: bar\nno-colon-line\n"
    body = "".join(extra + chunk.data for chunk in codec.encode(_simple_turn()))
    assert codec.decode(body, source="t") == _simple_turn()


@pytest.mark.parametrize("name", SSE_DIALECTS)
def test_tolerated_cr_only_line_ends(name: str) -> None:
    codec = dialects()[name]
    body = wire(codec, _simple_turn()).replace("\n", "\r")
    assert "\n" not in body
    assert codec.decode(body, source="t") == _simple_turn()


@pytest.mark.parametrize("name", SSE_DIALECTS)
def test_tolerated_json_split_across_two_data_lines(name: str) -> None:
    codec = dialects()[name]
    chunks = [c.data for c in codec.encode(_simple_turn())]
    # the joined data lines keep a "\n" between them, which JSON reads as whitespace
    chunks = [re.sub(r"(data: [^\n]*?,)", r"\1\ndata: ", c, count=1) for c in chunks]
    assert any("\ndata: " in c and c.count("data:") == 2 for c in chunks)
    assert codec.decode("".join(chunks), source="t") == _simple_turn()


@pytest.mark.parametrize("name", SSE_DIALECTS)
def test_binary_body_is_a_wire_error_at_the_bad_byte(name: str) -> None:
    body = b"data: {}\n\n\xff\xfe\x00binary"
    with pytest.raises(WireError) as caught:
        # bytes, not text: a caller that skipped decoding gets a located error, not a crash
        dialects()[name].decode(body, source="body.bin")  # type: ignore[arg-type]
    assert (caught.value.source, caught.value.line) == ("body.bin", 3)
    assert "binary, not UTF-8" in caught.value.message


@pytest.mark.parametrize("name", SSE_DIALECTS)
def test_body_with_a_nul_is_a_wire_error(name: str) -> None:
    with pytest.raises(WireError) as caught:
        dialects()[name].decode("data: {}\n\nda\x00ta\n\n", source="nul.sse")
    assert (caught.value.source, caught.value.line) == ("nul.sse", 3)


def test_binary_cassette_body_is_a_wire_error_naming_the_cassette_line(tmp_path: Path) -> None:
    raw = b"\x00\x00\x00\x9e\x00\x00\x00\x4b\xffeventstream"
    path = _binary_body_cassette(tmp_path / "binary.yaml", raw)
    with pytest.raises(WireError) as caught:
        read_cassette(path)
    assert (caught.value.source, caught.value.line) == (str(path), _line_of(path, "string:"))
    assert "interactions[0] response body is binary, not UTF-8" in caught.value.message


def test_gzip_cassette_body_without_content_encoding_says_so(tmp_path: Path) -> None:
    raw = gzip.compress(b"data: {}\n\n")
    path = _binary_body_cassette(tmp_path / "gz.yaml", raw)
    with pytest.raises(WireError) as caught:
        read_cassette(path)
    assert (caught.value.source, caught.value.line) == (str(path), _line_of(path, "string:"))
    assert "no `Content-Encoding: gzip` header" in caught.value.message


def _binary_body_cassette(path: Path, raw: bytes) -> Path:
    """A cassette of one interaction whose response body vcrpy stored as ``!!binary``, with no
    headers."""
    path.write_text(
        "interactions:\n"
        "- request: {body: null, headers: {}, method: POST, uri: 'https://x'}\n"
        "  response:\n"
        "    body:\n"
        f"      string: !!binary {base64.b64encode(raw).decode()}\n"
        "    headers: {}\n"
        "    status: {code: 200, message: OK}\n"
        "version: 1\n",
        encoding="utf-8",
    )
    return path


def _line_of(path: Path, text: str) -> int:
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(n for n, line in enumerate(lines, 1) if line.strip().startswith(text))


def _anthropic_head() -> str:
    return wire(dialects()["anthropic"], _simple_turn()[:3])


def test_unknown_anthropic_event_type_is_a_wire_error_at_its_line() -> None:
    head = _anthropic_head()
    body = head + 'event: content_block_flux\ndata: {"type":"content_block_flux","index":0}\n\n'
    with pytest.raises(WireError) as caught:
        dialects()["anthropic"].decode(body, source="flux.sse")
    assert (caught.value.source, caught.value.line) == ("flux.sse", _lines(head) + 1)
    assert "'content_block_flux'" in caught.value.message


def test_unknown_anthropic_delta_type_is_a_wire_error_at_its_line() -> None:
    head = _anthropic_head()
    body = head + (
        'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,'
        '"delta":{"type":"hologram_delta","x":1}}\n\n'
    )
    with pytest.raises(WireError) as caught:
        dialects()["anthropic"].decode(body, source="d.sse")
    assert (caught.value.source, caught.value.line) == ("d.sse", _lines(head) + 1)
    assert "'hologram_delta'" in caught.value.message


def test_tolerated_anthropic_signature_and_citations_deltas_are_skipped() -> None:
    head = _anthropic_head()
    body = head + (
        'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,'
        '"delta":{"type":"signature_delta","signature":"EoQD"}}\n\n'
        'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,'
        '"delta":{"type":"citations_delta","citation":{"type":"web_search_result_location"}}}\n\n'
    )
    assert dialects()["anthropic"].decode(body, source="t") == _simple_turn()[:3]


def test_anthropic_error_event_ends_the_turn_with_its_error() -> None:
    head = _anthropic_head()
    body = head + (
        'event: error\ndata: {"type":"error","error":{"type":"overloaded_error",'
        '"message":"Overloaded"}}\n\n'
        'event: ping\ndata: {"type":"ping"}\n\n'
    )
    turn = dialects()["anthropic"].decode(body, source="overloaded.sse")
    assert turn[-1] == dv.StreamError(error_type="overloaded_error", message="Overloaded")
    assert turn[-1].line == _lines(head) + 1  # and the ping after it is not read


def test_openai_error_object_ends_the_turn_with_its_error() -> None:
    codec = dialects()["openai-chat"]
    head = wire(codec, _simple_turn()[:3])
    body = head + 'data: {"error":{"message":"upstream timed out","code":504}}\n\n'
    turn = codec.decode(body, source="e.sse")
    assert turn[-1] == dv.StreamError(error_type="504", message="upstream timed out")
    assert turn[-1].line == _lines(head) + 1
    assert not any(isinstance(e, dv.CycleStop) for e in turn)  # no stop made up after it


@pytest.mark.parametrize("name", sorted(dialects()))
@pytest.mark.parametrize("quirks", [(), ("error_event_line", "error_event")])
def test_every_dialect_writes_the_servers_error_and_reads_it_back(
    name: str, quirks: tuple[str, ...]
) -> None:
    codec = dialects()[name]
    turn = (
        dv.CycleStart(message_id="msg_e"),
        dv.BlockStart(index=0, block="text"),
        dv.TextDelta(index=0, text="Half an answer"),
        dv.StreamError(error_type="UNAVAILABLE", message="The model is overloaded."),
    )
    assert codec.can_express(turn, quirks) is None
    chunks = codec.encode(turn, quirks)
    assert chunks[-1].origin == 3 or name == "gemini-json-array"  # the array's closing ']'
    decoded = codec.decode("".join(c.data for c in chunks), source="e")
    assert decoded[-1] == turn[-1]
    facts = turn_facts(decoded)
    assert (facts.error, facts.ended, [t for _, t in facts.texts]) == (
        len(decoded) - 1,
        False,
        ["Half an answer"],
    )


def _after_first_event(name: str, data: str) -> tuple[str, int]:
    """A body: the dialect's first event of a valid turn, then ``data`` as the next event; and
    the line that event starts on."""
    first = dialects()[name].encode(_simple_turn())[0].data
    return f"{first}data: {data}\n\n", _lines(first) + 1


@pytest.mark.parametrize(
    ("name", "data"),
    [("anthropic", "[DONE]"), ("anthropic", "[1, 2]"), ("openai-chat", '"chunk"')],
)
def test_data_that_is_not_an_object_is_a_wire_error(name: str, data: str) -> None:
    body, line = _after_first_event(name, data)
    with pytest.raises(WireError) as caught:
        dialects()[name].decode(body, source="s")
    assert (caught.value.source, caught.value.line) == ("s", line)


#: valid JSON in the wrong shape: each should be a WireError at the line of its event;
#: today the decoders raise KeyError / AttributeError / TypeError instead (reported)
WRONG_SHAPES = [
    ("anthropic", '{"type":"message_start"}'),
    ("anthropic", '{"type":"content_block_start","index":0}'),
    ("anthropic", '{"type":"content_block_delta","delta":{"type":"text_delta","text":"a"}}'),
    ("anthropic", '{"type":"content_block_delta","index":0,"delta":"x"}'),
    ("anthropic", '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta"}}'),
    ("anthropic", '{"type":"message_delta","delta":null}'),
    ("openai-chat", '{"choices":"abc"}'),
    ("openai-chat", '{"choices":[1]}'),
    ("openai-chat", '{"choices":[{"delta":{"tool_calls":[1]}}]}'),
    ("openai-chat", '{"choices":[{"delta":{"tool_calls":[{"index":0,"function":"f"}]}}]}'),
    ("openai-chat", '{"choices":[{"delta":{"tool_calls":[{"index":[0]}]}}]}'),
]


@pytest.mark.parametrize(("name", "data"), WRONG_SHAPES)
def test_valid_json_of_the_wrong_shape_is_a_wire_error(name: str, data: str) -> None:
    body, line = _after_first_event(name, data)
    with pytest.raises(WireError) as caught:
        dialects()[name].decode(body, source="shape.sse")
    assert (caught.value.source, caught.value.line) == ("shape.sse", line)


@pytest.mark.parametrize(
    ("name", "data"),
    [
        (
            "anthropic",
            '{"type":"content_block_start","index":"zero","content_block":{"type":"text"}}',
        ),
        ("openai-chat", '{"choices":[{"delta":{"content":5}}]}'),
        (
            "openai-chat",
            '{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","type":"function",'
            '"function":{"name":"n","arguments":7}}]}}]}',
        ),
    ],
)
def test_json_of_the_wrong_type_is_a_wire_error(name: str, data: str) -> None:
    body, line = _after_first_event(name, data)
    with pytest.raises(WireError) as caught:
        dialects()[name].decode(body, source="type.sse")
    assert (caught.value.source, caught.value.line) == ("type.sse", line)
