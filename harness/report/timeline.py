"""The timelines of a failing case as data, apart from how they are drawn: ``html.py`` draws
them as swimlanes, and any other view (a terminal one) can read the same.

- A driver run (``driver_swimlanes``): a lane for the reads of the wire, one for text, one per
  tool call of the turn (and one per call the driver emitted that the turn does not have), and
  one for the turn's end. Each read says which chunk it got and which events of the turn it told
  for the first time; the marks say, read by read and lane by lane, where text arrived, where a
  call started, got a fragment, was complete and was due, where the driver emitted, refused or
  raised, and where a message stopped. Where reading stopped and where the read was cancelled
  come apart. Everything is counted in reads as failure messages count chunks, through the
  driver rules' own ``DriverTimeline``, so the picture and the verdicts agree.
- A session trace (``session_swimlanes``): a lane per session, each followed by its
  sub-sessions, how deep each sits and which lanes its header spans, and the events of each.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

from harness.model import driver as dv
from harness.model import session as ev
from harness.replay.result import ScenarioResult
from harness.rules.driver_timing import DriverTimeline
from harness.rules.registry import Violation
from harness.scenario import DriverScenario

# -- driver --------------------------------------------------------------------------------------

LaneKind = Literal["wire", "text", "call", "extra call", "end"]

MarkKind = Literal[
    "arrives",
    "stop_reason",
    "message_stop",
    "starts",
    "fragment",
    "complete",
    "due",
    "emitted",
    "refused",
    "raised",
]


@dataclass(frozen=True)
class Lane:
    """One lane of a driver timeline."""

    #: as its header says it: ``wire``, ``text``, ``call NAME ID``, ``emitted call ID (not in
    #: the turn)``, ``turn end``
    name: str
    kind: LaneKind
    #: the call of a call lane (as the rules name it: ``#k`` for a call the stream gives no id)
    call_id: str | None = None


@dataclass(frozen=True)
class ReadRow:
    """One read of the driver's: what it got, and what it told of the turn for the first time."""

    #: counted from 1, as failure messages count chunks
    number: int
    #: what the read gave the driver: a whole chunk, or a slice of the body
    chunk: dv.Read
    #: the events of the turn it told for the first time (``DriverTimeline.told_at``)
    told: range
    #: the kinds of those events, each once, in order
    kinds: tuple[str, ...]


@dataclass(frozen=True)
class Mark:
    """Something that happened at one read, in one lane.

    ``arrives``: text streamed in (``text``, all of the read's); ``stop_reason`` (``text``) and
    ``message_stop``: a message stopping; ``starts``, ``fragment`` (``text``), ``complete`` and
    ``due``: a call's course in the stream, ``due`` shown only where the driver's contract makes
    the call due later than it is complete; ``emitted`` and ``refused``: an output of the
    driver's (``output``), at the read after which it came out; ``raised``: what the driver
    raised (``text``), at its last read."""

    #: the read it is shown at (from 1)
    read: int
    #: its lane's position in ``DriverSwimlanes.lanes``
    lane: int
    kind: MarkKind
    text: str = ""
    output: dv.DriverOutput | None = None
    #: the event of the turn it is about, where it is about one
    event: int | None = None


@dataclass(frozen=True)
class Stop:
    """Where the driver stopped reading."""

    #: the reads it made, of ``of`` the turn holds
    after: int
    of: int
    #: it asked for a read past the last
    asked_for_more: bool
    #: it closed the stream it read
    closed: bool


@dataclass(frozen=True)
class Cancel:
    """The read the replay cancelled: the one after read ``after``."""

    after: int
    #: the cancellation ended the driver (``DriverRun.cancelled``)
    ended_the_driver: bool


@dataclass(frozen=True)
class DriverSwimlanes:
    """The timeline of one driver run."""

    dialect: str
    #: when the driver passes calls on: per-call or per-message
    contract: str
    lanes: tuple[Lane, ...]
    #: a row per read the turn holds, read or not
    reads: tuple[ReadRow, ...]
    #: in the order they are noted: what each read told, then each call's course, then what
    #: the driver emitted, then what it raised
    marks: tuple[Mark, ...]
    #: the event that ends the turn (its last message_stop)
    final_stop: int
    stop: Stop
    cancel: Cancel | None
    #: each violation with the read it is shown at (the first read that tells its event, at
    #: most the last; -1 for a violation of the whole run), in the result's order
    violations: tuple[tuple[int, Violation], ...]

    def cells(self) -> dict[tuple[int, int], list[Mark]]:
        """The marks by (read, lane), each cell's in the order they are noted."""
        out: dict[tuple[int, int], list[Mark]] = {}
        for mark in self.marks:
            out.setdefault((mark.read, mark.lane), []).append(mark)
        return out


def driver_swimlanes(result: ScenarioResult) -> DriverSwimlanes | None:
    """The timeline of a driver case's run; None when the replay did not run the driver (or the
    case is not a driver's)."""
    run, scenario = result.driver_run, result.scenario
    if run is None or not isinstance(scenario, DriverScenario):
        return None
    timeline = DriverTimeline(run)
    turn, events = timeline.facts, scenario.events
    calls = list(turn.calls)
    known = {c.id for c in calls}
    extra = list(
        dict.fromkeys(
            o.id
            for o, _ in timeline.run.outputs
            if isinstance(o, dv.ToolCallOut) and o.id not in known
        )
    )
    lanes = [
        Lane("wire", "wire"),
        Lane("text", "text"),
        *(Lane(f"call {c.name} {c.id}", "call", c.id) for c in calls),
        *(Lane(f"emitted call {i} (not in the turn)", "extra call", i) for i in extra),
        Lane("turn end", "end"),
    ]
    call_lane = {c.id: 2 + n for n, c in enumerate(calls)}
    call_lane.update({i: 2 + len(calls) + n for n, i in enumerate(extra)})
    text_lane, end_lane = 1, len(lanes) - 1
    count = len(run.chunks)

    reads = []
    for n, chunk in enumerate(run.chunks, start=1):
        told = timeline.told_at(n)
        reads.append(ReadRow(n, chunk, told, tuple(dict.fromkeys(events[e].kind for e in told))))

    marks: list[Mark] = []
    for row in reads:
        texts = [t.text for t in (events[e] for e in row.told) if isinstance(t, dv.TextDelta)]
        if texts:
            marks.append(Mark(row.number, text_lane, "arrives", "".join(texts)))
        for e in row.told:
            event = events[e]
            if isinstance(event, dv.CycleDelta):
                marks.append(Mark(row.number, end_lane, "stop_reason", event.stop_reason, event=e))
            elif isinstance(event, dv.CycleStop):
                marks.append(Mark(row.number, end_lane, "message_stop", event=e))
    for call in calls:
        lane = call_lane[call.id]
        for e in range(call.start, min(call.complete, len(events) - 1) + 1):
            event, n = events[e], timeline.chunk_of(e) + 1
            if e == call.start:
                marks.append(Mark(n, lane, "starts", event=e))
            elif isinstance(event, dv.ArgumentsDelta) and event.index == call.index:
                marks.append(Mark(n, lane, "fragment", event.fragment, event=e))
        complete = timeline.chunk_of(call.complete) + 1
        marks.append(Mark(complete, lane, "complete", event=call.complete))
        due = timeline.due(call)
        if due != complete:
            marks.append(Mark(due, lane, "due"))
    for output, after in timeline.run.outputs:
        n = max(after, 1)
        if isinstance(output, dv.TextOut):
            marks.append(Mark(n, text_lane, "emitted", output=output))
        elif isinstance(output, dv.ToolCallOut):
            marks.append(Mark(n, call_lane[output.id], "emitted", output=output))
        elif isinstance(output, dv.TurnEnd):
            marks.append(Mark(n, end_lane, "emitted", output=output))
        else:
            marks.append(Mark(n, end_lane, "refused", output=output))
    if run.raised is not None:
        marks.append(Mark(max(run.reads, 1), end_lane, "raised", run.raised))

    violations = tuple(
        (min(timeline.chunk_of(v.event_index) + 1 if v.event_index >= 0 else -1, count), v)
        for v in result.violations
    )
    return DriverSwimlanes(
        dialect=run.dialect,
        contract=run.contract,
        lanes=tuple(lanes),
        reads=tuple(reads),
        marks=tuple(marks),
        final_stop=turn.final_stop,
        stop=Stop(run.reads, count, run.overread, run.upstream_closed),
        cancel=None if run.cancel_after is None else Cancel(run.cancel_after, run.cancelled),
        violations=violations,
    )


# -- session and history -------------------------------------------------------------------------


@dataclass(frozen=True)
class SessionLane:
    """One session's lane."""

    session: str
    #: the session it runs in, as the trace names it (None: a top-level session)
    parent: str | None
    #: how many sessions up its top-level session is (a cycle of parents counts each once)
    depth: int
    #: the lanes its header spans, as positions in ``SessionSwimlanes.lanes`` (``end``
    #: excluded): its own and its sub-sessions', so a delegation is drawn inside the session
    #: that made it
    start: int
    end: int
    #: the trace positions of its events, in order (none for a parent named only by others)
    events: tuple[int, ...]


@dataclass(frozen=True)
class SessionSwimlanes:
    """The lanes of one session trace: each session followed by its sub-sessions, depth first
    (sessions whose parents form a cycle come last, flat)."""

    lanes: tuple[SessionLane, ...]

    def lane_of(self, session: str) -> int:
        """The position of the session's lane."""
        return self._positions[session]

    @cached_property
    def _positions(self) -> dict[str, int]:
        return {lane.session: n for n, lane in enumerate(self.lanes)}


def session_swimlanes(trace: Sequence[ev.SessionEvent]) -> SessionSwimlanes:
    """The lanes of a session trace, found in one pass over it."""
    parent: dict[str, str | None] = {}
    mine: dict[str, list[int]] = {}
    for i, event in enumerate(trace):
        if event.session_id not in parent or parent[event.session_id] is None:
            parent[event.session_id] = event.parent_session_id
        mine.setdefault(event.session_id, []).append(i)
    for session in list(parent.values()):
        if session is not None and session not in parent:
            parent[session] = None
    children: dict[str | None, list[str]] = {}
    for session, up in parent.items():
        children.setdefault(up if up in parent and up != session else None, []).append(session)
    order: list[str] = []

    def walk(node: str | None) -> None:
        for child in children.get(node, []):
            if child not in order:
                order.append(child)
                walk(child)

    walk(None)
    order += [s for s in parent if s not in order]  # a cycle of parents: shown flat
    depths = {s: _depth(s, parent) for s in order}
    lanes = []
    for i, session in enumerate(order):
        j = i + 1
        while j < len(order) and depths[order[j]] > depths[session]:
            j += 1
        lanes.append(
            SessionLane(
                session, parent[session], depths[session], i, j, tuple(mine.get(session, ()))
            )
        )
    return SessionSwimlanes(tuple(lanes))


def _depth(session: str, parent: Mapping[str, str | None]) -> int:
    depth, seen, up = 0, {session}, parent.get(session)
    while up is not None and up not in seen:
        seen.add(up)
        depth, up = depth + 1, parent.get(up)
    return depth
