"""What every bundled loop shares: its command line, and its tools (an echo, and ``delegate``,
which runs a sub-agent)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from typing import Any

from harness.adapters.loop import BUGS

#: the prompt each conversation starts with, unless ``--prompt`` gives another
PROMPT = "Begin."
#: the tool that runs a sub-agent on its ``task``, in a conversation of its own
DELEGATE = "delegate"
#: how many turns a loop takes at most before giving up (a guard against a loop without end)
MAX_TURNS = 50

#: the tools the loop scenarios call, each with its parameters: what a framework's loop
#: registers (every parameter a string, none required, others allowed, so that no framework
#: turns a call down for its schema's sake)
TOOLS: dict[str, tuple[str, ...]] = {
    "read_file": ("path",),
    "write_file": ("path", "text"),
    "get_weather": ("city",),
    "get_time": ("city", "format"),
    DELEGATE: ("task",),
}


def tool_schema(name: str) -> dict[str, Any]:
    """The permissive JSON schema of a tool's arguments."""
    return {
        "type": "object",
        "properties": {p: {"type": "string"} for p in TOOLS[name]},
        "additionalProperties": True,
    }


def tool_description(name: str) -> str:
    if name == DELEGATE:
        return "Give a task to a sub-agent, which works on it in a conversation of its own."
    return f"The {name.replace('_', ' ')} tool (a test double: it echoes its arguments)."


def echo(arguments: Any) -> str:
    """What every tool but ``delegate`` answers: its arguments, as JSON."""
    return json.dumps(arguments, ensure_ascii=False, sort_keys=True)


def arguments(argv: Sequence[str] | None, *, apis: Sequence[str] = ()) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--prompt", default=PROMPT)
    parser.add_argument("--model", default=None)
    parser.add_argument("--bug", choices=sorted(BUGS), default=None)
    if apis:
        parser.add_argument("--api", choices=apis, default=apis[0])
    return parser.parse_args(argv)


def run_tool(name: str, arguments: Any, sub_agent: Callable[[str], str]) -> str:
    """The fake tools: ``delegate`` runs a sub-agent on ``arguments["task"]`` and answers its
    final text; any other tool echoes its arguments as JSON."""
    if name == DELEGATE and isinstance(arguments, dict):
        return sub_agent(str(arguments.get("task", "")))
    return echo(arguments)


def parsed(text: str) -> Any:
    """Arguments as the value they encode (text that does not parse stays text)."""
    try:
        return json.loads(text) if text else {}
    except ValueError:
        return text
