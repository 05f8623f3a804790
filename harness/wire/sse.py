"""Framing of streamed bodies: server-sent events, streamed JSON arrays, JSON lines.

Each framed unit keeps the line (counted from 1 within its source) where it started, so a
decoder's complaint about one event can point at it. Nothing here interprets the payloads.

>>> events = parse_sse("event: ping\\ndata: {}\\n\\ndata: [DONE]\\n\\n", source="demo")
>>> [(e.event, e.line) for e in events]
[('ping', 1), (None, 4)]
>>> json_data(events[1]) is DONE
True
"""

from __future__ import annotations

import enum
import itertools
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final

from harness._errors import WireError

# Line ends of the SSE format, and the ones a JSON document may contain as whitespace.
#: a line end as SSE (and the scenario files) know them: CRLF, CR or LF
LINE_END = re.compile(r"\r\n|\r|\n")
_JSON_SPACE = re.compile(r"[ \t\r\n]*")
_BOM = "\ufeff"


class Done(enum.Enum):
    """The ``[DONE]`` marker that ends an OpenAI-style stream (the one ``data:`` that is not JSON)."""

    DONE = "[DONE]"

    def __repr__(self) -> str:
        return "DONE"


#: What ``json_data`` returns for ``data: [DONE]``.
DONE: Final = Done.DONE


@dataclass(frozen=True, slots=True)
class SSEEvent:
    """One dispatched server-sent event.

    ``event`` is None when the block had no (or an empty) ``event:`` field, the type the
    WHATWG rules call "message". ``id`` is the last event id seen so far in the stream, as the
    rules carry it from event to event (None before any ``id:``). ``line`` is the first field
    line of the event's block. ``terminated`` is False only for a last event that the stream
    ended before its blank line: the WHATWG rules discard such an event; it is kept here,
    marked, so that nothing in a recording is lost and the caller decides.
    """

    event: str | None
    data: str
    id: str | None
    line: int
    source: str
    terminated: bool = True


@dataclass(frozen=True, slots=True)
class JsonChunk:
    """One JSON value of a streamed array or of a JSON-lines file, with the line it starts on."""

    value: Any
    line: int
    source: str


def parse_sse(data: bytes | str, *, source: str) -> tuple[SSEEvent, ...]:
    """Split a server-sent-events stream into events, following the WHATWG parsing rules.

    Lines end with CRLF, LF or CR; a blank line dispatches the event; ``:`` starts a comment
    (keep-alive); one space after the colon is dropped; a line without a colon is a field with
    an empty value; ``data:`` lines join with ``\\n``; unknown fields and a block without
    ``data:`` are ignored; ``retry:`` only concerns reconnection and is not kept.
    """
    text = _as_text(data, source)
    events: list[SSEEvent] = []
    data_lines: list[str] = []
    event_type = ""
    last_id: str | None = None
    start: int | None = None
    # offsets into the text, not copies of its lines: a field's value is the one copy made
    for number, begin, end in _spans(text, 1 if text.startswith(_BOM) else 0):
        if begin == end:
            if data_lines:
                assert start is not None  # set by the first field line, a data line included
                events.append(
                    SSEEvent(event_type or None, "\n".join(data_lines), last_id, start, source)
                )
            data_lines, event_type, start = [], "", None
            continue
        if text[begin] == ":":
            continue
        if start is None:
            start = number
        colon = text.find(":", begin, end)
        if colon < 0:
            name, colon = text[begin:end], end
        else:
            name = text[begin:colon]
        skip = 2 if text.startswith(" ", colon + 1, end) else 1
        if name == "data":
            data_lines.append(text[colon + skip : end])
        elif name == "event":
            event_type = text[colon + skip : end]
        elif name == "id":
            last_id = text[colon + skip : end]  # a NUL would be ignored, but _as_text refuses NULs
    if data_lines:
        events.append(
            SSEEvent(
                event_type or None,
                "\n".join(data_lines),
                last_id,
                start if start is not None else 1,
                source,
                terminated=False,
            )
        )
    return tuple(events)


def split_sse(data: bytes | str, *, source: str) -> tuple[tuple[str, int], ...]:
    """The stream cut after each blank line, as ``(raw text, first line)`` pieces: exactly the
    bytes a server sent for each event (keep-alive comments stay with the next event), so a
    consumer can be fed a recording as it arrived, one event at a time."""
    text = _as_text(data, source)
    pieces: list[tuple[str, int]] = []
    start, first, blank_run = 0, 1, False
    offset = 0
    for number, line, ended in _lines(text):
        length = len(line)
        end = text.find("\n", offset + length) if ended else len(text)
        if ended and text.startswith("\r\n", offset + length):
            end = offset + length + 1
        elif ended and text.startswith("\r", offset + length):
            end = offset + length
        next_offset = end + 1 if ended else len(text)
        if line == "" and not blank_run and offset > start:
            pieces.append((text[start:next_offset], first))
            start, first = next_offset, number + 1
        blank_run = line == ""
        offset = next_offset
    if start < len(text) and text[start:].strip():
        pieces.append((text[start:], first))
    return tuple(pieces)


def json_data(event: SSEEvent) -> Any:
    """The event's data parsed as JSON (spaces around it allowed); ``DONE`` for ``[DONE]``.

    Invalid JSON raises a ``WireError`` at the line where the event starts.
    """
    if event.data.strip() == "[DONE]":
        return DONE
    kind = f"`{event.event}` event" if event.event else "event"
    try:
        return _loads(event.data)
    except json.JSONDecodeError as exc:
        where = f"data line {exc.lineno}, column {exc.colno}"
        reason = f"{exc.msg} ({where})"
    except ValueError as exc:
        reason = str(exc)
    raise WireError(
        event.source,
        event.line,
        f"the data of this {kind} is not valid JSON: {reason}; it reads {_preview(event.data)}",
    )


def parse_json_array_stream(text: bytes | str, source: str) -> tuple[JsonChunk, ...]:
    """The elements of a JSON array streamed across lines, as Gemini's ``streamGenerateContent``
    sends it without ``alt=sse``: ``[{...}\\n,\\n{...}]``.

    A body cut short (no closing ``]``, or an element that ends early) is a ``WireError``.
    """
    body = _as_text(text, source)
    lines = _LineCounter(body)
    decoder = json.JSONDecoder(parse_constant=_reject_constant)
    pos = _skip_space(body, 1 if body.startswith(_BOM) else 0)
    if pos == len(body):
        raise WireError(source, 1, "the body is empty; expected a JSON array of chunks")
    if body[pos] != "[":
        raise WireError(
            source,
            lines.at(pos),
            f"expected a JSON array (`[`) of chunks, found {_preview(body[pos:])}",
        )
    chunks: list[JsonChunk] = []
    pos = _skip_space(body, pos + 1)
    closed = pos < len(body) and body[pos] == "]"
    while not closed:
        if pos == len(body):
            raise WireError(
                source,
                lines.at(pos),
                f"the JSON array is cut short: the body ends after {len(chunks)} element(s) "
                "without the closing `]`",
            )
        start = lines.at(pos)
        try:
            value, pos = decoder.raw_decode(body, pos)
        except json.JSONDecodeError as exc:
            cut = exc.msg.startswith("Unterminated") or not body[exc.pos :].strip()
            hint = " (the body ends inside it: the stream was cut short)" if cut else ""
            raise WireError(
                source,
                lines.at(exc.pos),
                f"element {len(chunks)} of the JSON array (from line {start}) is not valid JSON: "
                f"{exc.msg.removesuffix(' starting at')}{hint}",
            ) from None
        except (ValueError, RecursionError) as exc:
            raise WireError(
                source,
                start,
                f"element {len(chunks)} of the JSON array is not valid JSON: {_reason(exc)}",
            ) from None
        chunks.append(JsonChunk(value, start, source))
        pos = _skip_space(body, pos)
        if pos < len(body) and body[pos] == ",":
            pos = _skip_space(body, pos + 1)
            if pos < len(body) and body[pos] == "]":
                raise WireError(source, lines.at(pos), "a `,` before the closing `]` is not JSON")
        elif pos < len(body) and body[pos] == "]":
            closed = True
        elif pos < len(body):
            raise WireError(
                source,
                lines.at(pos),
                f"expected `,` or `]` after element {len(chunks) - 1}, "
                f"found {_preview(body[pos:])}",
            )
    end = _skip_space(body, pos + 1)
    if end != len(body):
        raise WireError(
            source,
            lines.at(end),
            f"unexpected text after the closing `]`: {_preview(body[end:])}",
        )
    return tuple(chunks)


def parse_jsonl(text: bytes | str, source: str) -> tuple[JsonChunk, ...]:
    """One JSON value per line (blank lines skipped), as in chunk files with the SSE framing
    removed."""
    body = _as_text(text, source)
    if body.startswith(_BOM):
        body = body[1:]
    chunks: list[JsonChunk] = []
    for number, line, _ in _lines(body):
        if not line.strip():
            continue
        try:
            chunks.append(JsonChunk(_loads(line), number, source))
        except json.JSONDecodeError as exc:
            raise WireError(
                source,
                number,
                f"this line is not valid JSON: {exc.msg} (column {exc.colno}); "
                f"it reads {_preview(line)}",
            ) from None
        except (ValueError, RecursionError) as exc:
            raise WireError(
                source, number, f"this line is not valid JSON: {_reason(exc)}"
            ) from None
    return tuple(chunks)


# -- helpers --------------------------------------------------------------------------------------


def _as_text(data: bytes | str, source: str) -> str:
    """Strict UTF-8 text without NULs; a binary body (an eventstream, gzip) is a WireError."""
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = _LineCounter(data[: exc.start].decode("utf-8")).at(exc.start)
            hint = (
                " It starts like gzip data: decompress it first."
                if data.startswith(b"\x1f\x8b")
                else ""
            )
            raise WireError(
                source,
                line,
                f"the body is binary, not UTF-8 text (byte 0x{data[exc.start]:02x} at offset "
                f"{exc.start}); only text streams (SSE, JSON) can be framed here.{hint}",
            ) from None
    elif isinstance(data, str):
        text = data
    else:
        raise TypeError(f"expected the body as bytes or str, got {type(data).__name__}")
    nul = text.find("\x00")
    if nul >= 0:
        raise WireError(
            source,
            _LineCounter(text).at(nul),
            "the body holds a NUL character: it is binary (an AWS eventstream?), not a text stream",
        )
    return text


def _lines(text: str) -> Iterator[tuple[int, str, bool]]:
    """(line number, line without its end, whether a line end followed) for each line."""
    if "\r" not in text:  # LF alone ends lines: split in C, not one regex match a line
        lines = text.split("\n")
        last = lines.pop()
        yield from zip(itertools.count(1), lines, itertools.repeat(True))
        if last:
            yield len(lines) + 1, last, False
        return
    pos = 0
    number = 0
    for number, end in enumerate(LINE_END.finditer(text), start=1):
        yield number, text[pos : end.start()], True
        pos = end.end()
    if pos < len(text):
        yield number + 1, text[pos:], False


def _spans(text: str, pos: int) -> Iterator[tuple[int, int, int]]:
    """(line number, start, end) of each line from offset ``pos``, its end not included."""
    size, number = len(text), 0
    if "\r" not in text:  # LF alone ends lines: find each in C
        while pos < size:
            number += 1
            end = text.find("\n", pos)
            if end < 0:
                yield number, pos, size
                return
            yield number, pos, end
            pos = end + 1
        return
    for number, match in enumerate(LINE_END.finditer(text, pos), start=1):
        yield number, pos, match.start()
        pos = match.end()
    if pos < size:
        yield number + 1, pos, size


class _LineCounter:
    """Line numbers of offsets, counted incrementally (offsets asked in increasing order are
    linear overall); CRLF, LF and CR each end one line."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._pos = 0
        self._line = 1

    def at(self, pos: int) -> int:
        if pos < self._pos:
            self._pos, self._line = 0, 1
        self._line += len(LINE_END.findall(self._text, self._pos, pos))
        self._pos = pos
        return self._line


def _skip_space(text: str, pos: int) -> int:
    match = _JSON_SPACE.match(text, pos)
    assert match is not None  # the pattern matches the empty string
    return match.end()


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _loads(text: str) -> Any:
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        raise ValueError("it is nested too deeply to parse") from None


def _reason(exc: BaseException) -> str:
    if isinstance(exc, RecursionError):
        return "it is nested too deeply to parse"
    return str(exc)


def _preview(text: str, limit: int = 60) -> str:
    shown = text if len(text) <= limit else text[:limit] + "..."
    return repr(shown)
