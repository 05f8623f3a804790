"""Reading a driver scenario: a canonical turn written as steps, or a recorded stream (``wire``),
and the dialects, quirks and cancellation it runs with."""

from __future__ import annotations

from pathlib import Path

from harness._errors import UsageError
from harness._files import confine, shown
from harness.codecs import Codec, dialects
from harness.model import driver as dv
from harness.scenario._fields import Fields
from harness.scenario.faults import apply_faults
from harness.scenario.reader import StepReader
from harness.scenario.types import DriverScenario, Recording, ScenarioHeader, fields_of
from harness.wire.chunking import cut_problem
from harness.wire.faults import Cut, Fault, Stall, parse_fault
from harness.wire.sse import LINE_END

#: the top-level fields only driver scenarios have (``expect`` is read to say it is not offered)
DRIVER_KEYS = (
    "dialects",
    "quirks",
    "cancel_after_reads",
    "byte_cuts",
    "transport",
    "wire",
    "trace",
    "faults",
    "expect",
)


def read_driver_scenario(r: StepReader, top: Fields, header: ScenarioHeader) -> DriverScenario:
    codecs = dialects()
    raw: tuple[tuple[str, int], ...] = ()
    recording: Recording | None = None
    if top.has("wire"):
        if top.has("trace"):
            top.note(
                top.line_of("wire"), "give either a trace or 'wire' (a recorded stream), not both"
            )
        dialect, raw, turn, recording = _recorded_wire(r, top, codecs)
        wanted: tuple[str, ...] = (dialect,)
    else:
        steps = top.list("trace", required=True)
        if not steps:
            top.fail(top.line_of("trace"), "the trace is empty")
        problems = len(r.problems)
        turn = apply_faults(r, top.list("faults"), r.steps(steps, "trace"))
        if len(r.problems) == problems and all(isinstance(event, dv.Ping) for event in turn):
            top.note(
                top.line_of("trace"),
                "the trace holds only pings: nothing a driver could get wrong, so the scenario "
                "would check nothing",
            )
        wanted = top.str_list("dialects")
    for i, name in enumerate(wanted):
        if name not in codecs:
            top.note(
                top.list("dialects").line_of(i),
                f"unknown dialect {name!r} (known: {', '.join(codecs)})",
            )
    chosen = [codecs[n] for n in (wanted or codecs) if n in codecs]
    quirks = top.str_list("quirks")
    for i, quirk in enumerate(quirks):
        if not any(quirk in c.quirks for c in chosen):
            known = ", ".join(sorted({q for c in chosen for q in c.quirks}))
            top.note(
                top.list("quirks").line_of(i),
                f"no dialect of this scenario knows the quirk {quirk!r} (known: {known})",
            )
    if wanted:
        for codec in chosen:
            reason = codec.can_express(turn, quirks)
            if reason:
                top.note(top.line_of("dialects"), f"{codec.name}: {reason}")
    if top.has("expect"):
        top.note(
            top.line_of("expect"), "pinned expectations are not available for driver scenarios"
        )
    cancel = top.int("cancel_after_reads", minimum=1) if top.has("cancel_after_reads") else None
    for event in turn[:-1]:
        if isinstance(event, dv.StreamError):
            top.note(event.line, "nothing follows a server's error: the stream ends with it")
            break
    return DriverScenario(
        **fields_of(header),
        turn=tuple(turn),
        dialects=wanted,
        quirks=quirks,
        cancel_after_reads=cancel,
        raw_wire=raw,
        recording=recording,
        byte_cuts=_byte_cuts(top),
        transport=_transport(top),
    )


#: the longest stall a driver scenario may ask for: a stall is real time on every replay
MAX_STALL_SECONDS = 2.0


def _transport(top: Fields) -> tuple[Fault, ...]:
    """The transport faults of the driver's stream: ``cut:N``, ``end:N`` and ``stall:N:SECONDS``, as
    ``harness serve --fault`` writes them."""
    if not top.has("transport"):
        return ()
    items = top.list("transport")
    out: list[Fault] = []
    for i, text in enumerate(items):
        line = items.line_of(i)
        if not isinstance(text, str):
            top.note(
                line, f"a transport fault is written cut:N, end:N or stall:N:SECONDS, got {text!r}"
            )
            continue
        try:
            fault = parse_fault(text)
        except UsageError as exc:
            top.note(line, str(exc))
            continue
        if not isinstance(fault, (Cut, Stall)):
            top.note(
                line,
                f"{text}: a driver scenario's transport faults are cut:N, end:N and stall:N:SECONDS "
                "(a dropped event is a 'faults' drop; where reads split is 'byte_cuts')",
            )
        elif isinstance(fault, Cut) and fault.after < 1:
            top.note(line, f"{text}: a cut before the first chunk leaves nothing to read")
        elif isinstance(fault, Stall) and fault.seconds > MAX_STALL_SECONDS:
            top.note(
                line,
                f"{text}: a stall is real time on every replay; at most {MAX_STALL_SECONDS:g}s",
            )
        else:
            out.append(fault)
    if sum(isinstance(f, Cut) for f in out) > 1:
        top.note(top.line_of("transport"), "one cut is enough: the body ends at the first")
    return tuple(out)


def _byte_cuts(top: Fields) -> tuple[int, ...] | None:
    """Where a bytes-reading driver gets the body cut: offsets, strictly increasing."""
    if not top.has("byte_cuts"):
        return None
    cuts = top.list("byte_cuts")
    problem = cut_problem(list(cuts))
    if problem is not None:
        at, message = problem
        top.fail(cuts.line_of(at) if at >= 0 else top.line_of("byte_cuts"), message)
    return tuple(cuts)


def _recorded_wire(
    r: StepReader, top: Fields, codecs: dict[str, Codec]
) -> tuple[str, tuple[tuple[str, int], ...], list[dv.TurnEvent], Recording]:
    """A stream given as it was recorded: inline, a raw file, or a cassette interaction; and
    where the lines the decoder numbers are."""
    from harness.wire import WireError, split_sse
    from harness.wire.recordings import (
        RecordedResponse,
        choose_stream,
        framing_of_text,
        recorded_body,
        recorded_cassette,
        without_pending_event,
    )

    w = r.fields(top.raw("wire"), "'wire'", top.line_of("wire"))
    w.check_keys(("dialect", "body", "file", "cassette", "interaction"))
    dialect = w.choice("dialect", tuple(codecs))
    given = [k for k in ("body", "file", "cassette") if w.has(k)]
    if len(given) != 1:
        w.fail(
            w.line,
            "'wire' needs exactly one of: body (the stream's text), file (a raw stream), "
            "cassette (a vcrpy cassette)",
        )
    base = Path(r.path).parent
    try:
        if given[0] == "body":
            body, source = w.str("body"), f"{r.path} wire body"
            recording = _inline(r.text, w.line_of("body"), body, r.path)
        else:
            try:
                path = shown(confine(w.str(given[0]), base))
            except ValueError as exc:
                w.fail(w.line_of(given[0]), str(exc))
            if given[0] == "file":
                response = recorded_body(path)
                responses: tuple[RecordedResponse, ...] = (response,)
                number = None
            else:
                number = w.int("interaction", 0, minimum=0)
            try:
                if given[0] == "cassette":
                    responses = recorded_cassette(path, number)
                response = choose_stream(responses, number, dialect)
            except UsageError as exc:
                w.fail(w.line_of("interaction") if w.has("interaction") else w.line, str(exc))
            # JSON lines come back in their SSE framing; a body's lines count within it
            body, source = response.body, response.source
            recording = Recording(source)
        framing = framing_of_text(body) if given[0] == "body" else response.framing
        # an event the body ends before its blank line is discarded, as the SSE rules say
        turn = list(codecs[dialect].decode(without_pending_event(body, framing), source=source))
        if all(isinstance(event, dv.Ping) for event in turn):
            # an empty body, or a file that is no stream (a README): replaying it checks nothing
            w.fail(
                w.line_of(given[0]),
                f"the recorded stream holds no event of a turn when read as {dialect}: "
                "there is nothing to replay or check",
            )
        return dialect, split_sse(body, source=source), turn, recording
    except WireError as exc:
        if given[0] == "body":
            # an inline body's line n is a line of this file when it can be followed
            w.fail(recording.line(exc.line), f"the recorded stream cannot be read: {exc.message}")
        w.fail(w.line_of(given[0]), f"the recorded stream cannot be read: {exc}")


def _inline(text: str, at: int, body: str, path: str) -> Recording:
    """Where an inline body's lines are in the scenario file. Written as a literal block
    (``body: |``), body line n is on the n-th line after ``body:``; that is checked line by line
    against the file, and anything else (a quoted or folded string) is placed at line ``at``,
    where the body starts."""
    lines = LINE_END.split(body)
    while lines and not lines[-1].strip():
        lines.pop()  # trailing blank lines carry no event
    written = LINE_END.split(text)[at : at + len(lines)]  # the lines after ``body:``'s
    followed = bool(lines) and len(written) == len(lines) and all(map(_written_as, lines, written))
    return Recording(path, at + 1, exact=True) if followed else Recording(path, at, exact=False)


def _written_as(mine: str, theirs: str) -> bool:
    """The file's line ``theirs`` is the body's line ``mine`` behind its indentation."""
    if mine.strip():
        return theirs.endswith(mine) and not theirs[: len(theirs) - len(mine)].strip()
    return not theirs.strip()
