"""Driver-layer rules: what a stream consumer emits and how far it reads."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Sequence

from harness.model.driver import (
    UNKNOWN_REASON,
    ErrorReport,
    ExpectedCall,
    Refusal,
    TextOut,
    ToolCallOut,
    TurnEnd,
)

# the contract is read here too (``harness.matrix``), where it was before it moved to model/
from harness.rules.driver_timing import DriverTimeline, same_arguments
from harness.rules.registry import Finding, rule

#: a session that passed on each chunk of a streamed tool call instead of the assembled call
INTERLUDE = "x2d7/interlude#22 (tool call chunks passed on unassembled)"


def _emitted_by_id(c: DriverTimeline) -> dict[str, list[tuple[ToolCallOut, int]]]:
    out: dict[str, list[tuple[ToolCallOut, int]]] = {}
    for call, reads in c.emitted():
        out.setdefault(call.id, []).append((call, reads))
    return out


@rule(
    "strict-assembly",
    layer="driver",
    precedence=40,
    source=(
        f"{INTERLUDE}; ggml-org/llama.cpp#13774, microsoft/autogen#5666, vllm-project/vllm#32152"
    ),
    statement=(
        "Argument fragments, concatenated in arrival order, equal the original arguments and "
        "parse strictly at completion; corrupt or truncated arguments are reported invalid, "
        "not repaired (a call that max_tokens cut off may also be dropped). Arguments compare "
        "as JSON values: whitespace, key order and '' versus "
        "'{}' are no difference."
    ),
)
def strict_assembly(c: DriverTimeline) -> Iterator[Finding]:
    by_id = _emitted_by_id(c)
    for call in c.complete_calls():
        emitted = by_id.get(call.id, [])
        if len(emitted) != 1:
            continue  # emit-once-early speaks of calls emitted zero or several times
        got = emitted[0][0]
        if got.name != call.name:
            yield Finding(
                call.start,
                f"tool call {call.id!r} was emitted with the name {got.name!r}; the stream names "
                f"it {call.name!r}",
                call.id,
            )
        if not same_arguments(got.arguments, call.arguments):
            yield Finding(
                call.complete,
                f"tool call {call.id!r} ({call.name}) was emitted with the arguments "
                f"{got.arguments[:80]!r}; its fragments in the stream add up to "
                f"{call.arguments[:80]!r}",
                call.id,
            )
        elif got.valid != call.valid:
            verdict = "valid" if got.valid else "invalid"
            truth = (
                "complete JSON"
                if call.valid
                else "not complete JSON: it must be reported invalid, not repaired"
            )
            yield Finding(
                call.complete,
                f"tool call {call.id!r} ({call.name}) was emitted as {verdict}, but its arguments "
                f"in the stream, {call.arguments[:80]!r}, are {truth}",
                call.id,
            )


@rule(
    "emit-once-early",
    layer="driver",
    precedence=50,
    source=f"{INTERLUDE}; OpenRouterTeam/ai-sdk-provider#489, letta-ai/lettabot#199",
    statement=(
        "Each tool call is emitted exactly once, and on time for the driver's declared "
        "contract: as soon as it is complete (per-call), or when its model message ends "
        "(per-message); not per fragment. A call is late only if the driver read content "
        "(text, argument fragments, another call's start) after it was due and before it "
        "emitted it; framing in between ([DONE], usage, keep-alives, stops, empty deltas) "
        "does not count. A call whose id the stream changes mid-call may carry its first id or "
        "its last one (nothing says which the server takes back); any other id (the two "
        "joined, one made up) is a call the stream does not have."
    ),
)
def emit_once_early(c: DriverTimeline) -> Iterator[Finding]:
    by_id = _emitted_by_id(c)
    expected = {call.id for call in c.facts.calls}
    per_message = c.run.contract == "per-message"
    others = sorted(by_id)
    for call in c.due_calls():
        emitted = by_id.get(call.id, [])
        if not emitted and call.cut:
            continue  # a call the message cut off may be dropped, or emitted as invalid
        if not emitted:
            yield Finding(
                call.complete,
                f"tool call {call.id!r} ({call.name}) is complete at this event but was never "
                f"emitted; the stream completes it with the arguments {call.arguments[:60]!r}, and "
                f"the driver emitted {others if others else 'no tool call'}",
                call.id,
            )
            continue
        partial = [e for e, _ in emitted if not same_arguments(e.arguments, call.arguments)]
        if len(emitted) > 1 and partial:
            yield Finding(
                call.complete,
                f"tool call {call.id!r} ({call.name}) was emitted {len(emitted)} times, "
                f"{len(partial)} of them with partial arguments (e.g. {partial[0].arguments[:40]!r}); "
                f"the stream has it once, with {call.arguments[:40]!r}",
                call.id,
            )
            continue
        due, when = c.due(call), emitted[0][1]
        first, held = c.content_read(due, when)
        if first is not None:
            what = "its message ended" if per_message else "it was complete"
            yield Finding(
                call.complete,
                f"tool call {call.id!r} ({call.name}) was due after chunk {due} of the stream "
                f"({what}) but emitted "
                f"only after chunk {when} (at event {c.event_at(when)}); in between, the driver "
                f"read {held} chunk(s) of content without passing the call on (the first: "
                f"chunk {first}, event {c.event_at(first)})",
                call.id,
            )
    for call_id, emitted in by_id.items():
        if call_id not in expected:
            yield Finding(
                c.event_at(emitted[0][1]),
                f"a tool call with the id {call_id!r} was emitted ({len(emitted)} time(s)); the "
                f"stream has no such call",
                call_id,
            )


@rule(
    "no-duplicates",
    layer="driver",
    precedence=30,
    source=(
        "a driver that read both an SDK's raw stream events and its assembled messages: "
        "scenarios/driver/assembled-message-after-each-cycle.yaml; BerriAI/litellm#32478, "
        "BerriAI/litellm#37273, rynfar/meridian#73"
    ),
    statement=(
        "Raw stream events plus pre-assembled messages, or a repeated message_start or "
        "content_block_stop, never yield a duplicated message or tool call."
    ),
)
def no_duplicates(c: DriverTimeline) -> Iterator[Finding]:
    for call_id, emitted in _emitted_by_id(c).items():
        # arguments the same as JSON values are the same as the first's, or none are
        first = emitted[0][0].arguments
        if len(emitted) > 1 and all(same_arguments(e.arguments, first) for e, _ in emitted):
            yield Finding(
                c.event_at(emitted[1][1]),
                f"tool call {call_id!r} was emitted {len(emitted)} times with the same arguments "
                f"({emitted[0][0].arguments[:60]!r}); the stream has that call once",
                call_id,
            )
    if not c.stopped_early:
        text = "".join(o.text for o, _ in c.run.outputs if isinstance(o, TextOut))
        wanted = "".join(t for _, t in c.facts.texts)
        if (
            len(text) > len(wanted)
            and wanted
            and text.count(wanted[: max(1, len(wanted) // 2)]) > 1
        ):
            yield Finding(
                c.facts.final_stop,
                f"the text was emitted more than once: {text[:80]!r}; the stream's text is "
                f"{wanted[:80]!r}",
            )


@rule(
    "order",
    layer="driver",
    precedence=80,
    derived=True,
    source=INTERLUDE,
    statement=(
        "Text and tool calls come out in the order they are due, and all the text comes out: "
        "text as it streams, each call when the driver's contract makes it due (when it is "
        "complete, or when its message ends), calls due together in the order they started."
    ),
)
def order(c: DriverTimeline) -> Iterator[Finding]:
    if c.stopped_early:
        return
    # by the read that makes each due, then, within one read (a read of bytes can hold many
    # events), by the framed event that makes it due, as a driver taking them in turn meets them
    wanted: list[tuple[int, int, int, str]] = [
        (c.chunk_carrying(start) + 1, c.part_carrying(start), start, "text")
        for start, text in c.facts.texts
        if text
    ]
    emitted = {o.id for o, _ in c.emitted()}
    wanted += [
        (c.due(call), c.due_part(call), call.start, f"call {call.id}")
        for call in c.facts.calls
        if not call.cut or call.id in emitted
    ]
    wanted.sort()
    expected = _runs([kind for *_, kind in wanted])
    seen = _runs(
        [
            "text" if isinstance(o, TextOut) else f"call {o.id}"
            for o, _ in c.run.outputs
            if (isinstance(o, TextOut) and o.text) or isinstance(o, ToolCallOut)
        ]
    )
    if seen != expected:
        yield Finding(
            c.facts.final_stop,
            f"the outputs come in the order {seen} as the driver emitted them; the stream has "
            f"{expected}",
        )
        return
    text = "".join(o.text for o, _ in c.run.outputs if isinstance(o, TextOut))
    whole = "".join(t for _, t in c.facts.texts)
    if text != whole:
        yield Finding(
            c.facts.final_stop,
            f"the text the driver emitted reads {text[:60]!r}; the stream's text is {whole[:60]!r}",
        )


def _runs(kinds: Sequence[str]) -> list[str]:
    """The sequence with consecutive texts counted once."""
    out: list[str] = []
    for kind in kinds:
        if not (kind == "text" and out and out[-1] == "text"):
            out.append(kind)
    return out


@rule(
    "parallel-apart",
    layer="driver",
    precedence=20,
    source=(
        "huggingface/smolagents#1569, BerriAI/litellm#7621, dyedd/lens#49, "
        "mistralai/mistral-vibe#1127, langchain-ai/langchain#38673"
    ),
    statement="Parallel calls stay apart, under each dialect's identity rules (index, id, output index).",
)
def parallel_apart(c: DriverTimeline) -> Iterator[Finding]:
    calls = list(c.complete_calls())
    merges = _Merges(calls)
    for emitted, _reads in c.emitted():
        for n, m in merges.pairs(emitted):
            a, b = calls[n], calls[m]
            yield Finding(
                b.start,
                f"the calls {a.id!r} and {b.id!r} were merged into one call "
                f"{emitted.id!r} ({emitted.name}, {emitted.arguments[:80]!r}) by the "
                f"driver; the stream has them apart: {a.name} {a.arguments[:40]!r} and "
                f"{b.name} {b.arguments[:40]!r}",
                f"{a.id} {b.id} {emitted.id}",
            )


class _Merges:
    """Which two calls of one message an emitted call glues together: its arguments begin with
    the first's arguments followed by the second's (neither empty), or its name is the first's
    name followed by the second's. The calls are looked up by the emitted text's prefixes, at
    each length some call's text has, so an emitted call costs a few slices and lookups, not a
    pass over every pair of calls."""

    def __init__(self, calls: Sequence[ExpectedCall]) -> None:
        self.cycle = [call.cycle for call in calls]
        self.arguments = _TextIndex([(call.cycle, call.arguments) for call in calls])
        self.names = _TextIndex([(call.cycle, call.name) for call in calls])

    def pairs(self, emitted: ToolCallOut) -> list[tuple[int, int]]:
        """The positions ``(n, m)``, ``n < m``, of two calls of one cycle that ``emitted``
        merges, in order."""
        found: set[tuple[int, int]] = set()
        text, index = emitted.arguments, self.arguments
        for first, end in index.prefixes(text, 0, len(text) - 1):
            for second, _ in index.prefixes(text, end, len(text)):
                found.update(index.after(first, second, self.cycle))
        name, index = emitted.name, self.names
        for first, end in index.prefixes(name, 0, len(name) - 1):
            found.update(index.after(first, name[end:], self.cycle))
        return sorted(found)


class _TextIndex:
    """The positions of the calls with each non-empty text, in all and by cycle, and the
    lengths the texts come in."""

    def __init__(self, texts: Sequence[tuple[int, str]]) -> None:
        self.by_text: dict[str, list[int]] = {}
        self.in_cycle: dict[tuple[int, str], list[int]] = {}
        for n, (cycle, text) in enumerate(texts):
            if text:
                self.by_text.setdefault(text, []).append(n)
                self.in_cycle.setdefault((cycle, text), []).append(n)
        self.lengths = sorted({len(text) for text in self.by_text})

    def prefixes(self, text: str, start: int, stop: int) -> Iterator[tuple[str, int]]:
        """Each indexed text that ``text[start:]`` begins with and that ends by ``stop``, and
        where it ends."""
        for length in self.lengths:
            end = start + length
            if end > stop:
                break
            if (piece := text[start:end]) in self.by_text:
                yield piece, end

    def after(self, first: str, second: str, cycle: Sequence[int]) -> Iterator[tuple[int, int]]:
        """Each call with the text ``first`` and each later one of its cycle with ``second``."""
        for n in self.by_text.get(first, ()):
            later = self.in_cycle.get((cycle[n], second), [])
            for m in later[bisect_right(later, n) :]:
                yield n, m


@rule(
    "turn-lifetime",
    layer="driver",
    precedence=70,
    source=(
        "a driver that stopped reading an agent's stream at its first message_stop: "
        "scenarios/driver/multi-cycle-turn.yaml; vercel/workflow#1387, mastra-ai/mastra#14187, "
        "pydantic/pydantic-ai#1763"
    ),
    statement=(
        "message_stop after stop_reason tool_use does not end the turn; the final stop does; the "
        "consumer stops reading at the turn's end, never before, and not after on a stream that "
        "goes on after the turn (an agent's stream; reading on to the end of a response body "
        "is how a driver finds the end of it), and reports it "
        "once, with the stop reason the server sent or the one the turn's content implies (a "
        "final message with tool calls stopped for tool_use, whatever the server said), or "
        "with the reason 'unknown' when its library does not say why the turn ended: the "
        "lifetime is checked, not a reason the driver cannot know. A stream that ends after a "
        "tool_use stop (the turn waits for tool results) may have that end reported, once, "
        "for tool_use or 'unknown'; a reported end is never repeated and never carries another "
        "reason. A cancelled turn has not ended: its end is not owed, and reporting it before "
        "the final stop was read ends the turn too early."
    ),
)
def turn_lifetime(c: DriverTimeline) -> Iterator[Finding]:
    run, facts = c.run, c.facts
    ends = [
        n
        for n, chunk in enumerate(run.chunks)
        if any(part.origin == facts.final_stop for part in chunk.delivered)
    ]
    first, last = (ends[0] + 1, ends[-1] + 1) if ends else (len(run.chunks), len(run.chunks))
    if run.cancel_after is not None:
        # A cancelled turn has not ended, so neither its end nor how far the driver read is
        # owed; but an end reported before the turn's final stop was read ended it too early.
        early = [(o, n) for o, n in run.outputs if isinstance(o, TurnEnd) and n < first]
        if early:
            end, reads = early[0]
            cancelled = (
                f"; the turn was cancelled after chunk {run.cancel_after}, before its end"
                if run.cancel_after < first
                else ""
            )
            yield Finding(
                c.event_at(reads),
                f"the driver reported the end of the turn (stop_reason {end.stop_reason!r}) "
                f"after chunk {reads} (event {c.event_at(reads)}), before it read the turn's "
                f"final stop in the stream (event {facts.final_stop}, chunk {first}){cancelled}",
            )
        return
    if c.stopped_early:
        return
    if not facts.ended:
        # the last cycle stopped for tool_use and the stream ends: the turn goes on, so the
        # driver reads all of it (and may report the pause); a last read of bytes that completes
        # no event (the LF of a CRLF already taken as a line end) adds nothing to read
        whole = max((n + 1 for n, chunk in enumerate(run.chunks) if chunk.delivered), default=0)
        if run.reads < whole:
            yield Finding(
                c.event_at(run.reads),
                f"the driver stopped reading after chunk {run.reads} (event {c.event_at(run.reads)}); "
                f"the stream's last cycle stopped for 'tool_use', so the turn goes on past it",
            )
        yield from _ends_reported(c, optional=True)
        return
    # a dialect that ends the turn by ending the body (no [DONE]): finding the end is reading it
    body_end_ends_turn = not ends
    if run.reads < first:
        yield Finding(
            c.event_at(run.reads),
            f"the driver stopped reading after chunk {run.reads} (event {c.event_at(run.reads)}); "
            f"the turn ends only at event {facts.final_stop} of the stream (chunk {first}, "
            f"stop_reason {facts.final_reason!r})",
        )
    elif run.stream_outlives_turn and (
        run.reads > last or (run.overread and not body_end_ends_turn)
    ):
        yield Finding(
            facts.final_stop,
            f"the driver kept reading after the turn ended at event {facts.final_stop}: on the "
            f"{run.dialect} stream, which goes on after the turn, it would wait for the next turn "
            f"(it read {run.reads} chunk(s){' and asked for more' if run.overread else ''}; the "
            f"turn ends at chunk {last})",
        )
    yield from _ends_reported(c, optional=False)


def _ends_reported(c: DriverTimeline, *, optional: bool) -> Iterator[Finding]:
    """The turn ends once, with the reason the stream gives (as sent, or as its content implies)
    or an unknown one; where the stream ends while the turn waits for tool results
    (``optional``), that end may also go unreported."""
    facts = c.facts
    ends = [(o, reads) for o, reads in c.run.outputs if isinstance(o, TurnEnd)]
    if len(ends) > 1 or (not ends and not optional):
        given = f"with stop_reason {facts.final_reason!r}"
        where = (
            f"the stream ends it at event {facts.final_stop} {given}"
            if not optional
            else f"the stream ends after its last cycle stopped for 'tool_use' ({given})"
        )
        reads = ", ".join(str(n) for _, n in ends[:5])
        after = f" (after chunks {reads})" if ends else ""
        yield Finding(
            facts.final_stop,
            f"the driver reported the end of the turn {len(ends)} times{after}; "
            f"{'at most ' if optional else ''}once, at the end, is right: {where}",
        )
    allowed = {facts.final_reason, facts.sent_reason, UNKNOWN_REASON}
    wrong = [(o, n) for o, n in ends if o.stop_reason not in allowed]
    if wrong:
        end, read = wrong[0]
        yield Finding(
            facts.final_stop,
            f"the driver ended the turn with stop_reason {end.stop_reason!r} (after chunk "
            f"{read}); in the stream the turn stopped for {facts.final_reason!r} (a driver "
            f"whose library does not say why reports {UNKNOWN_REASON!r})",
        )


@rule(
    "cancellation",
    layer="driver",
    precedence=60,
    source=f"{INTERLUDE}; anthropics/claude-quickstarts#155, letta-ai/letta#3273",
    statement=(
        "Cancelling at any point ends the iterator promptly, runs its cleanup, emits no partial "
        "tool call and leaves no dangling state."
    ),
)
def cancellation(c: DriverTimeline) -> Iterator[Finding]:
    run = c.run
    if run.cancel_after is None or not run.cancel_reached:
        return  # no cancellation, or the driver was done before the cancelled read
    at = c.event_at(run.cancel_after)
    if not run.cancelled:
        yield Finding(
            at,
            f"the driver swallowed the cancellation and went on instead of ending; the stream "
            f"was cancelled after chunk {run.cancel_after}",
        )
    if not run.upstream_closed:
        yield Finding(
            at,
            "after the cancellation the driver did not close the stream it was reading (no cleanup)",
        )
    complete: dict[str, list[ExpectedCall]] = {}
    for call in c.complete_calls():
        complete.setdefault(call.id, []).append(call)
    for emitted, _ in c.emitted():
        same_id = complete.get(emitted.id, [])
        if not any(same_arguments(emitted.arguments, call.arguments) for call in same_id):
            whole = same_id[0] if same_id else None
            truth = (
                f"the stream completes it with {whole.arguments[:60]!r}"
                if whole is not None
                else f"the stream had not completed it when cancelled after chunk {run.cancel_after}"
            )
            yield Finding(
                at,
                f"the cancelled driver emitted the partial tool call {emitted.id!r} with "
                f"{emitted.arguments[:60]!r}; {truth}",
                emitted.id,
            )


@rule(
    "robust-framing",
    layer="driver",
    precedence=10,
    source=(
        "ollama/ollama#7881, BerriAI/litellm#11407, microsoft/autogen#5666, XSpoonAi/spoon-core#179"
    ),
    statement=(
        "Legal or common quirks (usage chunks with empty choices, keep-alive pings, CRLF, spaces "
        "in data JSON, a missing [DONE]) never crash the consumer, nor make it refuse the "
        "stream. On corrupt input (arguments that do not parse although their block stopped) "
        "refusing is safe: a clear error, or a refusal output, instead of a guess; so is "
        "reporting a stream that fails (the server's error, a body that ends inside a message) "
        "as failed. A driver is fed only what its server sends it: a shape servers send only "
        "when the request asks (Gemini's streamed function-call arguments) only to a driver that "
        "declares it asks (asks_for); an SSE event the body ends before its blank line is "
        "discarded, as the SSE rules say, so the turn ends without it; a Chat stream of several "
        "choices (n > 1) is no one turn, and is refused when loaded."
    ),
)
def robust_framing(c: DriverTimeline) -> Iterator[Finding]:
    if c.corrupt:
        return  # a refusal of corrupt input is safe; what it emitted before is checked
    if c.facts.error is not None:
        return  # the stream failed: raising is how a driver surfaces it (error-surfaced)
    if c.facts.cut_short and (c.run.raised is not None or c.refused_at is not None):
        return  # the body ends inside a message: saying it was cut short is no crash
    if c.run.raised:
        yield Finding(
            c.event_at(c.run.reads),
            f"the driver crashed on the {c.run.dialect} stream after chunk {c.run.reads}: "
            f"{c.run.raised}; nothing in the stream is corrupt (the chunk: {_chunk(c, c.run.reads)})",
        )
    elif c.refused_at is not None:
        reason = next(
            o.reason if isinstance(o, Refusal) else f"it reported an error: {o.message}"
            for o, _ in c.run.outputs
            if isinstance(o, (Refusal, ErrorReport))
        )
        yield Finding(
            c.event_at(c.refused_at),
            f"the driver refused the {c.run.dialect} stream after chunk {c.refused_at} "
            f"({reason}); nothing in it is corrupt (the chunk: {_chunk(c, c.refused_at)})",
        )


def _chunk(c: DriverTimeline, reads: int) -> str:
    """The raw text of the last chunk read, shortened, as repr."""
    if not c.run.chunks or reads <= 0:
        return "none read"
    data = c.run.chunks[min(reads, len(c.run.chunks)) - 1].data
    if isinstance(data, bytes):
        return repr(data if len(data) <= 60 else data[:57] + b"...")
    return repr(data if len(data) <= 60 else data[:57] + "...")
