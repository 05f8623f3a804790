"""The cases a session or history scenario runs as: its variations.

A scenario written once shows one shape of the session stream. A *variation* reworks its trace
into another shape the protocol allows and that a consumer must handle just as well: the ids
made unique per session only, an observation after every event, a resume from the stored
history at every point where a session is at rest, sibling sub-sessions interleaved event by
event, text deltas split or merged, adjacent lifecycle events of different calls swapped. What
must show is derived from the reworked trace by the same ledger as for any scenario, so a
variation needs no expectation of its own; the scenario's pinned ``expect`` entries belong to
the trace as written and are not carried over.

Like the driver layer's quirk cross product (``harness.scenario.cases``) a scenario runs as
written, then under each variation that changes it, then under each sensible pair: two
variations that rework some of the same events of the scenario, when neither reworks every
event (``every-event`` observes after every event and so meets every other variation in its
own case). Each case is a ``SessionScenario`` named ``id[variation]`` or ``id[a+b]``, whose
``origins`` give, for each of its events, the event of the scenario it came from: a root cause
found in a case is keyed by that event (``results.causes``), so a variation that shows a bug the
scenario as written shows too is one cause with it.

A variation that cannot rework a scenario says why (``why_not``); ``harness coverage`` lists it.
"""

from __future__ import annotations

import dataclasses
import itertools
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from harness.model import session as ev
from harness.model.history import HistoryMessage, ToolResultBlock, ToolUseBlock
from harness.model.projection import history_from_events
from harness.model.trace import Trace
from harness.scenario.types import SessionScenario

#: which cases to run: every one, only the scenarios as written, or the one case of these
Selection = str | tuple[str, ...]
ALL, NONE = "all", "none"

#: a scenario longer than this is not reworked (its trace would be held in memory, once per
#: variation): the long generated traces are about scale, not shape
MAX_EVENTS = 20_000
#: an observation after every event reads the whole transcript each time: past this many events
#: the case would cost more than the rest of the library
MAX_EVERY_EVENT = 1_500


@dataclass(frozen=True)
class Reworked:
    """A variation's trace: its events, the scenario event each came from, the scenario events
    it changed (by their index in the scenario as written), and whether to observe after every
    event."""

    events: tuple[ev.SessionEvent, ...]
    origins: tuple[int, ...]
    changed: frozenset[int]
    every_event: bool = False


#: a variation: the events and their origins in -> the reworked trace, or why it cannot apply
Rework = Callable[[SessionScenario, tuple[ev.SessionEvent, ...], tuple[int, ...]], "Reworked | str"]


@dataclass(frozen=True)
class Variation:
    name: str
    #: what it does, and why a consumer must handle it (``harness coverage``, the docs)
    description: str
    rework: Rework


# -- the variations ------------------------------------------------------------------------------


def _every_event(
    scenario: SessionScenario, events: tuple[ev.SessionEvent, ...], origins: tuple[int, ...]
) -> Reworked | str:
    if scenario.observe_every_event:
        return "the scenario observes after every event already"
    if len(events) > MAX_EVERY_EVENT:
        return (
            f"{len(events)} events: an observation after each would read the transcript "
            f"{len(events)} times (the limit is {MAX_EVERY_EVENT})"
        )
    return Reworked(events, origins, frozenset(origins), every_event=True)


def _reused_ids(
    scenario: SessionScenario, events: tuple[ev.SessionEvent, ...], origins: tuple[int, ...]
) -> Reworked | str:
    """Message and tool call ids numbered afresh in each session (``m1``, ``call_1``, ...), so
    that every session uses the same ids: ids are unique per session only."""
    messages: dict[str, dict[str, str]] = {}
    calls: dict[str, dict[str, str]] = {}

    def message_id(session: str, old: str) -> str:
        mine = messages.setdefault(session, {})
        return mine.setdefault(old, f"m{len(mine) + 1}")

    def call_id(session: str, old: str) -> str:
        mine = calls.setdefault(session, {})
        return mine.setdefault(old, f"call_{len(mine) + 1}")

    out: list[ev.SessionEvent] = []
    for event in events:
        session = event.session_id
        if isinstance(event, (ev.MessageStart, ev.MessageDelta, ev.MessageEnd, ev.UserMessage)):
            event = dataclasses.replace(event, message_id=message_id(session, event.message_id))
        elif isinstance(event, (ev.ToolSelect, ev.ToolExecuting, ev.ToolCompleted)):
            renamed = tuple(dataclasses.replace(c, id=call_id(session, c.id)) for c in event.calls)
            if isinstance(event, ev.ToolCompleted):
                results = tuple(
                    dataclasses.replace(r, tool_call_id=call_id(session, r.tool_call_id))
                    for r in event.results
                )
                event = dataclasses.replace(event, calls=renamed, results=results)
            else:
                event = dataclasses.replace(event, calls=renamed)
        elif isinstance(event, ev.ToolStreamPart):
            event = dataclasses.replace(event, call_id=call_id(session, event.call_id))
        elif isinstance(event, ev.Resume):
            event = dataclasses.replace(
                event, history=tuple(_renamed(m, session, call_id) for m in event.history)
            )
        out.append(event)
    # where the reuse matters: the events naming an id another session uses too
    owners: dict[tuple[str, str], set[str]] = {}
    for kind, table in (("message", messages), ("call", calls)):
        for session, ids in table.items():
            for new in ids.values():
                owners.setdefault((kind, new), set()).add(session)
    shared = {key for key, sessions in owners.items() if len(sessions) > 1}
    if not shared:
        return "no two sessions name messages or tool calls: there is no id to share"
    changed = frozenset(
        origins[i]
        for i, event in enumerate(out)
        if out[i] != events[i] and any(key in shared for key in _ids(event))
    )
    if not changed:
        return "its sessions share their ids already"
    return Reworked(tuple(out), origins, changed)


def _renamed(
    message: HistoryMessage, session: str, call_id: Callable[[str, str], str]
) -> HistoryMessage:
    blocks = []
    for block in message.blocks:
        if isinstance(block, ToolUseBlock):
            block = dataclasses.replace(block, id=call_id(session, block.id))
        elif isinstance(block, ToolResultBlock):
            block = dataclasses.replace(block, tool_use_id=call_id(session, block.tool_use_id))
        blocks.append(block)
    return dataclasses.replace(message, blocks=tuple(blocks))


def _ids(event: ev.SessionEvent) -> list[tuple[str, str]]:
    if isinstance(event, (ev.MessageStart, ev.MessageDelta, ev.MessageEnd, ev.UserMessage)):
        return [("message", event.message_id)]
    if isinstance(event, (ev.ToolSelect, ev.ToolExecuting, ev.ToolCompleted)):
        return [("call", c.id) for c in event.calls]
    if isinstance(event, ev.ToolStreamPart):
        return [("call", event.call_id)]
    return []


def _split_deltas(
    scenario: SessionScenario, events: tuple[ev.SessionEvent, ...], origins: tuple[int, ...]
) -> Reworked | str:
    """Each text delta of two characters or more arrives as two deltas, cut in its middle."""
    out: list[ev.SessionEvent] = []
    where: list[int] = []
    changed = set()
    for event, origin in zip(events, origins, strict=True):
        if isinstance(event, ev.MessageDelta) and len(event.text) >= 2:
            cut = len(event.text) // 2
            out += [
                dataclasses.replace(event, text=event.text[:cut]),
                dataclasses.replace(event, text=event.text[cut:]),
            ]
            where += [origin, origin]
            changed.add(origin)
        else:
            out.append(event)
            where.append(origin)
    if not changed:
        return "no text delta of two characters or more to split"
    return Reworked(tuple(out), tuple(where), frozenset(changed))


def _merged_deltas(
    scenario: SessionScenario, events: tuple[ev.SessionEvent, ...], origins: tuple[int, ...]
) -> Reworked | str:
    """Text deltas that follow each other into the same message arrive as one delta (it stands
    where the last of them was: the text is complete there)."""
    out: list[ev.SessionEvent] = []
    where: list[int] = []
    changed: set[int] = set()
    for event, origin in zip(events, origins, strict=True):
        last = out[-1] if out else None
        if (
            isinstance(event, ev.MessageDelta)
            and isinstance(last, ev.MessageDelta)
            and (last.session_id, last.message_id) == (event.session_id, event.message_id)
        ):
            changed.update((where[-1], origin))
            out[-1] = dataclasses.replace(event, text=last.text + event.text)
            where[-1] = origin
        else:
            out.append(event)
            where.append(origin)
    if not changed:
        return "no two text deltas of one message follow each other"
    return Reworked(tuple(out), tuple(where), frozenset(changed))


_LIFECYCLE = (ev.ToolSelect, ev.ToolExecuting, ev.ToolCompleted)


def _reordered_lifecycle(
    scenario: SessionScenario, events: tuple[ev.SessionEvent, ...], origins: tuple[int, ...]
) -> Reworked | str:
    """Two lifecycle events (select, executing, completed) of one session that follow each other
    and name different calls arrive the other way round: parallel calls are prepared, run and
    finished in any order, each call's own events keeping theirs. Pairs are taken from the
    front, each event in one pair at most."""
    out = list(events)
    where = list(origins)
    changed: set[int] = set()
    i = 0
    while i + 1 < len(out):
        a, b = out[i], out[i + 1]
        if (
            isinstance(a, _LIFECYCLE)
            and isinstance(b, _LIFECYCLE)
            and a.session_id == b.session_id
            and not {c.id for c in a.calls} & {c.id for c in b.calls}
        ):
            out[i], out[i + 1] = b, a
            where[i], where[i + 1] = where[i + 1], where[i]
            changed.update((where[i], where[i + 1]))
            i += 2
        else:
            i += 1
    if not changed:
        return "no two lifecycle events of different calls of one session follow each other"
    return Reworked(tuple(out), tuple(where), frozenset(changed))


def _interleaved(
    scenario: SessionScenario, events: tuple[ev.SessionEvent, ...], origins: tuple[int, ...]
) -> Reworked | str:
    """Two sub-sessions of one parent that run one after the other (the second starts right
    after the first ends) run at once instead: their events alternate, one by one, each
    sub-session's own events (and its nested ones') keeping their order."""
    if scenario.unlabelled_subsessions:
        return "its sub-sessions are unlabelled: interleaved, their events could not be told apart"
    parent: dict[str, str | None] = {}
    blocks: list[tuple[int, int, str]] = []  # (start, end inclusive, session) of each sub-session
    opened: dict[str, int] = {}
    for i, event in enumerate(events):
        if isinstance(event, ev.SubsessionStart):
            parent[event.session_id] = event.parent_session_id
            opened[event.session_id] = i
        elif isinstance(event, ev.SubsessionEnd) and event.session_id in opened:
            start = opened.pop(event.session_id)
            if all(_within(e.session_id, event.session_id, parent) for e in events[start : i + 1]):
                blocks.append((start, i, event.session_id))
    by_start = {start: (end, session) for start, end, session in blocks}
    out: list[ev.SessionEvent] = []
    where: list[int] = []
    changed: set[int] = set()
    i = 0
    while i < len(events):
        first = by_start.get(i)
        second = by_start.get(first[0] + 1) if first else None
        if first is None or second is None or parent[first[1]] != parent[second[1]]:
            out.append(events[i])
            where.append(origins[i])
            i += 1
            continue
        a = range(i, first[0] + 1)
        b = range(first[0] + 1, second[0] + 1)
        for n in itertools.chain.from_iterable(itertools.zip_longest(a, b)):
            if n is not None:
                out.append(events[n])
                where.append(origins[n])
                changed.add(origins[n])
        i = second[0] + 1
    if not changed:
        return "no two sub-sessions of one parent run one right after the other"
    return Reworked(tuple(out), tuple(where), frozenset(changed))


def _within(session: str, ancestor: str, parent: dict[str, str | None]) -> bool:
    seen: str | None = session
    while seen is not None:
        if seen == ancestor:
            return True
        seen = parent.get(seen)
    return False


_OBSERVED = (ev.UserTurnStart, ev.InteractionEnd, ev.Checkpoint)


def _resumed(
    scenario: SessionScenario, events: tuple[ev.SessionEvent, ...], origins: tuple[int, ...]
) -> Reworked | str:
    """After every point the harness observes at (a user turn start, an interaction end, a
    ``checkpoint`` step), each top-level session at rest there reconnects: it is resumed from
    the history a correct store holds for it (``history: live``). At rest: no interaction of
    it open, no message of it streaming, no call of it selected or running, no stream part of
    it incomplete, no sub-session under it open. A resume of a session in motion asks what the
    consumer shows of a call the history does not settle, which the scenarios that resume so
    ask on purpose; this variation keeps to the reconnection every consumer must survive."""
    state = _RestState()
    out: list[ev.SessionEvent] = []
    where: list[int] = []
    changed: set[int] = set()
    for n, (event, origin) in enumerate(zip(events, origins, strict=True)):
        state.see(event)
        out.append(event)
        where.append(origin)
        if not isinstance(event, _OBSERVED) or n + 1 == len(events):
            continue
        following = events[n + 1]
        for session in state.roots:
            if not state.at_rest(session):
                continue
            if isinstance(following, ev.Resume) and following.session_id == session:
                continue  # the scenario resumes it here itself
            history = history_from_events(out, session)
            if not history:
                continue
            out.append(ev.Resume(session_id=session, history=history, line=event.line))
            where.append(origin)
            changed.add(origin)
            state.see(out[-1])
    if not changed:
        return "no top-level session is at rest, with a history, where the harness observes"
    return Reworked(tuple(out), tuple(where), frozenset(changed))


class _RestState:
    """What is open in each session, read event by event (``_resumed``)."""

    def __init__(self) -> None:
        self.roots: list[str] = []
        self.parent: dict[str, str | None] = {}
        self.interaction: set[str] = set()
        self.messages: set[tuple[str, str]] = set()
        self.calls: set[tuple[str, str]] = set()
        self.streams: set[tuple[str, str]] = set()
        self.subsessions: set[str] = set()

    def see(self, event: ev.SessionEvent) -> None:
        session = event.session_id
        if event.parent_session_id is None and session not in self.parent:
            self.parent[session] = None
            self.roots.append(session)
        if isinstance(event, ev.SubsessionStart):
            self.parent[session] = event.parent_session_id
            self.subsessions.add(session)
        elif isinstance(event, ev.SubsessionEnd):
            self.subsessions.discard(session)
        elif isinstance(event, ev.InteractionStart):
            self.interaction.add(session)
        elif isinstance(event, ev.InteractionEnd):
            self.interaction.discard(session)
            self.calls = {c for c in self.calls if c[0] != session}
        elif isinstance(event, ev.UserTurnStart):
            self.calls.clear()
        elif isinstance(event, ev.MessageStart):
            self.messages.add((session, event.message_id))
        elif isinstance(event, ev.MessageEnd):
            self.messages.discard((session, event.message_id))
        elif isinstance(event, (ev.ToolSelect, ev.ToolExecuting)):
            self.calls.update((session, c.id) for c in event.calls)
        elif isinstance(event, ev.ToolCompleted):
            self.calls.difference_update((session, c.id) for c in event.calls)
        elif isinstance(event, ev.ToolStreamPart):
            key = (session, event.call_id)
            if event.is_complete:
                self.streams.discard(key)
            else:
                self.streams.add(key)
        elif isinstance(event, ev.Resume):
            self.messages = {m for m in self.messages if m[0] != session}

    def at_rest(self, root: str) -> bool:
        def mine(session: str) -> bool:
            return _within(session, root, self.parent)

        return not (
            any(mine(s) for s in self.interaction)
            or any(mine(s) for s, _ in self.messages)
            or any(mine(s) for s, _ in self.calls)
            or any(mine(s) for s, _ in self.streams)
            or any(mine(s) for s in self.subsessions)
        )


#: every variation, in the order cases are made and named
VARIATIONS: dict[str, Variation] = {
    v.name: v
    for v in (
        Variation(
            "reused-ids",
            "message and tool call ids numbered afresh in each session, so sessions share them "
            "(ids are unique per session only)",
            _reused_ids,
        ),
        Variation(
            "every-event",
            "an observation after every event, not only where the scenario observes",
            _every_event,
        ),
        Variation(
            "resumed",
            "each top-level session at rest resumed from its stored history at every point the "
            "harness observes (cut there, rebuilt, continued)",
            _resumed,
        ),
        Variation(
            "interleaved",
            "two sub-sessions of one parent that run one after the other run at once, their "
            "events alternating",
            _interleaved,
        ),
        Variation(
            "split-deltas", "each text delta arrives as two, cut in its middle", _split_deltas
        ),
        Variation(
            "merged-deltas",
            "text deltas that follow each other into one message arrive as one",
            _merged_deltas,
        ),
        Variation(
            "reordered-lifecycle",
            "adjacent lifecycle events (select, executing, completed) of different calls of one "
            "session swapped",
            _reordered_lifecycle,
        ),
    )
}


# -- cases ---------------------------------------------------------------------------------------


def why_not(scenario: SessionScenario, name: str) -> str | None:
    """Why the variation ``name`` makes no case of the scenario (None: it makes one)."""
    if len(scenario.trace) > MAX_EVENTS:
        return f"{len(scenario.trace)} events: longer than the {MAX_EVENTS} a variation reworks"
    events = tuple(scenario.trace)
    done = VARIATIONS[name].rework(scenario, events, tuple(range(len(events))))
    return done if isinstance(done, str) else None


#: scenario -> its cases after the first (made once: every adapter runs the same cases)
_CASES: weakref.WeakKeyDictionary[SessionScenario, tuple[SessionScenario, ...]] = (
    weakref.WeakKeyDictionary()
)


def session_cases(scenario: SessionScenario) -> tuple[SessionScenario, ...]:
    """The scenario as written, then each variation that changes it, then each sensible pair
    (both rework some of the same events, neither reworks every one), in ``VARIATIONS`` order;
    no two cases with the same trace and observations."""
    found = _CASES.get(scenario)
    if found is None:
        found = _CASES[scenario] = _session_cases(scenario)
    return (scenario, *found)


def _session_cases(scenario: SessionScenario) -> tuple[SessionScenario, ...]:
    if len(scenario.trace) > MAX_EVENTS:
        return ()
    events = tuple(scenario.trace)
    identity = tuple(range(len(events)))
    seen: list[tuple[tuple[ev.SessionEvent, ...], bool]] = [(events, scenario.observe_every_event)]
    singles: dict[str, Reworked] = {}
    out: list[SessionScenario] = []
    for name, variation in VARIATIONS.items():
        done = variation.rework(scenario, events, identity)
        if isinstance(done, str) or (done.events, _observes(scenario, done)) in seen:
            continue
        seen.append((done.events, _observes(scenario, done)))
        singles[name] = done
        out.append(_case(scenario, (name,), done))
    everything = frozenset(identity)
    for a, b in itertools.combinations(singles, 2):
        ca, cb = singles[a].changed, singles[b].changed
        if ca >= everything or cb >= everything or not ca & cb:
            continue
        paired = _compose(scenario, singles[a], VARIATIONS[b])
        if paired is None or (paired.events, _observes(scenario, paired)) in seen:
            continue
        seen.append((paired.events, _observes(scenario, paired)))
        out.append(_case(scenario, (a, b), paired))
    return tuple(out)


def _observes(scenario: SessionScenario, done: Reworked) -> bool:
    return scenario.observe_every_event or done.every_event


def _compose(scenario: SessionScenario, first: Reworked, then: Variation) -> Reworked | None:
    """``then`` applied to ``first``'s trace, the origins still those of the scenario."""
    done = then.rework(
        dataclasses.replace(scenario, observe_every_event=_observes(scenario, first)),
        first.events,
        first.origins,
    )
    if isinstance(done, str):
        return None
    return Reworked(
        done.events,
        done.origins,
        first.changed | done.changed,
        first.every_event or done.every_event,
    )


def _case(scenario: SessionScenario, names: Sequence[str], done: Reworked) -> SessionScenario:
    from harness.scenario.session import unlabelled_delivery

    return dataclasses.replace(
        scenario,
        trace=Trace(done.events),
        expectations=(),
        observe_every_event=_observes(scenario, done),
        _delivered=unlabelled_delivery(done.events) if scenario.unlabelled_subsessions else None,
        variant="+".join(names),
        origins=done.origins,
    )


def select_session_cases(
    scenario: SessionScenario, selection: Selection = ALL
) -> tuple[SessionScenario, ...]:
    """The cases ``selection`` asks for: ``"all"``, ``"none"`` (the scenario as written), or a
    tuple of variations: the one case of them (none if they do not all change the scenario).
    An unknown variation is a ``ValueError`` naming the variations."""
    if selection == ALL:
        return session_cases(scenario)
    if selection == NONE or not selection:
        return (scenario,)
    check_variations(selection)
    if any(v not in VARIATIONS for v in selection):
        return ()  # a producer variant of a session dialect: its case is the replay's to make
    wanted = "+".join(v for v in VARIATIONS if v in selection)
    return tuple(c for c in session_cases(scenario) if c.variant == wanted) or _one_case(
        scenario, tuple(v for v in VARIATIONS if v in selection)
    )


def _one_case(scenario: SessionScenario, names: tuple[str, ...]) -> tuple[SessionScenario, ...]:
    """A combination the cross product leaves out (not a sensible pair, or more than two),
    asked for by name: made when every variation in it changes the trace."""
    if len(scenario.trace) > MAX_EVENTS:
        return ()
    events = tuple(scenario.trace)
    done: Reworked | None = Reworked(events, tuple(range(len(events))), frozenset())
    for name in names:
        assert done is not None
        step = _compose(scenario, done, VARIATIONS[name])
        if step is None:
            return ()
        done = step
    assert done is not None
    return (_case(scenario, names, done),)


def check_variations(names: Sequence[str]) -> None:
    """A ``ValueError`` naming the variations, and the session dialects' producer variants,
    for a name that is neither."""
    from harness.codecs.session.base import producer_variants
    from harness.codecs.session.registry import session_codecs

    producers = [v for c in session_codecs().values() for v in producer_variants(c)]
    unknown = [n for n in names if n not in VARIATIONS and n not in producers]
    if unknown:
        raise ValueError(
            f"no variation {', '.join(map(repr, unknown))} (the variations: "
            f"{', '.join(VARIATIONS)}; the session dialects' producer variants: "
            f"{', '.join(producers) or 'none'})"
        )
