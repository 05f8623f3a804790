"""AutoGen's ``OpenAIChatCompletionClient.create_stream`` (``autogen_ext.models.openai``), whose
``AsyncOpenAI`` client reads the body through an offline transport, cut anywhere.

``create_stream`` yields text as ``str`` pieces while it reads, then one ``CreateResult``: its
``content`` is the list of ``FunctionCall`` it assembled when the model called tools (so the
calls come per message: raw arguments, ``valid`` when they parse as a JSON object), and its
``finish_reason`` the stop reason as AutoGen names it. The result is what its user takes for
the finished response, so it is reported as the turn's end whatever its reason: AutoGen says
``unknown`` both for a reason it does not know and for a stream that sent none. The SDK raises
on an error object mid-stream.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from harness.adapters.driver.reference import strict_json
from harness.adapters.libs import require
from harness.adapters.libs._offline import async_client
from harness.adapters.libs._reasons import turn_end
from harness.model.driver import UNKNOWN_REASON, DriverOutput, TextOut, ToolCallOut

_REASONS = {
    "stop": "end_turn",
    "length": "max_tokens",
    "function_calls": "tool_use",
    "unknown": UNKNOWN_REASON,
}


def result_outputs(result: Any) -> list[DriverOutput]:
    """The calls and the turn's end of a ``CreateResult``."""
    calls = result.content if isinstance(result.content, list) else []
    found: list[DriverOutput] = [
        ToolCallOut(call.id, call.name, call.arguments, strict_json(call.arguments))
        for call in calls
    ]
    return [*found, turn_end(result.finish_reason, _REASONS)]


class AutoGenChatCompletionStream:
    layers = ("driver",)
    #: the SDK reads the HTTP body itself: it gets it cut anywhere
    reads = "bytes"
    dialect = "openai-chat"
    #: the calls come with the final ``CreateResult``
    emits_calls = "per-message"

    async def drive(self, chunks: AsyncIterator[bytes]) -> AsyncIterator[DriverOutput]:
        from autogen_core.models import UserMessage
        from autogen_ext.models.openai import OpenAIChatCompletionClient
        from openai import DefaultAsyncHttpxClient

        http = async_client(DefaultAsyncHttpxClient, chunks)
        model = OpenAIChatCompletionClient(
            model="gpt-4o", api_key="offline", max_retries=0, http_client=http
        )
        stream = model.create_stream([UserMessage(content="go", source="user")])
        try:
            async for item in stream:
                if isinstance(item, str):
                    if item:
                        yield TextOut(item)
                else:
                    for output in result_outputs(item):
                        yield output
        finally:
            await stream.aclose()
            await model.close()


def make_adapter() -> AutoGenChatCompletionStream:
    require("autogen_ext.models.openai", "autogen_core", "openai", extra="autogen")
    return AutoGenChatCompletionStream()
