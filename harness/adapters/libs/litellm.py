"""``litellm``'s ``stream_chunk_builder`` over OpenAI Chat Completions chunks.

Each chunk becomes the ``ModelResponseStream`` that ``litellm.completion(stream=True)`` yields; text
comes out chunk by chunk, and when the stream ends (``[DONE]``, or the end of the body) the chunk
builder assembles the whole message, whose ``tool_calls`` come out with their raw arguments
(``valid``: whether they parse as a JSON object, as the user's own ``json.loads`` would find).
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from harness.adapters.driver.reference import FINISH_REASONS, closing, events, strict_json
from harness.adapters.libs import require
from harness.adapters.libs._reasons import turn_end
from harness.model.driver import DriverOutput, ErrorReport, TextOut, ToolCallOut
from harness.wire import DONE


class LiteLLMChunkBuilder:
    layers = ("driver",)
    dialect = "openai-chat"
    #: the library acts on the whole message when its choice finishes
    emits_calls = "per-message"

    def drive(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        yield from closing(chunks, self.read(chunks))

    def read(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        import litellm
        from litellm.types.utils import ModelResponseStream

        received = []
        done = False
        for _, data in events(chunks):
            if data is DONE:
                done = True
                break
            if isinstance(data, dict) and "error" in data:
                # this wrapper reads the body itself, in place of litellm's HTTP client, which
                # raises on an error object: the reading is ours, so surfacing it is too
                yield ErrorReport(str(data["error"]))
                return
            chunk = ModelResponseStream(**data)
            received.append(chunk)
            for choice in chunk.choices[:1]:
                if choice.delta.content:
                    yield TextOut(choice.delta.content)
        finished = any(c.choices and c.choices[0].finish_reason for c in received)
        if not (done or finished):  # the body ended before the turn: our reading sees the cut
            yield ErrorReport("the body ended before the turn did")
            return
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
    require("litellm", extra="litellm")
    return LiteLLMChunkBuilder()
