"""Faults applied to an expanded trace (session events or turn events alike): ``drop`` the
matching events, ``duplicate`` them, or ``cancel`` after one and go on with ``then`` steps."""

from __future__ import annotations

from typing import Any

from harness._yaml import LocatedDict, LocatedList
from harness.model.trace import Trace
from harness.scenario._fields import Fields, Invalid
from harness.scenario.generators import MAX_EVENTS
from harness.scenario.reader import StepReader


def apply_faults(r: StepReader, items: LocatedList, trace: list[Any]) -> list[Any]:
    had_events, problems = bool(trace), len(r.problems)
    for i, item in enumerate(items):
        line = items.line_of(i)
        if not isinstance(item, LocatedDict) or len(item) != 1:
            r.note(line, "each fault is a mapping with one key: drop, duplicate or cancel")
            continue
        ((kind, body),) = item.items()
        try:
            f = r.fields(body, f"the {kind!r} fault", item.line_of(kind))
            if kind == "drop":
                f.check_keys(("match", "nth"))
                gone = set(_matches(r, f, trace))
                trace = [e for j, e in enumerate(trace) if j not in gone]
            elif kind == "duplicate":
                f.check_keys(("match", "nth", "times"))
                doubled = set(_matches(r, f, trace))
                times = f.int("times", 1, minimum=1)
                added = len(doubled) * times
                if added > MAX_EVENTS - r.budget.used:
                    f.fail(
                        f.line_of("times"),
                        f"this fault would grow the trace past {MAX_EVENTS:,} events "
                        f"({added:,} copies after {r.budget.used:,}); lower 'times'",
                    )
                r.budget.take(added, f, "times")
                trace = [
                    c
                    for j, e in enumerate(trace)
                    for c in ([e] * (1 + times if j in doubled else 1))
                ]
            elif kind == "cancel":
                f.check_keys(("match", "nth", "then"))
                hits = _matches(r, f, trace)
                trace = trace[: hits[0] + 1] + list(Trace(r.steps(f.list("then"), "then")))
            else:
                f.fail(line, f"unknown fault {kind!r} (known: drop, duplicate, cancel)")
        except Invalid:
            continue
    if had_events and not trace and len(r.problems) == problems:
        r.note(items.line, "the faults drop every event: the scenario would check nothing")
    return trace


def _matches(r: StepReader, f: Fields, trace: list[Any]) -> list[int]:
    """The indices of the events the fault's ``match`` (and ``nth``) pick."""
    m = r.fields(f.raw("match"), "'match'", f.line_of("match"))
    if not f.has("match"):
        f.fail(f.line, f"{f.where} needs a 'match' saying which events it applies to")
    m.check_keys(("type", "session", "id", "index"))
    kind = m.str("type", "")
    if kind and kind not in r.event_types:
        m.fail(m.line_of("type"), f"unknown event type {kind!r} in 'match'")
    session_id = m.optional_str("session")
    wanted = m.optional_str("id")
    index = m.int("index", minimum=0) if m.has("index") else None
    hits = [
        j
        for j, e in enumerate(trace)
        if (not kind or e.kind == kind)
        and (session_id is None or getattr(e, "session_id", None) == session_id)
        and (wanted is None or wanted in _ids(e))
        and (index is None or getattr(e, "index", None) == index)
    ]
    if not hits:
        f.fail(f.line_of("match"), f"{f.where} matches no event of the trace")
    if f.has("nth"):
        nth = f.int("nth", minimum=1)
        if nth > len(hits):
            f.fail(f.line_of("nth"), f"'nth' is {nth} but only {len(hits)} events match")
        return [hits[nth - 1]]
    return hits


def _ids(event: Any) -> tuple[str, ...]:
    """Every id and name an event carries, for ``match: {id: ...}``."""
    ids: list[str] = []
    for attr in ("message_id", "interaction_id", "call_id", "name", "id"):
        value = getattr(event, attr, None)
        if value:
            ids.append(value)
    for call in getattr(event, "calls", ()):
        ids.extend((call.id, call.name))
    return tuple(ids)
