"""The streamed responses a recording holds, and which dialect each is in.

A recording is a vcrpy cassette (any number of interactions) or a raw body saved to a file: an
event stream, a JSON array streamed across lines, or JSON lines with the SSE framing stripped.
``recorded_responses`` lists every response with the dialect recognised from the request's URL
(or, without one, from the first chunk's shape) and, for one that cannot be replayed, why not.

>>> from harness.wire.recordings import recorded_streams
>>> [(s.interaction, s.dialect) for s in recorded_streams(
...     "cassettes/real-traffic/llm/test_tool_use_basic.yaml")]
[(0, 'openai-chat'), (1, 'openai-chat')]
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
import stat
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

from harness._errors import UsageError, WireError, excerpt
from harness._files import max_file_bytes, read_text
from harness.wire.cassette import Interaction, max_cassette_bytes, read_cassette
from harness.wire.sse import parse_jsonl, parse_sse

Framing = Literal["sse", "json-array", "jsonl"]

#: the content types of streamed bodies, and how each is framed (a JSON body may be a JSON
#: array streamed across lines: see ``framing_of``)
STREAM_TYPES: dict[str, Framing] = {
    "text/event-stream": "sse",
    **dict.fromkeys(
        (
            "application/x-ndjson",
            "application/ndjson",
            "application/jsonl",
            "application/x-jsonlines",
            "application/json-lines",
            "application/jsonlines",
            "application/stream+json",
            "application/json-seq",
        ),
        "jsonl",
    ),
}
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


@dataclass(frozen=True, slots=True)
class RecordedResponse:
    """One recorded response body, and what the harness makes of it.

    ``body`` is what the dialect's decoder reads: the body as recorded, except that JSON lines
    are given back their SSE framing (``data: LINE`` and a blank line each), as the server sent
    them. ``problem`` is None for a stream the harness can replay, else one sentence why not.
    """

    path: str
    #: the interaction's index in a cassette; None for a raw body file
    interaction: int | None
    #: the file line the interaction (or the body) starts at
    line: int
    request_uri: str | None
    status: int
    content_type: str
    framing: Framing | None
    dialect: str | None
    body: str
    source: str
    problem: str | None = None

    @property
    def label(self) -> str:
        """How messages name it: the file, and the interaction in a cassette."""
        return (
            self.path
            if self.interaction is None
            else f"{self.path} interactions[{self.interaction}]"
        )


def framing_of(content_type: str, body: str, uri: str = "") -> Framing | None:
    """How a response with this Content-Type and body streams, or None if it is not a stream.
    A JSON body is a streamed array when it is an array whose elements are cut by line breaks
    (Gemini's ``streamGenerateContent`` without ``alt=sse``) and its request, if known, asked
    for a stream."""
    media = content_type.split(";", 1)[0].strip().lower()
    framing = STREAM_TYPES.get(media)
    if framing is not None:
        return framing
    if not (media in ("", "application/json") or media.endswith("+json")):
        return None
    if "streamgeneratecontent" in uri.lower() and body.lstrip().startswith("["):
        return "json-array"  # however many elements it has
    asked = not uri or "stream" in uri.lower()
    return "json-array" if asked and _array_elements(body) is not None else None


def framing_of_text(text: str) -> Framing | None:
    """How a raw body saved to a file (no Content-Type) streams, from its first characters."""
    stripped = text.lstrip("\ufeff \t\r\n")
    if stripped.startswith("["):
        return "json-array"
    first = stripped.split("\n", 1)[0].strip()
    if first.startswith("{"):
        return "jsonl"
    if first.split(":", 1)[0].strip() in ("data", "event", "id", "retry", ""):
        return "sse"
    return None


def event_pieces(body: str, framing: Framing) -> list[str]:
    """The body cut at its event boundaries: each server-sent event with the blank line that
    ends it, each JSON line (with any blank lines after it), each element of a streamed array (the first with ``[``, the others
    from their comma, the last with ``]``). Joined, the pieces are ``body``, whatever it is."""
    if framing == "sse":
        return _sse_events(body)
    if framing == "jsonl":
        lines: list[str] = []
        for line in _LINE.findall(body):
            if lines and not line.strip():
                lines[-1] += line  # a blank line goes with the value before it
            else:
                lines.append(line)
        return lines
    return _array_elements(body) or ([body] if body else [])


def without_pending_event(body: str, framing: Framing | None) -> str:
    """What a client that follows the SSE rules reads of ``body``: the body without an event
    the stream ended before its blank line. The WHATWG rules discard such pending data at the
    end of the body (html.spec.whatwg.org/multipage/server-sent-events.html: "Once the end of
    the file is reached, any pending data must be discarded"), so the turn a recording holds
    ends without it; the driver is still fed every byte."""
    if framing != "sse" or not body:
        return body
    events = parse_sse(body, source="body")
    if not events or events[-1].terminated:
        return body
    pieces = _sse_events(body)
    return body[: len(body) - len(pieces[-1])]


def _sse_events(text: str) -> list[str]:
    # blank lines before an event's first field go with that event, so every piece but the
    # last ends with its separator
    events: list[str] = []
    current: list[str] = []
    started = False
    for line in _LINE.findall(text):
        current.append(line)
        if line.strip("\r\n"):
            started = True
        elif started:
            events.append("".join(current))
            current, started = [], False
    if current:
        events.append("".join(current))
    return events


def _array_elements(text: str) -> list[str] | None:
    """A JSON array whose elements are separated across lines cut after each element; None for
    anything else (an object, a one-line array, text that is not an array)."""
    start = len(text) - len(text.lstrip())
    if not text.startswith("[", start):
        return None
    cuts: list[int] = []
    depth = 0
    in_string = escaped = False
    end = None
    for index in range(start, len(text)):
        char = text[index]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
            if depth == 0:
                end = index
                break
        elif char == "," and depth == 1:
            cuts.append(index)
    if end is None or text[end + 1 :].strip():
        return None
    if not cuts or not all(_line_break_around(text, cut) for cut in cuts):
        return None
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


def _line_break_around(text: str, cut: int) -> bool:
    before, after = text[:cut], text[cut + 1 :]
    return "\n" in before[len(before.rstrip()) :] + after[: len(after) - len(after.lstrip())]


def recorded_responses(
    path: str | os.PathLike[str], interaction: int | None = None
) -> tuple[RecordedResponse, ...]:
    """Every response of a recording, streamed or not (of a cassette, only ``interaction``
    when it is given); any unreadable file is a ``WireError`` with file and line. A
    ``.yaml``/``.yml`` file is read as a cassette, anything else as a raw body."""
    name = os.fspath(path)
    if name.endswith((".yaml", ".yml")):
        return recorded_cassette(name, interaction)
    return (recorded_body(name),)


def recorded_cassette(
    path: str | os.PathLike[str], interaction: int | None = None
) -> tuple[RecordedResponse, ...]:
    """Every response of a vcrpy cassette, whatever the file's name, or only ``interaction``
    when it is given (the others' bodies are not read); a cassette without any is a
    ``WireError``: there is nothing in it to replay, serve or convert. The last answer is kept
    while the file stays as it was: reading a long cassette takes seconds, and a run reads the
    same one again for each scenario that names it (``harness bench --wire``: once for the
    stream, once for its scenario)."""
    key = _file_key(path, interaction)
    if key is not None and _LAST_READ.get(key) is not None:
        return _LAST_READ[key]
    whole = None if key is None else _LAST_READ.get((*key[:-3], None, *key[-2:]))
    if whole is not None and interaction is not None and 0 <= interaction < len(whole):
        return (whole[interaction],)  # one of the whole cassette read last
    if interaction is not None:
        read = tuple(_from_interaction(i) for i in read_cassette(path, interaction))
    else:
        interactions = read_cassette(path)
        if not interactions:
            raise WireError(os.fspath(path), 1, "the cassette holds no interaction")
        read = tuple(_from_interaction(i) for i in interactions)
    if key is not None and _file_key(path, interaction) == key:  # not changed while read
        _LAST_READ.clear()
        _LAST_READ[key] = read
    return read


#: the last cassette read, by ``_file_key``
_LAST_READ: dict[tuple[object, ...], tuple[RecordedResponse, ...]] = {}


def _file_key(path: str | os.PathLike[str], interaction: int | None) -> tuple[object, ...] | None:
    """What tells a cassette's read apart: the file (where it is, and a digest of what it holds:
    its times change too coarsely to tell two writes apart), the interaction named, and the
    limits in force on the file and its bodies; None if the file is not a regular file within
    the limit (the read then says why)."""
    try:
        where = os.path.realpath(path)
        limit = max_file_bytes()
        status = os.stat(where)  # before opening: a FIFO would block the open
        if not stat.S_ISREG(status.st_mode) or status.st_size > limit:
            return None
        with open(where, "rb") as file:
            if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):  # replaced since
                return None
            # as much as it held (a read of the limit allocates the limit first)
            digest = hashlib.sha1(file.read(status.st_size + 1), usedforsecurity=False).digest()
    except (OSError, ValueError):
        return None
    return (where, digest, interaction, max_file_bytes(), max_cassette_bytes())


def recorded_body(path: str | os.PathLike[str]) -> RecordedResponse:
    """A raw response body saved to a file, whatever the file's name."""
    return _from_file(os.fspath(path))


def recorded_streams(path: str | os.PathLike[str]) -> tuple[RecordedResponse, ...]:
    """The responses of a recording that are streams in a known dialect."""
    return tuple(r for r in recorded_responses(path) if r.problem is None)


def choose_stream(
    responses: tuple[RecordedResponse, ...],
    interaction: int | None = None,
    dialect: str | None = None,
) -> RecordedResponse:
    """The stream to replay among a recording's responses: ``interaction`` (default: the first
    stream). With ``dialect`` given, a stream whose dialect was not recognised counts too.
    A response that cannot replay is a ``WireError`` at its line saying why; an interaction the
    recording does not have, a ``UsageError``."""
    if interaction is None:
        for response in responses:
            if replayable(response, dialect):
                return response
        first = responses[0]
        if len(responses) == 1:
            raise WireError(
                first.path, first.line, f"not a stream that can replay: {first.problem}"
            )
        why = "; ".join(f"interactions[{r.interaction}]: {r.problem}" for r in responses)
        raise WireError(first.path, 1, f"the recording holds no stream that can replay ({why})")
    numbered = [r for r in responses if (r.interaction or 0) == interaction]
    if not numbered:
        if responses[0].interaction is None:
            raise UsageError(
                f"{responses[0].path} is one body, not a cassette: no interaction {interaction}"
            )
        raise UsageError(
            f"{responses[0].path} has {len(responses)} interactions (0 to {len(responses) - 1}); "
            f"there is no interaction {interaction}"
        )
    chosen = numbered[0]
    if not replayable(chosen, dialect):
        raise WireError(
            chosen.path,
            chosen.line,
            f"interaction {interaction} is not a stream that can replay: {chosen.problem}",
        )
    return chosen


def replayable(response: RecordedResponse, dialect: str | None = None) -> bool:
    """A stream the harness can replay; with a dialect given, also one whose only problem was
    that its dialect was not recognised."""
    if response.problem is None:
        return True
    return (
        dialect is not None
        and response.framing is not None
        and response.dialect is None
        and response.status < 400
        and bool(response.body.strip())
    )


def _from_interaction(interaction: Interaction) -> RecordedResponse:
    content_type = ",".join(interaction.header("content-type")).strip()
    body = interaction.response_body
    uri = interaction.request_uri
    framing = framing_of(content_type, body, uri)

    def response(
        framing: Framing | None, dialect: str | None, body: str, problem: str | None
    ) -> RecordedResponse:
        return RecordedResponse(
            path=interaction.path,
            interaction=interaction.index,
            line=interaction.line,
            request_uri=uri,
            status=interaction.response_status,
            content_type=content_type,
            framing=framing,
            dialect=dialect,
            body=body,
            source=interaction.response_source,
            problem=problem,
        )

    if not body.strip():
        return response(framing, None, body, "the body is empty")
    if framing is None:
        shown = f"content type {excerpt(content_type)}" if content_type else "no content type"
        return response(
            None, None, body, f"not a streamed response ({shown}); only streamed bodies replay"
        )
    if framing == "jsonl":
        body = _as_sse(body, interaction.response_source)
    dialect = _dialect_of_uri(uri, framing) or _dialect_of_body(body, framing)
    problem = None if dialect else _unknown(uri)
    if interaction.response_status >= 400 and problem is None:
        problem = f"the response is an HTTP {interaction.response_status} error, not a stream"
    if problem is None:
        problem = _several_choices(body, dialect, interaction.response_source)
    return response(framing, dialect, body, problem)


def _from_file(name: str) -> RecordedResponse:
    text = read_text(name, what="recording")
    framing = framing_of_text(text)
    body = _as_sse(text, name) if framing == "jsonl" else text
    dialect = _dialect_of_body(body, framing) if framing else None
    problem = None
    if not text.strip():
        problem = "the file is empty"
    elif framing is None:
        problem = "neither server-sent events, a JSON array, nor JSON lines"
    elif dialect is None:
        problem = _unknown(None)
    else:
        problem = _several_choices(body, dialect, name)
    return RecordedResponse(
        path=name,
        interaction=None,
        line=1,
        request_uri=None,
        status=200,
        content_type="",
        framing=framing,
        dialect=dialect,
        body=body,
        source=name,
        problem=problem,
    )


def _several_choices(body: str, dialect: str | None, source: str) -> str | None:
    """Why a Chat Completions stream of several choices (a request with ``n > 1``) is no turn
    to replay, naming the line of the first chunk of another choice; None for one choice."""
    if dialect != "openai-chat" or '"index"' not in body:
        return None
    try:
        events = parse_sse(body, source=source)
    except WireError:
        return None  # the decoder says what is wrong, at its line
    for event in events:
        try:
            data = json.loads(event.data)
        except (ValueError, RecursionError):
            continue
        choices = data.get("choices") if isinstance(data, dict) else None
        for choice in choices if isinstance(choices, list) else ():
            index = choice.get("index", 0) if isinstance(choice, dict) else 0
            if index != 0:
                return (
                    f"line {event.line} of the body is a chunk of choice {index!r}: the stream "
                    "holds several choices (a request with n > 1), several answers at once, "
                    "not one turn; a driver scenario needs a stream of one choice"
                )
    return None


def _unknown(uri: str | None) -> str:
    where = f"the URL {excerpt(uri)} names no API the harness knows, and " if uri else ""
    return (
        f"{where}its first chunk looks like no dialect the harness knows; give one with --dialect"
    )


def _as_sse(text: str, source: str) -> str:
    """JSON lines given back the SSE framing a server sent them with."""
    parse_jsonl(text, source)  # a line that is not JSON is reported here, with its number
    return "".join(f"data: {line.strip()}\n\n" for line in text.splitlines() if line.strip())


def _dialect_of_uri(uri: str, framing: Framing) -> str | None:
    path = urlsplit(uri).path
    if path.endswith(":streamGenerateContent"):
        return "gemini-json-array" if framing == "json-array" else "gemini-sse"
    if path.endswith("/chat/completions"):
        return "openai-chat"
    if path.endswith("/responses"):
        return "openai-responses"
    if path.endswith("/messages"):
        return "anthropic"
    return None


def _dialect_of_body(body: str, framing: Framing) -> str | None:
    """The dialect the first JSON chunk's shape says (its ``type``, ``object`` or fields)."""
    first = _first_object(body, framing)
    if first is None:
        return None
    kind = first.get("type")
    if isinstance(kind, str):
        if kind in ("message_start", "ping") or kind.startswith("content_block"):
            return "anthropic"
        if kind.startswith("response."):
            return "openai-responses"
        if kind.isupper():
            return "ag-ui"
    if first.get("object") == "chat.completion.chunk":
        return "openai-chat"
    if "candidates" in first or "usageMetadata" in first:
        return "gemini-json-array" if framing == "json-array" else "gemini-sse"
    return None


def _first_object(body: str, framing: Framing) -> dict[str, object] | None:
    if framing == "json-array":
        start = body.find("{")
        if start < 0:
            return None
        try:
            value, _ = json.JSONDecoder().raw_decode(body, start)
        except (ValueError, RecursionError):  # the decoder says why, at its line
            return None
        return value if isinstance(value, dict) else None
    for line in body.splitlines():
        field, _, data = line.partition(":")
        if field.strip() != "data" or not data.strip().startswith("{"):
            continue
        try:
            value = json.loads(data)
        except (ValueError, RecursionError):
            return None
        return value if isinstance(value, dict) else None
    return None
