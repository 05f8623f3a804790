"""What Strands Agents' event loop makes of a model's stream (strands-openai and
strands-anthropic read through it): ``stream_messages``, as an agent runs it for each model
request."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from strands.event_loop.streaming import stream_messages

# Strands logs each input it cannot parse, and that usage is unavailable: the results count
logging.disable(logging.WARNING)


def streamed(model: Any) -> tuple[str, str, dict[str, Any]]:
    """The text streamed, the stop reason and the message the event loop hands over."""

    async def run() -> tuple[str, str, dict[str, Any]]:
        text, stop = "", None
        messages = [{"role": "user", "content": [{"text": "go"}]}]
        async for event in stream_messages(model, None, messages, []):
            text += event.get("data", "")
            stop = event.get("stop", stop)
        stop_reason, message, _, _ = stop
        return text, stop_reason, message

    return asyncio.run(run())


def tool_uses(message: dict[str, Any]) -> list[dict[str, Any]]:
    return [block["toolUse"] for block in message["content"] if "toolUse" in block]
