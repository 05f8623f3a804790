"""``litellm.completion(stream=True)`` and ``litellm.stream_chunk_builder`` over OpenAI Chat
Completions, as a litellm user streams a response and then builds the whole message.

litellm sends the request through the ``openai`` client it is given (``client=``), whose offline
transport serves the body cut anywhere; litellm's own stream wrapper turns what the client reads
into the ``ModelResponseStream`` chunks it yields. Text comes out chunk by chunk; when the
stream ends, the chunk builder assembles the whole message, whose ``tool_calls`` come out with
their raw arguments (``valid``: whether they parse as a JSON object, as the user's own
``json.loads`` would find), then the turn's end with the built choice's ``finish_reason``. A
server's error object raises from the stream (the openai client raises, litellm re-raises), and
a body cut short is whatever litellm makes of it: the adapter adds no check of its own.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from harness.adapters.driver.reference import FINISH_REASONS, closing, strict_json
from harness.adapters.libs import require
from harness.adapters.libs._offline import sync_client
from harness.adapters.libs._reasons import turn_end
from harness.model.driver import DriverOutput, TextOut, ToolCallOut


def completion(chunks: Iterator[bytes]) -> Any:
    """litellm's stream of one request, whose ``openai`` client is answered with the chunks."""
    import litellm
    import openai

    http = sync_client(openai.DefaultHttpxClient, chunks)
    client = openai.OpenAI(api_key="offline", max_retries=0, http_client=http)
    messages = [{"role": "user", "content": "go"}]
    return litellm.completion("openai/gpt-4o", messages, stream=True, client=client)


class LiteLLMChunkBuilder:
    layers = ("driver",)
    #: the openai client under litellm reads the HTTP body itself: it gets it cut anywhere
    reads = "bytes"
    dialect = "openai-chat"
    #: the library acts on the whole message when its choice finishes
    emits_calls = "per-message"

    def drive(self, chunks: Iterator[bytes]) -> Iterator[DriverOutput]:
        yield from closing(chunks, self.read(chunks))

    def read(self, chunks: Iterator[bytes]) -> Iterator[DriverOutput]:
        import litellm

        received = []
        for chunk in completion(chunks):
            received.append(chunk)
            for choice in chunk.choices[:1]:
                if choice.delta.content:
                    yield TextOut(choice.delta.content)
        response = litellm.stream_chunk_builder(received) if received else None
        if response is None:
            return
        choice = response.choices[0]
        for call in choice.message.tool_calls or ():
            arguments = call.function.arguments or ""
            yield ToolCallOut(
                call.id or "", call.function.name or "", arguments, strict_json(arguments)
            )
        yield turn_end(choice.finish_reason, FINISH_REASONS)


def make_adapter() -> LiteLLMChunkBuilder:
    # without it, importing litellm fetches a price list over the network
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    require("litellm", "openai", extra="litellm")
    import litellm

    litellm.suppress_debug_info = True  # else a help banner is printed at each error it raises
    return LiteLLMChunkBuilder()
