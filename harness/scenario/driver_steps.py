"""The steps of a driver-layer scenario: canonical turn events, and ``cycle`` to write a message
cycle's blocks in a few lines."""

from __future__ import annotations

from typing import Any

from harness._yaml import LocatedDict
from harness.model import driver as dv
from harness.scenario._fields import Fields
from harness.scenario.generators import split_text
from harness.scenario.reader import Handler, StepReader

_BLOCKS = ("text", "thinking", "tool_use")


def _event(cls: type[dv.TurnEvent], *keys: str) -> Handler:
    def read(r: StepReader, f: Fields) -> list[Any]:
        f.check_keys(keys)
        values: dict[str, Any] = {}
        for key in keys:
            if key == "index":
                values[key] = f.int(key, minimum=0)
            elif key == "block":
                values[key] = f.choice(key, _BLOCKS)
            elif key == "stop_reason":
                values[key] = f.choice(key, dv.STOP_REASONS)
            elif key in ("id", "name"):
                values[key] = f.str(key, "")
            else:
                values[key] = f.str(key)
        r.budget.take(1, f, keys[0] if keys else "line")
        return [cls(line=f.line, **values)]

    return read


def _cycle(r: StepReader, f: Fields) -> list[Any]:
    """start, each block (start, deltas, stop), the stop reason, stop."""
    f.check_keys(("id", "stop_reason", "blocks"))
    message_id = f.str("id", f"msg_{r.auto_number():04d}")
    out: list[dv.TurnEvent] = [dv.CycleStart(message_id=message_id, line=f.line)]
    items = f.list("blocks", required=True)
    has_tools = False
    for index, item in enumerate(items):
        line = items.line_of(index)
        if not isinstance(item, LocatedDict) or len(item) != 1 or next(iter(item)) not in _BLOCKS:
            f.fail(line, "each block is a mapping with one key: text, thinking or tool_use")
        ((kind, body),) = item.items()
        if isinstance(body, str) and kind in ("text", "thinking"):
            body = LocatedDict({"text": body})
            body.line, body.value_lines = line, {}
        b = r.fields(body, f"a {kind} block", line)
        if kind == "tool_use":
            has_tools = True
            b.check_keys(("id", "name", "input", "arguments", "chunks", "fragments", "stopped"))
            call_id = b.str("id")
            out.append(
                dv.BlockStart(
                    index=index, block="tool_use", id=call_id, name=b.str("name"), line=line
                )
            )
            if b.has("fragments"):
                pieces = list(b.str_list("fragments"))
            else:
                arguments = r.arguments(b)
                pieces = split_text(arguments, b.int("chunks", 3, minimum=1)) if arguments else []
            out.extend(dv.ArgumentsDelta(index=index, fragment=p, line=line) for p in pieces)
            if b.bool("stopped", True):
                out.append(dv.BlockStop(index=index, line=line))
        else:
            b.check_keys(("text", "chunks"))
            chunks = b.int("chunks", 0, minimum=1) if b.has("chunks") else None
            out.append(dv.BlockStart(index=index, block=kind, line=line))
            delta = dv.TextDelta if kind == "text" else dv.ThinkingDelta
            out.extend(
                delta(index=index, text=p, line=line) for p in split_text(b.str("text"), chunks)
            )
            out.append(dv.BlockStop(index=index, line=line))
    reason = f.choice("stop_reason", dv.STOP_REASONS, "tool_use" if has_tools else "end_turn")
    out += [dv.CycleDelta(stop_reason=reason, line=f.line), dv.CycleStop(line=f.line)]  # type: ignore[arg-type]
    r.budget.take(len(out), f, "blocks")
    return out


def _error(r: StepReader, f: Fields) -> list[Any]:
    """The server's error mid-stream: ``error: {type: overloaded_error, message: Overloaded}``
    (both optional); the stream ends there."""
    f.check_keys(("type", "message"))
    r.budget.take(1, f, "type" if f.has("type") else "line")
    event = dv.StreamError(
        error_type=f.str("type", "overloaded_error"),
        message=f.str("message", "Overloaded"),
        line=f.line,
    )
    return [event]


DRIVER_STEPS: dict[str, Handler] = {
    "cycle": _cycle,
    "message_start": _event(dv.CycleStart, "message_id"),
    "block_start": _event(dv.BlockStart, "index", "block", "id", "name"),
    "text_delta": _event(dv.TextDelta, "index", "text"),
    "thinking_delta": _event(dv.ThinkingDelta, "index", "text"),
    "arguments_delta": _event(dv.ArgumentsDelta, "index", "fragment"),
    "block_stop": _event(dv.BlockStop, "index"),
    "message_delta": _event(dv.CycleDelta, "stop_reason"),
    "message_stop": _event(dv.CycleStop),
    "ping": _event(dv.Ping),
    "error": _error,
}
