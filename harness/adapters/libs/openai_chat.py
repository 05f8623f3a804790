"""The ``openai`` SDK's ``client.chat.completions.stream`` (``ChatCompletionStreamState`` inside),
fed the body through an offline transport, cut anywhere.

``make_adapter``: what a user of the stream's events acts on: ``content.delta`` text, and each
call at its ``tool_calls.function.arguments.done`` event (name and raw arguments from the event,
the id from the stream's snapshot, since the event carries none); the turn ends with the choice's
``finish_reason`` once the stream is done (none, if the body ended before it). The SDK raises on
an error object mid-stream.

``make_final_adapter``: the same stream, with the calls taken from ``get_final_completion()``
at the end (a user who acts on the whole message).

Without strict ``tools`` the SDK parses no arguments; ``valid`` is whether the raw text it hands
over parses as a JSON object, as the user's own ``json.loads`` would find. A call whose header
sent ``"arguments": null`` and no fragment after it comes out with ``None`` for its arguments
(the SDK types them ``str``): reported as the empty text it stands for, a call without
arguments.

``client``, ``open_stream`` and ``outputs`` (what ``make_adapter`` acts on) also serve
``harness.wirereplay``, where the SDK sends its real request and vcrpy answers it from a cassette.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from harness.adapters.driver.reference import FINISH_REASONS, strict_json
from harness.adapters.libs import require
from harness.adapters.libs._offline import sync_client
from harness.adapters.libs._reasons import turn_end
from harness.model.driver import DriverOutput, TextOut, ToolCallOut, TurnEnd


def client(**options: Any) -> Any:
    """An ``openai.OpenAI`` client with a dummy key and no retries; ``options`` name where it
    sends requests (``http_client``, ``base_url``)."""
    import openai

    return openai.OpenAI(api_key="offline", max_retries=0, **options)


def offline_client(chunks: Iterator[bytes]) -> Any:
    import openai

    return client(http_client=sync_client(openai.DefaultHttpxClient, chunks))


def open_stream(sdk: Any) -> Any:
    """The SDK's ``ChatCompletionStream`` for one request (a context manager)."""
    return sdk.chat.completions.stream(model="gpt-4o", messages=[{"role": "user", "content": "go"}])


def finish(stream: Any) -> Iterator[TurnEnd]:
    """The turn's end, if the choice finished: a body that ended before its finish_reason (a
    cut connection) leaves it None, and its user has no end to act on."""
    choices = stream.current_completion_snapshot.choices
    reason = choices[0].finish_reason if choices else None
    if reason is not None:
        yield turn_end(reason, FINISH_REASONS)  # others as they are


def call_out(call_id: str | None, name: str, arguments: str | None) -> ToolCallOut:
    text = arguments or ""
    return ToolCallOut(call_id or "", name, text, strict_json(text))


def outputs(stream: Any) -> Iterator[DriverOutput]:
    """What a user of the stream's events acts on, as driver outputs."""
    for event in stream:
        if event.type == "content.delta":
            yield TextOut(event.delta)
        elif event.type == "tool_calls.function.arguments.done":
            message = stream.current_completion_snapshot.choices[0].message
            yield call_out(message.tool_calls[event.index].id, event.name, event.arguments)
    yield from finish(stream)


class OpenAIChatStreamEvents:
    layers = ("driver",)
    #: the SDK reads the HTTP body itself: it gets it cut anywhere
    reads = "bytes"
    dialect = "openai-chat"

    def drive(self, chunks: Iterator[bytes]) -> Iterator[DriverOutput]:
        with open_stream(offline_client(chunks)) as stream:
            yield from outputs(stream)


class OpenAIChatFinalCompletion:
    layers = ("driver",)
    #: the SDK reads the HTTP body itself: it gets it cut anywhere
    reads = "bytes"
    dialect = "openai-chat"
    #: the library acts on the whole message when its choice finishes
    emits_calls = "per-message"

    def drive(self, chunks: Iterator[bytes]) -> Iterator[DriverOutput]:
        with open_stream(offline_client(chunks)) as stream:
            for event in stream:
                if event.type == "content.delta":
                    yield TextOut(event.delta)
            message = stream.get_final_completion().choices[0].message
            for call in message.tool_calls or ():
                yield call_out(call.id, call.function.name, call.function.arguments)
            yield from finish(stream)


def make_adapter() -> OpenAIChatStreamEvents:
    require("openai")
    return OpenAIChatStreamEvents()


def make_final_adapter() -> OpenAIChatFinalCompletion:
    require("openai")
    return OpenAIChatFinalCompletion()
