"""The ``anthropic`` SDK's ``client.messages.stream``: its own SSE decoder and ``MessageStream``
accumulator, fed the body through an offline transport, cut anywhere.

What its user acts on: ``text`` events as they stream, each tool use at its
``content_block_stop`` event (the block with its ``input``, which the SDK has already parsed into
a dict: the adapter reports that value as compact JSON text, and as valid, since the SDK hands it
over as a complete input), and ``message_stop`` with the message's ``stop_reason``.

``client``, ``open_stream`` and ``outputs`` also serve ``harness.wirereplay``, where the SDK
sends its real request and vcrpy answers it from a cassette.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from harness.adapters.libs import require
from harness.adapters.libs._offline import sync_client
from harness.adapters.libs._reasons import turn_end
from harness.model.driver import DriverOutput, TextOut, ToolCallOut

_TOOLS = ("tool_use", "server_tool_use")


def arguments_text(value: Any) -> str:
    """A parsed input as the JSON text it stands for (the SDK gives no raw text)."""
    return json.dumps(value, ensure_ascii=False)


def client(**options: Any) -> Any:
    """An ``anthropic.Anthropic`` client with a dummy key and no retries; ``options`` name where
    it sends requests (``http_client``, ``base_url``)."""
    import anthropic

    return anthropic.Anthropic(api_key="offline", max_retries=0, **options)


def open_stream(sdk: Any) -> Any:
    """The SDK's ``MessageStream`` for one request (a context manager)."""
    return sdk.messages.stream(
        model="offline",  # any name: whatever answers does not look at it
        max_tokens=1024,
        messages=[{"role": "user", "content": "go"}],
    )


def outputs(stream: Any) -> Iterator[DriverOutput]:
    """What the stream's user acts on, as driver outputs."""
    for event in stream:
        if event.type == "text":
            yield TextOut(event.text)
        elif event.type == "content_block_stop" and event.content_block.type in _TOOLS:
            block = event.content_block
            yield ToolCallOut(block.id, block.name, arguments_text(block.input), True)
        elif event.type == "message_stop":
            yield turn_end(event.message.stop_reason, {})


class AnthropicMessagesStream:
    layers = ("driver",)
    #: the SDK reads the HTTP body itself: it gets it cut anywhere
    reads = "bytes"
    dialect = "anthropic"

    def drive(self, chunks: Iterator[bytes]) -> Iterator[DriverOutput]:
        import anthropic

        http = sync_client(anthropic.DefaultHttpxClient, chunks)
        with open_stream(client(http_client=http)) as stream:
            yield from outputs(stream)


def make_adapter() -> AnthropicMessagesStream:
    require("anthropic")
    return AnthropicMessagesStream()
