"""Replay a session-layer scenario through a push-style adapter and check the rules.

Checkpoints (where the adapter is observed): its notifications after every user turn start and
every interaction end; its notifications and whole transcript after every resume, at every
``checkpoint`` step of the scenario, and at the end. Reading the transcript costs as much as the
transcript is long, so it is not read at every interaction end of a 100,000-event trace.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
import weakref
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from harness._errors import AdapterError
from harness.model import session as ev
from harness.model.observation import (
    MalformedObservation,
    Notification,
    Observation,
    Transcript,
    coerce_notifications,
    coerce_transcript,
)
from harness.model.trace import Trace
from harness.replay._watchdog import Progress
from harness.rules.reference import REFERENCE_RULES, ReferencePoints
from harness.rules.registry import Rule, Violation
from harness.rules.session import ObservationPoint, SessionFacts, notifications_as_expected
from harness.rules.session_ledger import SessionLedger
from harness.scenario import Expectation, SessionScenario

#: the events the adapter is observed after (every event, with ``observe: every_event``)
_OBSERVED = frozenset({ev.UserTurnStart, ev.InteractionEnd, ev.Resume, ev.Checkpoint})


def _observation_point(i: int, event: ev.SessionEvent, every_event: bool) -> ObservationPoint:
    kind = type(event)
    if kind is ev.Resume:
        return ObservationPoint(
            i, f"resume of {event.session_id}", True, resumed_session=event.session_id
        )
    if kind is ev.Checkpoint:
        return ObservationPoint(i, f"checkpoint {event.name}", True)  # type: ignore[attr-defined]
    if every_event:
        return ObservationPoint(i, f"after event {i}", True)
    if kind is ev.UserTurnStart:
        return ObservationPoint(i, "user turn start", False)
    return ObservationPoint(i, f"interaction end of {event.session_id}", False)


#: the events that may open an observation point inside what they belong to (``_Inside``)
_INSIDE = frozenset({ev.ToolStreamPart, ev.ToolSelect, ev.ToolExecuting})


class _Inside:
    """Observation points inside what a scenario's own points would only see whole.

    Inside a streamed tool output: after its first part that is not its last (``is_complete``
    false), and after each later such part that changes its summary or status message, so a
    consumer that shows the parts, the summary or the status only once the output is complete
    is seen. After a select or executing event that names several calls: the notifications of
    every call it names (light). A session scenario gets these points without asking, at most
    one per such event.
    """

    __slots__ = ("shown",)

    def __init__(self) -> None:
        #: (session, call id) -> (summary, status message, an unfinished part seen) as of its
        #: latest part
        self.shown: dict[tuple[str, str], tuple[str, str, bool]] = {}

    def point(self, i: int, event: Any) -> ObservationPoint | None:
        if type(event) is not ev.ToolStreamPart:
            if len(event.calls) < 2:
                return None
            return ObservationPoint(
                i, f"{event.kind} of {len(event.calls)} calls in {event.session_id}", False
            )
        key = (event.session_id, event.call_id)
        before = self.shown.get(key, ("", "", False))
        now = (
            event.summary or before[0],
            event.tool_response or before[1],
            before[2] or not event.is_complete,
        )
        self.shown[key] = now
        if event.is_complete or before == now:
            return None
        return ObservationPoint(i, f"inside the streamed output of {event.call_id}", True)


@dataclass(frozen=True)
class Prepared:
    """What a scenario's replays share: the checkpoint plan and the ledger."""

    plan: tuple[ObservationPoint, ...]
    ledger: SessionLedger
    #: event index -> name of the scenario's ``checkpoint`` step there
    checkpoint_names: dict[int, str]


def plan_and_ledger(
    trace: Iterable[ev.SessionEvent], *, every_event: bool = False, history: bool = False
) -> Prepared:
    """One pass over the trace: where to observe the adapter, and the ledger, which keeps at
    each of those checkpoints what must show there (nothing per event). Only the history
    rules read the text of sub-sessions' messages."""
    ledger = SessionLedger(subsession_text=history)
    snapshot = ledger.snapshot
    plan: list[ObservationPoint] = []
    names: dict[int, str] = {}
    observed = _OBSERVED
    handlers = ledger.handlers
    last = -1
    inside = _Inside() if not (every_event or history) else None
    for last, event in enumerate(trace):
        kind = type(event)
        handler = handlers.get(kind)
        if handler is not None:
            handler(last, event)
        if every_event or kind in observed:
            plan.append(_observation_point(last, event, every_event))
            snapshot(last)
            if isinstance(event, ev.Checkpoint):
                names[last] = event.name
        elif inside is not None and kind in _INSIDE:
            point = inside.point(last, event)
            if point is not None:
                plan.append(point)
                snapshot(last)
    if plan and plan[-1].index == last:
        end = plan[-1]
        plan[-1] = ObservationPoint(last, end.reason, True, True, end.resumed_session)
    else:
        plan.append(ObservationPoint(last, "end of trace", True, True))
        snapshot(last)
    ledger.finish()
    for checkpoint in plan:
        if checkpoint.full:
            ledger.placements_at(checkpoint.index)
    return Prepared(tuple(plan), ledger, names)


_PREPARED: weakref.WeakKeyDictionary[SessionScenario, Prepared] = weakref.WeakKeyDictionary()
_PREPARING = threading.Lock()


def prepare(scenario: SessionScenario) -> Prepared:
    """Derive the plan and the ledger once per scenario (like expanding its events)."""
    with _PREPARING:
        prepared = _PREPARED.get(scenario)
        if prepared is None:
            prepared = _PREPARED[scenario] = plan_and_ledger(
                scenario.trace,
                every_event=scenario.observe_every_event,
                history=scenario.layer == "history",
            )
        return prepared


class _Events:
    """The events the adapter is fed, handed out in batches between checkpoints.

    Each batch is a tuple whose iterator the watchdog reads the progress from (``Progress.at``):
    the feed loop then costs no more per event than a bare ``for`` loop over the trace.
    """

    def __init__(self, trace: Trace, progress: Progress) -> None:
        self.batches = trace.batches()
        self.progress = progress
        self.batch: tuple[ev.SessionEvent, ...] = ()
        self.offset = 0

    def between(self, start: int, stop: int) -> Iterator[Iterator[ev.SessionEvent]]:
        """Iterators over the events start..stop-1, in order (each one is the progress's)."""
        progress = self.progress
        progress.phase = "feed"
        while start < stop:
            batch, offset = self.batch, self.offset
            if offset == len(batch):
                batch, offset = self.batch, self.offset = next(self.batches), 0
            piece = batch[offset : offset + stop - start]
            self.offset = offset + len(piece)
            progress.batch, progress.batch_end = iter(piece), start + len(piece)
            yield progress.batch
            start += len(piece)

    def passed(self, stop: int, checkpoint: ObservationPoint) -> None:
        """The events up to ``stop`` are fed; a ``checkpoint`` step there is passed over."""
        if stop == checkpoint.index:
            for _ in self.between(stop, stop + 1):
                pass
        self.progress.batch, self.progress.index = None, stop - 1


class SessionReplay:
    """One replay of a prepared scenario: the violations found so far."""

    def __init__(self, scenario: SessionScenario, rules: Sequence[Rule[Any]]) -> None:
        """``rules`` read ``SessionFacts``, or (a ``HistoryReplay``) ``HistoryFacts``."""
        self.scenario = scenario
        self.trace = scenario.trace
        prepared = prepare(scenario)
        self.plan = prepared.plan
        self.ledger = prepared.ledger
        self.rules = [r for r in rules if r.id not in REFERENCE_RULES]
        #: compares each observation with the reference consumer's (``replay/reference.py``)
        self.oracle: ReferencePoints | None = None
        self.light_rules = [r for r in self.rules if r.needs == "notifications"]
        self.observation: Observation | None = None
        self.found: dict[tuple[str, int, str], Violation] = {}
        self.checkpoint_names = prepared.checkpoint_names
        #: what the adapter is fed: the trace, or its copy as an unlabelled channel delivers it
        self.delivered = scenario.delivered

    @property
    def violations(self) -> tuple[Violation, ...]:
        return tuple(sorted(self.found.values(), key=lambda v: (v.event_index, v.rule)))

    def segments(self) -> Iterator[tuple[int, int, ObservationPoint]]:
        """(start, stop, checkpoint): feed the events start..stop-1, then observe. The events
        are read in order from one pass over the trace; a ``checkpoint`` step is observed
        after, not fed (its event is passed over)."""
        start, names = 0, self.checkpoint_names
        for checkpoint in self.plan:
            stop = checkpoint.index + 1
            yield start, checkpoint.index if checkpoint.index in names else stop, checkpoint
            start = stop

    # -- running -----------------------------------------------------------------------------

    def run(self, adapter: Any, progress: Progress) -> None:
        if inspect.iscoroutinefunction(getattr(adapter, "feed", None)):
            self._run_async(adapter, progress)
            return
        events = _Events(self.delivered, progress)
        feed = adapter.feed
        for start, stop, checkpoint in self.segments():
            try:
                for batch in events.between(start, stop):
                    for event in batch:
                        feed(event)
            except Exception as exc:
                raise self._raised(exc, "feed()", progress.at()) from exc
            events.passed(stop, checkpoint)
            answers = [
                self._call(getattr(adapter, name), name, args, checkpoint, progress)
                for name, args in self.queries(checkpoint)
            ]
            with progress.harness():
                self.check_answers(checkpoint, answers)
        self.finish(progress)

    def finish(self, progress: Progress) -> None:
        """A difference from the reference consumer, once every point is observed, if no
        specific rule found anything: the comparison stands behind them, it does not repeat
        them."""
        if self.oracle is not None and not self.found:
            with progress.harness():
                for violation in self.oracle.finish():
                    self.found.setdefault(
                        (violation.rule, violation.event_index, violation.message), violation
                    )

    # The same loop as run(), kept apart on purpose: the sync hot path (100k events) then has no
    # await and no branch per event.
    def _run_async(self, adapter: Any, progress: Progress) -> None:
        loop = asyncio.new_event_loop()

        async def body() -> None:
            events = _Events(self.delivered, progress)
            feed = adapter.feed
            for start, stop, checkpoint in self.segments():
                try:
                    for batch in events.between(start, stop):
                        for event in batch:
                            await feed(event)
                except asyncio.CancelledError:
                    raise
                except Exception as exc:
                    raise self._raised(exc, "feed()", progress.at()) from exc
                events.passed(stop, checkpoint)
                answers = [
                    await self._observe_async(
                        getattr(adapter, name), name, args, checkpoint, progress
                    )
                    for name, args in self.queries(checkpoint)
                ]
                with progress.harness():
                    self.check_answers(checkpoint, answers)
            self.finish(progress)

        task = loop.create_task(body())

        def cancel() -> None:
            loop.call_soon_threadsafe(task.cancel)

        progress.on_hang = cancel
        try:
            loop.run_until_complete(task)
        finally:
            loop.close()

    # -- what each layer asks and checks -------------------------------------------------------

    def queries(self, checkpoint: ObservationPoint) -> list[tuple[str, tuple[Any, ...]]]:
        """The adapter methods to call at this checkpoint, with their arguments."""
        if checkpoint.full:
            return [("notifications", ()), ("transcript", ())]
        return [("notifications", ())]

    def check_answers(self, checkpoint: ObservationPoint, answers: list[Any]) -> None:
        notes = self._coerce(coerce_notifications, answers[0], checkpoint)
        transcript = (
            self._coerce(coerce_transcript, answers[1], checkpoint) if checkpoint.full else None
        )
        self.check(checkpoint, notes, transcript)

    def _raised(self, exc: BaseException, what: str, index: int) -> AdapterError:
        trace = self.trace
        where = (
            f" on event {index} ({trace.kind_at(index)}, line {trace.line_at(index)})"
            if 0 <= index < len(trace)
            else ""
        )
        return AdapterError(
            f"the adapter's {what} raised {type(exc).__name__}: {exc}{where}", index=index
        )

    def _call(
        self,
        method: Any,
        name: str,
        args: tuple[Any, ...],
        checkpoint: ObservationPoint,
        progress: Progress,
    ) -> Any:
        what = f"{name}({', '.join(map(repr, args))})"
        progress.phase, progress.calls = what, progress.calls + 1
        try:
            return method(*args)
        except Exception as exc:
            raise self._raised(exc, what, checkpoint.index) from exc

    async def _observe_async(
        self,
        method: Any,
        name: str,
        args: tuple[Any, ...],
        checkpoint: ObservationPoint,
        progress: Progress,
    ) -> Any:
        value = self._call(method, name, args, checkpoint, progress)
        if inspect.isawaitable(value):
            try:
                value = await value
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                raise self._raised(exc, f"{name}()", checkpoint.index) from exc
        return value

    def _coerce(self, coerce: Any, value: Any, checkpoint: ObservationPoint) -> Any:
        try:
            return coerce(value)
        except MalformedObservation as exc:
            raise AdapterError(
                f"the adapter returned a malformed observation at the checkpoint after event "
                f"{checkpoint.index} ({checkpoint.reason}): {exc}",
                index=checkpoint.index,
            ) from None

    # -- checking ----------------------------------------------------------------------------

    def check(
        self,
        checkpoint: ObservationPoint,
        notes: tuple[Notification, ...],
        transcript: Transcript | None,
    ) -> None:
        if checkpoint.final and transcript is not None:
            self.observation = Observation(notes, transcript)
        if self.oracle is not None and not self.found:
            self.oracle.session(checkpoint, notes, transcript)
        if not checkpoint.full and notifications_as_expected(self.ledger, checkpoint.index, notes):
            return  # what a notifications rule may find is a notification not as expected
        context = SessionFacts(self.ledger, self.trace, checkpoint, notes, transcript)
        for rule in self.rules if checkpoint.full else self.light_rules:
            for violation in rule.check(context):
                self.found.setdefault(
                    (violation.rule, violation.event_index, violation.message), violation
                )
        if transcript is None:
            return
        name = "end" if checkpoint.final else None
        names = {name, self.checkpoint_names.get(checkpoint.index)}
        for expectation in self.scenario.expectations:
            if expectation.at in names:
                for violation in pinned(expectation, checkpoint, notes, transcript):
                    self.found.setdefault(
                        (violation.rule, violation.event_index, violation.message), violation
                    )


def pinned(
    expectation: Expectation,
    checkpoint: ObservationPoint,
    notes: tuple[Notification, ...],
    transcript: Transcript,
) -> Iterator[Violation]:
    """Compare what the scenario pinned with what the adapter shows."""
    where = f"at {expectation.at!r} (expectation on line {expectation.line})"
    if expectation.notifications is not None:
        shown = sorted((n.session_id, n.tool_call_id, n.status) for n in notes)
        wanted = sorted(expectation.notifications)
        if shown != wanted:
            yield Violation(
                "expectation",
                checkpoint.index,
                f"notifications {where}: the adapter shows {shown}; the scenario expected {wanted}",
            )
    for session_id, messages in expectation.messages.items():
        view = transcript.sessions.get(session_id)
        actual = view.messages if view else ()
        if len(actual) != len(messages):
            yield Violation(
                "expectation",
                checkpoint.index,
                f"session {session_id!r} {where}: the adapter shows {len(actual)} messages; the "
                f"scenario expected {len(messages)}",
            )
            continue
        for i, (want, got) in enumerate(zip(messages, actual, strict=True)):
            calls = tuple(c.id for c in got.tool_calls)
            if (
                want.role != got.role
                or (want.text is not None and want.text != got.text)
                or (want.tool_calls is not None and tuple(want.tool_calls) != calls)
            ):
                yield Violation(
                    "expectation",
                    checkpoint.index,
                    f"message {i} of session {session_id!r} {where}: the adapter shows {got.role} "
                    f"{_short(got.text)} with tool calls {list(calls)}; the scenario expected "
                    f"{want.role} {_short(want.text) if want.text is not None else '(any text)'} "
                    f"with {list(want.tool_calls) if want.tool_calls is not None else '(any tool calls)'}",
                )


def _short(text: str) -> str:
    return repr(text if len(text) <= 60 else text[:57] + "...")
