"""The driver rule for a stream that fails mid-turn: a server's error event, or a body that ends
before the turn does (a cut connection)."""

from __future__ import annotations

from collections.abc import Iterator

from harness.model.driver import ErrorReport, Refusal, ToolCallOut, TurnEnd
from harness.rules.driver_timing import DriverTimeline
from harness.rules.registry import Finding, rule

SOURCES = (
    "https://docs.anthropic.com/en/docs/build-with-claude/streaming#error-events, "
    "https://platform.openai.com/docs/api-reference/responses-streaming/response/failed, "
    "https://docs.ag-ui.com/concepts/events; farzaa/clicky#132 (an error event read as a "
    "finished answer), editor-code-assistant/eca#559, NVIDIA-NeMo/Switchyard#305, "
    "openclaw/openclaw#108989 and looplj/axonhub#2184 (a body that ends without its terminal "
    "event read as a finished turn)"
)


@rule(
    "error-surfaced",
    layer="driver",
    precedence=65,
    source=SOURCES,
    statement=(
        "A stream that fails mid-turn has no turn end: after a server's error event (Anthropic's "
        "error, an OpenAI error object, Responses' response.failed or error, Gemini's error "
        "JSON, AG-UI's RUN_ERROR) or a body that ends before the turn does (a cut connection), "
        "the driver never reports the end of the turn, and never passes on a call the failure "
        "left unfinished as complete (valid): it drops it, or passes it on marked invalid. A "
        "server's error is surfaced: the driver raises, or reports it (an error output). A cut "
        "body need not be reported as an error, but must not read as a finished turn. Calls "
        "completed before the failure are owed as usual."
    ),
)
def error_surfaced(c: DriverTimeline) -> Iterator[Finding]:
    run, facts = c.run, c.facts
    if facts.error is None or run.cancel_after is not None:
        return
    at = facts.error
    failure = (
        f"the stream was cut after chunk {run.body_cut}, before the turn ended"
        if run.body_cut is not None
        else f"in the stream the server reported an error at event {at}"
    )
    for end, reads in ((o, n) for o, n in run.outputs if isinstance(o, TurnEnd)):
        yield Finding(
            at,
            f"the driver reported the end of the turn (stop_reason {end.stop_reason!r}) after "
            f"chunk {reads}; {failure}, so the turn never ended",
        )
        break
    unfinished = {call.id: call for call in facts.calls if call.cut and call.complete == at}
    for out, reads in run.outputs:
        if isinstance(out, ToolCallOut) and out.valid and out.id in unfinished:
            call = unfinished.pop(out.id)
            yield Finding(
                at,
                f"the driver passed on the call {out.id!r} ({call.name}) as complete, with "
                f"{out.arguments[:60]!r}, after chunk {reads}; {failure} while its arguments "
                f"were still streaming ({call.arguments[:60]!r} so far)",
                out.id,
            )
    if run.body_cut is not None:
        return
    surfaced = run.raised is not None or any(
        isinstance(o, (ErrorReport, Refusal)) for o, _ in run.outputs
    )
    if not surfaced:
        yield Finding(
            at,
            f"the driver neither raised nor reported the error the server sent at event {at} "
            f"(read after chunk {c.chunk_of(at) + 1}), which it should surface: its caller "
            f"cannot tell the failed turn from one that finished",
        )
