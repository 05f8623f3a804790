"""Gemini ``streamGenerateContent``: a stream of ``GenerateContentResponse`` objects, sent as SSE
``data:`` lines with ``alt=sse`` (``GeminiSSECodec``, dialect ``gemini-sse``) or, without it, as
one JSON array streamed across lines, ``[{...}\\n,\\r\\n{...}\\n]`` (``GeminiArrayCodec``,
dialect ``gemini-json-array``). Both share the mapping below; one response is one message cycle.

Each response is ``{candidates: [{content: {role: "model", parts: [...]}, finishReason?,
index}], usageMetadata, modelVersion, responseId}``; only candidate 0 is read.

========================  =====================================================================
canonical                 wire
========================  =====================================================================
message_start             nothing of its own: its ``message_id`` is every response's
                          ``responseId`` (left out when empty)
block_start text          nothing of its own (parts carry no index: blocks are numbered in order)
text_delta                a response with one part ``{text}``
block_start thinking      nothing of its own
thinking_delta            a response with one part ``{text, thought: true}``
block_stop text/thinking  nothing, unless the block is empty: a part ``{text: ""}`` (with
                          ``thought: true`` for thinking) then stands for it
block_start tool_use      nothing of its own (see block_stop) ...
arguments_delta           ... nor these: Gemini sends ``args`` as an object, whole
block_stop tool_use       a response with one part ``{functionCall: {name, args, id}}``: ``args``
                          is the argument text parsed (left out when the text is empty, a call
                          without arguments); ``id`` is the canonical id (left out when empty)
message_delta             ``finishReason`` on the last response: ``STOP`` for end_turn and
                          tool_use (Gemini says STOP after function calls too), ``MAX_TOKENS``
                          for max_tokens; read back, ``STOP`` is tool_use when the response
                          made function calls and end_turn otherwise
message_stop              nothing of its own: the response that carries ``finishReason``
========================  =====================================================================

**Ids.** Most Gemini responses give a function call no id; the canonical id of a call is its
``functionCall.id``, ``""`` when there is none, and the encoder writes the canonical id into
``functionCall.id`` when it is not empty, so a turn's ids survive the round trip.

**Arguments.** The wire has the arguments as an object, so the text a reader rebuilds is
``json.dumps(args)``. A turn can be carried exactly only if each call's argument text is exactly
that (``input:`` in a scenario gives it; a text written another way, e.g. ``{"a":1}``, is
refused), or empty (no ``args``: the no-argument call of real traffic), or, under the quirk
``streamed_args``, a text cut off by ``max_tokens`` that ``partialArgs`` can carry.

**Streamed arguments** (quirk ``streamed_args``; Vertex with ``streamFunctionCallArguments``, the
vercel-ai fixture): a call starts with ``{functionCall: {name, id?, willContinue: true}}``; then
``{functionCall: {partialArgs: [...], willContinue: true}}`` where each entry sets one leaf of
the arguments by ``jsonPath`` (``$.a.b[0]``, ``$["odd key"]``): ``numberValue``, ``boolValue``,
``nullValue``, or ``stringValue`` pieces (``willContinue: true`` while the string goes on, the
last piece without it, ``""`` in real traffic); an empty ``{functionCall: {}}`` ends the call.
The text a reader rebuilds is ``json.dumps`` of the object so far: at the end of the call
``json.dumps(args)``; for a call cut off (``MAX_TOKENS``, or a string still open) the same text
without the closing brackets (and quote), so ``{"path": "a.sql", "content": "CREATE IN`` is
carried as it is. The chunks follow the canonical fragments: each ``arguments_delta`` becomes
one chunk with the leaves (and string pieces) whose text ends inside it.

**Origins.** A chunk's ``origin`` is the last canonical event it tells: the event that produced
it; the response carrying ``finishReason`` tells up to message_stop. Under ``split_elements``
the first half of an element tells nothing new (the origin of the chunk before it).

``can_express(turn, quirks=())`` refuses what Gemini cannot carry exactly: several message
cycles, pings, blocks that overlap or are numbered out of order, two text (or thinking) blocks
in a row (they would read back as one), empty deltas, a cycle that does not end with
message_delta and message_stop, ``stop_sequence`` (Gemini says STOP), tool_use without calls
(STOP without calls reads back as end_turn), and argument texts as above. ``encode`` raises
``ValueError`` for a turn it cannot carry. One turn is carried but reads back changed: end_turn
after function calls is what Gemini's STOP always says, and reads back as tool_use;
``turn_facts`` gives both the final reason tool_use.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import json
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from harness.codecs.text import (
    ASCII_ESCAPES,
    ASCII_ESCAPES_QUIRK,
    LONE_CR_QUIRK,
    sse_data,
)
from harness.model import driver as dv
from harness.model.driver import WireChunk
from harness.wire import DONE, WireError, json_data, parse_json_array_stream, parse_sse

_SHARED_QUIRKS = {
    "thought_signature": (
        "a thoughtSignature on the first functionCall part of the response (Gemini 2.5 and 3 "
        "with thinking: llm-gemini and pydantic-ai recordings)"
    ),
    "empty_text_final_chunk": (
        "finishReason on a last response of its own whose only part is an empty text (Gemini 3 "
        "recordings), not on the last content"
    ),
    "parallel_calls_one_chunk": "consecutive function calls arrive as functionCall parts of one response",
    "no_candidate_index": (
        "candidates carry no 'index' (gemini-2.0-flash over alt=sse: pydantic-ai "
        "test_google_model_iter_stream.yaml)"
    ),
    "finish_without_content": (
        "finishReason on a last response of its own whose candidate has no content at all "
        "(pydantic/pydantic-ai#2631, jeremychone/rust-genai#161)"
    ),
    "metadata_only_chunk": (
        "after the first response, one whose candidate has neither content nor finishReason, "
        "only metadata, as Gemini sends with web search and reasoning (BerriAI/litellm#29167)"
    ),
    "finish_message": (
        "a finishMessage beside the finishReason of a response that made function calls "
        "(llm-gemini test_tools.yaml)"
    ),
    "ascii_escapes": ASCII_ESCAPES_QUIRK,
    "streamed_args": (
        "function-call arguments stream as partialArgs (jsonPath, stringValue pieces with "
        "willContinue), each call ended by an empty functionCall (Vertex "
        "streamFunctionCallArguments; vercel-ai fixture)"
    ),
}
#: the quirks Gemini sends only when the request asks for them: quirk -> the request option
#: (an adapter that declares it asks, ``asks_for``, runs them; others never meet them)
REQUESTED_QUIRKS = {
    # https://cloud.google.com/vertex-ai/generative-ai/docs/multimodal/function-calling
    # (streamFunctionCallArguments in the request's function calling config)
    "streamed_args": "stream_function_call_arguments",
}
SSE_QUIRKS = {
    "crlf": "CRLF line ends (pydantic-ai's recordings of alt=sse)",
    "lone_cr": LONE_CR_QUIRK,
    **_SHARED_QUIRKS,
}
ARRAY_QUIRKS = {
    **_SHARED_QUIRKS,
    "split_elements": (
        "each array element arrives in two reads, cut in the middle: HTTP chunks do not follow "
        "the JSON elements"
    ),
}

MODEL = "gemini-2.5-flash"
#: a stand-in for the opaque signature real responses carry
SIGNATURE = "CiQBjz1rX2hhcm5lc3Mtc2lnbmF0dXJlLW5vdC1yZWFsLWp1c3QtZGF0YQ=="

_FINISH = {"end_turn": "STOP", "tool_use": "STOP", "max_tokens": "MAX_TOKENS"}
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_PATH_STEP = re.compile(
    r"""\.(?P<name>[^.\[\]]+)|\[(?P<index>\d+)\]|\["(?P<dq>(?:[^"\\]|\\.)*)"\]|\['(?P<sq>[^']*)'\]"""
)

Path = tuple[str | int, ...]


# -- arguments ------------------------------------------------------------------------------------


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _strict_loads(text: str) -> Any:
    return json.loads(text, parse_constant=_reject_constant)


def arguments_text(args: Any) -> str:
    """The argument text a reader rebuilds from a call's ``args`` object."""
    return json.dumps(args)


def is_whole_arguments(text: str) -> bool:
    """Gemini can send this text whole: a JSON object written exactly as ``json.dumps`` writes it."""
    return _whole_args(text) is not None


@functools.lru_cache(maxsize=1)
def _whole_args(text: str) -> dict[str, Any] | None:
    """The object whose ``json.dumps`` is exactly ``text``, if there is one. The last answer is
    kept, and shared (read it, never change it): each quirk case of a turn asks of the same
    text, and parsing and writing it again each time was most of encoding 50 MB of arguments."""
    try:
        value = _strict_loads(text)
        if isinstance(value, dict) and json.dumps(value, allow_nan=False) == text:
            return value
    except (ValueError, RecursionError):
        pass
    return None


def json_path(path: Path) -> str:
    """``$.a.b[0]``; a key that is not an identifier as ``["key"]``."""
    out = ["$"]
    for key in path:
        if isinstance(key, int):
            out.append(f"[{key}]")
        elif _IDENTIFIER.match(key):
            out.append(f".{key}")
        else:
            out.append(f"[{json.dumps(key)}]")
    return "".join(out)


def parse_json_path(text: str) -> Path:
    """The keys of a ``partialArgs`` ``jsonPath``; ``ValueError`` if it is not one."""
    if not text.startswith("$"):
        raise ValueError(f"the jsonPath {text!r} does not start with '$'")
    out: list[str | int] = []
    pos = 1
    while pos < len(text):
        match = _PATH_STEP.match(text, pos)
        if match is None:
            raise ValueError(f"the jsonPath {text!r} cannot be read at {text[pos:]!r}")
        if match["name"] is not None:
            out.append(match["name"])
        elif match["index"] is not None:
            out.append(int(match["index"]))
        elif match["dq"] is not None:
            out.append(str(json.loads(f'"{match["dq"]}"')))
        else:
            out.append(match["sq"])
        pos = match.end()
    if not out or not isinstance(out[0], str):
        raise ValueError(f"the jsonPath {text!r} does not name a field of the arguments object")
    return tuple(out)


def _child(node: Any, key: str | int, make: type[dict[str, Any]] | type[list[Any]]) -> Any:
    if isinstance(node, list) and isinstance(key, int):
        while len(node) < key:
            node.append(None)
        if key == len(node):
            node.append(make())
        elif not isinstance(node[key], make):
            node[key] = make()
        return node[key]
    if isinstance(node, dict) and isinstance(key, str):
        if not isinstance(node.get(key), make):
            node[key] = make()
        return node[key]
    raise ValueError(f"the key {key!r} does not fit a {type(node).__name__}")


def _place(tree: dict[str, Any], path: Path, value: Any) -> None:
    node: Any = tree
    for key, following in itertools.pairwise(path):
        node = _child(node, key, list if isinstance(following, int) else dict)
    last = path[-1]
    if isinstance(node, list) and isinstance(last, int):
        while len(node) < last:
            node.append(None)
        if last == len(node):
            node.append(value)
        else:
            node[last] = value
    elif isinstance(node, dict) and isinstance(last, str):
        node[last] = value
    else:
        raise ValueError(f"the key {last!r} does not fit a {type(node).__name__}")


def _lookup(tree: dict[str, Any], path: Path) -> Any:
    node: Any = tree
    for key in path:
        node = node[key]
    return node


class StreamedArguments:
    """A call's arguments rebuilt from ``partialArgs`` entries, and their text so far."""

    def __init__(self) -> None:
        self.tree: dict[str, Any] = {}
        #: the path of a string still streaming (its last piece said willContinue)
        self.open: Path | None = None
        self.leaves = 0

    def feed(self, entry: Any) -> None:
        if not isinstance(entry, dict) or not isinstance(entry.get("jsonPath"), str):
            raise ValueError(f"a partialArgs entry needs a jsonPath; got {entry!r}")
        path = parse_json_path(entry["jsonPath"])
        more = entry.get("willContinue") is True
        piece = entry.get("stringValue")
        if piece is not None:
            if not isinstance(piece, str):
                raise ValueError(f"stringValue should be a string, got {piece!r}")
            if self.open == path:
                _place(self.tree, path, _lookup(self.tree, path) + piece)
            else:
                _place(self.tree, path, piece)
                self.leaves += 1
            self.open = path if more else None
            return
        value: Any
        if entry.get("numberValue") is not None:
            value = entry["numberValue"]
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"numberValue should be a number, got {value!r}")
        elif entry.get("boolValue") is not None:
            value = entry["boolValue"]
            if not isinstance(value, bool):
                raise ValueError(f"boolValue should be true or false, got {value!r}")
        elif "nullValue" in entry:
            value = None
        else:
            raise ValueError(f"the partialArgs entry for {entry['jsonPath']} has no value")
        _place(self.tree, path, value)
        self.leaves += 1
        self.open = None

    def cut_text(self) -> str:
        """The text so far: ``json.dumps`` of the leaves read, without its closing brackets (and
        quote, while a string is open); empty before the first leaf."""
        if not self.leaves:
            return ""
        text = json.dumps(self.tree).rstrip("]}")
        return text[:-1] if self.open is not None else text

    def final_text(self) -> str:
        return json.dumps(self.tree)


#: a JSON text's tokens as ``_cut_value`` needs them: a string (its closing quote the group, if
#: it has one), one bracket, or a stretch of anything else; read in C, not a character at a time
_TOKENS = re.compile(r'"(?:[^"\\]+|\\.)*(")?|[{}\[\]]|[^"{}\[\]]+', re.DOTALL)


def _cut_value(text: str) -> tuple[dict[str, Any], bool] | None:
    """The object a (possibly cut-off) argument text starts, and whether it ends inside a string;
    None if no object does (cut inside a key, after a colon or comma, inside an escape...)."""
    closers: list[str] = []
    in_string = False
    for token in _TOKENS.finditer(text):  # a string, a bracket, or a stretch of anything else
        first = text[token.start()]
        if first == '"':
            if token.group(1) is None:  # not closed: the text ends in it
                if token.end() != len(text):
                    return None  # after a backslash: cut inside an escape
                in_string = True
        elif first in "{[":
            closers.append("}" if first == "{" else "]")
        elif first in "}]" and closers:
            closers.pop()
    try:
        value = _strict_loads(text + ('"' if in_string else "") + "".join(reversed(closers)))
    except (ValueError, RecursionError):
        return None
    return (value, in_string) if isinstance(value, dict) else None


def _leaves(value: Any, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    """Every scalar in the order ``json.dumps`` writes it (empty containers have none)."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, (*path, key))
    elif isinstance(value, list):
        for n, item in enumerate(value):
            yield from _leaves(item, (*path, n))
    else:
        yield path, value


def _escaped(char: str) -> int:
    if " " <= char <= "~" and char not in '"\\':
        return 1  # printable ASCII stands for itself (asked per character of long strings)
    return len(json.dumps(char)) - 2


#: a stretch of characters that JSON writes as themselves: printable ASCII but ``"`` and ``\``
_PLAIN = re.compile(r"[ !#-\[\]-~]+")


def _runs(leaf: str, start: int, bounds: Sequence[int]) -> Iterator[tuple[str, int]]:
    """``leaf`` cut into runs of characters whose escaped text ends in the same fragment
    (``bounds``: where each fragment of the argument text ends, the last one taking whatever
    lies beyond), the string's escaped text starting at ``start``: each run, and where its
    escaped text ends. Plain stretches are cut at the bounds, not read a character at a time
    (50 MB of arguments took 20 s)."""
    last = len(bounds) - 1
    run: list[str] = []
    where = -1
    end = start
    pos = 0
    while pos < len(leaf):
        # a plain stretch goes as far as the fragment of its first character reaches
        here = min(bisect.bisect_left(bounds, end + 1), last)
        reach = len(leaf) if here == last else pos + bounds[here] - end
        plain = _PLAIN.match(leaf, pos, reach)
        if plain is None:  # one character with an escape of its own
            width = _escaped(leaf[pos])
            here = min(bisect.bisect_left(bounds, end + width), last)
            upto = pos + 1
        else:
            upto = plain.end()
            width = upto - pos
        if here != where and run:
            yield "".join(run), end
            run = []
        where = here
        run.append(leaf[pos:upto])
        end += width
        pos = upto
    if run:
        yield "".join(run), end


def _stream_ops(
    text: str, fragments: Sequence[tuple[int, str]]
) -> tuple[dict[int, list[dict[str, Any]]], StreamedArguments] | None:
    """The partialArgs entries that carry ``text``, grouped by the fragment (its event) in which
    each entry's text ends, and the arguments they rebuild; None if no entries can."""
    cut = _cut_value(text)
    if cut is None:
        return None
    value, ends_in_string = cut
    leaves = list(_leaves(value))
    bounds = []
    total = 0
    for _, fragment in fragments:
        total += len(fragment)
        bounds.append(total)
    grouped: dict[int, list[dict[str, Any]]] = {}
    args = StreamedArguments()

    def put(entry: dict[str, Any], end: int) -> None:
        where = min(bisect.bisect_left(bounds, end), len(fragments) - 1)
        entries = grouped.setdefault(fragments[where][0], [])
        last = entries[-1] if entries else None
        if (
            last is not None
            and last.get("jsonPath") == entry["jsonPath"]
            and last.get("willContinue")
            and entry.get("willContinue")
            and "stringValue" in entry
        ):
            last["stringValue"] += entry["stringValue"]
        else:
            entries.append(dict(entry))

    for n, (path, leaf) in enumerate(leaves):
        name = json_path(path)
        if isinstance(leaf, str):
            args.feed({"jsonPath": name, "stringValue": "", "willContinue": True})
            end = len(args.cut_text())
            if not text.startswith(args.cut_text()):
                return None
            put({"jsonPath": name, "stringValue": "", "willContinue": True}, end)
            # each character goes with the fragment its text ends in: one entry per run of
            # characters in one fragment (as many one-character entries would merge into)
            for run, run_end in _runs(leaf, end, bounds):
                put({"jsonPath": name, "stringValue": run, "willContinue": True}, run_end)
            end += len(json.dumps(leaf)) - 2  # as _escaped counts each character
            _place(args.tree, path, leaf)
            if not (ends_in_string and n == len(leaves) - 1):
                args.feed({"jsonPath": name, "stringValue": ""})
                put({"jsonPath": name, "stringValue": ""}, end + 1)
            if not text.startswith(args.cut_text()) or len(args.cut_text()) != end + (
                0 if args.open else 1
            ):
                return None
            continue
        entry: dict[str, Any] = {"jsonPath": name}
        if leaf is None:
            entry["nullValue"] = None
        elif isinstance(leaf, bool):
            entry["boolValue"] = leaf
        else:
            entry["numberValue"] = leaf
        args.feed(entry)
        if not text.startswith(args.cut_text()):
            return None
        put(entry, len(args.cut_text()))
    return grouped, args


@functools.lru_cache(maxsize=1)
def _joined(fragments: tuple[str, ...]) -> str:
    """The fragments as one text, the last one kept: every encoding of a turn asks for each
    call's whole text more than once, and for a long call that was a copy of it each time
    (the turn's own fragments hash once and compare by identity)."""
    return "".join(fragments)


# -- reading a turn -------------------------------------------------------------------------------


@dataclass
class _Call:
    index: int
    start: int
    id: str
    name: str
    fragments: list[tuple[int, str]] = field(default_factory=list)
    stop: int | None = None
    streamed: bool = False
    entries: dict[int, list[dict[str, Any]]] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return _joined(tuple(f for _, f in self.fragments))

    def label(self) -> str:
        return f"tool call {self.id or '(no id)'} ({self.name})"


@dataclass
class _Plan:
    message_id: str
    stop_reason: str
    calls: dict[int, _Call]
    #: index of each block's kind
    kinds: dict[int, dv.BlockKind]
    empty: set[int]


def _plan(turn: Sequence[dv.TurnEvent], quirks: frozenset[str]) -> _Plan | str:
    """How the turn goes on the wire, or why Gemini cannot carry it exactly."""
    if any(isinstance(e, dv.Ping) for e in turn):
        return "Gemini streams have no ping events"
    cycles = sum(isinstance(e, dv.CycleStart) for e in turn)
    if cycles != 1:
        return f"a Gemini response carries one message cycle; this turn has {cycles}"
    if not isinstance(turn[0], dv.CycleStart):
        return "the turn must begin with message_start"
    # a stream the server's error ends: the error object is its last response
    failed = isinstance(turn[-1], dv.StreamError)
    if not failed and (
        len(turn) < 3
        or not isinstance(turn[-2], dv.CycleDelta)
        or not isinstance(turn[-1], dv.CycleStop)
    ):
        return (
            "a Gemini response always ends with a finishReason: the cycle must end with "
            "message_delta and message_stop"
        )
    calls: dict[int, _Call] = {}
    kinds: dict[int, dv.BlockKind] = {}
    empty: set[int] = set()
    open_block: tuple[int, dv.BlockKind] | None = None
    content = False
    previous: dv.BlockKind | None = None
    for i, event in enumerate(turn[1 : -1 if failed else -2], start=1):
        if isinstance(event, dv.BlockStart):
            if open_block is not None:
                return (
                    f"block {event.index} starts while block {open_block[0]} is open: Gemini "
                    "parts come one after another"
                )
            if event.index != len(kinds):
                return (
                    f"block {event.index} should be numbered {len(kinds)}: Gemini parts carry "
                    "no index, so blocks read back numbered in order"
                )
            if event.block != "tool_use" and event.block == previous:
                return (
                    f"two {event.block} blocks in a row ({event.index - 1} and {event.index}): "
                    f"Gemini streams {event.block} as parts without block boundaries, so they "
                    "would read back as one block"
                )
            if event.block == "tool_use":
                if not event.name:
                    return f"block {event.index}: a Gemini function call always has a name"
                calls[event.index] = _Call(event.index, i, event.id, event.name)
            kinds[event.index] = event.block
            open_block, content = (event.index, event.block), False
        elif isinstance(event, (dv.TextDelta, dv.ThinkingDelta, dv.ArgumentsDelta)):
            wanted = dv.delta_block(event)
            if open_block != (event.index, wanted):
                return (
                    f"event {i} ({event.kind}) is not inside an open {wanted} block {event.index}"
                )
            if isinstance(event, dv.ArgumentsDelta):
                calls[event.index].fragments.append((i, event.fragment))
            elif not event.text:
                return f"event {i}: an empty {wanted} delta leaves nothing on the Gemini wire"
            content = True
        elif isinstance(event, dv.BlockStop):
            if open_block is None or open_block[0] != event.index:
                return f"event {i} stops block {event.index}, which is not open"
            kind = open_block[1]
            if kind == "tool_use":
                calls[event.index].stop = i
            elif not content:
                empty.add(event.index)
            previous, open_block = kind, None
        else:
            return f"event {i} ({event.kind}) comes before the end of the cycle"
    if open_block is not None and open_block[1] != "tool_use" and not failed:
        return (
            f"the {open_block[1]} block {open_block[0]} never stops: Gemini closes every part "
            "of a response that ends"
        )
    start = turn[0]
    assert isinstance(start, dv.CycleStart)
    if failed:
        for call in calls.values():
            # a call the error cut off never reached the wire unless its arguments stream
            if call.stop is not None or "streamed_args" in quirks:
                problem = _plan_call(call, "max_tokens", quirks)
                if problem:
                    return problem
        return _Plan(start.message_id, "error", calls, kinds, empty)
    delta = turn[-2]
    assert isinstance(start, dv.CycleStart) and isinstance(delta, dv.CycleDelta)
    reason = delta.stop_reason
    if reason == "stop_sequence":
        return "Gemini reports a stop sequence as STOP, which reads back as end_turn"
    if reason == "tool_use" and not calls:
        return "stop_reason tool_use without a function call: Gemini says STOP, which reads back as end_turn"
    for call in calls.values():
        problem = _plan_call(call, reason, quirks)
        if problem:
            return problem
    return _Plan(start.message_id, reason, calls, kinds, empty)


def _plan_call(call: _Call, reason: str, quirks: frozenset[str]) -> str | None:
    text = call.text
    if "streamed_args" in quirks and not (text == "" and call.stop is not None):
        if text == "":
            streamed: tuple[dict[int, list[dict[str, Any]]], StreamedArguments] | None = (
                {},
                StreamedArguments(),
            )
        else:
            streamed = _stream_ops(text, call.fragments)
        if streamed is not None:
            entries, args = streamed
            if call.stop is not None:
                rebuilt = args.final_text()
            elif args.open is not None or reason == "max_tokens":
                rebuilt = args.cut_text()
            else:
                rebuilt = args.final_text()
            if rebuilt == text:
                call.streamed, call.entries = True, entries
                return None
        if call.stop is not None and is_whole_arguments(text):
            return None  # e.g. an empty list inside: no leaf carries it, so it goes whole
        return (
            f"{call.label()}: its arguments {text[:60]!r} cannot be streamed as partialArgs "
            "(a reader rebuilds json.dumps of the fields so far; a text cut inside a key, after "
            "a colon or comma, or written otherwise is not that)"
        )
    if call.stop is None:
        return (
            f"{call.label()} is cut off before its end (no block_stop): Gemini sends a call "
            "whole, so only the quirk streamed_args can carry a cut-off call"
        )
    if text and not is_whole_arguments(text):
        try:
            _strict_loads(text)
        except (ValueError, RecursionError):
            return (
                f"{call.label()}: its arguments {text[:60]!r} are not a complete JSON object, "
                "and Gemini sends args whole, as an object (the quirk streamed_args can carry "
                "arguments cut off inside a string)"
            )
        return (
            f"{call.label()}: its arguments {text[:60]!r} are not an object written as "
            "json.dumps writes it; Gemini carries args as an object, so a reader can only "
            "rebuild json.dumps(args)"
        )
    return None


# -- writing --------------------------------------------------------------------------------------


@dataclass
class _Element:
    """One GenerateContentResponse: its parts, and the events it tells."""

    parts: list[dict[str, Any]]
    start: int
    origin: int
    kind: str
    finish: str | None = None
    #: False for a response that holds nothing of the turn (only metadata)
    carries: bool = True
    #: the finishMessage beside finishReason
    note: str = ""
    #: the error object of a response that is the server's error
    error: dict[str, Any] | None = None


#: HTTP codes of the google.rpc statuses a stream can fail with
_ERROR_CODES = {"UNAVAILABLE": 503, "RESOURCE_EXHAUSTED": 429, "DEADLINE_EXCEEDED": 504}


def _error_object(event: dv.StreamError) -> dict[str, Any]:
    """Google's error JSON: ``{"error": {"code", "message", "status"}}``."""
    status = event.error_type if event.error_type.isupper() else "UNAVAILABLE"
    code = _ERROR_CODES.get(status, 500)
    return {"error": {"code": code, "message": event.message, "status": status}}


def _elements(turn: Sequence[dv.TurnEvent], plan: _Plan, quirks: frozenset[str]) -> list[_Element]:
    out: list[_Element] = []
    signed = False
    finish = "STOP"

    def sign(part: dict[str, Any]) -> None:
        nonlocal signed
        if "thought_signature" in quirks and not signed:
            part["thoughtSignature"] = SIGNATURE
            signed = True

    def function_call(call: _Call, body: dict[str, Any]) -> dict[str, Any]:
        fc: dict[str, Any] = {"name": call.name, **body}
        if call.id:
            fc["id"] = call.id
        return fc

    part: dict[str, Any]
    for i, event in enumerate(turn):
        if isinstance(event, dv.TextDelta):
            out.append(_Element([{"text": event.text}], i, i, "text"))
        elif isinstance(event, dv.ThinkingDelta):
            out.append(_Element([{"text": event.text, "thought": True}], i, i, "thinking"))
        elif isinstance(event, dv.BlockStart) and event.index in plan.calls:
            call = plan.calls[event.index]
            if call.streamed:
                part = {"functionCall": function_call(call, {"willContinue": True})}
                sign(part)
                out.append(_Element([part], i, i, "stream"))
        elif isinstance(event, dv.ArgumentsDelta):
            call = plan.calls[event.index]
            entries = call.entries.get(i)
            if call.streamed and entries:
                fc = {"partialArgs": entries, "willContinue": True}
                out.append(_Element([{"functionCall": fc}], i, i, "stream"))
        elif isinstance(event, dv.BlockStop):
            if event.index in plan.empty:
                part = {"text": ""}
                if plan.kinds[event.index] == "thinking":
                    part["thought"] = True
                out.append(_Element([part], i, i, "empty"))
            elif event.index in plan.calls:
                call = plan.calls[event.index]
                if call.streamed:
                    out.append(_Element([{"functionCall": {}}], i, i, "stream"))
                    continue
                body = {"args": _whole_args(call.text)} if call.text else {}
                part = {"functionCall": function_call(call, body)}
                sign(part)
                if "parallel_calls_one_chunk" in quirks and out and out[-1].kind == "calls":
                    out[-1].parts.append(part)
                    out[-1].origin = i
                else:
                    out.append(_Element([part], call.start, i, "calls"))
        elif isinstance(event, dv.CycleDelta):
            finish = _FINISH[event.stop_reason]
        elif isinstance(event, dv.StreamError):
            out.append(_Element([], i, i, "error", error=_error_object(event)))
            break  # the stream ends with the error
        elif isinstance(event, dv.CycleStop):
            last = out[-1] if out else None
            if "finish_without_content" in quirks:
                out.append(_Element([], i, i, "bare", finish))
            elif "empty_text_final_chunk" in quirks or last is None or last.kind == "empty":
                out.append(_Element([{"text": ""}], i, i, "final", finish))
            else:
                last.finish, last.origin = finish, i
            if "finish_message" in quirks and plan.calls:
                out[-1].note = "Model generated function call(s)."
    if "metadata_only_chunk" in quirks and len(out) > 1:
        out.insert(1, _Element([], out[0].origin, out[0].origin, "metadata", carries=False))
    return out


def _response(
    element: _Element, message_id: str, position: int, quirks: frozenset[str]
) -> dict[str, Any]:
    if element.error is not None:
        return element.error
    candidate: dict[str, Any] = {}
    if element.kind == "metadata":
        candidate["groundingMetadata"] = {"webSearchQueries": []}
    elif element.kind != "bare":
        candidate["content"] = {"parts": element.parts, "role": "model"}
    if element.finish:
        candidate["finishReason"] = element.finish
        if element.note:
            candidate["finishMessage"] = element.note
    if "no_candidate_index" not in quirks:
        candidate["index"] = 0
    payload: dict[str, Any] = {
        "candidates": [candidate],
        "usageMetadata": {
            "promptTokenCount": 12,
            "candidatesTokenCount": position + 1,
            "totalTokenCount": 13 + position,
        },
        "modelVersion": MODEL,
    }
    if message_id:
        payload["responseId"] = message_id
    return payload


# -- reading the wire -----------------------------------------------------------------------------


class _Reader:
    """Responses to canonical events (candidate ``candidate`` only)."""

    def __init__(self, source: str, candidate: int) -> None:
        self.source = source
        self.candidate = candidate
        self.out: list[dv.TurnEvent] = []
        self.started = self.stopped = False
        self.blocks = 0
        self.calls = 0
        self.open: tuple[int, dv.BlockKind] | None = None
        self.args: StreamedArguments | None = None
        self.told = ""
        self.last_line = 1

    def error(self, line: int, message: str) -> WireError:
        return WireError(self.source, line, message)

    def response(self, data: Any, line: int) -> None:
        self.last_line = line
        if not isinstance(data, dict):
            raise self.error(line, f"expected a GenerateContentResponse object, got {data!r}")
        if "error" in data:
            if self.stopped:
                return  # the turn had ended: an error after it changes nothing of it
            error = data["error"] if isinstance(data["error"], dict) else {"message": data["error"]}
            if not self.started:
                self.out.append(dv.CycleStart(message_id="", line=line))
                self.started = True
            self.out.append(
                dv.StreamError(
                    error_type=str(error.get("status") or error.get("code") or ""),
                    message=str(error.get("message") or ""),
                    line=line,
                )
            )
            self.stopped = True  # nothing of the turn follows the error
            return
        if not self.started:
            self.out.append(dv.CycleStart(message_id=str(data.get("responseId", "")), line=line))
            self.started = True
        if self.stopped:
            return
        for candidate in data.get("candidates") or ():
            if not isinstance(candidate, dict) or candidate.get("index", 0) != self.candidate:
                continue
            content = candidate.get("content")
            parts = (content.get("parts") or []) if isinstance(content, dict) else []
            if not isinstance(parts, list):
                raise self.error(line, f"content.parts should be a list, got {parts!r}")
            finish = candidate.get("finishReason")
            # empty texts after the last content of the response that finishes: the marker
            # Gemini 3 sends with finishReason, not a block
            markers = len(parts)
            if finish:
                while markers and _is_marker(parts[markers - 1]):
                    markers -= 1
            for part in parts[:markers]:
                self.part(part, line)
            if finish:
                self.finish(str(finish), line)

    def part(self, part: Any, line: int) -> None:
        if not isinstance(part, dict):
            raise self.error(line, f"a part should be an object, got {part!r}")
        if "functionCall" in part:
            self.function_call(part["functionCall"], line)
        elif isinstance(part.get("text"), str):
            kind: dv.BlockKind = "thinking" if part.get("thought") is True else "text"
            if self.open is None or self.open[1] != kind:
                self.begin(kind, line)
            if part["text"]:
                assert self.open is not None
                delta = dv.ThinkingDelta if kind == "thinking" else dv.TextDelta
                self.out.append(delta(index=self.open[0], text=part["text"], line=line))
        # other parts (inline data, executable code, ...) carry nothing the turn has

    def begin(self, kind: dv.BlockKind, line: int, call_id: str = "", name: str = "") -> None:
        self.close(line)
        index = self.blocks
        self.blocks += 1
        self.out.append(dv.BlockStart(index=index, block=kind, id=call_id, name=name, line=line))
        self.open = (index, kind)

    def close(self, line: int) -> None:
        """The open block ends because another part begins."""
        if self.open is None:
            return
        if self.args is not None:
            self.tell(self.args.final_text(), line)
            self.args = None
        self.out.append(dv.BlockStop(index=self.open[0], line=line))
        self.open = None

    def tell(self, text: str, line: int) -> None:
        """The arguments text has grown to ``text``: its new end as an arguments_delta."""
        assert self.open is not None
        if not text.startswith(self.told):
            raise self.error(
                line,
                f"the streamed arguments went back on what they said: {self.told[:60]!r} became "
                f"{text[:60]!r} (partialArgs out of order)",
            )
        if len(text) > len(self.told):
            self.out.append(
                dv.ArgumentsDelta(index=self.open[0], fragment=text[len(self.told) :], line=line)
            )
        self.told = text

    def function_call(self, fc: Any, line: int) -> None:
        if not isinstance(fc, dict):
            raise self.error(line, f"functionCall should be an object, got {fc!r}")
        more = fc.get("willContinue") is True
        if fc.get("name"):
            self.begin("tool_use", line, str(fc.get("id") or ""), str(fc["name"]))
            self.calls += 1
            self.told = ""
            if fc.get("args") is not None:
                self.tell(arguments_text(fc["args"]), line)
            elif more or fc.get("partialArgs"):
                self.args = StreamedArguments()
                self.stream(fc, line)
                if more:
                    return
            self.close(line)
            return
        if self.args is None:
            if fc.get("partialArgs"):
                raise self.error(line, "partialArgs arrive while no function call is streaming")
            return  # an empty functionCall with no call to end
        self.stream(fc, line)
        if not more:
            self.close(line)

    def stream(self, fc: dict[str, Any], line: int) -> None:
        assert self.args is not None
        entries = fc.get("partialArgs") or []
        if not isinstance(entries, list):
            raise self.error(line, f"partialArgs should be a list, got {entries!r}")
        for entry in entries:
            try:
                self.args.feed(entry)
            except ValueError as exc:
                raise self.error(line, str(exc)) from None
        self.tell(self.args.cut_text(), line)

    def finish(self, reason: str, line: int) -> None:
        if self.args is not None:
            # a call still streaming: cut off (no BlockStop), or complete without its empty
            # functionCall; either way the message ends it
            if self.args.open is None and reason != "MAX_TOKENS":
                self.tell(self.args.final_text(), line)
            self.args, self.open = None, None
        elif self.open is not None:
            self.close(line)
        if reason == "MAX_TOKENS":
            stop: dv.StopReason = "max_tokens"
        else:
            stop = "tool_use" if self.calls else "end_turn"
        self.out.append(dv.CycleDelta(stop_reason=stop, line=line))
        self.out.append(dv.CycleStop(line=line))
        self.stopped = True

    def end(self) -> tuple[dv.TurnEvent, ...]:
        if self.started and not self.stopped:  # the stream ends without a finishReason
            if self.args is not None:
                self.args, self.open = None, None
            self.close(self.last_line)
            self.out.append(dv.CycleStop(line=self.last_line))
        return tuple(self.out)


def _is_marker(part: Any) -> bool:
    return isinstance(part, dict) and part.get("text") == "" and part.get("thought") is not True


def decode_responses(
    responses: Iterable[tuple[Any, int]], *, source: str, candidate: int = 0
) -> tuple[dv.TurnEvent, ...]:
    """The canonical turn of a sequence of ``(GenerateContentResponse, line)``, however framed
    (SSE, a JSON array, JSON lines)."""
    reader = _Reader(source, candidate)
    for data, line in responses:
        reader.response(data, line)
    return reader.end()


# -- codecs ---------------------------------------------------------------------------------------


class _GeminiCodec:
    name = ""
    quirks: dict[str, str]

    requested_quirks = REQUESTED_QUIRKS

    def can_express(self, turn: Sequence[dv.TurnEvent], quirks: Iterable[str] = ()) -> str | None:
        """None, or why Gemini cannot carry the turn exactly (under these quirks)."""
        plan = _plan(turn, frozenset(quirks))
        return plan if isinstance(plan, str) else None

    def encode(
        self, turn: Sequence[dv.TurnEvent], quirks: Iterable[str] = ()
    ) -> tuple[WireChunk, ...]:
        quirks = frozenset(quirks)
        plan = _plan(turn, quirks)
        if isinstance(plan, str):
            raise ValueError(f"{self.name} cannot carry this turn: {plan}")
        elements = _elements(turn, plan, quirks)
        payloads = [_response(e, plan.message_id, n, quirks) for n, e in enumerate(elements)]
        return self.frame(elements, payloads, quirks)

    def frame(
        self,
        elements: list[_Element],
        payloads: list[dict[str, Any]],
        quirks: frozenset[str],
    ) -> tuple[WireChunk, ...]:
        raise NotImplementedError


class GeminiSSECodec(_GeminiCodec):
    """``streamGenerateContent?alt=sse``: one ``data:`` event per response."""

    name = "gemini-sse"
    quirks = SSE_QUIRKS

    def frame(
        self,
        elements: list[_Element],
        payloads: list[dict[str, Any]],
        quirks: frozenset[str],
    ) -> tuple[WireChunk, ...]:
        return tuple(
            WireChunk(
                sse_data(p, quirks),
                e.origin,
                e.carries,
            )
            for e, p in zip(elements, payloads, strict=True)
        )

    def decode(self, body: str, *, source: str, candidate: int = 0) -> tuple[dv.TurnEvent, ...]:
        """The canonical turn of a recorded ``alt=sse`` stream."""
        responses = []
        for event in parse_sse(body, source=source):
            data = json_data(event)
            if data is DONE:
                raise WireError(source, event.line, "Gemini streams have no [DONE]")
            responses.append((data, event.line))
        return decode_responses(responses, source=source, candidate=candidate)


class GeminiArrayCodec(_GeminiCodec):
    """``streamGenerateContent`` without ``alt=sse``: a JSON array streamed across lines, each
    element written with two-space indents and the ``\\n,\\r\\n`` between elements that real
    traffic has; the closing ``\\n]`` comes in a read of its own."""

    name = "gemini-json-array"
    quirks = ARRAY_QUIRKS
    content_type = "application/json"  # what the real endpoint sends without alt=sse

    def frame(
        self,
        elements: list[_Element],
        payloads: list[dict[str, Any]],
        quirks: frozenset[str],
    ) -> tuple[WireChunk, ...]:
        out: list[WireChunk] = []
        for n, (element, payload) in enumerate(zip(elements, payloads, strict=True)):
            text = ("[" if n == 0 else "\n,\r\n") + json.dumps(
                payload, indent=2, ensure_ascii=ASCII_ESCAPES in quirks
            )
            if "split_elements" in quirks:
                cut = len(text) // 2
                out.append(WireChunk(text[:cut], out[-1].origin if out else 0))
                text = text[cut:]
            out.append(WireChunk(text, element.origin, element.carries))
        out.append(WireChunk("\n]", out[-1].origin))
        return tuple(out)

    def decode(self, body: str, *, source: str, candidate: int = 0) -> tuple[dv.TurnEvent, ...]:
        """The canonical turn of a recorded JSON-array body."""
        return decode_responses(
            ((c.value, c.line) for c in parse_json_array_stream(body, source)),
            source=source,
            candidate=candidate,
        )


__all__ = [
    "ARRAY_QUIRKS",
    "REQUESTED_QUIRKS",
    "SSE_QUIRKS",
    "GeminiArrayCodec",
    "GeminiSSECodec",
    "StreamedArguments",
    "arguments_text",
    "decode_responses",
    "is_whole_arguments",
    "json_path",
    "parse_json_path",
]
