"""A provider stand-in on loopback: real HTTP, chunked transfer, one HTTP chunk per wire chunk.

It serves a driver scenario's turn as its dialect's codec writes it (with the scenario's quirks
and any added ones, exactly as the case machinery feeds a driver), a recorded ``wire:``
scenario's body as recorded, or a vcrpy cassette's (or a raw recorded body file's) responses,
so a consumer in any language can be tested end to end by pointing its base URL at it::

    from harness.standin import serving

    with serving("scenarios/driver/parallel-calls.yaml", dialect="openai-chat") as stand:
        client = openai.OpenAI(base_url=f"{stand.url}/v1", api_key="unused")
        ...
        stand.requests[0].path    # "/v1/chat/completions"

Faults make the transport misbehave as networks and servers do: ``stall:N:SECONDS``,
``cut:N``, ``end:N``, ``drop:N`` and ``split:N`` (``parse_fault``), with chunks counted from 1 as
``harness run`` failures count them. They apply to every streamed response.

The parts: ``faults`` (the faults and the schedule of writes they make), ``programs`` (what is
served, made from a scenario, a cassette or a raw body file), ``http`` (the server, which asks
only for the response to each request) and ``provider`` (``serving`` and ``Stand``).
"""

from harness.standin.faults import Cut, Drop, Fault, Split, Stall, parse_fault
from harness.standin.http import ReceivedRequest
from harness.standin.provider import Stand, serving

__all__ = [
    "Cut",
    "Drop",
    "Fault",
    "ReceivedRequest",
    "Split",
    "Stall",
    "Stand",
    "parse_fault",
    "serving",
]
