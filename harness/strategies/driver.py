"""Strategies for the driver layer: turns of a model's stream, as a dialect carries them.

A drawn turn is one or more message cycles (several only where the dialect carries an agent's
stream), each of text, thinking and tool-call blocks; tool-call arguments are JSON texts with
the characters that break naive assembly (escapes, quotes, multi-byte characters, nested keys),
cut into fragments at any point, inside an escape or a key included. A turn may end in a call cut
short by the token limit, run under a set of the dialect's quirks (parallel calls interleaving,
missing indices, ... as real servers send them) and be cancelled after any read.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from typing import Any

from hypothesis import assume
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from harness.codecs import Codec, dialects
from harness.model import driver as dv
from harness.scenario import DriverScenario
from harness.strategies.documents import header, scenario_from_document

#: tool names: few, so that parallel calls of the same tool come up
_NAMES = ("read_file", "search", "write_file")
#: characters that trip naive handling of JSON text and of streamed pieces of it
_TRICKY = st.sampled_from(['"', "\\", "\n", "é", "日", "🙂", "{", "}", ":", ",", " ", "a", "0"])
_KEYS = st.sampled_from(["path", "query", "content", "n", "ok", "a b", 'q"', "ключ"])


@functools.cache
def _json_values(depth: int) -> st.SearchStrategy[Any]:
    leaves = st.one_of(
        st.text(_TRICKY, max_size=6),
        st.integers(-1000, 1000),
        st.booleans(),
        st.none(),
    )
    if depth <= 0:
        return leaves
    return st.one_of(
        leaves,
        st.lists(_json_values(depth - 1), max_size=2),
        st.dictionaries(_KEYS, _json_values(depth - 1), max_size=2),
    )


@functools.cache
def arguments_json(*, max_keys: int = 3) -> st.SearchStrategy[str]:
    """A tool call's arguments: the JSON text of an object (``{}`` included)."""
    if not isinstance(max_keys, int) or max_keys < 0:
        raise InvalidArgument(f"max_keys={max_keys!r} should be an int >= 0")
    objects = st.dictionaries(_KEYS, _json_values(1), max_size=max_keys)
    return objects.map(lambda value: json.dumps(value, ensure_ascii=False))


def argument_fragments(text: str, *, max_fragments: int = 4) -> st.SearchStrategy[list[str]]:
    """``text`` cut into 1 to ``max_fragments`` non-empty pieces at any points."""
    if not isinstance(max_fragments, int) or max_fragments < 1:
        raise InvalidArgument(f"max_fragments={max_fragments!r} should be an int >= 1")
    if len(text) <= 1:
        return st.just([text] if text else [])
    cuts = st.lists(st.integers(1, len(text) - 1), max_size=max_fragments - 1, unique=True).map(
        sorted
    )
    return cuts.map(lambda at: [text[a:b] for a, b in zip([0, *at], [*at, len(text)], strict=True)])


@st.composite
def _tool_block(draw: st.DrawFn, call_id: str, cut: bool) -> dict[str, Any]:
    arguments = draw(arguments_json())
    fragments = draw(argument_fragments(arguments))
    if cut:  # the token limit cut the arguments short
        assume(len(arguments) > 2)
        keep = draw(st.integers(1, len(arguments) - 1))
        fragments = draw(argument_fragments(arguments[:keep]))
    block: dict[str, Any] = {"id": call_id, "name": draw(st.sampled_from(_NAMES))}
    block["fragments"] = fragments
    if cut:
        block["stopped"] = False
    return {"tool_use": block}


@st.composite
def _text_block(draw: st.DrawFn, kind: str) -> dict[str, Any]:
    text = draw(st.text(_TRICKY, min_size=1, max_size=8))
    return {kind: {"text": text, "chunks": draw(st.integers(1, min(3, len(text))))}}


@st.composite
def _cycle(draw: st.DrawFn, number: int, last: bool, calls: list[int]) -> dict[str, Any]:
    blocks: list[dict[str, Any]] = []
    if draw(st.booleans()):
        blocks.append(draw(_text_block("thinking")))
    tools = draw(st.integers(0 if last else 1, 3))
    if draw(st.booleans()):
        blocks.append(draw(_text_block("text")))
    cut = last and tools > 0 and draw(st.integers(0, 4)) == 0
    for k in range(tools):
        calls[0] += 1
        if k and draw(st.integers(0, 3)) == 0:
            blocks.append(draw(_text_block("text")))  # text between parallel calls
        blocks.append(draw(_tool_block(f"call_{calls[0]}", cut and k == tools - 1)))
    if not blocks:
        blocks.append(draw(_text_block("text")))
    cycle: dict[str, Any] = {"id": f"msg_{number:02d}", "blocks": blocks}
    if cut:
        cycle["stop_reason"] = "max_tokens"
    elif last and tools:
        cycle["stop_reason"] = draw(st.sampled_from(["tool_use", "end_turn"]))
    return {"cycle": cycle}


def _cuts(body: bytes) -> st.SearchStrategy[list[int]]:
    """Offsets to cut ``body`` at: anywhere, and often where framing breaks (inside a multi-byte
    character, between CR and LF, right after a line end)."""
    if len(body) < 2:
        return st.just([])
    inside = range(1, len(body))
    risky = sorted(
        {n for n in inside if 0x80 <= body[n] < 0xC0}  # a character's continuation byte
        | {n for n in inside if body[n - 1] in b"\r\n"}  # after a CR (inside a CRLF) or LF
    )
    anywhere = st.integers(1, len(body) - 1)
    points = st.one_of(st.sampled_from(risky), anywhere) if risky else anywhere
    return st.lists(points, unique=True, max_size=16).map(sorted)


def _carries_cycles(codec: Codec) -> bool:
    """The dialect carries several message cycles in one stream (an agent's stream)."""
    cycle = (dv.CycleStart(message_id="m"), dv.CycleDelta(stop_reason="end_turn"), dv.CycleStop())
    return codec.can_express(cycle * 2) is None


def _codec(dialect: str) -> Codec:
    known = dialects()
    if dialect not in known:
        raise InvalidArgument(f"dialect={dialect!r} is not a known dialect ({', '.join(known)})")
    return known[dialect]


def driver_documents(
    *,
    dialect: str,
    max_cycles: int = 3,
    quirks: bool | Sequence[str] = True,
    cancellation: bool = True,
    byte_cuts: bool = False,
) -> st.SearchStrategy[dict[str, Any]]:
    """Driver scenario documents in ``dialect``: up to ``max_cycles`` message cycles (one where
    the dialect carries one message per response), under up to two of the dialect's quirks
    (``quirks=True``), of these (a list), or none (``False``), and with ``cancellation``, at
    times cancelled after a read. With ``byte_cuts``, for a driver that reads bytes, the body is
    cut at drawn points (``byte_cuts:``): inside events, characters and CRLF pairs alike."""
    codec = _codec(dialect)
    if not isinstance(max_cycles, int) or max_cycles < 1:
        raise InvalidArgument(f"max_cycles={max_cycles!r} should be an int >= 1")
    if not isinstance(quirks, bool):
        unknown = [q for q in quirks if q not in codec.quirks]
        if unknown:
            raise InvalidArgument(f"{dialect} has no quirk {', '.join(map(repr, unknown))}")
    for flag, value in (("cancellation", cancellation), ("byte_cuts", byte_cuts)):
        if not isinstance(value, bool):
            raise InvalidArgument(f"{flag}={value!r} should be a bool")
    return _driver_document(codec, max_cycles, quirks, cancellation, byte_cuts)


@st.composite
def _driver_document(
    draw: st.DrawFn,
    codec: Codec,
    max_cycles: int,
    quirks: bool | Sequence[str],
    cancellation: bool,
    byte_cuts: bool,
) -> dict[str, Any]:
    count = draw(st.integers(1, max_cycles if _carries_cycles(codec) else 1))
    calls = [0]
    trace = [draw(_cycle(n + 1, n == count - 1, calls)) for n in range(count)]
    pool = sorted(codec.quirks) if quirks is True else list(quirks or ())
    chosen = draw(st.lists(st.sampled_from(pool), max_size=2, unique=True)) if pool else []
    document = header(
        "driver",
        "explored-driver",
        "A generated turn",
        f"A turn of {count} message cycle(s) in {codec.name}, generated and shrunk.",
    )
    document["trace"] = trace
    scenario = scenario_from_document(document)  # before naming the dialect, which checks it
    assert isinstance(scenario, DriverScenario)
    assume(codec.can_express(scenario.turn, chosen) is None)
    document = {**document, "dialects": [codec.name], "quirks": chosen, "trace": trace}
    chunks = codec.encode(scenario.turn, chosen)
    if cancellation and draw(st.integers(0, 3)) == 0:
        assume(len(chunks) > 1)
        document["cancel_after_reads"] = draw(st.integers(1, len(chunks) - 1))
    if byte_cuts:
        document["byte_cuts"] = draw(_cuts(b"".join(c.data.encode() for c in chunks)))
    if not chosen:
        del document["quirks"]
    return document


def driver_scenarios(
    *,
    dialect: str,
    max_cycles: int = 3,
    quirks: bool | Sequence[str] = True,
    cancellation: bool = True,
    byte_cuts: bool = False,
) -> st.SearchStrategy[DriverScenario]:
    """``driver_documents(...)`` read as scenarios."""
    documents = driver_documents(
        dialect=dialect,
        max_cycles=max_cycles,
        quirks=quirks,
        cancellation=cancellation,
        byte_cuts=byte_cuts,
    )
    return documents.map(scenario_from_document)  # type: ignore[arg-type]
