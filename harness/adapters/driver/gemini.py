"""Reference drivers for Gemini ``streamGenerateContent``: ``GeminiDriver`` reads the ``alt=sse``
form (dialect ``gemini-sse``), ``GeminiJSONArrayDriver`` the JSON array streamed across lines
without it (dialect ``gemini-json-array``). Both read candidate 0 of each
``GenerateContentResponse``, part by part.

Text parts come out as they stream (``thought: true`` parts are thinking and are not emitted).
A ``functionCall`` part with a ``name`` and its ``args`` is a whole call, emitted at once with
the arguments ``json.dumps(args)`` (``""`` when it has no ``args``: a call without arguments)
and its ``id`` (``""`` when it has none, as in most Gemini responses). A call whose arguments
stream (``willContinue: true``, then ``partialArgs`` entries that set leaves by ``jsonPath``,
string values in pieces) is emitted when it ends: at an empty ``functionCall`` (or one without
``willContinue``), when the next call starts, or when the response finishes; its arguments are
``json.dumps`` of the object rebuilt, or, if it is cut off (a string still open, or
``MAX_TOKENS``), the text so far without its closing brackets, reported invalid.

The response ends at the candidate's ``finishReason``: ``MAX_TOKENS`` is ``max_tokens``;
``STOP`` (and anything else) is ``tool_use`` when the response made function calls, else
``end_turn``; the calls in that last response are emitted first. The SSE driver stops reading
there; the JSON-array driver reads on to the array's closing ``]``, the end of the body, and no
further. A stream that ends without a ``finishReason`` ends the turn all the same.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from harness.adapters.driver.reference import CUT_SHORT, close_upstream, strict_json
from harness.model.driver import DriverOutput, ErrorReport, TextOut, ToolCallOut, TurnEnd
from harness.wire import json_data, parse_sse

#: a blank line: two line ends in a row (a CR is a line end only if no LF follows it)
_BLANK_LINE = re.compile(r"(?:\r\n|\n|\r(?!\n))(?:\r\n|\n|\r(?!\n))")
_PATH_STEP = re.compile(
    r"""\.(?P<name>[^.\[\]]+)|\[(?P<index>\d+)\]|\["(?P<dq>(?:[^"\\]|\\.)*)"\]|\['(?P<sq>[^']*)'\]"""
)


class StreamError(ValueError):
    """The stream cannot be read as Gemini responses."""


# The reference reads partialArgs with its own code, apart from the codec's (parse_json_path,
# StreamedArguments): the codec's decoder gives the turn the rules check drivers against, so the
# reference and the checker do not share code that could be wrong in both.
def path_keys(json_path: str) -> list[str | int]:
    """``$.a.b[0]`` -> ``["a", "b", 0]`` (``$["odd key"]`` and ``$['odd key']`` too)."""
    if not json_path.startswith("$"):
        raise StreamError(f"the jsonPath {json_path!r} does not start with '$'")
    keys: list[str | int] = []
    pos = 1
    while pos < len(json_path):
        match = _PATH_STEP.match(json_path, pos)
        if match is None:
            raise StreamError(f"cannot read the jsonPath {json_path!r}")
        if match["name"] is not None:
            keys.append(match["name"])
        elif match["index"] is not None:
            keys.append(int(match["index"]))
        elif match["dq"] is not None:
            keys.append(str(json.loads(f'"{match["dq"]}"')))
        else:
            keys.append(match["sq"])
        pos = match.end()
    if not keys or not isinstance(keys[0], str):
        raise StreamError(f"the jsonPath {json_path!r} names no field of the arguments")
    return keys


def _container(parent: Any, key: str | int, kind: type[Any]) -> Any:
    if isinstance(parent, list) and isinstance(key, int):
        parent.extend([None] * (key + 1 - len(parent)))
        if not isinstance(parent[key], kind):
            parent[key] = kind()
        return parent[key]
    if isinstance(parent, dict) and isinstance(key, str):
        if not isinstance(parent.get(key), kind):
            parent[key] = kind()
        return parent[key]
    raise StreamError(f"the key {key!r} does not fit a {type(parent).__name__}")


@dataclass
class Call:
    id: str
    name: str
    args: dict[str, Any] = field(default_factory=dict)
    #: keys of a string value still streaming
    open: list[str | int] | None = None
    leaves: int = 0
    #: the open string's pieces not yet in ``args``, joined onto it once (``settle``): a new
    #: string for every entry was quadratic (50 MB of arguments in 1,000 entries took 10 s)
    pending: list[str] = field(default_factory=list)

    def set(self, keys: list[str | int], value: Any, append: bool = False) -> None:
        node: Any = self.args
        for key, following in itertools.pairwise(keys):
            node = _container(node, key, list if isinstance(following, int) else dict)
        last = keys[-1]
        if isinstance(node, list) and isinstance(last, int):
            node.extend([None] * (last + 1 - len(node)))
        elif not (isinstance(node, dict) and isinstance(last, str)):
            raise StreamError(f"the key {last!r} does not fit a {type(node).__name__}")
        current = node.get(last) if isinstance(node, dict) else node[last]
        if append and isinstance(current, str):
            node[last] = current + value
        else:
            node[last] = value
            self.leaves += 1

    def feed(self, entry: Any) -> None:
        if not isinstance(entry, dict) or not isinstance(entry.get("jsonPath"), str):
            raise StreamError(f"a partialArgs entry without a jsonPath: {entry!r}")
        keys = path_keys(entry["jsonPath"])
        if entry.get("stringValue") is not None:
            piece = str(entry["stringValue"])
            if self.open == keys:
                self.pending.append(piece)
            else:
                self.settle()
                self.set(keys, piece)
            if entry.get("willContinue") is True:
                self.open = keys
            else:
                self.settle()
                self.open = None
            return
        self.settle()
        if entry.get("numberValue") is not None:
            self.set(keys, entry["numberValue"])
        elif entry.get("boolValue") is not None:
            self.set(keys, bool(entry["boolValue"]))
        elif "nullValue" in entry:
            self.set(keys, None)
        else:
            raise StreamError(f"a partialArgs entry without a value: {entry!r}")
        self.open = None

    def settle(self) -> None:
        """The open string's pending pieces joined onto it."""
        if self.pending and self.open is not None:
            self.set(self.open, "".join(self.pending), append=True)
        self.pending = []

    def arguments(self, cut: bool) -> str:
        """The whole arguments; cut off: the text so far, unclosed."""
        self.settle()
        text = json.dumps(self.args)
        if not cut:
            return text
        if not self.leaves:
            return ""
        text = text.rstrip("]}")  # the last leaf ends the text; only closing brackets follow
        return text[:-1] if self.open is not None else text  # and the quote of an open string


class GeminiDriver:
    """Gemini ``alt=sse``: one GenerateContentResponse per server-sent event."""

    layers = ("driver",)
    dialect = "gemini-sse"
    #: its requests ask for streamed function-call arguments, so it reads them too
    asks_for: tuple[str, ...] = ("stream_function_call_arguments",)

    def drive(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        try:
            responses = self.responses(chunks)
            yield from self.response(responses)
            self.drain(responses)
        finally:
            close_upstream(chunks)  # cancelled or done: the stream is not read any more

    def responses(self, chunks: Iterator[str]) -> Iterator[Any]:
        """Each event's JSON, read as soon as its blank line has arrived."""
        pending = ""
        for chunk in chunks:
            pending += chunk
            end = 0
            for match in _BLANK_LINE.finditer(pending):
                end = match.end()
            if end:
                block, pending = pending[:end], pending[end:]
                for event in parse_sse(block, source="stream"):
                    yield json_data(event)
        for event in parse_sse(pending, source="stream"):
            yield json_data(event)

    def drain(self, responses: Iterator[Any]) -> None:
        """After the finishReason: nothing more belongs to this response."""

    def response(self, responses: Iterator[Any]) -> Iterator[DriverOutput]:
        self.streaming: Call | None = None
        self.calls = 0
        for data in responses:
            if not isinstance(data, dict):
                raise StreamError(f"expected a GenerateContentResponse object, got {data!r}")
            if "error" in data:
                raise StreamError(f"the stream reports an error: {data['error']}")
            for candidate in data.get("candidates") or ():
                if not isinstance(candidate, dict) or candidate.get("index", 0) != 0:
                    continue
                content = candidate.get("content")
                parts = content.get("parts") if isinstance(content, dict) else None
                for part in parts or ():
                    yield from self.part(part)
                finish = candidate.get("finishReason")
                if finish:
                    yield from self.finish(str(finish))
                    return
        # the body ended without a finishReason, which every Gemini response ends with: cut
        yield ErrorReport(CUT_SHORT)

    def part(self, part: Any) -> Iterator[DriverOutput]:
        if not isinstance(part, dict):
            return
        call = part.get("functionCall")
        if isinstance(call, dict):
            yield from self.function_call(call)
        elif isinstance(part.get("text"), str) and part["text"] and part.get("thought") is not True:
            yield from self.complete(cut=False)  # text after a call's arguments ends the call
            yield TextOut(part["text"])

    def function_call(self, fc: dict[str, Any]) -> Iterator[DriverOutput]:
        more = fc.get("willContinue") is True
        if fc.get("name"):
            yield from self.complete(cut=False)  # a new call ends one still streaming
            self.calls += 1
            call = Call(str(fc.get("id") or ""), str(fc["name"]))
            if fc.get("args") is not None:
                arguments = json.dumps(fc["args"])
                yield ToolCallOut(call.id, call.name, arguments, strict_json(arguments))
                return
            if not more and not fc.get("partialArgs"):
                yield ToolCallOut(call.id, call.name, "", True)  # a call without arguments
                return
            self.streaming = call
        if self.streaming is None:
            return  # an empty functionCall with no call to end
        for entry in fc.get("partialArgs") or ():
            self.streaming.feed(entry)
        if not more:
            yield from self.complete(cut=False)

    def complete(self, cut: bool) -> Iterator[DriverOutput]:
        call, self.streaming = self.streaming, None
        if call is not None:
            arguments = call.arguments(cut=cut or call.open is not None)
            yield ToolCallOut(call.id, call.name, arguments, strict_json(arguments))

    def finish(self, reason: str | None) -> Iterator[DriverOutput]:
        # MAX_TOKENS, or a stream that just ends, cuts a call that is still streaming
        yield from self.complete(cut=reason in (None, "MAX_TOKENS"))
        if reason == "MAX_TOKENS":
            yield TurnEnd("max_tokens")
        else:
            yield TurnEnd("tool_use" if self.calls else "end_turn")


class GeminiJSONArrayDriver(GeminiDriver):
    """Gemini without ``alt=sse``: the elements of a JSON array, read as each one completes,
    however the reads cut them."""

    dialect = "gemini-json-array"

    def responses(self, chunks: Iterator[str]) -> Iterator[Any]:
        decoder = json.JSONDecoder()
        pending, pos, opened = "", 0, False
        for chunk in chunks:
            pending += chunk
            while True:
                while pos < len(pending) and pending[pos] in " \t\r\n" + ("," if opened else ""):
                    pos += 1
                if pos == len(pending):
                    break
                if not opened:
                    if pending[pos] != "[":
                        raise StreamError(f"expected a JSON array, found {pending[pos:][:20]!r}")
                    opened, pos = True, pos + 1
                    continue
                if pending[pos] == "]":
                    return  # the end of the body: read no further
                try:
                    value, pos = decoder.raw_decode(pending, pos)
                except json.JSONDecodeError:
                    break  # the element is not complete yet
                yield value
            pending, pos = pending[pos:], 0
        if pending.strip():
            raise StreamError(f"the JSON array is cut short: {pending[:40]!r}")

    def drain(self, responses: Iterator[Any]) -> None:
        for _ in responses:  # up to the closing ']', which follows the last element
            pass


__all__ = ["GeminiDriver", "GeminiJSONArrayDriver", "StreamError"]
