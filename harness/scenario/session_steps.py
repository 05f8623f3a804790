"""The steps of a session scenario that are one canonical event each (``harness.model.session``).

Generators, which expand to many events, are in ``generator_steps``; both register into
``SESSION_STEPS`` with ``@session_step(name)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from harness._registry import Registry
from harness._yaml import LocatedList
from harness.model import history as hist
from harness.model import session as ev
from harness.scenario._fields import Fields
from harness.scenario.reader import Handler, StepReader

SESSION_STEPS: Registry[Handler] = Registry("session step")


def session_step(name: str) -> Callable[[Handler], Handler]:
    """Register the handler of the session step ``name``."""

    def register(handler: Handler) -> Handler:
        return SESSION_STEPS.add(name, handler)

    return register


def session_of(r: StepReader, f: Fields) -> tuple[str, str | None]:
    """The step's session and its parent (given, or known from the steps before)."""
    session_id = f.str("session", r.default_session)
    parent = f.optional_str("parent")
    known = r.parents.get(session_id)
    if parent is not None and known is not None and parent != known:
        f.fail(
            f.line_of("parent"),
            f"session {session_id!r} was started with parent {known!r}, not {parent!r}",
        )
    return session_id, parent if parent is not None else known


def base(r: StepReader, f: Fields, allowed: tuple[str, ...]) -> dict[str, Any]:
    """The fields every one-event step has, as keyword arguments of its event."""
    f.check_keys(("session", "parent", *allowed))
    session_id, parent = session_of(r, f)
    r.budget.take(1, f, "session")
    return {"session_id": session_id, "parent_session_id": parent, "line": f.line}


def calls(
    r: StepReader, f: Fields, *, with_results: bool
) -> tuple[list[ev.ToolCall], list[ev.ToolResult]]:
    items = f.list("calls", required=True)
    if not items:
        f.fail(f.line_of("calls"), f"'calls' in {f.where} is empty")
    out, results = [], []
    for i, item in enumerate(items):
        allowed = ("id", "name", "input", "arguments") + (
            ("result", "is_error") if with_results else ()
        )
        c = r.fields(item, f"a call in {f.where}", items.line_of(i))
        c.check_keys(allowed)
        call = ev.ToolCall(c.str("id"), c.str("name", ""), r.arguments(c))
        out.append(call)
        if with_results and c.has("result"):
            results.append(ev.ToolResult(call.id, c.str("result"), c.bool("is_error", False)))
    return out, results


@session_step("interaction_start")
def _interaction_start(r: StepReader, f: Fields) -> list[Any]:
    kw = base(r, f, ("id",))
    return [ev.InteractionStart(interaction_id=f.str("id", ""), **kw)]


@session_step("interaction_end")
def _interaction_end(r: StepReader, f: Fields) -> list[Any]:
    kw = base(r, f, ("id",))
    return [ev.InteractionEnd(interaction_id=f.str("id", ""), **kw)]


@session_step("user_turn_start")
def _user_turn_start(r: StepReader, f: Fields) -> list[Any]:
    return [ev.UserTurnStart(**base(r, f, ()))]


@session_step("user_message")
def _user_message(r: StepReader, f: Fields) -> list[Any]:
    kw = base(r, f, ("id", "text"))
    return [ev.UserMessage(message_id=f.str("id", r.auto_id("u")), text=f.str("text"), **kw)]


@session_step("message_start")
def _message_start(r: StepReader, f: Fields) -> list[Any]:
    kw = base(r, f, ("id", "role"))
    message_id = f.str("id")
    role = f.choice("role", ("assistant", "thought"), "assistant")
    return [ev.MessageStart(message_id=message_id, role=role, **kw)]  # type: ignore[arg-type]


@session_step("message_delta")
def _message_delta(r: StepReader, f: Fields) -> list[Any]:
    kw = base(r, f, ("id", "text"))
    return [ev.MessageDelta(message_id=f.str("id"), text=f.str("text"), **kw)]


@session_step("message_end")
def _message_end(r: StepReader, f: Fields) -> list[Any]:
    kw = base(r, f, ("id",))
    return [ev.MessageEnd(message_id=f.str("id"), **kw)]


@session_step("tool_select")
def _tool_select(r: StepReader, f: Fields) -> list[Any]:
    kw = base(r, f, ("calls",))
    return [ev.ToolSelect(calls=tuple(calls(r, f, with_results=False)[0]), **kw)]


@session_step("tool_executing")
def _tool_executing(r: StepReader, f: Fields) -> list[Any]:
    kw = base(r, f, ("calls",))
    return [ev.ToolExecuting(calls=tuple(calls(r, f, with_results=False)[0]), **kw)]


@session_step("tool_completed")
def _tool_completed(r: StepReader, f: Fields) -> list[Any]:
    kw = base(r, f, ("calls", "results"))
    done, results = calls(r, f, with_results=True)
    items = f.list("results")
    for i, item in enumerate(items):
        g = r.fields(item, "a result", items.line_of(i))
        g.check_keys(("id", "content", "is_error"))
        results.append(ev.ToolResult(g.str("id"), g.str("content", ""), g.bool("is_error", False)))
    return [ev.ToolCompleted(calls=tuple(done), results=tuple(results), **kw)]


@session_step("tool_stream")
def _tool_stream(r: StepReader, f: Fields) -> list[Any]:
    keys = ("call_id", "event_type", "tool_name", "tool_response", "summary", "stream_part")
    kw = base(r, f, (*keys, "is_complete"))
    call_id = f.str("call_id")
    event_type = f.choice("event_type", ("call", "result", "delegation_call", "delegation_result"))
    return [
        ev.ToolStreamPart(
            call_id=call_id,
            event_type=event_type,  # type: ignore[arg-type]
            tool_name=f.str("tool_name"),
            tool_response=f.str("tool_response", ""),
            summary=f.str("summary", ""),
            stream_part=f.optional_str("stream_part"),
            is_complete=f.bool("is_complete", True),
            **kw,
        )
    ]


@session_step("system_message")
def _system_message(r: StepReader, f: Fields) -> list[Any]:
    kw = base(r, f, ("severity", "text"))
    return [ev.SystemMessage(severity=f.str("severity", "info"), text=f.str("text", ""), **kw)]


@session_step("media")
def _media(r: StepReader, f: Fields) -> list[Any]:
    kw = base(r, f, ("content_type", "content"))
    content_type = f.str("content_type", "text/html")
    return [ev.Media(content_type=content_type, content=f.str("content", ""), **kw)]


@session_step("subsession_start")
def _subsession_start(r: StepReader, f: Fields) -> list[Any]:
    f.check_keys(("session", "parent"))
    session_id = f.str("session")
    parent = f.str("parent", r.default_session)
    if session_id == parent:
        f.fail(f.line_of("parent"), "a sub-session cannot be its own parent")
    known = r.parents.get(session_id)
    if known is not None and known != parent:
        f.fail(f.line_of("parent"), f"session {session_id!r} already has parent {known!r}")
    r.parents[session_id] = parent
    r.budget.take(1, f, "session")
    return [ev.SubsessionStart(session_id=session_id, parent_session_id=parent, line=f.line)]


@session_step("subsession_end")
def _subsession_end(r: StepReader, f: Fields) -> list[Any]:
    return [ev.SubsessionEnd(**base(r, f, ()))]


@session_step("checkpoint")
def _checkpoint(r: StepReader, f: Fields) -> list[Any]:
    kw = base(r, f, ("name",))
    return [ev.Checkpoint(name=f.str("name"), **kw)]


@session_step("resume")
def _resume(r: StepReader, f: Fields) -> list[Any]:
    kw = base(r, f, ("history",))
    raw = f.raw("history")
    if raw == "live":
        # Filled in once the live events before it are known (``session._check_trace``).
        return [ev.Resume(history=(), **kw)]
    if not isinstance(raw, LocatedList):
        f.fail(f.line_of("history"), "'history' should be 'live' or a list of messages")
    history = tuple(_history_message(r, m, raw, i) for i, m in enumerate(raw))
    return [ev.Resume(history=history, **kw)]


def _history_message(
    r: StepReader, item: Any, items: LocatedList, index: int
) -> hist.HistoryMessage:
    m = r.fields(item, "a history message", items.line_of(index))
    m.check_keys(("role", "content"))
    role = m.choice("role", ("user", "assistant"))
    content = m.raw("content")
    if isinstance(content, str):
        return hist.HistoryMessage(role, (hist.TextBlock(content),))  # type: ignore[arg-type]
    blocks = m.list("content", required=True)
    out: list[hist.Block] = []
    for i, block in enumerate(blocks):
        b = r.fields(block, "a content block", blocks.line_of(i))
        kind = b.choice("type", ("text", "thinking", "tool_use", "tool_result"))
        if kind == "text":
            b.check_keys(("type", "text"))
            out.append(hist.TextBlock(b.str("text", "")))
        elif kind == "thinking":
            b.check_keys(("type", "thinking", "signature"))
            out.append(hist.ThinkingBlock(b.str("thinking", ""), b.str("signature", "")))
        elif kind == "tool_use":
            b.check_keys(("type", "id", "name", "input", "arguments"))
            out.append(hist.ToolUseBlock(b.str("id"), b.str("name"), r.arguments(b)))
        else:
            b.check_keys(("type", "tool_use_id", "content", "is_error"))
            content = b.str("content", "")
            out.append(
                hist.ToolResultBlock(b.str("tool_use_id"), content, b.bool("is_error", False))
            )
    return hist.HistoryMessage(role, tuple(out))  # type: ignore[arg-type]
