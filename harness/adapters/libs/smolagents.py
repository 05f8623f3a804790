"""``smolagents``' ``OpenAIModel.generate_stream`` (``OpenAIServerModel``), whose ``openai``
client reads the body through an offline transport, cut anywhere, and the
``agglomerate_stream_deltas`` its agents run on the deltas.

What a ``ToolCallingAgent`` acts on: the text of each delta as it streams, and the calls of the
message that ``agglomerate_stream_deltas`` builds once the stream is over (raw arguments;
``valid`` is whether they parse as a JSON object, as the agent's ``parse_json_if_needed`` would
find). The model hands over no stop reason (its deltas drop the ``finish_reason``): the agent
takes the end of the stream as the end of the message and runs its calls, so the adapter
reports the turn's end without a reason (``TurnEnd()``) when the stream ends without raising.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import closing

from harness.adapters.driver.reference import strict_json
from harness.adapters.libs import require
from harness.adapters.libs._offline import sync_client
from harness.model.driver import DriverOutput, TextOut, ToolCallOut, TurnEnd


class SmolagentsStream:
    layers = ("driver",)
    #: the SDK reads the HTTP body itself: it gets it cut anywhere
    reads = "bytes"
    dialect = "openai-chat"
    #: the agent acts on the message agglomerated at the end of the stream
    emits_calls = "per-message"

    def drive(self, chunks: Iterator[bytes]) -> Iterator[DriverOutput]:
        from openai import DefaultHttpxClient
        from smolagents.models import ChatMessage, MessageRole, OpenAIModel
        from smolagents.models import agglomerate_stream_deltas as agglomerate

        http = sync_client(DefaultHttpxClient, chunks)
        model = OpenAIModel(
            "gpt-4o", api_key="offline", client_kwargs={"http_client": http, "max_retries": 0}
        )
        prompt = ChatMessage(role=MessageRole.USER, content=[{"type": "text", "text": "go"}])
        deltas = []
        with closing(model.generate_stream([prompt])) as stream:
            for delta in stream:
                deltas.append(delta)
                if delta.content:
                    yield TextOut(delta.content)
        for call in agglomerate(deltas).tool_calls or ():
            arguments = call.function.arguments
            yield ToolCallOut(call.id, call.function.name, arguments, strict_json(arguments))
        yield TurnEnd()


def make_adapter() -> SmolagentsStream:
    require("smolagents", "openai", extra="smolagents")
    return SmolagentsStream()
