"""The OpenAI Agents SDK's Chat Completions model: ``OpenAIChatCompletionsModel.stream_response``,
whose ``ChatCmplStreamHandler`` turns Chat Completions chunks into Responses-style events (what
``Runner.run_streamed`` hands on as raw response events), over an ``AsyncOpenAI`` client that
reads the body through an offline transport, cut anywhere. The model is called directly: a
``Runner`` would run the tools and send a second request.

What its user acts on: ``response.output_text.delta`` text as it streams, each function call at
its ``response.output_item.done`` event (the item's ``call_id``, ``name`` and raw ``arguments``,
whose ``valid`` is whether they parse as a JSON object), and ``response.completed``. The handler
sends every call's ``output_item.done`` only once the body has ended, so the calls come out per
message. The completed response carries no reason (no ``status``, no ``incomplete_details``: the
handler drops the ``finish_reason``), so the turn ends there with no reason. The client keeps the
default OpenAI base URL, under which the model requires a ``finish_reason``: a body that ends
without one raises ``ModelBehaviorError`` (with another base URL, a gateway's, it would end in
``response.completed``, handing over a call cut short). An error object mid-stream raises the
SDK's ``APIError``.

``make_buffered_adapter``: the same model built with ``buffer_streamed_tool_calls=True`` (an
argument of ``OpenAIChatCompletionsModel``, ``OpenAIProvider`` and ``MultiProvider``), which holds
each call's deltas back (``ChatCmplStreamHandler.buffer_tool_call_stream``) and passes them on
whole, keyed by index, once the body has ended.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from harness.adapters.driver.reference import strict_json
from harness.adapters.libs import require
from harness.adapters.libs._offline import async_client
from harness.model.driver import DriverOutput, TextOut, ToolCallOut, TurnEnd


def open_stream(chunks: AsyncIterator[bytes], *, buffered: bool = False) -> Any:
    """The model's stream of Responses-style events for one request, its client answering with
    the chunks."""
    from agents import ModelSettings, ModelTracing, OpenAIChatCompletionsModel
    from openai import AsyncOpenAI, DefaultAsyncHttpxClient

    http = async_client(DefaultAsyncHttpxClient, chunks)
    client = AsyncOpenAI(api_key="offline", max_retries=0, http_client=http)
    model = OpenAIChatCompletionsModel("gpt-4o", client, buffer_streamed_tool_calls=buffered)
    # no instructions, one user message, no tools, schema or handoffs
    return model.stream_response(None, "go", ModelSettings(), [], None, [], ModelTracing.DISABLED)


async def outputs(stream: AsyncIterator[Any]) -> AsyncIterator[DriverOutput]:
    """What a user of the stream's events acts on, as driver outputs."""
    async for event in stream:
        if event.type == "response.output_text.delta":
            yield TextOut(event.delta)
        elif event.type == "response.output_item.done" and event.item.type == "function_call":
            item = event.item
            yield ToolCallOut(item.call_id, item.name, item.arguments, strict_json(item.arguments))
        elif event.type == "response.completed":
            yield TurnEnd()  # the completed response says nothing of why the turn stopped


class AgentsChatCompletionsStream:
    layers = ("driver",)
    #: the SDK reads the HTTP body itself: it gets it cut anywhere
    reads = "bytes"
    dialect = "openai-chat"
    #: every call's output_item.done comes once the body has ended
    emits_calls = "per-message"

    def __init__(self, *, buffered: bool = False) -> None:
        self.buffered = buffered

    async def drive(self, chunks: AsyncIterator[bytes]) -> AsyncIterator[DriverOutput]:
        async for output in outputs(open_stream(chunks, buffered=self.buffered)):
            yield output


def make_adapter() -> AgentsChatCompletionsStream:
    require("agents", "openai", extra="openai-agents")
    return AgentsChatCompletionsStream()


def make_buffered_adapter() -> AgentsChatCompletionsStream:
    require("agents", "openai", extra="openai-agents")
    return AgentsChatCompletionsStream(buffered=True)
