"""A recording (a vcrpy cassette or a raw body file) as an editable driver scenario.

``convert_recording`` picks one streamed response of the recording (``harness.wire.recordings``
lists them, with their dialects), and writes it as a ``wire:`` scenario whose body is inline, in
a form that gives back exactly the recorded text when loaded; after it, as YAML comments, the
canonical turn the dialect's decoder reads from it and what a correct driver emits.

>>> text = convert_recording("cassettes/real-traffic/vercel-ai/groq-tool-call.chunks.txt")
>>> print(text.splitlines()[0])
id: groq-tool-call.chunks
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from harness._errors import ScenarioError, UsageError, WireError
from harness.codecs import dialects
from harness.model import driver as dv
from harness.wire.recordings import (
    RecordedResponse,
    choose_stream,
    recorded_responses,
    replayable,
    without_pending_event,
)

_ID_CHARS = re.compile(r"[^a-z0-9._-]+")
#: characters a YAML block scalar cannot hold as they are (line breaks YAML 1.1 knows besides
#: LF, a byte order mark, control characters)
_NOT_LITERAL = re.compile(r"[\r\x85\u2028\u2029\ufeff\x00-\x08\x0b-\x1f\x7f-\x84\x86-\x9f]")


@dataclass(frozen=True, slots=True)
class Conversion:
    """A converted stream: the scenario's YAML text, the response it holds, and every other
    response of the recording (to say which else could be converted, or why not)."""

    text: str
    response: RecordedResponse
    others: tuple[RecordedResponse, ...]

    def note(self) -> str:
        """Which response was converted, and what else the recording holds (for stderr): the
        first ``NOTED`` others, then how many more (a cassette of 20,000 interactions wrote
        19,999 lines)."""
        lines = [f"converted {self.response.label} ({self.response.dialect})"]
        for other in self.others[:NOTED]:
            why = other.problem or f"{other.dialect} stream (--interaction {other.interaction})"
            lines.append(f"  also in the recording: interaction {other.interaction}: {why}")
        if len(self.others) > NOTED:
            rest = self.others[NOTED:]
            lines.append(
                f"  and {len(rest):,} more interactions ({rest[0].interaction} to "
                f"{rest[-1].interaction})"
            )
        return "\n".join(lines)


#: the other responses of a recording ``Conversion.note`` names one by one
NOTED = 20


def convert_recording(
    path: str | os.PathLike[str],
    interaction: int | None = None,
    dialect: str | None = None,
    id: str | None = None,
) -> str:
    """The YAML text of a driver scenario replaying one streamed response of the recording:
    ``interaction`` (default: the first stream), decoded as ``dialect`` (default: the one
    recognised). Bad input is a located ``WireError``; a bad argument a ``UsageError``."""
    return convert(path, interaction=interaction, dialect=dialect, id=id).text


def convert(
    path: str | os.PathLike[str],
    *,
    interaction: int | None = None,
    dialect: str | None = None,
    id: str | None = None,
) -> Conversion:
    """``convert_recording``, telling also which response it took and what else there is."""
    codecs = dialects()
    if dialect is not None and dialect not in codecs:
        raise UsageError(f"unknown dialect {dialect!r} (known: {', '.join(codecs)})")
    if id is not None and not re.fullmatch(r"[a-z0-9][a-z0-9._-]*", id):
        raise UsageError(f"--id {id!r}: use lowercase letters, digits, '.', '_' or '-'")
    responses = recorded_responses(path, interaction)
    chosen = choose_stream(responses, interaction, dialect)
    used = dialect or chosen.dialect
    assert used is not None  # choose_stream takes only a response with a dialect, or one is given
    try:
        turn = codecs[used].decode(
            without_pending_event(chosen.body, chosen.framing), source=chosen.source
        )
    except WireError as exc:
        others = [r for r in responses if r is not chosen and replayable(r, dialect)]
        if interaction is None and others:
            hint = ", ".join(str(r.interaction) for r in others)
            raise WireError(
                exc.source, exc.line, f"{exc.message} (other streams: --interaction {hint})"
            ) from None
        raise
    if not turn:
        raise WireError(chosen.source, 1, f"the body holds no {used} event")
    if chosen.dialect not in (None, used) and not dv.turn_facts(turn).content:
        raise WireError(
            chosen.source,
            1,
            f"read as {used} the body holds nothing of a turn; it looks like {chosen.dialect}",
        )
    streams = [r for r in responses if replayable(r, dialect)]
    # a named interaction is in the id: the others were not read to know whether they stream
    several = interaction is not None or len(streams) > 1
    scenario_id = id or _id_of(chosen, several=several)
    text = _scenario_text(chosen, used, turn, scenario_id)
    _check(text, chosen)
    return Conversion(text, chosen, tuple(r for r in responses if r is not chosen))


def _id_of(response: RecordedResponse, *, several: bool) -> str:
    """The file's name as a scenario id, with the interaction when the file holds several
    streams (or one was named)."""
    stem = Path(response.path).name
    for suffix in (".yaml", ".yml", ".txt", ".bin"):
        stem = stem.removesuffix(suffix)
    scenario_id = _ID_CHARS.sub("-", stem.lower()).strip("-._") or "recorded"
    if not scenario_id[0].isalnum():
        scenario_id = f"recorded-{scenario_id}"
    if several and response.interaction is not None:
        scenario_id += f"-{response.interaction}"
    return scenario_id


# -- the scenario's text --------------------------------------------------------------------------


def _scenario_text(
    response: RecordedResponse, dialect: str, turn: tuple[dv.TurnEvent, ...], scenario_id: str
) -> str:
    facts = dv.turn_facts(turn)
    where = f"{response.path}" + (
        f", interaction {response.interaction}" if response.interaction is not None else ""
    )
    source = f"recorded: {where}"
    if response.request_uri:
        source += f" ({response.request_uri})"
    header = {
        "id": scenario_id,
        "title": f"Recorded {dialect} stream: {Path(response.path).name}"
        + (f" interaction {response.interaction}" if response.interaction is not None else ""),
        "description": _description(response, turn, facts),
        "source": source,
        "layer": "driver",
        "tags": ["recorded"],
    }
    lines = [_dump(header).rstrip("\n"), "wire:", f"  dialect: {dialect}"]
    lines.append(_body_field(response.body))
    lines.extend(_canonical_view(turn, facts))
    return "\n".join(lines) + "\n"


def _dump(data: dict[str, Any]) -> str:
    return yaml.safe_dump(
        data, sort_keys=False, allow_unicode=True, width=100, default_flow_style=None
    )


def _description(
    response: RecordedResponse, turn: tuple[dv.TurnEvent, ...], facts: dv.TurnFacts
) -> str:
    parts = []
    text = sum(len(t) for _, t in facts.texts)
    if text:
        parts.append(f"text ({text} characters)")
    calls = [c for c in facts.calls if not c.server]
    if calls:
        names = ", ".join(c.name or "(no name)" for c in calls)
        parts.append(f"{len(calls)} tool call{'s' * (len(calls) != 1)} ({names})")
    server = [c for c in facts.calls if c.server]
    if server:
        parts.append(f"{len(server)} server tool call{'s' * (len(server) != 1)}")
    if not parts:
        parts.append("no text and no tool call")
    said = f"The stream holds {', '.join(parts)}"
    if facts.error is not None:
        error = turn[facts.error]
        kind = error.error_type if isinstance(error, dv.StreamError) else "an error"
        said += f"; the server reports an error mid-stream ({kind}), so the turn never ends"
    elif facts.ended:
        said += f"; the turn ends for {facts.sent_reason}"
    else:
        said += "; it stops for tool_use (the turn goes on once the tools have run)"
    quirks = _quirks_seen(response.body, turn, facts)
    if quirks:
        said += f". Seen: {'; '.join(quirks)}"
    return said + "."


def _quirks_seen(body: str, turn: tuple[dv.TurnEvent, ...], facts: dv.TurnFacts) -> list[str]:
    seen = []
    if "\r\n" in body:
        seen.append("CRLF line ends")
    if not body.endswith("\n"):
        seen.append("no line end after the last event")
    cycles = sum(isinstance(e, dv.CycleStart) for e in turn)
    if cycles > 1:
        seen.append(f"{cycles} message cycles")
    if any(isinstance(e, dv.ThinkingDelta) for e in turn):
        seen.append("thinking")
    pings = sum(isinstance(e, dv.Ping) for e in turn)
    if pings:
        seen.append(f"{pings} ping{'s' * (pings != 1)}")
    if any(c.cut and c.complete != facts.error for c in facts.calls):
        seen.append("a tool call cut off by max_tokens")
    if any(c.cut and c.complete == facts.error for c in facts.calls):
        seen.append("a tool call the error cut off")
    if any(not c.valid for c in facts.calls):
        seen.append("arguments that do not parse")
    return seen


def _body_field(body: str) -> str:
    """``body:`` as a literal block where YAML can carry the text so, else double-quoted
    with one line of the body per line of the file; either is checked to load back exactly."""
    if body and not _NOT_LITERAL.search(body):
        chomp = "-" if not body.endswith("\n") else ("+" if body.endswith("\n\n") else "")
        if body[0] in " \t\n":
            chomp = "2" + chomp  # the first line's own indentation is content
        lines = body.split("\n")
        if body.endswith("\n"):
            lines.pop()
        literal = "\n".join(f"    {line}" if line else "" for line in lines)
        field = f"  body: |{chomp}\n{literal}"
        if _loads_as(field, body):
            return field
    quoted = _quoted(body)
    if _loads_as(quoted, body):
        return quoted
    # the emitter's own escaping, which always round-trips
    return "  body: " + yaml.safe_dump(body, default_style='"', width=100).rstrip("\n").replace(
        "\n", "\n    "
    )


def _quoted(body: str) -> str:
    """A double-quoted scalar, broken after each line end of the body with an escaped line
    break, so the file still shows one line of the stream per line."""
    out = ['  body: "']
    at_line_start = False
    for char in body:
        if at_line_start and char in " \t":
            out.append("\\x20" if char == " " else "\\t")
            continue
        at_line_start = False
        if char == "\\":
            out.append("\\\\")
        elif char == '"':
            out.append('\\"')
        elif char == "\n":
            out.append("\\n\\\n    ")
            at_line_start = True
        elif char == "\r":
            out.append("\\r")
        elif char == "\t":
            out.append("\\t")
        elif _NOT_LITERAL.match(char) or (not char.isprintable() and char != " "):
            out.append(f"\\u{ord(char):04x}" if ord(char) <= 0xFFFF else f"\\U{ord(char):08x}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def _loads_as(field: str, body: str) -> bool:
    try:
        loaded = yaml.safe_load("wire:\n" + field + "\n# end\n")
    except yaml.YAMLError:
        return False
    return isinstance(loaded, dict) and loaded.get("wire", {}).get("body") == body


def _canonical_view(turn: tuple[dv.TurnEvent, ...], facts: dv.TurnFacts) -> list[str]:
    """The decoded turn and what a correct driver emits, as comments the loader skips."""
    lines = ["# The canonical turn the decoder reads from this body, one event a line:"]
    width = len(str(len(turn) - 1))
    for i, event in enumerate(turn):
        fields = dv.turn_event_to_json(event)
        kind = fields.pop("type")
        shown = " ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in fields.items())
        lines.append(f"#   {i:>{width}} {kind} {shown}".rstrip())
    lines.append("# What a correct driver emits:")
    for _, text in facts.texts:
        if text:
            lines.append(f"#   text {json.dumps(text, ensure_ascii=False)}")
    for call in facts.calls:
        verdict = "valid" if call.valid else "invalid"
        who = "server tool call" if call.server else "tool call"
        lines.append(
            f"#   {who} {call.name} id={json.dumps(call.id)} "
            f"arguments={json.dumps(call.arguments, ensure_ascii=False)} ({verdict})"
        )
    if facts.error is not None:
        lines.append("#   the error (raised or reported), and no turn end")
    else:
        lines.append(f"#   turn end: {facts.final_reason}")
    return lines


def _check(text: str, response: RecordedResponse) -> None:
    """The scenario loads, and its wire body is the recorded body, byte for byte."""
    from harness.scenario.loader import parse_scenario

    name = f"<scenario converted from {response.label}>"
    try:
        scenario = parse_scenario(text, name)
    except ScenarioError as exc:
        problem = exc.problems[0]
        raise WireError(
            response.path, response.line, f"cannot be converted: {problem.message}"
        ) from None
    loaded = yaml.safe_load(text)["wire"]["body"]
    if loaded != response.body or not getattr(scenario, "raw_wire", ()):
        raise WireError(response.path, response.line, "the body does not load back as recorded")
