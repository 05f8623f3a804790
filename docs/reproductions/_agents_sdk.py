"""The OpenAI Agents SDK's Chat Completions model over a body (openai-agents and
openai-agents-buffered read through it, the second with ``buffer_streamed_tool_calls=True``)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from _offline_http import http_client
from agents import ModelSettings, ModelTracing, OpenAIChatCompletionsModel
from openai import AsyncOpenAI, DefaultAsyncHttpxClient


def stream_response(data: str, *, buffered: bool) -> AsyncIterator[Any]:
    """The events of the model's stream_response on the body."""
    http = http_client(DefaultAsyncHttpxClient, data)
    client = AsyncOpenAI(api_key="offline", max_retries=0, http_client=http)
    model = OpenAIChatCompletionsModel("gpt-4o", client, buffer_streamed_tool_calls=buffered)
    return model.stream_response(None, "go", ModelSettings(), [], None, [], ModelTracing.DISABLED)


def function_calls(data: str, *, buffered: bool) -> list[tuple[str, str, str]]:
    """The calls (call_id, name, arguments) a user of the model's stream gets at
    response.output_item.done."""

    async def run() -> list[tuple[str, str, str]]:
        found = []
        async for event in stream_response(data, buffered=buffered):
            if event.type == "response.output_item.done" and event.item.type == "function_call":
                found.append((event.item.call_id, event.item.name, event.item.arguments))
        return found

    return asyncio.run(run())
