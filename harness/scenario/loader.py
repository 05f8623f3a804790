"""YAML scenarios: loaded, validated and expanded once into frozen, typed objects."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from harness._errors import Problem, ScenarioError
from harness._yaml import LocatedDict, LocatedList, load_yaml
from harness.model import driver as dv
from harness.model import history as hist
from harness.model import session as ev
from harness.model.projection import history_from_events
from harness.scenario._fields import Fields, Invalid
from harness.scenario.generators import MAX_EVENTS, burst_events, message_events, split_text

LAYERS = ("session", "driver", "history")
_IMPLEMENTED_LAYERS = ("session", "history", "driver")
_ID = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
_TOP_KEYS = (
    "id",
    "title",
    "description",
    "source",
    "layer",
    "tags",
    "rules",
    "disable_rules",
    "seed",
    "session",
    "unlabelled_subsessions",
    "dialects",
    "quirks",
    "cancel_after_reads",
    "wire",
    "trace",
    "faults",
    "expect",
)


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
class Scenario:
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
    trace: tuple[ev.SessionEvent, ...]
    expectations: tuple[Expectation, ...] = ()
    #: the sub-sessions' events reach the adapter without their session ids (as on a channel
    #: that does not label them): only subsession_start/end say where they begin and end
    unlabelled_subsessions: bool = False
    _delivered: tuple[ev.SessionEvent, ...] = ()
    #: driver layer: the canonical turn, the dialects it runs in (empty: every one that can
    #: carry it), the wire quirks asked for, and where a cancellation is injected
    turn: tuple[dv.TurnEvent, ...] = ()
    dialects: tuple[str, ...] = ()
    quirks: tuple[str, ...] = ()
    cancel_after_reads: int | None = None
    #: a recorded stream fed as it was: (raw text of each server-sent event, its first line)
    raw_wire: tuple[tuple[str, int], ...] = ()

    @property
    def delivered(self) -> tuple[ev.SessionEvent, ...]:
        """The events as the adapter receives them (the rules always see ``trace``)."""
        return self._delivered or self.trace

    def event_line(self, index: int) -> int:
        events: tuple[Any, ...] = self.turn or self.trace
        if 0 <= index < len(events):
            return int(events[index].line)
        return self.line


def load_scenario(path: str | Path) -> Scenario:
    """Load one scenario file; raises ``ScenarioError`` listing every located problem."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ScenarioError(
            [Problem(str(path), 1, f"cannot read the file: {exc.strerror}")]
        ) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise ScenarioError(
            [Problem(str(path), line, f"the file is not UTF-8 text (byte {raw[exc.start]:#04x})")]
        ) from None
    return parse_scenario(text, str(path))


def parse_scenario(text: str, path: str) -> Scenario:
    data = load_yaml(text, path)
    problems: list[Problem] = []
    try:
        scenario = _Parser(path, problems).scenario(data)
    except Invalid:
        scenario = None
    if problems or scenario is None:
        raise ScenarioError(problems)
    return scenario


def discover(paths: Iterable[str | Path]) -> list[Path]:
    """Scenario files under the given files and folders (folders searched recursively)."""
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*.y*ml") if p.suffix in (".yaml", ".yml")))
        elif path.exists():
            found.append(path)
        else:
            raise ScenarioError([Problem(str(path), 1, "no such file or folder")])
    return found


def load_all(paths: Iterable[str | Path]) -> tuple[list[Scenario], list[Problem]]:
    """Load every scenario found; problems are collected, never raised, so nothing is lost."""
    scenarios: list[Scenario] = []
    problems: list[Problem] = []
    seen: dict[str, str] = {}
    for path in discover(paths):
        try:
            scenario = load_scenario(path)
        except ScenarioError as exc:
            problems.extend(exc.problems)
            continue
        if scenario.id in seen:
            problems.append(
                Problem(
                    str(path),
                    scenario.line,
                    f"scenario id {scenario.id!r} is also used by {seen[scenario.id]}",
                )
            )
            continue
        seen[scenario.id] = str(path)
        scenarios.append(scenario)
    return scenarios, problems


class _Budget:
    def __init__(self) -> None:
        self.used = 0

    def take(self, count: int, fields: Fields, key: str) -> None:
        if count > MAX_EVENTS - self.used:
            fields.fail(
                fields.line_of(key),
                f"this generator would expand the trace past {MAX_EVENTS:,} events "
                f"(asked for {count:,} more after {self.used:,}); lower {key!r}",
            )
        self.used += count


class _Parser:
    def __init__(self, path: str, problems: list[Problem]) -> None:
        self.path = path
        self.problems = problems
        self.default_session = "main"
        self.seed = 0
        self.budget = _Budget()
        self.parents: dict[str, str | None] = {}
        self.auto_ids = 0
        self.bursts = 0
        self.handlers: dict[str, Callable[[_Parser, Fields], list[Any]]] = _STEP_HANDLERS

    def fields(self, data: Any, where: str, line: int) -> Fields:
        return Fields(data, where, self.path, line, self.problems)

    # -- the scenario ------------------------------------------------------------------------

    def scenario(self, data: Any) -> Scenario:
        from harness.rules import RULES

        top = self.fields(data, "the scenario", 1)
        top.check_keys(_TOP_KEYS)
        scenario_id = top.str("id", "")
        if not scenario_id:
            top.note(top.line, "the scenario is missing the required field 'id'")
        elif not _ID.match(scenario_id):
            top.note(
                top.line_of("id"),
                f"scenario id {scenario_id!r} should be lowercase letters, digits, '.', '_' or '-'",
            )
        try:
            layer = top.choice("layer", LAYERS)
        except Invalid:
            layer = "session"  # recorded; read on, so the trace's problems are reported too
        if layer not in _IMPLEMENTED_LAYERS:
            top.fail(
                top.line_of("layer"),
                f"the {layer} layer is not available in this version of the harness",
            )
        for key in ("rules", "disable_rules"):
            names = top.str_list(key)
            for i, name in enumerate(names):
                if name not in RULES:
                    known = ", ".join(sorted(r for r in RULES if RULES[r].layer == layer))
                    top.note(
                        top.list(key).line_of(i),
                        f"unknown rule id {name!r} (rules of the {layer} layer: {known})",
                    )
        self.seed = top.int("seed", 0)
        unlabelled = top.bool("unlabelled_subsessions", False)
        self.default_session = top.str("session", "main")
        if layer == "driver":
            return self.driver_scenario(top, scenario_id)
        steps = top.list("trace", required=True)
        if not steps:
            top.fail(top.line_of("trace"), "the trace is empty")
        trace = self.steps(steps, "trace")
        trace = self.faults(top.list("faults"), trace)
        self.check_trace(trace)  # after the faults: their 'then' steps and live resumes too
        expectations = tuple(
            self.expectation(item, top.list("expect"), i)
            for i, item in enumerate(top.list("expect"))
        )
        self.check_expectations(expectations, trace, top)
        return Scenario(
            id=scenario_id,
            title=top.str("title"),
            description=top.str("description"),
            source=top.str("source"),
            layer=layer,
            tags=top.str_list("tags"),
            rules=top.str_list("rules"),
            disable_rules=top.str_list("disable_rules"),
            seed=self.seed,
            path=self.path,
            line=top.line,
            trace=tuple(trace),
            expectations=expectations,
            unlabelled_subsessions=unlabelled,
            _delivered=_unlabelled(trace) if unlabelled else (),
        )

    def driver_scenario(self, top: Fields, scenario_id: str) -> Scenario:
        from harness.codecs import dialects
        from harness.scenario.driver_steps import DRIVER_STEP_HANDLERS

        self.handlers = DRIVER_STEP_HANDLERS
        codecs = dialects()
        raw: tuple[tuple[str, int], ...] = ()
        if top.has("wire"):
            if top.has("trace"):
                top.note(
                    top.line_of("wire"),
                    "give either a trace or 'wire' (a recorded stream), not both",
                )
            dialect, raw, turn = self.recorded_wire(top, codecs)
            wanted: tuple[str, ...] = (dialect,)
        else:
            steps = top.list("trace", required=True)
            if not steps:
                top.fail(top.line_of("trace"), "the trace is empty")
            turn = self.faults(top.list("faults"), self.steps(steps, "trace"))
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
                known = sorted({q for c in chosen for q in c.quirks})
                top.note(
                    top.list("quirks").line_of(i),
                    f"no dialect of this scenario knows the quirk {quirk!r} (known: {', '.join(known)})",
                )
        if wanted:
            for codec in chosen:
                reason = codec.can_express(cast(list[dv.TurnEvent], turn), quirks)
                if reason:
                    top.note(top.line_of("dialects"), f"{codec.name}: {reason}")
        if top.has("expect"):
            top.note(
                top.line_of("expect"), "pinned expectations are not available for driver scenarios"
            )
        cancel = top.int("cancel_after_reads", minimum=1) if top.has("cancel_after_reads") else None
        return Scenario(
            id=scenario_id,
            title=top.str("title"),
            description=top.str("description"),
            source=top.str("source"),
            layer="driver",
            tags=top.str_list("tags"),
            rules=top.str_list("rules"),
            disable_rules=top.str_list("disable_rules"),
            seed=self.seed,
            path=self.path,
            line=top.line,
            trace=(),
            turn=tuple(cast(list[dv.TurnEvent], turn)),
            dialects=tuple(wanted),
            quirks=quirks,
            cancel_after_reads=cancel,
            raw_wire=raw,
        )

    def recorded_wire(
        self, top: Fields, codecs: dict[str, Any]
    ) -> tuple[str, tuple[tuple[str, int], ...], list[Any]]:
        """A stream given as it was recorded: inline, a raw file, or a cassette interaction."""
        from harness.wire import WireError, read_cassette, split_sse

        w = self.fields(top.raw("wire"), "'wire'", top.line_of("wire"))
        w.check_keys(("dialect", "body", "file", "cassette", "interaction"))
        dialect = w.choice("dialect", tuple(codecs))
        given = [k for k in ("body", "file", "cassette") if w.has(k)]
        if len(given) != 1:
            w.fail(
                w.line,
                "'wire' needs exactly one of: body (the stream's text), file (a raw stream), cassette (a vcrpy cassette)",
            )
        base = Path(self.path).parent
        try:
            if given[0] == "body":
                body, source = w.str("body"), f"{self.path} wire body"
            elif given[0] == "file":
                path = base / w.str("file")
                body, source = path.read_bytes().decode("utf-8"), str(path)
            else:
                path = base / w.str("cassette")
                interactions = read_cassette(path)
                number = w.int("interaction", 0, minimum=0)
                if number >= len(interactions):
                    w.fail(w.line_of("interaction"), f"{path} has {len(interactions)} interactions")
                body, source = (
                    interactions[number].response_body,
                    interactions[number].response_source,
                )
            turn = list(codecs[dialect].decode(body, source=source))
            return dialect, split_sse(body, source=source), turn
        except WireError as exc:
            w.fail(w.line, f"the recorded stream cannot be read: {exc}")
        except (OSError, UnicodeDecodeError) as exc:
            w.fail(w.line, f"the recorded stream cannot be read: {exc}")
        raise AssertionError("unreachable")

    # -- steps -------------------------------------------------------------------------------

    def steps(self, items: LocatedList, where: str) -> list[ev.SessionEvent]:
        out: list[ev.SessionEvent] = []
        for i, item in enumerate(items):
            line = items.line_of(i)
            try:
                out.extend(self.step(item, line, where))
            except Invalid:
                if len(self.problems) >= 50:
                    raise
        return out

    def step(self, item: Any, line: int, where: str) -> list[ev.SessionEvent]:
        if not isinstance(item, LocatedDict) or len(item) != 1:
            self.problems.append(
                Problem(
                    self.path,
                    line,
                    f"each {where} step is a mapping with one key naming the event type, e.g. '- tool_select: {{...}}'",
                )
            )
            raise Invalid
        ((name, body),) = item.items()
        handler = self.handlers.get(name)
        if handler is None:
            known = ", ".join(sorted(self.handlers))
            self.problems.append(
                Problem(self.path, line, f"unknown event type {name!r} (known: {known})")
            )
            raise Invalid
        return handler(self, self.fields(body, f"'{name}'", item.line_of(name)))

    def session_of(self, f: Fields, key: str = "session") -> tuple[str, str | None]:
        session_id = f.str(key, self.default_session)
        parent = f.optional_str("parent")
        known = self.parents.get(session_id)
        if parent is not None and known is not None and parent != known:
            f.fail(
                f.line_of("parent"),
                f"session {session_id!r} was started with parent {known!r}, not {parent!r}",
            )
        return session_id, parent if parent is not None else known

    def base(self, f: Fields, allowed: tuple[str, ...]) -> dict[str, Any]:
        f.check_keys(("session", "parent", *allowed))
        session_id, parent = self.session_of(f)
        self.budget.take(1, f, "session")
        return {"session_id": session_id, "parent_session_id": parent, "line": f.line}

    def auto_id(self, prefix: str) -> str:
        self.auto_ids += 1
        return f"{prefix}{self.auto_ids}"

    def arguments(self, f: Fields) -> str:
        if f.has("input") and f.has("arguments"):
            f.fail(
                f.line_of("arguments"),
                "give either 'input' (a value) or 'arguments' (raw JSON text), not both",
            )
        if f.has("arguments"):
            return f.str("arguments")
        return json.dumps(_plain(f.raw("input", {})))

    def calls(
        self, f: Fields, *, with_results: bool
    ) -> tuple[list[ev.ToolCall], list[ev.ToolResult]]:
        items = f.list("calls", required=True)
        if not items:
            f.fail(f.line_of("calls"), f"'calls' in {f.where} is empty")
        calls, results = [], []
        for i, item in enumerate(items):
            allowed = ("id", "name", "input", "arguments") + (
                ("result", "is_error") if with_results else ()
            )
            c = self.fields(item, f"a call in {f.where}", items.line_of(i))
            c.check_keys(allowed)
            call = ev.ToolCall(c.str("id"), c.str("name", ""), self.arguments(c))
            calls.append(call)
            if with_results and c.has("result"):
                results.append(ev.ToolResult(call.id, c.str("result"), c.bool("is_error", False)))
        return calls, results

    # Each handler reads one step type and returns its events.

    def _interaction(
        self, f: Fields, cls: type[ev.InteractionStart] | type[ev.InteractionEnd]
    ) -> list[ev.SessionEvent]:
        base = self.base(f, ("id",))
        return [cls(interaction_id=f.str("id", ""), **base)]

    def _user_turn_start(self, f: Fields) -> list[ev.SessionEvent]:
        return [ev.UserTurnStart(**self.base(f, ()))]

    def _user_message(self, f: Fields) -> list[ev.SessionEvent]:
        base = self.base(f, ("id", "text"))
        return [
            ev.UserMessage(message_id=f.str("id", self.auto_id("u")), text=f.str("text"), **base)
        ]

    def _message_start(self, f: Fields) -> list[ev.SessionEvent]:
        base = self.base(f, ("id", "role"))
        return [
            ev.MessageStart(
                message_id=f.str("id"),
                role=f.choice("role", ("assistant", "thought"), "assistant"),  # type: ignore[arg-type]
                **base,
            )
        ]

    def _message_delta(self, f: Fields) -> list[ev.SessionEvent]:
        base = self.base(f, ("id", "text"))
        return [ev.MessageDelta(message_id=f.str("id"), text=f.str("text"), **base)]

    def _message_end(self, f: Fields) -> list[ev.SessionEvent]:
        base = self.base(f, ("id",))
        return [ev.MessageEnd(message_id=f.str("id"), **base)]

    def _tool_select(self, f: Fields) -> list[ev.SessionEvent]:
        base = self.base(f, ("calls",))
        return [ev.ToolSelect(calls=tuple(self.calls(f, with_results=False)[0]), **base)]

    def _tool_executing(self, f: Fields) -> list[ev.SessionEvent]:
        base = self.base(f, ("calls",))
        return [ev.ToolExecuting(calls=tuple(self.calls(f, with_results=False)[0]), **base)]

    def _tool_completed(self, f: Fields) -> list[ev.SessionEvent]:
        base = self.base(f, ("calls", "results"))
        calls, results = self.calls(f, with_results=True)
        items = f.list("results")
        for i, item in enumerate(items):
            r = self.fields(item, "a result", items.line_of(i))
            r.check_keys(("id", "content", "is_error"))
            results.append(
                ev.ToolResult(r.str("id"), r.str("content", ""), r.bool("is_error", False))
            )
        return [ev.ToolCompleted(calls=tuple(calls), results=tuple(results), **base)]

    def _tool_stream(self, f: Fields) -> list[ev.SessionEvent]:
        base = self.base(
            f,
            (
                "call_id",
                "event_type",
                "tool_name",
                "tool_response",
                "summary",
                "stream_part",
                "is_complete",
            ),
        )
        return [
            ev.ToolStreamPart(
                call_id=f.str("call_id"),
                event_type=f.choice(
                    "event_type", ("call", "result", "delegation_call", "delegation_result")
                ),  # type: ignore[arg-type]
                tool_name=f.str("tool_name"),
                tool_response=f.str("tool_response", ""),
                summary=f.str("summary", ""),
                stream_part=f.optional_str("stream_part"),
                is_complete=f.bool("is_complete", True),
                **base,
            )
        ]

    def _system_message(self, f: Fields) -> list[ev.SessionEvent]:
        base = self.base(f, ("severity", "text"))
        return [
            ev.SystemMessage(severity=f.str("severity", "info"), text=f.str("text", ""), **base)
        ]

    def _media(self, f: Fields) -> list[ev.SessionEvent]:
        base = self.base(f, ("content_type", "content"))
        return [
            ev.Media(
                content_type=f.str("content_type", "text/html"),
                content=f.str("content", ""),
                **base,
            )
        ]

    def _subsession_start(self, f: Fields) -> list[ev.SessionEvent]:
        f.check_keys(("session", "parent"))
        session_id = f.str("session")
        parent = f.str("parent", self.default_session)
        if session_id == parent:
            f.fail(f.line_of("parent"), "a sub-session cannot be its own parent")
        known = self.parents.get(session_id)
        if known is not None and known != parent:
            f.fail(f.line_of("parent"), f"session {session_id!r} already has parent {known!r}")
        self.parents[session_id] = parent
        self.budget.take(1, f, "session")
        return [ev.SubsessionStart(session_id=session_id, parent_session_id=parent, line=f.line)]

    def _subsession_end(self, f: Fields) -> list[ev.SessionEvent]:
        return [ev.SubsessionEnd(**self.base(f, ()))]

    def _checkpoint(self, f: Fields) -> list[ev.SessionEvent]:
        base = self.base(f, ("name",))
        return [ev.Checkpoint(name=f.str("name"), **base)]

    def _resume(self, f: Fields) -> list[ev.SessionEvent]:
        base = self.base(f, ("history",))
        raw = f.raw("history")
        if raw == "live":
            # Filled in by check_trace once the live events before it are known.
            return [ev.Resume(history=(), **base)]
        if not isinstance(raw, LocatedList):
            f.fail(f.line_of("history"), "'history' should be 'live' or a list of messages")
        return [
            ev.Resume(
                history=tuple(self.history_message(m, raw, i) for i, m in enumerate(raw)), **base
            )
        ]

    def history_message(self, item: Any, items: LocatedList, index: int) -> hist.HistoryMessage:
        m = self.fields(item, "a history message", items.line_of(index))
        m.check_keys(("role", "content"))
        role = m.choice("role", ("user", "assistant"))
        content = m.raw("content")
        if isinstance(content, str):
            return hist.HistoryMessage(role, (hist.TextBlock(content),))  # type: ignore[arg-type]
        blocks = m.list("content", required=True)
        out: list[hist.Block] = []
        for i, block in enumerate(blocks):
            b = self.fields(block, "a content block", blocks.line_of(i))
            kind = b.choice("type", ("text", "thinking", "tool_use", "tool_result"))
            if kind == "text":
                b.check_keys(("type", "text"))
                out.append(hist.TextBlock(b.str("text", "")))
            elif kind == "thinking":
                b.check_keys(("type", "thinking"))
                out.append(hist.ThinkingBlock(b.str("thinking", "")))
            elif kind == "tool_use":
                b.check_keys(("type", "id", "name", "input", "arguments"))
                out.append(hist.ToolUseBlock(b.str("id"), b.str("name"), self.arguments(b)))
            else:
                b.check_keys(("type", "tool_use_id", "content", "is_error"))
                out.append(
                    hist.ToolResultBlock(
                        b.str("tool_use_id"), b.str("content", ""), b.bool("is_error", False)
                    )
                )
        return hist.HistoryMessage(role, tuple(out))  # type: ignore[arg-type]

    # -- generators --------------------------------------------------------------------------

    def _message(self, f: Fields) -> list[ev.SessionEvent]:
        f.check_keys(("session", "parent", "id", "role", "text", "chunks"))
        session_id, parent = self.session_of(f)
        text = f.str("text", "")
        chunks = f.int("chunks", 0, minimum=1) if f.has("chunks") else None
        out = message_events(
            session_id,
            parent,
            f.str("id", self.auto_id("m")),
            f.choice("role", ("assistant", "thought"), "assistant"),  # type: ignore[arg-type]
            text,
            chunks,
            f.line,
        )
        self.budget.take(len(out), f, "text")
        return out

    def _tool(self, f: Fields) -> list[ev.SessionEvent]:
        f.check_keys(
            (
                "session",
                "parent",
                "id",
                "name",
                "input",
                "arguments",
                "result",
                "is_error",
                "select",
                "between",
            )
        )
        session_id, parent = self.session_of(f)
        call = ev.ToolCall(f.str("id"), f.str("name"), self.arguments(f))
        kw: dict[str, Any] = {"session_id": session_id, "parent_session_id": parent, "line": f.line}
        out: list[ev.SessionEvent] = []
        if f.bool("select", True):
            out.append(ev.ToolSelect(calls=(ev.ToolCall(call.id, call.name, ""),), **kw))
        out.append(ev.ToolExecuting(calls=(call,), **kw))
        self.budget.take(len(out) + 1, f, "id")
        out.extend(self.steps(f.list("between"), "between"))
        result = ev.ToolResult(call.id, f.str("result", ""), f.bool("is_error", False))
        out.append(ev.ToolCompleted(calls=(call,), results=(result,), **kw))
        return out

    def _streamed_result(self, f: Fields) -> list[ev.SessionEvent]:
        f.check_keys(
            (
                "session",
                "parent",
                "call_id",
                "tool_name",
                "delegation",
                "content",
                "chunks",
                "summary",
                "tool_response",
            )
        )
        session_id, parent = self.session_of(f)
        kw: dict[str, Any] = {"session_id": session_id, "parent_session_id": parent, "line": f.line}
        delegation = f.bool("delegation", False)
        call_id, name = f.str("call_id"), f.str("tool_name")
        pieces = _split(f.str("content", ""), f.int("chunks", 3, minimum=1))
        out: list[ev.SessionEvent] = [
            ev.ToolStreamPart(
                call_id=call_id,
                event_type="delegation_call" if delegation else "call",
                tool_name=name,
                tool_response=f"Running {name}",
                summary=f"-> {name}",
                **kw,
            )
        ]
        for i, piece in enumerate(pieces):
            last = i == len(pieces) - 1
            out.append(
                ev.ToolStreamPart(
                    call_id=call_id,
                    event_type="delegation_result" if delegation else "result",
                    tool_name=name,
                    tool_response=f.str("tool_response", "done") if last else "",
                    summary=f.str("summary", "") if last else "",
                    stream_part=piece,
                    is_complete=last,
                    **kw,
                )
            )
        self.budget.take(len(out), f, "chunks")
        return out

    def _repeat(self, f: Fields) -> list[ev.SessionEvent]:
        f.check_keys(("times", "steps"))
        times = f.int("times", minimum=0)
        body = f.list("steps", required=True)
        if times == 0:
            return []
        before, problems = self.budget.used, len(self.problems)
        out = self.steps(_substitute(body, "{i}", "0"), "repeat")
        if len(self.problems) > problems:
            return out
        per = self.budget.used - before
        self.budget.used = before
        self.budget.take(per * times, f, "times")  # the whole size, before expanding the rest
        for i in range(1, times):
            mark = self.budget.used
            out.extend(self.steps(_substitute(body, "{i}", str(i)), "repeat"))
            self.budget.used = mark
        return out

    def _burst(self, f: Fields) -> list[ev.SessionEvent]:
        f.check_keys(("session", "parent", "events", "seed", "depth", "reuse_ids"))
        parent = f.str("parent", self.default_session)
        self.bursts += 1
        session_id = f.str("session", f"{parent}/burst-{self.bursts}")
        events = f.int("events", minimum=4)
        self.budget.take(events, f, "events")
        depth = f.int("depth", 2, minimum=1)
        if depth > 8:
            f.fail(f.line_of("depth"), "'depth' may be at most 8")
        seed = f.int("seed", self.seed * 1_000_003 + self.bursts)
        self.parents[session_id] = parent
        out = burst_events(session_id, parent, events, seed, depth, f.str_list("reuse_ids"), f.line)
        for event in out:
            if isinstance(event, ev.SubsessionStart):
                self.parents[event.session_id] = event.parent_session_id
        return out

    # -- whole-trace checks ------------------------------------------------------------------

    def check_trace(self, trace: list[ev.SessionEvent]) -> None:
        """Message ids refer to started messages; live resumes get their history."""
        started: set[tuple[str, str]] = set()
        for i, event in enumerate(trace):
            if isinstance(event, (ev.MessageStart, ev.UserMessage)):
                key = (event.session_id, event.message_id)
                if key in started:
                    self.problems.append(
                        Problem(
                            self.path,
                            event.line,
                            f"message id {event.message_id!r} is used twice in session {event.session_id!r}",
                        )
                    )
                started.add(key)
            elif isinstance(event, (ev.MessageDelta, ev.MessageEnd)):
                if (event.session_id, event.message_id) not in started:
                    self.problems.append(
                        Problem(
                            self.path,
                            event.line,
                            f"{event.kind} for message {event.message_id!r}, which was not started in session {event.session_id!r}",
                        )
                    )
            elif isinstance(event, ev.Resume) and not event.history:
                history = history_from_events(trace[:i], event.session_id)
                trace[i] = dataclasses.replace(event, history=history)

    def faults(self, items: LocatedList, trace: list[ev.SessionEvent]) -> list[ev.SessionEvent]:
        for i, item in enumerate(items):
            line = items.line_of(i)
            if not isinstance(item, LocatedDict) or len(item) != 1:
                self.problems.append(
                    Problem(
                        self.path,
                        line,
                        "each fault is a mapping with one key: drop, duplicate or cancel",
                    )
                )
                continue
            ((kind, body),) = item.items()
            try:
                f = self.fields(body, f"the {kind!r} fault", item.line_of(kind))
                if kind == "drop":
                    f.check_keys(("match", "nth"))
                    hits = self.matches(f, trace)
                    gone = set(hits)
                    trace = [e for j, e in enumerate(trace) if j not in gone]
                elif kind == "duplicate":
                    f.check_keys(("match", "nth", "times"))
                    doubled = set(self.matches(f, trace))
                    times = f.int("times", 1, minimum=1)
                    self.budget.take(len(doubled) * times, f, "times")
                    trace = [
                        c
                        for j, e in enumerate(trace)
                        for c in ([e] * (1 + times if j in doubled else 1))
                    ]
                elif kind == "cancel":
                    f.check_keys(("match", "nth", "then"))
                    hits = self.matches(f, trace)
                    trace = trace[: hits[0] + 1] + self.steps(f.list("then"), "then")
                else:
                    f.fail(line, f"unknown fault {kind!r} (known: drop, duplicate, cancel)")
            except Invalid:
                continue
        return trace

    def matches(self, f: Fields, trace: list[ev.SessionEvent]) -> list[int]:
        m = self.fields(f.raw("match"), "'match'", f.line_of("match"))
        if not f.has("match"):
            f.fail(f.line, f"{f.where} needs a 'match' saying which events it applies to")
        m.check_keys(("type", "session", "id", "index"))
        kind = m.str("type", "")
        known_types = dv.TURN_EVENT_TYPES if self.handlers is not _STEP_HANDLERS else ev.EVENT_TYPES
        if kind and kind not in known_types:
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

    def expectation(self, item: Any, items: LocatedList, index: int) -> Expectation:
        e = self.fields(item, "an expectation", items.line_of(index))
        e.check_keys(("at", "notifications", "messages"))
        notifications = None
        if e.has("notifications"):
            notes = e.list("notifications")
            notifications = tuple(self._pinned_note(n, notes, j) for j, n in enumerate(notes))
        messages: dict[str, tuple[PinnedMessage, ...]] = {}
        if e.has("messages"):
            by_session = e.raw("messages")
            if not isinstance(by_session, LocatedDict):
                e.fail(e.line_of("messages"), "'messages' maps session ids to lists of messages")
            for session_id in by_session:
                lst = self.fields(by_session, "'messages'", e.line_of("messages")).list(session_id)
                messages[str(session_id)] = tuple(
                    self._pinned_message(m, lst, j) for j, m in enumerate(lst)
                )
        return Expectation(
            at=e.str("at", "end"), line=e.line, notifications=notifications, messages=messages
        )

    def _pinned_note(self, item: Any, items: LocatedList, index: int) -> tuple[str, str, str]:
        n = self.fields(item, "a pinned notification", items.line_of(index))
        n.check_keys(("session", "id", "status"))
        return (
            n.str("session", self.default_session),
            n.str("id"),
            n.choice("status", ("preparing", "using")),
        )

    def _pinned_message(self, item: Any, items: LocatedList, index: int) -> PinnedMessage:
        m = self.fields(item, "a pinned message", items.line_of(index))
        m.check_keys(("role", "text", "tool_calls"))
        calls = m.str_list("tool_calls") if m.has("tool_calls") else None
        return PinnedMessage(
            m.choice("role", ("user", "assistant", "thought")), m.optional_str("text"), calls
        )

    def check_expectations(
        self, expectations: tuple[Expectation, ...], trace: list[ev.SessionEvent], top: Fields
    ) -> None:
        names = {e.name for e in trace if isinstance(e, ev.Checkpoint)}
        for expectation in expectations:
            if expectation.at != "end" and expectation.at not in names:
                self.problems.append(
                    Problem(
                        self.path,
                        expectation.line,
                        f"expectation at {expectation.at!r}: no checkpoint of that name in the trace",
                    )
                )


def _unlabelled(trace: list[ev.SessionEvent]) -> tuple[ev.SessionEvent, ...]:
    """Sub-session events without their session ids; their brackets keep theirs."""
    brackets = (ev.SubsessionStart, ev.SubsessionEnd)
    return tuple(
        dataclasses.replace(e, session_id="", parent_session_id=None)
        if e.parent_session_id is not None and not isinstance(e, brackets)
        else e
        for e in trace
    )


def _ids(event: ev.SessionEvent) -> tuple[str, ...]:
    ids: list[str] = []
    for attr in ("message_id", "interaction_id", "call_id", "name", "id"):
        value = getattr(event, attr, None)
        if value:
            ids.append(value)
    for call in getattr(event, "calls", ()):
        ids.extend((call.id, call.name))
    return tuple(ids)


def _split(text: str, chunks: int) -> list[str]:
    return split_text(text, chunks) or [""]


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _substitute(value: Any, old: str, new: str) -> Any:
    if isinstance(value, str):
        return value.replace(old, new)
    if isinstance(value, LocatedDict):
        out = LocatedDict((k, _substitute(v, old, new)) for k, v in value.items())
        out.line, out.value_lines = value.line, value.value_lines
        return out
    if isinstance(value, LocatedList):
        items = LocatedList(_substitute(v, old, new) for v in value)
        items.line, items.item_lines = value.line, value.item_lines
        return items
    return value


_STEP_HANDLERS: dict[str, Callable[[_Parser, Fields], list[ev.SessionEvent]]] = {
    "interaction_start": lambda p, f: p._interaction(f, ev.InteractionStart),
    "interaction_end": lambda p, f: p._interaction(f, ev.InteractionEnd),
    "user_turn_start": _Parser._user_turn_start,
    "user_message": _Parser._user_message,
    "message_start": _Parser._message_start,
    "message_delta": _Parser._message_delta,
    "message_end": _Parser._message_end,
    "tool_select": _Parser._tool_select,
    "tool_executing": _Parser._tool_executing,
    "tool_completed": _Parser._tool_completed,
    "tool_stream": _Parser._tool_stream,
    "system_message": _Parser._system_message,
    "media": _Parser._media,
    "subsession_start": _Parser._subsession_start,
    "subsession_end": _Parser._subsession_end,
    "checkpoint": _Parser._checkpoint,
    "resume": _Parser._resume,
    "message": _Parser._message,
    "tool": _Parser._tool,
    "streamed_result": _Parser._streamed_result,
    "repeat": _Parser._repeat,
    "burst": _Parser._burst,
}
