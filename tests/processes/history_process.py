"""A protocol-2 history process wrapping a bundled in-process history store, for the tests.

    python tests/processes/history_process.py [ADAPTER]

ADAPTER is a bundled history adapter's name (default ``history-reference``). The process reads
the events back from their JSON form (``event_to_json``), as a store in another language would.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from typing import Any

from harness.adapters.registry import BUNDLED
from harness.history.convert import from_anthropic
from harness.model import session as ev


def event_from_json(data: dict[str, Any]) -> ev.SessionEvent:
    """The inverse of ``event_to_json``."""
    cls = ev.EVENT_TYPES[data["type"]]
    fields = {}
    for f in dataclasses.fields(cls):
        if f.name not in data:
            continue
        value = data[f.name]
        if f.name == "calls":
            value = tuple(ev.ToolCall(c["id"], c["name"], c["arguments"]) for c in value)
        elif f.name == "results":
            value = tuple(
                ev.ToolResult(r["tool_call_id"], r["content"], r["is_error"]) for r in value
            )
        elif f.name == "history":
            value = from_anthropic(value)
        fields[f.name] = value
    return cls(**fields)


def plain(value: Any) -> Any:
    """Messages as JSON: dataclasses become objects of their fields."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def main(argv: list[str]) -> int:
    name = argv[0] if argv else "history-reference"
    store: Any = BUNDLED[name].factory()
    for line in sys.stdin:
        request = json.loads(line)
        op = request.get("op")
        answer: dict[str, Any]
        if op == "hello":
            answer = {"ok": True, "protocol": 2, "layers": ["history"], "name": name}
        elif op == "feed":
            store.feed(event_from_json(request["event"]))
            answer = {"ok": True}
        elif op in ("history", "request", "rebuild"):
            messages = getattr(store, op)(request["session_id"])
            answer = {"ok": True, "messages": plain(messages)}
        elif op == "shutdown":
            return 0
        else:
            answer = {"ok": False, "error": f"unknown op {op!r}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
