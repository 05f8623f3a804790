"""What a loaded scenario is: frozen, typed, one type per kind of trace.

A session scenario (the session and history layers) holds a trace of canonical session events; a
driver scenario holds a canonical turn and how to put it on the wire; a loop scenario holds the
responses a whole program gets, one canonical turn per request. All share a header.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, TypeAlias

from harness.model import driver as dv
from harness.model.trace import Trace
from harness.wire.faults import Cut, Fault, Stall


@dataclass(frozen=True, slots=True)
class PinnedMessage:
    role: str
    text: str | None
    tool_calls: tuple[str, ...] | None


@dataclass(frozen=True, slots=True)
class Expectation:
    """Pinned observations at ``at`` (``end`` or a checkpoint name)."""

    at: str
    line: int
    notifications: tuple[tuple[str, str, str], ...] | None = None
    messages: Mapping[str, tuple[PinnedMessage, ...]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, eq=False, weakref_slot=True)
class ScenarioHeader:
    """The fields every scenario has, whatever its layer."""

    id: str
    title: str
    description: str
    source: str
    layer: str
    tags: tuple[str, ...]
    rules: tuple[str, ...]
    disable_rules: tuple[str, ...]
    seed: int
    path: str
    line: int

    @property
    def case_id(self) -> str:
        """The scenario's id, and for a case the cross product made, its variant in brackets:
        ``parallel-calls[openai-chat+no_index]``."""
        return self.id

    @property
    def added(self) -> tuple[str, ...]:
        """What the case adds to the scenario as written: a driver case's quirks, a session
        case's variations (none for the scenario as written)."""
        return ()

    def source_event(self, index: int) -> int:
        """The event of the scenario as written that event ``index`` of this case came from (a
        variation reworks a session trace; a root cause is keyed by this event)."""
        return index


@dataclass(frozen=True, slots=True, eq=False)
class SessionScenario(ScenarioHeader):
    """A trace of canonical session events (``harness.model.session``), for the session and
    history layers."""

    #: the events, generator steps kept compact (``harness.model.trace``); any sequence
    #: given is made a ``Trace``
    trace: Trace
    expectations: tuple[Expectation, ...] = ()
    #: the sub-sessions' events reach the adapter without their session ids (as on a channel
    #: that does not label them): only subsession_start/end say where they begin and end
    unlabelled_subsessions: bool = False
    #: observe everything after every event (``observe: every_event``), not only at the
    #: checkpoints: state that is wrong only mid-stream is seen (generated scenarios ask for it)
    observe_every_event: bool = False
    _delivered: Trace | None = None
    #: for a case of the variations (``harness.scenario.variations``): the variations it
    #: applies, joined by ``+``; empty for the scenario as written
    variant: str = ""
    #: for such a case, the event of the scenario as written each of its events came from
    origins: tuple[int, ...] | None = None
    #: for a case of a session dialect's producer variants (``harness.replay.dialects``): the
    #: variant the dialect's encoder sends (named last in ``variant`` too); empty otherwise
    producer: str = ""

    @property
    def case_id(self) -> str:
        return f"{self.id}[{self.variant}]" if self.variant else self.id

    @property
    def added(self) -> tuple[str, ...]:
        return tuple(self.variant.split("+")) if self.variant else ()

    def source_event(self, index: int) -> int:
        origins = self.origins
        if origins is None or not 0 <= index < len(origins):
            return index
        return origins[index]

    def __post_init__(self) -> None:
        if not isinstance(self.trace, Trace):
            object.__setattr__(self, "trace", Trace(self.trace))

    @property
    def delivered(self) -> Trace:
        """The events as the adapter receives them (the rules always see ``trace``)."""
        return self.trace if self._delivered is None else self._delivered

    @property
    def events(self) -> Trace:
        """The events a violation's index refers to."""
        return self.trace

    def event_line(self, index: int) -> int:
        return self.trace.line_at(index) if 0 <= index < len(self.trace) else self.line

    def event_location(self, index: int) -> tuple[str, int]:
        """The file and line event ``index`` was written at (the header's, out of range)."""
        return self.path, self.event_line(index)


@dataclass(frozen=True, slots=True)
class Recording:
    """Where a recorded turn's lines are. The decoders number a recording's lines from 1 within
    the text they read; in ``file`` (a recording's own file, a part of one such as
    ``"x.yaml interactions[0] response body"``, or the scenario itself for an inline body)
    line n of the recording is line ``first_line + n - 1``. ``exact`` is False for an inline
    body whose lines cannot be followed in the YAML (a quoted or folded string): every event
    is then at ``first_line``, where the body starts."""

    file: str
    first_line: int = 1
    exact: bool = True

    def line(self, recorded: int) -> int:
        return self.first_line + recorded - 1 if self.exact else self.first_line


@dataclass(frozen=True, slots=True, eq=False)
class DriverScenario(ScenarioHeader):
    """One canonical turn (``harness.model.driver``), the dialects it runs in (empty: every one
    that can carry it), the wire quirks asked for, and where a cancellation is injected."""

    turn: tuple[dv.TurnEvent, ...]
    dialects: tuple[str, ...] = ()
    quirks: tuple[str, ...] = ()
    cancel_after_reads: int | None = None
    #: a recorded stream fed as it was: (raw text of each server-sent event, its first line)
    raw_wire: tuple[tuple[str, int], ...] = ()
    #: where the turn's lines are, for a turn read from a recording (None: the scenario's steps)
    recording: Recording | None = None
    #: where a driver that reads bytes gets its body cut (offsets; None: the default plan)
    byte_cuts: tuple[int, ...] | None = None
    #: transport faults of the driver's stream (``harness.wire.faults``): the body cut after
    #: chunk N (``cut:N``), a pause before chunk N (``stall:N:SECONDS``)
    transport: tuple[Fault, ...] = ()
    #: for a case of the quirk cross product (``harness.scenario.cases``): ``dialect+quirk[+quirk]``
    #: naming the quirks it adds to the scenario's own; empty for the scenario as written
    variant: str = ""
    #: for a quirk case of a turn too long to encode in every case before the run
    #: (``harness.scenario.cases.PAIRS_UP_TO``): the stream as written, as its chunks, bytes
    #: and digest (``cases.same_stream``); the replay skips the case when its quirk leaves that
    #: stream as it is. None for every other case (told apart from the others beforehand)
    written_stream: tuple[int, int, int] | None = None

    @property
    def case_id(self) -> str:
        return f"{self.id}[{self.variant}]" if self.variant else self.id

    @property
    def added(self) -> tuple[str, ...]:
        return tuple(q for q in self.variant.split("+")[1:] if q)

    @property
    def events(self) -> tuple[dv.TurnEvent, ...]:
        """The events a violation's index refers to."""
        return self.turn

    @property
    def body_cut(self) -> int | None:
        """After how many chunks the body is cut (``cut:N``), if it is."""
        return min((f.after for f in self.transport if isinstance(f, Cut)), default=None)

    def stall_before(self) -> dict[int, float]:
        """Seconds of pause before each read that stalls (read numbers from 1)."""
        out: dict[int, float] = {}
        for fault in self.transport:
            if isinstance(fault, Stall):
                out[fault.chunk] = out.get(fault.chunk, 0.0) + float(fault.seconds)
        return out

    def event_line(self, index: int) -> int:
        return self.event_location(index)[1]

    def event_location(self, index: int) -> tuple[str, int]:
        """The file and line event ``index`` came from: the scenario's step, or the place in the
        recording the decoder read it at (the header's, out of range)."""
        if not 0 <= index < len(self.turn):
            return self.path, self.line
        if self.recording is None:
            return self.path, self.turn[index].line
        return self.recording.file, self.recording.line(self.turn[index].line)


@dataclass(frozen=True, slots=True)
class LoopResponse:
    """One response of a loop scenario: a canonical turn of one message cycle, the quirks and
    transport faults it is served with, and the conversation it belongs to (``agent``: ``main``,
    or a sub-agent's name)."""

    turn: tuple[dv.TurnEvent, ...]
    line: int
    quirks: tuple[str, ...] = ()
    transport: tuple[Fault, ...] = ()
    agent: str = "main"
    kind: str = "response"

    @property
    def body_cut(self) -> int | None:
        return min((f.after for f in self.transport if isinstance(f, Cut)), default=None)


@dataclass(frozen=True, slots=True, eq=False)
class LoopScenario(ScenarioHeader):
    """The responses a program gets, in order, one per request it sends (``harness loop``, the
    ``harness_loop`` fixture), and the dialects they are served in (every loop dialect that can
    carry them all, when the file names none). A violation's event index is a response's."""

    responses: tuple[LoopResponse, ...]
    dialects: tuple[str, ...] = ()
    #: whether the file named its dialects (else they are every one that carries the responses)
    dialects_named: bool = False
    #: for one run: the dialect it is served in (``id[dialect]``); empty for the scenario
    variant: str = ""

    @property
    def case_id(self) -> str:
        return f"{self.id}[{self.variant}]" if self.variant else self.id

    @property
    def events(self) -> tuple[LoopResponse, ...]:
        return self.responses

    @property
    def agents(self) -> tuple[str, ...]:
        return tuple(r.agent for r in self.responses)

    def event_line(self, index: int) -> int:
        return self.responses[index].line if 0 <= index < len(self.responses) else self.line

    def event_location(self, index: int) -> tuple[str, int]:
        return self.path, self.event_line(index)


def fields_of(header: ScenarioHeader) -> dict[str, Any]:
    """The header's fields, to build a scenario of a layer from it."""
    return {f.name: getattr(header, f.name) for f in fields(ScenarioHeader)}


#: A loaded scenario of any layer.
Scenario: TypeAlias = SessionScenario | DriverScenario | LoopScenario
