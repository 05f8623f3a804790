"""Session steps that expand to many events: ``message``, ``tool``, ``streamed_result``,
``repeat`` and ``burst``. Each takes its size from the budget before it expands, so asking for
too many events is a located error, not a hang.

A new generator is one handler here: read its fields, take its size from ``r.budget``, return
its events (``harness.scenario.generators`` holds the deterministic expansions).
"""

from __future__ import annotations

from typing import Any

from harness.model import session as ev
from harness.scenario._fields import Fields
from harness.scenario.generators import (
    burst_events,
    burst_run,
    message_events,
    message_run,
    split_text,
)
from harness.scenario.reader import StepReader, substitute
from harness.scenario.session_steps import session_of, session_step

#: a message text longer than this expands on every pass instead of being held as deltas
_LONG_TEXT = 64 * 1024


@session_step("message")
def _message(r: StepReader, f: Fields) -> list[Any]:
    f.check_keys(("session", "parent", "id", "role", "text", "chunks"))
    session_id, parent = session_of(r, f)
    text = f.str("text", "")
    chunks = f.int("chunks", 0, minimum=1) if f.has("chunks") else None
    args = (
        session_id,
        parent,
        f.str("id", r.auto_id("m")),
        f.choice("role", ("assistant", "thought"), "assistant"),
        text,
        chunks,
        f.line,
    )
    if len(text) > _LONG_TEXT:  # kept once and split again on every pass, not held as deltas
        run = message_run(*args)  # type: ignore[arg-type]
        r.budget.take(len(run), f, "text")
        return [run]
    out = message_events(*args)  # type: ignore[arg-type]
    r.budget.take(len(out), f, "text")
    return out


@session_step("tool")
def _tool(r: StepReader, f: Fields) -> list[Any]:
    keys = ("session", "parent", "id", "name", "input", "arguments", "result", "is_error")
    f.check_keys((*keys, "select", "between"))
    session_id, parent = session_of(r, f)
    call = ev.ToolCall(f.str("id"), f.str("name"), r.arguments(f))
    kw: dict[str, Any] = {"session_id": session_id, "parent_session_id": parent, "line": f.line}
    out: list[Any] = []
    if f.bool("select", True):
        out.append(ev.ToolSelect(calls=(ev.ToolCall(call.id, call.name, ""),), **kw))
    out.append(ev.ToolExecuting(calls=(call,), **kw))
    r.budget.take(len(out) + 1, f, "id")
    out.extend(r.steps(f.list("between"), "between"))
    result = ev.ToolResult(call.id, f.str("result", ""), f.bool("is_error", False))
    out.append(ev.ToolCompleted(calls=(call,), results=(result,), **kw))
    return out


@session_step("streamed_result")
def _streamed_result(r: StepReader, f: Fields) -> list[Any]:
    keys = ("session", "parent", "call_id", "tool_name", "delegation", "content", "chunks")
    f.check_keys((*keys, "summary", "tool_response"))
    session_id, parent = session_of(r, f)
    kw: dict[str, Any] = {"session_id": session_id, "parent_session_id": parent, "line": f.line}
    delegation = f.bool("delegation", False)
    call_id, name = f.str("call_id"), f.str("tool_name")
    pieces = split_text(f.str("content", ""), f.int("chunks", 3, minimum=1)) or [""]
    out: list[Any] = [
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
    r.budget.take(len(out), f, "chunks")
    return out


@session_step("repeat")
def _repeat(r: StepReader, f: Fields) -> list[Any]:
    f.check_keys(("times", "steps"))
    times = f.int("times", minimum=0)
    body = f.list("steps", required=True)
    if times == 0:
        return []
    before, problems = r.budget.used, len(r.problems)
    out = r.steps(substitute(body, "{i}", "0"), "repeat")
    if len(r.problems) > problems:
        return out
    per = r.budget.used - before
    if per == 0:  # nothing to bound the iterations by: refuse it rather than spin on them
        f.fail(f.line_of("steps"), "a repeat of steps that make no events repeats nothing")
    r.budget.used = before
    r.budget.take(per * times, f, "times")  # the whole size, before expanding the rest
    for i in range(1, times):
        mark = r.budget.used
        out.extend(r.steps(substitute(body, "{i}", str(i)), "repeat"))
        r.budget.used = mark
    return out


@session_step("burst")
def _burst(r: StepReader, f: Fields) -> list[Any]:
    f.check_keys(("session", "parent", "events", "seed", "depth", "reuse_ids"))
    parent = f.str("parent", r.default_session)
    r.bursts += 1
    session_id = f.str("session", f"{parent}/burst-{r.bursts}")
    events = f.int("events", minimum=4)
    r.budget.take(events, f, "events")
    depth = f.int("depth", 2, minimum=1)
    if depth > 8:
        f.fail(f.line_of("depth"), "'depth' may be at most 8")
    seed = f.int("seed", r.seed * 1_000_003 + r.bursts)
    r.parents[session_id] = parent
    args = (session_id, parent, events, seed, depth, f.str_list("reuse_ids"), f.line)
    if r.kept + events <= r.keep:
        out = burst_events(*args)
        r.kept += len(out)
        r.parents.update(
            (e.session_id, e.parent_session_id) for e in out if type(e) is ev.SubsessionStart
        )
        return out
    run = burst_run(*args)
    r.parents.update(run.parents)
    return [run]
