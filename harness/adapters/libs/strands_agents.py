"""Strands Agents' model call as its event loop runs it: ``strands.event_loop.streaming``'s
``stream_messages`` over ``OpenAIModel`` or ``AnthropicModel``, whose ``.stream`` turns the
provider SDK's chunks into Bedrock-style ``StreamEvent``s and whose ``process_stream`` assembles
them into the message. The provider's own async client (``AsyncOpenAI``, ``AsyncAnthropic``,
built by Strands from ``client_args``) reads the body through an offline transport, cut anywhere.
No ``Agent`` runs: it would run the tools and send another request.

What an agent's user gets: text as the callback handler's ``data`` events stream it, and, once
the model's stream is done, the message the agent appends to its history, whose ``toolUse``
blocks are the tools it runs (per message: Strands emits no call before the message ends). Their
``input`` is a dict Strands parsed itself, reported as JSON text and valid; input that does not
parse becomes ``{}``, with only a logged warning. The turn ends with the message's stop reason,
which Strands makes ``end_turn`` when the stream ended without one.

On ``max_tokens`` the event loop replaces every tool use of the message with a text block saying
it was incomplete (``recover_message_on_max_tokens_reached``), appends that message to the
history and raises ``MaxTokensReachedException``: no tool runs. The adapter runs the same
recovery, so it reports no calls there, and reports the exception as the turn's ``max_tokens``
end; the text it replaced them with is not streamed text, and is not reported.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

from harness.adapters.libs import require
from harness.adapters.libs._offline import async_client
from harness.adapters.libs._reasons import turn_end
from harness.adapters.libs.anthropic_sdk import arguments_text
from harness.model.driver import DriverOutput, TextOut, ToolCallOut


def openai_model(chunks: AsyncIterator[bytes]) -> Any:
    import openai
    from strands.models.openai import OpenAIModel

    http = async_client(openai.DefaultAsyncHttpxClient, chunks)
    return OpenAIModel(
        client_args={"api_key": "offline", "max_retries": 0, "http_client": http},
        model_id="gpt-4o",
    )


def anthropic_model(chunks: AsyncIterator[bytes]) -> Any:
    import anthropic
    from strands.models.anthropic import AnthropicModel

    http = async_client(anthropic.DefaultAsyncHttpxClient, chunks)
    return AnthropicModel(
        client_args={"api_key": "offline", "max_retries": 0, "http_client": http},
        model_id="claude-sonnet-4-5",
        max_tokens=1024,
    )


class StrandsModelStream:
    layers = ("driver",)
    #: the provider's SDK reads the HTTP body itself: it gets it cut anywhere
    reads = "bytes"
    #: the event loop acts on the message once the model's stream is done
    emits_calls = "per-message"

    def __init__(self, dialect: str, model: Callable[[AsyncIterator[bytes]], Any]) -> None:
        self.dialect = dialect
        self._model = model

    async def drive(self, chunks: AsyncIterator[bytes]) -> AsyncIterator[DriverOutput]:
        from strands.event_loop._recover_message_on_max_tokens_reached import (
            recover_message_on_max_tokens_reached,
        )
        from strands.event_loop.streaming import stream_messages
        from strands.types._events import ModelStopReason, TextStreamEvent

        messages = [{"role": "user", "content": [{"text": "go"}]}]
        async for event in stream_messages(self._model(chunks), None, messages, []):
            if isinstance(event, TextStreamEvent):
                yield TextOut(event["data"])
            elif isinstance(event, ModelStopReason):
                message = event.message
                if event.stop_reason == "max_tokens":  # as the event loop does, then it raises
                    message = recover_message_on_max_tokens_reached(message)
                for block in message["content"]:
                    if "toolUse" in block:
                        use = block["toolUse"]
                        arguments = arguments_text(use["input"])
                        yield ToolCallOut(use["toolUseId"], use["name"], arguments, True)
                yield turn_end(event.stop_reason, {})


def _quiet() -> None:
    """Strands logs a warning per stream that ended without its last event (thousands in a
    matrix run); what it hands its user is what the adapter reports."""
    logging.getLogger("strands").setLevel(logging.ERROR)


def make_openai_adapter() -> StrandsModelStream:
    require("strands", "openai", extra="strands")
    _quiet()
    return StrandsModelStream("openai-chat", openai_model)


def make_anthropic_adapter() -> StrandsModelStream:
    require("strands", "anthropic", extra="strands")
    _quiet()
    return StrandsModelStream("anthropic", anthropic_model)
