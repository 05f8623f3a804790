"""The OpenAI Agents SDK's Chat Completions model with ``buffer_streamed_tool_calls=True`` on a
call whose deltas carry no index (as Gemini's OpenAI-compatible endpoint and Ollama send them),
without the harness: the buffer rebuilds the call as a ``ChoiceDeltaToolCall`` with
``index=None``, which pydantic rejects, so the stream raises a ``ValidationError`` once the body
has ended, and the call, complete in the body, never reaches the user.

    python docs/reproductions/openai-agents-buffered/calls-without-index-crash.py

prints, with openai-agents 0.24.0 and openai 3.57.0:

    events before the error: ['response.created']
    raised: ValidationError: 1 validation error for ChoiceDeltaToolCall
"""

import asyncio

import pydantic
from _wire import ROLE, body, call, stream_response

# one whole call with an id and a name, and no index field
BODY = body(ROLE, call(None, "call_1", "read", "{}"), {})


async def main():
    seen = []
    try:
        async for event in stream_response(BODY, buffered=True):
            seen.append(event.type)
    except pydantic.ValidationError as exc:
        print("events before the error:", seen)
        print(f"raised: {type(exc).__name__}: {str(exc).splitlines()[0]}")
        return
    raise AssertionError(f"the stream ended without an error: {seen}")


asyncio.run(main())
