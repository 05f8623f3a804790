"""Replay a driver-layer scenario through a pull-style adapter.

The adapter's ``drive(chunks)`` consumes an iterator of wire chunks (the raw text of each
server-sent event) and yields what it emits; an adapter that says ``reads = "bytes"`` gets the
UTF-8 body instead, in slices cut anywhere (``harness.wire.chunking``), and every count below
is then in reads. The replayer hands it the turn encoded in the
adapter's dialect, counts the chunks read when each output comes out and where reading stopped,
notices an attempt to read past the turn, and injects a cancellation where the scenario asks:
the read that would fetch that chunk raises ``StreamCancelled`` (``asyncio.CancelledError`` for
an async driver), as a cancelled connection or task does.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import replace
from itertools import accumulate
from typing import Any

from harness._errors import AdapterError
from harness.adapters.registry import asked_for
from harness.codecs import Codec, dialects
from harness.model.driver import (
    CycleDelta,
    DriverObservation,
    DriverOutput,
    MalformedOutput,
    Read,
    StreamError,
    TurnFacts,
    WireChunk,
    coerce_output,
    turn_facts,
)
from harness.model.driver_run import CONTRACTS, DriverRun, declared_contract
from harness.replay._watchdog import Progress
from harness.rules.driver_timing import DriverTimeline
from harness.rules.registry import Rule, Violation
from harness.scenario import DriverScenario
from harness.scenario.cases import same_stream
from harness.wire.chunking import body_of, byte_chunks, default_cuts
from harness.wire.sse import LINE_END

#: how a driver adapter reads its stream (``reads``): whole chunks (each one event, as text), or
#: the body's bytes cut anywhere
READS = ("events", "bytes")


def unasked_quirks(codec: Codec, asks_for: frozenset[str]) -> frozenset[str]:
    """The codec's quirks that its servers send only on a request option the adapter does not
    declare it asks for (``requested_quirks``, ``asks_for``)."""
    requested: Mapping[str, str] = getattr(codec, "requested_quirks", {})
    return frozenset(q for q, option in requested.items() if option not in asks_for)


class StreamCancelled(BaseException):
    """Raised into a sync driver by the read that the scenario cancels."""


class _Source:
    def __init__(
        self,
        chunks: Sequence[Read],
        progress: Progress,
        cancel_at: int | None,
        stalls: Mapping[int, float] | None = None,
    ) -> None:
        self.chunks = chunks
        self.progress = progress
        self.cancel_at = cancel_at
        #: seconds of pause before each read that stalls (read numbers from 1)
        self.stalls = stalls or {}
        self.reads = 0
        self.overread = False
        self.closed = False
        self.cancelled = False

    def _next(self) -> str | bytes:
        if self.cancel_at is not None and self.reads >= self.cancel_at:
            self.cancelled = True
            raise StreamCancelled
        if self.reads >= len(self.chunks):
            self.overread = True
            raise StopIteration
        chunk = self.chunks[self.reads]
        self.reads += 1
        self.progress.index = self.reads
        return chunk.data

    def close(self) -> None:
        self.closed = True

    def stall(self) -> float:
        """The pause before the next read, if it stalls (a transport fault): time the harness
        makes the driver wait, not the driver's own."""
        return self.stalls.get(self.reads + 1, 0.0) if self.reads < len(self.chunks) else 0.0


class SyncSource(_Source):
    def __iter__(self) -> SyncSource:
        return self

    def __next__(self) -> str | bytes:
        if self.stalls and (pause := self.stall()):  # no work per read without stalls
            with self.progress.harness():
                time.sleep(pause)
        return self._next()


class AsyncSource(_Source):
    def __aiter__(self) -> AsyncSource:
        return self

    async def __anext__(self) -> str | bytes:
        if self.stalls and (pause := self.stall()):
            with self.progress.harness():  # the loop runs on: a driver's own timeout may fire
                await asyncio.sleep(pause)
        try:
            return self._next()
        except StopIteration:
            raise StopAsyncIteration from None
        except StreamCancelled:
            raise asyncio.CancelledError from None

    async def aclose(self) -> None:
        self.closed = True


def per_message_only(codec: Codec, quirks: Sequence[str], contract: object) -> str | None:
    """Why a per-call driver is not judged on a stream of these quirks, if it is not: after
    them (``per_message_quirks``: fragments of parallel calls interleave) the start of the next
    call no longer tells that a call is complete, and a dialect with no per-call end has no
    other signal, so no driver can both pass a call on as soon as it is complete on ordinary
    streams and get it right on these. Only drivers that pass calls on per message are."""
    if contract != "per-call":
        return None
    shown = [q for q in quirks if q in getattr(codec, "per_message_quirks", ())]
    if not shown:
        return None
    return (
        f"{codec.name} has no per-call end and under {', '.join(shown)} a call's fragments come "
        "after the next call starts, so only drivers that pass calls on per message "
        '(emits_calls = "per-message") are judged on it; this one passes them on per call'
    )


def recorded_chunks(scenario: DriverScenario) -> tuple[WireChunk, ...]:
    """A recorded stream's events as they arrived, each tied to the last canonical event the
    decoder read from it (by line: the decoders keep the stream's order, so one walk does)."""
    out = []
    turn, origin = scenario.turn, 0
    for text, line in scenario.raw_wire:
        last = line + len(LINE_END.findall(text.rstrip("\r\n")))  # its last non-blank line
        while origin + 1 < len(turn) and turn[origin + 1].line <= last:
            origin += 1
        out.append(WireChunk(text, origin))
    return tuple(out)


class DriverReplay:
    def __init__(
        self,
        scenario: DriverScenario,
        rules: Sequence[Rule[DriverTimeline]],
        codecs: Mapping[str, Codec] | None = None,
    ) -> None:
        """``codecs``: the dialects to encode in, by name (default: ``dialects()``)."""
        self.scenario = scenario
        self.rules = list(rules)
        self.codecs = dialects() if codecs is None else codecs
        self.found: dict[tuple[str, int, str], Violation] = {}
        self.observation: DriverObservation | None = None
        self.driver_run: DriverRun | None = None
        self._chunks: tuple[WireChunk, ...] | None = None

    @property
    def violations(self) -> tuple[Violation, ...]:
        return tuple(sorted(self.found.values(), key=lambda v: (v.event_index, v.rule)))

    def skip_reason(self, adapter: Any) -> str | None:
        dialect = getattr(adapter, "dialect", None)
        codecs = self.codecs
        if not isinstance(dialect, str) or dialect not in codecs:
            return f"the adapter names no known dialect (dialect={dialect!r}; known: {', '.join(codecs)})"
        if self.scenario.dialects and dialect not in self.scenario.dialects:
            return f"the scenario runs in {', '.join(self.scenario.dialects)}, not {dialect}"
        codec = codecs[dialect]
        written = self.scenario.written_stream  # a long turn's quirk case (scenario.cases)
        if written is not None and same_stream(self.chunks(codec), written):
            return (
                f"{' and '.join(self.scenario.added)} leaves this turn's {dialect} stream as "
                f"written, which the case {self.scenario.id} runs (a long turn's cases are told "
                "apart as they run)"
            )
        requested: Mapping[str, str] = getattr(codec, "requested_quirks", {})
        for quirk in self.scenario.quirks:
            if quirk in requested and requested[quirk] not in asked_for(
                getattr(adapter, "asks_for", None)
            ):
                return (
                    f"{dialect} servers send {quirk} only when the request asks for "
                    f"{requested[quirk]}, and the adapter does not declare it asks "
                    f"(asks_for = ({requested[quirk]!r},))"
                )
        reason = codec.can_express(self.scenario.turn, self.scenario.quirks)
        if reason is not None:
            return reason
        reason = per_message_only(codec, self.scenario.quirks, declared_contract(adapter))
        if reason is not None:
            return reason
        cancel = self.scenario.cancel_after_reads
        if cancel is not None:
            chunks = len(self.chunks(codec))
            if cancel >= chunks:
                return f"the cancellation comes after read {cancel}, but the {dialect} stream has only {chunks} chunks"
        cut = self.scenario.body_cut
        if cut is not None:
            return self._cut_problem(self.chunks(codec), cut, dialect)
        return None

    def _cut_problem(self, chunks: tuple[WireChunk, ...], cut: int, dialect: str) -> str | None:
        """Why the body cannot be cut after chunk ``cut`` in this dialect, if it cannot: the
        stream is no longer than that, or the chunks before the cut already tell how the turn
        ends (its final stop reason), so that the body ends with the turn told."""
        if cut >= len(chunks):
            return f"the body is cut after chunk {cut}, but the {dialect} stream has only {len(chunks)} chunks"
        facts = turn_facts(self.scenario.turn)
        told = max((c.origin for c in chunks[:cut] if c.carries), default=-1)
        turn = self.scenario.turn
        reason = max(
            (i for i, e in enumerate(turn[: facts.final_stop + 1]) if isinstance(e, CycleDelta)),
            default=None,
        )
        if facts.error is not None and told >= facts.error:
            return f"the body is cut after chunk {cut}, after the server's error"
        if facts.ended and reason is not None and told >= reason:
            return (
                f"the body is cut after chunk {cut}, but by then the {dialect} stream has told "
                "how the turn ends: the cut loses nothing of the turn"
            )
        return None

    def cut_facts(self, chunks: tuple[WireChunk, ...], cut: int) -> TurnFacts:
        """What the turn says once its body is cut after chunk ``cut``: the events the chunks
        before the cut tell, then a failure where the body ends (the calls open there never
        finished, and the turn has no end)."""
        told = max((c.origin for c in chunks[:cut] if c.carries), default=-1)
        cut_off = StreamError(error_type="connection_cut", message="the body ended before the turn")
        return turn_facts((*self.scenario.turn[: told + 1], cut_off))

    def chunks(self, codec: Codec) -> tuple[WireChunk, ...]:
        """What the driver is fed: the recorded stream, or the turn in the codec's dialect
        (encoded once per replay)."""
        if self._chunks is None:
            scenario = self.scenario
            self._chunks = recorded_chunks(scenario) or codec.encode(scenario.turn, scenario.quirks)
        return self._chunks

    def reads(self, chunks: tuple[WireChunk, ...]) -> tuple[tuple[Read, ...], int | None]:
        """What a bytes-reading driver is fed: the body cut at the scenario's ``byte_cuts``
        (those inside this dialect's body) or the default plan, and a cut where the
        cancellation comes, so that it still comes once those chunks are read; and after how
        many reads it comes."""
        body = body_of(chunks)
        ends = list(accumulate(len(c.data.encode()) for c in chunks))
        given = self.scenario.byte_cuts
        cuts = set(default_cuts(body, ends) if given is None else given)
        cancel = self.scenario.cancel_after_reads
        if cancel is not None:
            cuts.add(ends[cancel - 1])
        inside = sorted(cut for cut in cuts if 0 < cut < len(body))
        cancel_at = None if cancel is None else bisect_right(inside, ends[cancel - 1])
        return byte_chunks(chunks, inside), cancel_at

    def run(self, adapter: Any, progress: Progress) -> None:
        contract = declared_contract(adapter)
        if contract not in CONTRACTS:
            raise AdapterError(
                f"the adapter's emits_calls is {contract!r}; it says when the driver passes tool "
                f"calls on: {' or '.join(map(repr, CONTRACTS))}"
            )
        mode = getattr(adapter, "reads", READS[0])
        if mode not in READS:
            raise AdapterError(
                f"the adapter's reads is {mode!r}; it says what one read of the stream gives the "
                f"driver: {' or '.join(map(repr, READS))}"
            )
        codec = self.codecs[adapter.dialect]
        with progress.harness():
            encoded = self.chunks(codec)
            cut = self.scenario.body_cut
            if cut is not None:
                facts = self.cut_facts(encoded, cut)
                encoded = encoded[:cut]
            else:
                facts = self.facts(codec)
            chunks: tuple[Read, ...] = encoded
            cancel_at = self.scenario.cancel_after_reads
            if mode == "bytes":
                chunks, cancel_at = self.reads(encoded)
        stalls = self.stalls(chunks, encoded, mode)
        drive = adapter.drive
        outputs: list[tuple[DriverOutput, int]] = []
        progress.phase = "drive"
        if inspect.isasyncgenfunction(drive):
            source: _Source = AsyncSource(chunks, progress, cancel_at, stalls)
            propagated, raised = self._run_async(drive, source, outputs, progress)
        else:
            source = SyncSource(chunks, progress, cancel_at, stalls)
            propagated, raised = False, None
            try:
                for item in drive(source):
                    outputs.append((self._coerce(item, len(outputs)), source.reads))
            except StreamCancelled:
                propagated = True  # the cancellation ended the driver, as it should
            except AdapterError:
                raise
            except Exception as exc:
                raised = f"{type(exc).__name__}: {exc}"
        with progress.harness():  # the rules are the harness's work, not the adapter's
            run = DriverRun(
                codec.name,
                chunks,
                facts,
                tuple(outputs),
                source.reads,
                source.overread,
                source.closed,
                cancel_at,
                propagated,
                raised,
                source.cancelled,
                contract,
                bool(getattr(codec, "stream_outlives_turn", False)),
                self.later_ids(codec, encoded),
                cut,
            )
            self.observation = DriverObservation(
                codec.name, tuple(output for output, _ in outputs), raised
            )
            self.driver_run = run
            context = DriverTimeline(run)
            for rule in self.rules:
                for violation in rule.check(context):
                    self.found.setdefault(
                        (violation.rule, violation.event_index, violation.message), violation
                    )

    def facts(self, codec: Codec) -> TurnFacts:
        """What the turn says, with the stop reason the wire sends where a quirk sends another
        (``reason_quirks``: Chat's finish_reason 'stop' for a message with tool calls)."""
        facts = turn_facts(self.scenario.turn)
        rewritten: Mapping[str, tuple[str, str]] = getattr(codec, "reason_quirks", {})
        for quirk in self.scenario.quirks:
            turn_reason, sent = rewritten.get(quirk, ("", ""))
            if facts.sent_reason == turn_reason:
                facts = replace(facts, sent_reason=sent)
        return facts

    def later_ids(self, codec: Codec, chunks: tuple[WireChunk, ...]) -> Mapping[str, str]:
        """The ids the stream changes mid-call (first -> last), where the codec can tell and
        the stream may change them: a recording, or a case with a quirk that does."""
        later = getattr(codec, "later_ids", None)
        changing: frozenset[str] = getattr(codec, "changes_ids", frozenset())
        if later is None or not (self.scenario.raw_wire or changing & set(self.scenario.quirks)):
            return {}
        return dict(later(chunks))

    def stalls(
        self, chunks: tuple[Read, ...], encoded: tuple[WireChunk, ...], mode: str
    ) -> dict[int, float]:
        """The pauses before reads (``stall:N:SECONDS``, N a chunk of the stream): for a driver
        that reads bytes, before the read that holds chunk N's first byte."""
        stalls = self.scenario.stall_before()
        if not stalls or mode != "bytes":
            return stalls
        starts = list(accumulate((len(c.data.encode()) for c in encoded), initial=0))
        ends = list(accumulate(len(c.data) for c in chunks))
        out: dict[int, float] = {}
        for number, seconds in stalls.items():
            if number <= len(encoded):
                read = bisect_right(ends, starts[number - 1]) + 1
                out[read] = out.get(read, 0.0) + seconds
        return out

    def _run_async(
        self,
        drive: Any,
        source: _Source,
        outputs: list[tuple[DriverOutput, int]],
        progress: Progress,
    ) -> tuple[bool, str | None]:
        loop = asyncio.new_event_loop()

        async def body() -> tuple[bool, str | None]:
            try:
                async for item in drive(source):
                    outputs.append((self._coerce(item, len(outputs)), source.reads))
            except asyncio.CancelledError:
                if not source.cancelled:
                    raise  # the watchdog's cancellation of a hung driver
                return True, None
            except AdapterError:
                raise
            except Exception as exc:
                return False, f"{type(exc).__name__}: {exc}"
            return False, None

        task = loop.create_task(body())

        def cancel() -> None:
            loop.call_soon_threadsafe(task.cancel)

        progress.on_hang = cancel
        try:
            return loop.run_until_complete(task)
        finally:
            # finalise generators the driver left suspended, inside the loop they belong to
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

    def _coerce(self, item: Any, position: int) -> DriverOutput:
        try:
            return coerce_output(item, position)
        except MalformedOutput as exc:
            raise AdapterError(f"the driver emitted a malformed output: {exc}") from None
