"""The Google Gen AI SDK's ``client.models.generate_content_stream`` (Gemini API, ``alt=sse``):
its own SSE line reader and response models, fed the body through an offline ``httpx2`` client
(``http_options.httpx_client``), cut anywhere.

What its user acts on, chunk by chunk (each a ``GenerateContentResponse``), in candidate 0's
parts: text parts as they come (``thought`` parts are thinking, not text), and each function
call in the chunk that carries it, since Gemini sends a call whole: its ``id`` (``""`` when it
has none, as most Gemini responses give none), its ``name``, and its ``args``, a dict the SDK has
parsed, reported as ``json.dumps`` of it (``""`` for a call without ``args``) and valid. The
turn ends at the candidate's ``finish_reason``: ``MAX_TOKENS`` is max_tokens; ``STOP`` is
tool_use when the response made function calls, else end_turn (Gemini says STOP after calls
too); other reasons as they are. A body that ends without one ends the SDK's iterator quietly:
the adapter then reports no end.

The adapter leaves closing to the SDK: a cancelled read raises through its generators, and
``httpx2``'s byte iterator closes the response as it ends. (A user who breaks out of the loop
keeps the response open while holding the iterator; letting go of it, or closing it, closes the
response the same way.)
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from harness.adapters.libs import require
from harness.adapters.libs._offline import sync_client
from harness.adapters.libs._reasons import turn_end
from harness.model.driver import DriverOutput, TextOut, ToolCallOut


def client(**options: Any) -> Any:
    """A ``genai.Client`` for the Gemini API with a dummy key; ``options`` are its
    ``http_options`` (``httpx_client``, ``base_url``)."""
    from google.genai import Client

    return Client(api_key="offline", http_options=options)


def open_stream(sdk: Any) -> Any:
    """The SDK's iterator of ``GenerateContentResponse`` chunks for one request."""
    return sdk.models.generate_content_stream(model="gemini-2.5-flash", contents="go")


def outputs(stream: Iterator[Any]) -> Iterator[DriverOutput]:
    """What the stream's user acts on, as driver outputs."""
    calls = 0
    for chunk in stream:
        candidate = chunk.candidates[0] if chunk.candidates else None
        if candidate is None:
            continue
        parts = candidate.content.parts if candidate.content else None
        for part in parts or ():
            if part.function_call is not None:
                call = part.function_call
                arguments = "" if call.args is None else json.dumps(call.args)
                calls += 1
                yield ToolCallOut(call.id or "", call.name or "", arguments, True)
            elif part.text and not part.thought:
                yield TextOut(part.text)
        if candidate.finish_reason is not None:
            stop = "tool_use" if calls else "end_turn"  # Gemini says STOP after calls too
            yield turn_end(candidate.finish_reason, {"STOP": stop, "MAX_TOKENS": "max_tokens"})


class GenerateContentStream:
    layers = ("driver",)
    #: the SDK reads the HTTP body itself: it gets it cut anywhere
    reads = "bytes"
    dialect = "gemini-sse"

    def drive(self, chunks: Iterator[bytes]) -> Iterator[DriverOutput]:
        import httpx2

        yield from outputs(open_stream(client(httpx_client=sync_client(httpx2.Client, chunks))))


def make_adapter() -> GenerateContentStream:
    require("google.genai", "httpx2", extra="google-genai")
    return GenerateContentStream()
