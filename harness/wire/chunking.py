"""Cutting a body into reads, as a network delivers it: anywhere, whatever the events are.

A driver that reads bytes (``reads = "bytes"``) is fed the UTF-8 body of the encoded chunks in
slices. ``default_cuts`` plans where to cut so that one replay meets every framing hazard at
once; ``byte_chunks`` makes the slices, each saying which chunks it completes.

>>> from harness.model.driver import WireChunk
>>> chunks = [WireChunk("data: é\\n\\n", 0), WireChunk("data: 2\\n\\n", 1)]
>>> [(r.data, r.origin, r.carries) for r in byte_chunks(chunks, (7, 12))]
[(b'data: \\xc3', 0, False), (b'\\xa9\\n\\nda', 0, True), (b'ta: 2\\n\\n', 1, True)]
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from itertools import accumulate

from harness.model.driver import ByteRead, WireChunk

_LINE = re.compile(rb"[^\r\n]+")
_BLANK_LINE = re.compile(rb"(?:\r\n|\r|\n)(?:\r\n|\r|\n)")
_CRLF = re.compile(rb"\r\n")
#: the first byte of a multi-byte UTF-8 character
_LEAD_BYTE = re.compile(rb"[\xc0-\xf7]")


def check_cuts(cuts: object) -> str | None:
    """None if ``cuts`` is a valid cut list (strictly increasing ints, each at least 1), else
    one sentence saying what is wrong with it. Whether each falls inside a body is known only
    once a dialect has encoded one: ``byte_chunks`` leaves out those that do not.

    >>> check_cuts([3, 2])
    'byte cut 1 (2) does not come after the one before it (3); the offsets must be strictly increasing'
    """
    problem = cut_problem(cuts)
    return None if problem is None else problem[1]


def cut_problem(cuts: object) -> tuple[int, str] | None:
    """``check_cuts``'s sentence with the position of the offset it speaks of (-1: the list)."""
    if not isinstance(cuts, (list, tuple)):
        return -1, f"byte cuts should be a list of byte offsets, got {cuts!r}"
    for n, cut in enumerate(cuts):
        if not isinstance(cut, int) or isinstance(cut, bool):
            return n, f"byte cut {n} should be an integer byte offset, got {cut!r}"
        if cut < 1:
            return n, f"byte cut {n} is {cut}; an offset cuts after at least one byte (>= 1)"
        if n and cut <= cuts[n - 1]:
            return n, (
                f"byte cut {n} ({cut}) does not come after the one before it ({cuts[n - 1]}); "
                "the offsets must be strictly increasing"
            )
    return None


def body_of(chunks: Sequence[WireChunk]) -> bytes:
    """The whole body the chunks make, UTF-8."""
    return "".join(chunk.data for chunk in chunks).encode()


def default_cuts(body: bytes, boundaries: Sequence[int] = ()) -> tuple[int, ...]:
    """A deterministic plan that meets every framing hazard in one replay.

    ``boundaries`` are the offsets where the body's events end (without them, events are told
    by their blank lines, or by lines for a body that has none). Of every three events, two
    are cut in the middle of each of their lines (an event across reads, a line across reads,
    several ``data:`` lines apart) and between the CR and LF of each of their CRLFs (but the
    last one before a whole event); every third event is left whole and not cut from the one
    before, so one read completes both; the first of the three also ends exactly at its read's
    end. Every multi-byte character is cut after its first byte, wherever it is.
    """
    size = len(body)
    ends = [end for end in boundaries if 0 < end <= size] or _event_ends(body)
    cuts: set[int] = set()
    start = 0
    for n, end in enumerate(ends):
        if n % 3 != 2:  # the third is whole
            for line in _LINE.finditer(body, start, end):
                if line.end() - line.start() > 1:  # a one-byte line has no inside
                    cuts.add((line.start() + line.end()) // 2)
            joined = n % 3 == 1  # the next event comes whole, in the read that ends this one
            for crlf in _CRLF.finditer(body, start, end):
                if not (joined and crlf.end() == end):
                    cuts.add(crlf.start() + 1)
            if n % 3 == 0:
                cuts.add(end)
        start = end
    cuts.update(lead.end() for lead in _LEAD_BYTE.finditer(body))  # scanned in C, not per byte
    return tuple(sorted(cut for cut in cuts if 0 < cut < size))


def _event_ends(body: bytes) -> list[int]:
    ends = [m.end() for m in _BLANK_LINE.finditer(body)]
    if not ends:
        ends = [m.end() for m in re.finditer(rb"\r\n|\r|\n", body)]
    if not ends or ends[-1] < len(body):
        ends.append(len(body))
    return ends


def byte_chunks(chunks: Sequence[WireChunk], cuts: Sequence[int]) -> tuple[ByteRead, ...]:
    """The body of ``chunks`` cut at ``cuts`` (those within it; invalid lists are refused with
    ``check_cuts``'s sentence as a ValueError), one ``ByteRead`` per slice.

    A chunk is delivered by the read that holds its last byte; a chunk that ends with CRLF is
    complete at the CR, since SSE and JSON both take a lone CR as a line end.
    """
    problem = check_cuts(tuple(cuts))
    if problem is not None:
        raise ValueError(problem)
    body = body_of(chunks)
    inside = [cut for cut in cuts if cut < len(body)]
    starts = [0, *inside]
    stops = [*inside, len(body)] if body else []
    delivered: list[list[WireChunk]] = [[] for _ in stops]
    for chunk, end in zip(chunks, accumulate(len(c.data.encode()) for c in chunks), strict=True):
        if not stops:
            break
        last = end - (2 if chunk.data.endswith("\r\n") else 1)
        delivered[min(bisect_right(stops, max(last, 0)), len(stops) - 1)].append(chunk)
    reads: list[ByteRead] = []
    origin = 0
    for start, stop, parts in zip(starts, stops, delivered, strict=True):
        carrying = [p for p in parts if p.carries]
        if carrying:
            origin = max(p.origin for p in carrying)
            event = max(p.carried for p in carrying)
            reads.append(ByteRead(body[start:stop], origin, True, event, tuple(parts)))
            continue
        if parts:
            origin = parts[-1].origin
        reads.append(ByteRead(body[start:stop], origin, False, -1, tuple(parts)))
    return tuple(reads)
