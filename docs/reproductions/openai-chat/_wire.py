"""What the openai-chat scripts share: the Chat Completions body builders, and what
chat.completions.stream hands over on a body."""

import sys
from pathlib import Path
from typing import Any

sys.path.append(str(Path(__file__).resolve().parents[1]))  # the modules the folders share

from _chat_wire import ROLE, body, call
from _openai_sdk import chat_stream

__all__ = ["ROLE", "body", "call", "handed_over", "raised"]


def handed_over(data: str) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """The calls (id, name, arguments) as a user of the stream's events gets them, at each
    tool_calls.function.arguments.done event, and as get_final_completion() holds them."""
    done = []
    with chat_stream(data) as stream:
        for event in stream:
            if event.type == "tool_calls.function.arguments.done":
                message = stream.current_completion_snapshot.choices[0].message
                done.append((message.tool_calls[event.index].id, event.name, event.arguments))
        message = stream.get_final_completion().choices[0].message
    final = [(c.id, c.function.name, c.function.arguments) for c in message.tool_calls or ()]
    return done, final


def raised(data: str) -> tuple[type[Exception], str] | None:
    """What reading the stream to its end raises (None: nothing)."""
    try:
        with chat_stream(data) as stream:
            stream.until_done()
    except Exception as exc:
        return type(exc), str(exc)
    return None
