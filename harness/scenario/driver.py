"""Reading a driver scenario: a canonical turn written as steps, or a recorded stream (``wire``),
and the dialects, quirks and cancellation it runs with."""

from __future__ import annotations

from pathlib import Path

from harness.codecs import Codec, dialects
from harness.model import driver as dv
from harness.scenario._fields import Fields
from harness.scenario.faults import apply_faults
from harness.scenario.reader import StepReader
from harness.scenario.types import DriverScenario, ScenarioHeader, fields_of

#: the top-level fields only driver scenarios have (``expect`` is read to say it is not offered)
DRIVER_KEYS = ("dialects", "quirks", "cancel_after_reads", "wire", "trace", "faults", "expect")


def read_driver_scenario(r: StepReader, top: Fields, header: ScenarioHeader) -> DriverScenario:
    codecs = dialects()
    raw: tuple[tuple[str, int], ...] = ()
    if top.has("wire"):
        if top.has("trace"):
            top.note(
                top.line_of("wire"), "give either a trace or 'wire' (a recorded stream), not both"
            )
        dialect, raw, turn = _recorded_wire(r, top, codecs)
        wanted: tuple[str, ...] = (dialect,)
    else:
        steps = top.list("trace", required=True)
        if not steps:
            top.fail(top.line_of("trace"), "the trace is empty")
        turn = apply_faults(r, top.list("faults"), r.steps(steps, "trace"))
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
    return DriverScenario(
        **fields_of(header),
        turn=tuple(turn),
        dialects=wanted,
        quirks=quirks,
        cancel_after_reads=cancel,
        raw_wire=raw,
    )


def _recorded_wire(
    r: StepReader, top: Fields, codecs: dict[str, Codec]
) -> tuple[str, tuple[tuple[str, int], ...], list[dv.TurnEvent]]:
    """A stream given as it was recorded: inline, a raw file, or a cassette interaction."""
    from harness.wire import WireError, read_cassette, split_sse

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
        elif given[0] == "file":
            path = base / w.str("file")
            body, source = path.read_bytes().decode("utf-8"), str(path)
        else:
            path = base / w.str("cassette")
            interactions = read_cassette(path)
            number = w.int("interaction", 0, minimum=0)
            if number >= len(interactions):
                w.fail(w.line_of("interaction"), f"{path} has {len(interactions)} interactions")
            body = interactions[number].response_body
            source = interactions[number].response_source
        turn = list(codecs[dialect].decode(body, source=source))
        return dialect, split_sse(body, source=source), turn
    except WireError as exc:
        w.fail(w.line, f"the recorded stream cannot be read: {exc}")
    except (OSError, UnicodeDecodeError) as exc:
        w.fail(w.line, f"the recorded stream cannot be read: {exc}")
