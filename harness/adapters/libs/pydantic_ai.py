"""``pydantic-ai``'s streamed response (``pydantic_ai.direct.model_request_stream``) from its
``OpenAIChatModel``, whose ``AsyncOpenAI`` client reads the wire chunks through an offline
transport, cut anywhere.

What its user acts on: text parts as they start and grow, each tool call at its
``PartEndEvent`` (the part's ``tool_call_id``, ``tool_name`` and ``args``: raw text as the model
sent it, whose ``valid`` is whether it parses as a JSON object, or a dict reported as JSON text),
and the response's ``finish_reason`` once the stream is done.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from harness.adapters.driver.reference import strict_json
from harness.adapters.libs import require
from harness.adapters.libs._offline import async_client
from harness.adapters.libs._reasons import turn_end
from harness.adapters.libs.anthropic_sdk import arguments_text
from harness.model.driver import DriverOutput, TextOut, ToolCallOut

_REASONS = {"tool_call": "tool_use", "stop": "end_turn", "length": "max_tokens"}


def call_out(part: Any) -> ToolCallOut:
    args = part.args
    if isinstance(args, str):
        return ToolCallOut(part.tool_call_id, part.tool_name, args, strict_json(args))
    return ToolCallOut(part.tool_call_id, part.tool_name, arguments_text(args or {}), True)


class PydanticAIStreamedResponse:
    layers = ("driver",)
    #: the SDK reads the HTTP body itself: it gets it cut anywhere
    reads = "bytes"
    dialect = "openai-chat"

    async def drive(self, chunks: AsyncIterator[bytes]) -> AsyncIterator[DriverOutput]:
        from openai import AsyncOpenAI, DefaultAsyncHttpxClient
        from pydantic_ai import ModelRequest
        from pydantic_ai.direct import model_request_stream
        from pydantic_ai.messages import (
            PartDeltaEvent,
            PartEndEvent,
            PartStartEvent,
            TextPart,
            TextPartDelta,
            ToolCallPart,
        )
        from pydantic_ai.models.openai import OpenAIChatModel
        from pydantic_ai.providers.openai import OpenAIProvider

        http = async_client(DefaultAsyncHttpxClient, chunks)
        client = AsyncOpenAI(api_key="offline", max_retries=0, http_client=http)
        model = OpenAIChatModel("gpt-4o", provider=OpenAIProvider(openai_client=client))
        messages = [ModelRequest.user_text_prompt("go")]
        async with model_request_stream(model, messages) as stream:
            async for event in stream:
                if isinstance(event, PartStartEvent) and isinstance(event.part, TextPart):
                    if event.part.content:
                        yield TextOut(event.part.content)
                elif isinstance(event, PartDeltaEvent) and isinstance(event.delta, TextPartDelta):
                    if event.delta.content_delta:
                        yield TextOut(event.delta.content_delta)
                elif isinstance(event, PartEndEvent) and isinstance(event.part, ToolCallPart):
                    yield call_out(event.part)
            yield turn_end(stream.get().finish_reason, _REASONS)


def make_adapter() -> PydanticAIStreamedResponse:
    require("pydantic_ai", "openai")
    return PydanticAIStreamedResponse()
