"""``agno``'s ``OpenAIChat.process_response_stream`` (``invoke_stream`` inside), whose ``openai``
client reads the body through an offline transport, cut anywhere, and the
``OpenAIChat.parse_tool_calls`` that builds the assistant message's calls from the deltas once
the stream is over: what an ``Agent`` runs for each model request when it streams.

What the agent acts on: the text of each response delta as it streams, and the calls of the
assistant message (raw arguments; ``valid`` is whether they parse as a JSON object, as agno's
``get_function_call`` requires before it runs a tool). The deltas drop the ``finish_reason``, so
agno hands over no stop reason: the agent takes the end of the stream as the end of the message
and runs its calls, and the adapter reports the turn's end without a reason (``TurnEnd()``) when
the stream ends without raising.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import closing

from harness.adapters.driver.reference import strict_json
from harness.adapters.libs import require
from harness.adapters.libs._offline import sync_client
from harness.model.driver import DriverOutput, TextOut, ToolCallOut, TurnEnd


class AgnoResponseStream:
    layers = ("driver",)
    #: the SDK reads the HTTP body itself: it gets it cut anywhere
    reads = "bytes"
    dialect = "openai-chat"
    #: the agent acts on the assistant message built at the end of the stream
    emits_calls = "per-message"

    def drive(self, chunks: Iterator[bytes]) -> Iterator[DriverOutput]:
        from agno.models.base import MessageData
        from agno.models.message import Message
        from agno.models.openai import OpenAIChat
        from openai import DefaultHttpxClient

        # the client agno's users read through when they pass none: the SDK's default (on
        # httpx2, which OpenAIChat's own http_client refuses), given through client_params
        http = sync_client(DefaultHttpxClient, chunks)
        model = OpenAIChat(
            id="gpt-4o", api_key="offline", client_params={"http_client": http, "max_retries": 0}
        )
        message = Message(role="assistant")
        responses = model.process_response_stream(
            messages=[Message(role="user", content="go")],
            assistant_message=message,
            stream_data=MessageData(),
        )
        with closing(responses):
            for response in responses:
                if response.content:
                    yield TextOut(response.content)
        for call in message.tool_calls or ():
            function = call.get("function") or {}
            arguments = function.get("arguments") or ""
            yield ToolCallOut(
                call.get("id") or "", function.get("name") or "", arguments, strict_json(arguments)
            )
        yield TurnEnd()


def make_adapter() -> AgnoResponseStream:
    require("agno", "openai", extra="agno")
    # agno logs each provider error it then raises, on stdout outside a terminal: the raise is
    # what the harness reads, and the log would land in the matrix's own output
    logging.getLogger("agno").setLevel(logging.CRITICAL)
    return AgnoResponseStream()
