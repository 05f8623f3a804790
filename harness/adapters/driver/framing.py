"""Framing a byte stream into events, as a driver reading an HTTP body must, and the reference
drivers reading bytes (``reads = "bytes"``): each frames the reads into the events its
events-reading reference handles, and hands them on unchanged.

The body comes in slices cut anywhere: inside an event, a line, a CRLF or a UTF-8 character.

>>> framer = SSEFramer()
>>> framer.feed(b"data: caf\\xc3"), framer.feed(b"\\xa9\\r"), framer.feed(b"\\n\\r\\n: ping\\n\\n")
([], [], ['data: café\\n\\n'])
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator
from typing import Any, Protocol

from harness._errors import UsageError
from harness.adapters.driver.reference import close_upstream
from harness.codecs.registry import dialects
from harness.model.driver import DriverOutput

_LINE_END = re.compile(r"\r\n|\r|\n")


class Framer(Protocol):
    def feed(self, data: bytes) -> list[str]:
        """The events this read completes, as text."""

    def close(self) -> list[str]:
        """What is left when the body ends."""


class SSEFramer:
    """Server-sent events, incrementally: lines end with CRLF, LF or CR (a CR at the end of a
    read ends its line, and an LF at the start of the next is then not a second line end); a
    character may be split across reads; comments are dropped; a blank line ends an event,
    handed on as its field lines ending ``\\n\\n``, several ``data:`` lines kept apart."""

    def __init__(self) -> None:
        self._text = codecs.getincrementaldecoder("utf-8")()
        self._line = ""  # the start of a line not ended yet
        self._fields: list[str] = []
        self._after_cr = False

    def feed(self, data: bytes) -> list[str]:
        return self._frame(self._text.decode(data))

    def close(self) -> list[str]:
        events = self._frame(self._text.decode(b"", final=True))
        if self._line:
            self._field(self._line)
        if self._fields:  # the body ended before the blank line: its reader decides
            events.append("\n".join(self._fields))
        self._fields, self._line = [], ""
        return events

    def _frame(self, text: str) -> list[str]:
        if not text:
            return []
        pos = 1 if self._after_cr and text.startswith("\n") else 0
        self._after_cr = False
        events: list[str] = []
        for end in _LINE_END.finditer(text, pos):
            line, self._line = self._line + text[pos : end.start()], ""
            pos = end.end()
            if line:
                self._field(line)
            elif self._fields:
                events.append("\n".join(self._fields) + "\n\n")
                self._fields = []
            self._after_cr = end.group() == "\r" and pos == len(text)
        self._line += text[pos:]
        return events

    def _field(self, line: str) -> None:
        if not line.startswith(":"):  # a comment (keep-alive) is nobody's business
            self._fields.append(line)


class JSONArrayFramer:
    """A streamed JSON array (Gemini without ``alt=sse``): each element handed on once its
    closing brace has arrived, the first after ``[``, the others after ``,``, and ``]`` at the
    end; strings (with escapes) may hold any bracket, and a character may be split across
    reads."""

    def __init__(self) -> None:
        self._text = codecs.getincrementaldecoder("utf-8")()
        self._element: list[str] = []
        self._depth = 0
        self._in_string = False
        self._escaped = False
        self._opened = False
        self._elements = 0

    def feed(self, data: bytes) -> list[str]:
        return self._frame(self._text.decode(data))

    def close(self) -> list[str]:
        out = self._frame(self._text.decode(b"", final=True))
        if self._element:  # cut short: the reader says so
            out.append(("," if self._elements else "[") + "".join(self._element))
            self._element = []
        return out

    def _frame(self, text: str) -> list[str]:
        out: list[str] = []
        start = 0
        for pos, char in enumerate(text):
            if self._depth == 0:
                if char == "[" and not self._opened:
                    self._opened = True
                elif char == "]" and self._opened:
                    out.append("]" if self._elements else "[]")
                elif char in "{[":
                    self._depth, start = 1, pos
                continue
            if self._in_string:
                if self._escaped:
                    self._escaped = False
                elif char == "\\":
                    self._escaped = True
                elif char == '"':
                    self._in_string = False
            elif char == '"':
                self._in_string = True
            elif char in "{[":
                self._depth += 1
            elif char in "}]":
                self._depth -= 1
                if self._depth == 0:
                    self._element.append(text[start : pos + 1])
                    out.append(("," if self._elements else "[") + "".join(self._element))
                    self._element = []
                    self._elements += 1
        if self._depth:
            self._element.append(text[start:])
        return out


class FramedStream:
    """The events a framer makes of the reads, pulled one read at a time; closing it closes
    the reads."""

    def __init__(self, reads: Iterator[bytes], framer: Framer) -> None:
        self._reads = iter(reads)
        self._upstream = reads
        self._framer = framer
        self._ready: list[str] = []
        self._ended = False

    def __iter__(self) -> FramedStream:
        return self

    def __next__(self) -> str:
        while not self._ready:
            if self._ended:
                raise StopIteration
            try:
                data = next(self._reads)
            except StopIteration:
                self._ended = True
                self._ready = self._framer.close()
                continue
            self._ready = self._framer.feed(data)
        return self._ready.pop(0)

    def close(self) -> None:
        close_upstream(self._upstream)


#: the framer of each media type a codec writes its body as (``Codec.content_type``)
FRAMERS: dict[str, type[SSEFramer] | type[JSONArrayFramer]] = {
    "text/event-stream": SSEFramer,
    "application/json": JSONArrayFramer,
}


class BytesReading:
    """Reads the body's bytes (``reads = "bytes"``), frames them with ``framer()`` and hands the
    events to the events-reading driver after it in the class's bases, unchanged:
    ``class MyBytesDriver(BytesReading, MyDriver)``."""

    reads = "bytes"
    dialect: str

    def framer(self) -> Framer:
        """A framer for the media type the dialect's codec writes (server-sent events unless it
        says otherwise)."""
        codec = dialects().get(self.dialect)
        media = getattr(codec, "content_type", "text/event-stream")
        if media not in FRAMERS:
            raise UsageError(f"no framer for the dialect {self.dialect!r}'s body ({media})")
        return FRAMERS[media]()

    def drive(self, chunks: Iterator[Any]) -> Iterator[DriverOutput]:
        # the events-reading driver's drive, next in the class's method order
        events_reading = super().drive  # type: ignore[misc]
        yield from events_reading(FramedStream(chunks, self.framer()))


_TWINS: dict[type, type[BytesReading]] = {}


def bytes_reading(driver: type) -> type[BytesReading]:
    """The events-reading reference ``driver`` reading the body's bytes instead: made once per
    driver, named after it (``AnthropicDriver`` -> ``AnthropicBytesDriver``)."""
    twin = _TWINS.get(driver)
    if twin is None:
        name = driver.__name__.removesuffix("Driver") + "BytesDriver"
        made = type(name, (BytesReading, driver), {"__module__": __name__, "__qualname__": name})
        twin = _TWINS[driver] = made
    return twin


__all__ = [
    "FRAMERS",
    "BytesReading",
    "FramedStream",
    "Framer",
    "JSONArrayFramer",
    "SSEFramer",
    "bytes_reading",
]
