"""The ``openai`` SDK's ``client.responses.stream`` (``ResponseStreamState`` inside), fed the body
chunks through an offline transport, cut anywhere.

What its user acts on: ``response.output_text.delta`` text; each function call at its
``response.output_item.done`` event (the item's ``call_id``, ``name`` and raw ``arguments``), or,
for a call that had none (gateways that send no ``*.done`` events), in the output of the
response's terminal event, which the SDK hands over whole; the end of the response at
``response.completed`` (for no reason it names: its ``Response`` has no stop reason) or
``response.incomplete`` (its ``incomplete_details.reason``); its failure at ``response.failed``
or an ``error`` event, which the SDK hands over as events (it raises on neither). ``valid`` is
whether the raw arguments parse as a JSON object, as the user's own ``json.loads`` would find.

``client``, ``open_stream`` and ``outputs`` also serve ``harness.wirereplay``, where the SDK
sends its real request and vcrpy answers it from a cassette.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from harness.adapters.driver.reference import strict_json
from harness.adapters.libs import require
from harness.adapters.libs._offline import sync_client
from harness.adapters.libs._reasons import turn_end
from harness.adapters.libs.openai_chat import client
from harness.model.driver import DriverOutput, ErrorReport, TextOut, ToolCallOut, TurnEnd

_INCOMPLETE = {"max_output_tokens": "max_tokens"}


def stop_reason(response: Any) -> TurnEnd:
    """A completed response says no stop reason (the SDK's Response has none): the turn ends
    for a reason the library does not say; an incomplete one names why it was cut short."""
    if response.status == "incomplete":
        return turn_end(getattr(response.incomplete_details, "reason", None), _INCOMPLETE)
    return TurnEnd()


def open_stream(sdk: Any) -> Any:
    """The SDK's ``ResponseStream`` for one request (a context manager)."""
    return sdk.responses.stream(model="gpt-4.1", input="go")


def call_out(item: Any) -> ToolCallOut:
    return ToolCallOut(item.call_id, item.name, item.arguments, strict_json(item.arguments))


def outputs(stream: Any) -> Iterator[DriverOutput]:
    """What the stream's user acts on, as driver outputs."""
    handed: set[str] = set()  # the calls handed over at their output_item.done
    for event in stream:
        if event.type == "response.output_text.delta":
            yield TextOut(event.delta)
        elif event.type == "response.output_item.done" and event.item.type == "function_call":
            handed.add(event.item.call_id)
            yield call_out(event.item)
        elif event.type in ("response.completed", "response.incomplete"):
            # a stream without output_item.done events hands its calls over only here
            for item in event.response.output:
                if item.type == "function_call" and item.call_id not in handed:
                    yield call_out(item)
            yield stop_reason(event.response)
        elif event.type == "response.failed":  # the SDK hands the failure over as an event
            yield ErrorReport(str(event.response.error))
        elif event.type == "error":
            yield ErrorReport(f"{event.code}: {event.message}")


class OpenAIResponsesStream:
    layers = ("driver",)
    #: the SDK reads the HTTP body itself: it gets it cut anywhere
    reads = "bytes"
    dialect = "openai-responses"

    def drive(self, chunks: Iterator[bytes]) -> Iterator[DriverOutput]:
        import openai

        http = sync_client(openai.DefaultHttpxClient, chunks)
        with open_stream(client(http_client=http)) as stream:
            yield from outputs(stream)


def make_adapter() -> OpenAIResponsesStream:
    require("openai")
    return OpenAIResponsesStream()
