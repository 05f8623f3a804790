"""When things happen in one driver run, as the driver rules ask it: the counterpart of
``session_ledger.py``. ``DriverTimeline`` answers in reads: which read tells the turn up to an
event, when a call is due, which reads carry content. First, the turn's calls that the stream
gives no id are named, and the driver's calls matched to them (``_without_missing_ids``,
``_Unnamed``). Arguments compare as JSON values (``same_arguments``)."""

from __future__ import annotations

import json
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import replace
from functools import cached_property

from harness.model.driver import (
    ByteRead,
    ErrorReport,
    ExpectedCall,
    Refusal,
    ToolCallOut,
    WireChunk,
)
from harness.model.driver_run import DriverRun


def _first_ids(run: DriverRun) -> DriverRun:
    """The run with each call the driver emitted under the last id the stream gave it renamed
    to its first: a stream that changes a call's id mid-stream (``later_ids``) says nothing of
    which the server takes back, and widely used libraries keep either. Any other id (the two
    joined, one made up) stays as emitted, and is no call of the stream."""
    if not run.later_ids:
        return run
    first = {last: first for first, last in run.later_ids.items()}
    known = {call.id for call in run.facts.calls}
    outputs = tuple(
        (replace(o, id=first[o.id]), reads)
        if isinstance(o, ToolCallOut) and o.id in first and o.id not in known
        else (o, reads)
        for o, reads in run.outputs
    )
    return replace(run, outputs=outputs)


def _without_missing_ids(run: DriverRun) -> DriverRun:
    """The run with a name for every call the stream gives no id (Gemini gives most calls none):
    ``#k``, the turn's k-th call; the driver's calls whose ids the stream does not know are
    matched to those by name and arguments, in the order emitted, and renamed alike, so the
    rules can tell the calls apart. A run where every call has an id is returned as it is."""
    calls = run.facts.calls
    if all(call.id for call in calls):
        return run
    named = tuple(
        call if call.id else replace(call, id=f"#{number}")
        for number, call in enumerate(calls, start=1)
    )
    known = {call.id for call in calls if call.id}
    match = _Unnamed([call for call in named if call.id not in known]).match
    outputs = []
    for output, reads in run.outputs:
        if isinstance(output, ToolCallOut) and output.id not in known:
            key = match(output)
            output = output if key is None else replace(output, id=key)
        outputs.append((output, reads))
    return replace(run, facts=replace(run.facts, calls=named), outputs=tuple(outputs))


class _Unnamed:
    """Matches emitted calls to the turn's calls that have no id, taking for each the first of:
    an untaken call of its name and arguments (the call it is); a taken one (the same call
    again); an untaken call of its name (with other arguments); the last taken call of its
    name; any untaken call. Each list is walked by a cursor that only moves on, as calls are
    only ever taken, so matching a whole run costs about one pass over the calls."""

    def __init__(self, calls: Sequence[ExpectedCall]) -> None:
        self.calls = calls
        self.taken = [False] * len(calls)
        self.by_name: dict[str, list[int]] = {}
        self.alike: dict[tuple[str, str, str], list[int]] = {}
        for n, call in enumerate(calls):
            self.by_name.setdefault(call.name, []).append(n)
            self.alike.setdefault((call.name, *_value_key(call.arguments)), []).append(n)
        self.cursors: dict[object, int] = {}
        #: by name, the position of the last call of that name taken
        self.last_taken: dict[str, int] = {}

    def match(self, out: ToolCallOut) -> str | None:
        key = (out.name, *_value_key(out.arguments))
        alike = self.alike.get(key, [])
        same = self.by_name.get(out.name, [])
        for n in (
            self._untaken(key, alike),
            alike[0] if alike else None,
            self._untaken(out.name, same),
            self.last_taken.get(out.name),
            self._untaken(None, range(len(self.calls))),
        ):
            if n is not None:
                self._take(n)
                return self.calls[n].id
        return None

    def _untaken(self, key: object, positions: Sequence[int]) -> int | None:
        at = self.cursors.get(key, 0)
        while at < len(positions) and self.taken[positions[at]]:
            at += 1
        self.cursors[key] = at
        return positions[at] if at < len(positions) else None

    def _take(self, n: int) -> None:
        self.taken[n] = True
        name = self.calls[n].name
        self.last_taken[name] = max(n, self.last_taken.get(name, -1))


def _value_key(arguments: str) -> tuple[str, str]:
    """Arguments that ``same_arguments`` holds the same have the same key."""
    canonical = _canonical(arguments)
    return ("json", canonical) if canonical is not None else ("text", arguments)


class DriverTimeline:
    """The facts about one driver run that the driver rules read: what each read told of the
    turn (the running maximum of the events its chunks carry, so the first read by which an
    event is told is a bisection), when each call is due by the driver's contract and when a
    cancellation can no longer excuse it, which reads carry content, and the driver's calls
    matched to the turn's (a name for each call the stream gives no id: ``_without_missing_ids``).
    The run it holds is that matched one."""

    def __init__(self, run: DriverRun) -> None:
        run = _without_missing_ids(_first_ids(run))
        self.run = run
        self.facts = run.facts
        #: the input is corrupt: a call whose arguments do not parse although its block stopped
        #: (a duplicated fragment, a lost brace), which no legal stream sends
        self.corrupt = any(not c.valid and not c.cut for c in run.facts.calls)
        refusals = [reads for o, reads in run.outputs if isinstance(o, (Refusal, ErrorReport))]
        #: the read at which the driver refused the stream (said so, reported it failed, or
        #: raised), if it did
        self.refused_at: int | None = (
            refusals[0] if refusals else run.reads if run.raised is not None else None
        )

    def chunk_of(self, event_index: int) -> int:
        """The first chunk by which the turn is told up to the given event (``origin``)."""
        return bisect_left(self._told, event_index)

    def chunk_carrying(self, event_index: int) -> int:
        """The first chunk that carries the given event, or one after it (``carried``)."""
        return bisect_left(self._carried, event_index)

    def told_at(self, read: int) -> range:
        """The events of the turn that read ``read`` (counted from 1) tells for the first time:
        past those the reads before it told, up to the running maximum of the events carried
        (empty for a read that tells nothing new: a ping, a keep-alive, an event out of
        order)."""
        before = self._told[read - 2] if read > 1 else -1
        return range(before + 1, self._told[read - 1] + 1)

    @cached_property
    def _told(self) -> list[int]:
        return _running_max(c.origin if c.carries else -1 for c in self.run.chunks)

    @cached_property
    def _carried(self) -> list[int]:
        return _running_max(c.carried if c.carries else -1 for c in self.run.chunks)

    @cached_property
    def _parts(self) -> list[WireChunk]:
        """The stream's events as the codec framed them, in order, whatever the reads were."""
        return [part for chunk in self.run.chunks for part in chunk.delivered]

    @cached_property
    def _bytes(self) -> bool:
        """Reads of bytes: one read may complete several framed events, or none. Otherwise each
        read is one framed event, and the framed events' positions are the reads'."""
        return any(isinstance(chunk, ByteRead) for chunk in self.run.chunks)

    @cached_property
    def _parts_told(self) -> list[int]:
        if not self._bytes:
            return self._told
        return _running_max(p.origin if p.carries else -1 for p in self._parts)

    @cached_property
    def _parts_carried(self) -> list[int]:
        if not self._bytes:
            return self._carried
        return _running_max(p.carried if p.carries else -1 for p in self._parts)

    def part_told(self, event_index: int) -> int:
        """The first framed event by which the turn is told up to the given event."""
        return bisect_left(self._parts_told, event_index)

    def part_carrying(self, event_index: int) -> int:
        """The first framed event that carries the given event."""
        return bisect_left(self._parts_carried, event_index)

    def event_at(self, reads: int) -> int:
        """The canonical event of the last chunk read."""
        if not self.run.chunks or reads <= 0:
            return 0
        return self.run.chunks[min(reads, len(self.run.chunks)) - 1].origin

    def complete_calls(self) -> Sequence[ExpectedCall]:
        """The calls that are complete within what the driver was let read."""
        if self.run.cancel_after is None:
            return self.facts.calls
        return [c for c in self.facts.calls if self.chunk_of(c.complete) < self.run.cancel_after]

    def due(self, call: ExpectedCall) -> int:
        """How many chunks the driver has read when, by its contract, the call is due."""
        if self.run.contract == "per-message":
            stops = self.facts.stops
            return (
                self.chunk_of(stops[call.cycle]) + 1
                if call.cycle < len(stops)
                else len(self.run.chunks)
            )
        return self.chunk_of(call.complete) + 1

    def due_part(self, call: ExpectedCall) -> int:
        """The framed event of the stream that, by the driver's contract, makes the call due."""
        stops = self.facts.stops
        if self.run.contract == "per-message" and call.cycle < len(stops):
            return self.part_told(stops[call.cycle])
        return self.part_told(call.complete)

    def due_calls(self) -> Sequence[ExpectedCall]:
        """The calls the driver must have emitted within what it was let read (and, when it
        refused corrupt input, before it refused; the corrupt calls themselves never)."""
        cancel = self.run.cancel_after
        refused = self.refused_at if self.corrupt else None
        # a stream that failed: a per-message driver owes no call of the message it failed in
        failed = self.facts.error is not None and self.run.contract == "per-message"
        stops = len(self.facts.stops)
        return [
            c
            for c in self.facts.calls
            if (cancel is None or self.owed(c) <= cancel)
            and (refused is None or self.due(c) <= refused)
            and not (refused is not None and not c.valid)
            and not (failed and c.cycle >= stops)
        ]

    def owed(self, call: ExpectedCall) -> int:
        """How many chunks the driver has read when a cancellation can no longer excuse the
        call's absence: once, after the call's end, it has read content (``content_read``).
        Between the end and that content the stream holds only framing that a driver may
        still be waiting for (Responses' output_item.done after arguments.done, [DONE] after
        Chat's finish chunk); a cancellation there does not make the call owed."""
        if self.run.contract == "per-message":
            return self.due(call)
        chunks = len(self.run.chunks)
        first, _ = self.content_read(self.due(call), chunks)
        return chunks + 1 if first is None else first

    @property
    def stopped_early(self) -> bool:
        """Cancelled, crashed or refused, or the stream failed (a server error, a cut body):
        the turn's whole order and end are not owed."""
        return (
            self.run.cancel_after is not None
            or self.refused_at is not None
            or self.facts.error is not None
        )

    def content_read(self, after: int, until: int) -> tuple[int | None, int]:
        """The first of the reads after read ``after`` up to read ``until`` whose chunks carry
        content (text, argument fragments, a call's start), as a read number (None if none
        does), and how many do. Framing (stops, [DONE], usage, keep-alives, empty deltas) is
        left out: reading it delays nothing a user sees."""
        reads, chunks = self._content, self.run.chunks
        low = bisect_right(reads, max(after, 0))
        high = bisect_right(reads, min(until, len(chunks)))
        if high > low and reads[high - 1] == until and len(chunks[until - 1].delivered) > 1:
            # a read of bytes that completes several events, the driver emitting in it: it
            # may have waited for any of them (Responses' output_item.done after
            # arguments.done) and met the content after it; ``order`` reads that order
            high -= 1
        return (reads[low], high - low) if high > low else (None, 0)

    @cached_property
    def _content(self) -> list[int]:
        """The reads whose chunks carry content, as read numbers, in order."""
        content = self.facts.content
        return [
            n + 1
            for n, chunk in enumerate(self.run.chunks)
            if any(p.carries and p.carried in content for p in chunk.delivered)
        ]

    def emitted(self) -> list[tuple[ToolCallOut, int]]:
        return [(o, reads) for o, reads in self.run.outputs if isinstance(o, ToolCallOut)]


def _running_max(values: Iterable[int]) -> list[int]:
    """Each position's largest value so far: sorted, so the first position reaching an event is
    a bisection (the chunks' events need not come in order)."""
    out: list[int] = []
    top = -1
    for value in values:
        top = max(top, value)
        out.append(top)
    return out


def same_arguments(emitted: str, streamed: str) -> bool:
    """Arguments compare as JSON values: whitespace between tokens and the order of keys make no
    difference, and an empty text is the empty object. Text that does not parse compares as
    text."""
    if emitted == streamed:
        return True
    a, b = _canonical(emitted), _canonical(streamed)
    return a is not None and a == b


def _canonical(text: str) -> str | None:
    if not text.strip():
        return "{}"
    try:
        value = json.loads(text)
    except ValueError:
        return None
    # dumped again, so that true and 1, or 1 and 1.0, stay different
    return json.dumps(value, sort_keys=True, separators=(",", ":"))
