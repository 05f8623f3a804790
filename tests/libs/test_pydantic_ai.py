"""What ``pydantic-ai``'s streamed response hands its user, reproduced directly against the
library (no harness): ``OpenAIChatModel`` over an ``AsyncOpenAI`` client whose offline transport
serves a fixed body, read with ``pydantic_ai.direct.model_request_stream``."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.libs.chat_body import body, call, offline_client

pytest.importorskip("pydantic_ai", reason="pydantic-ai is not installed (extra 'libs')")
pytest.importorskip("openai", reason="the openai SDK is not installed (extra 'libs')")


def tool_calls(data: bytes) -> list[tuple[str, str, Any]]:
    """The finished tool call parts, as PartEndEvent hands them over: (id, name, args)."""
    from openai import AsyncOpenAI, DefaultAsyncHttpxClient
    from pydantic_ai import ModelRequest
    from pydantic_ai.direct import model_request_stream
    from pydantic_ai.messages import PartEndEvent, ToolCallPart
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    async def run() -> list[tuple[str, str, Any]]:
        http = offline_client(DefaultAsyncHttpxClient, data)
        client = AsyncOpenAI(api_key="offline", max_retries=0, http_client=http)
        model = OpenAIChatModel("gpt-4o", provider=OpenAIProvider(openai_client=client))
        found = []
        async with model_request_stream(model, [ModelRequest.user_text_prompt("go")]) as stream:
            async for event in stream:
                if isinstance(event, PartEndEvent) and isinstance(event.part, ToolCallPart):
                    part = event.part
                    found.append((part.tool_call_id, part.tool_name, part.args))
        await http.aclose()
        return found

    return asyncio.run(run())


def test_parallel_calls_sent_at_one_index_are_merged_into_one() -> None:
    """Groq, Ollama through LiteLLM and some Gemini relays send each parallel call at index 0 with
    its own id: the parts manager keys the call by index, so the user gets one call, named
    'write_filewrite_file', with both calls' arguments back to back and the last call's id."""
    data = body(
        call(0, "call_1", "write_file", '{"path": "a.rs"}'),
        call(0, "call_2", "write_file", '{"path": "b.rs"}'),
    )
    assert tool_calls(data) == [
        ("call_2", "write_filewrite_file", '{"path": "a.rs"}{"path": "b.rs"}')
    ]


def test_a_name_repeated_on_every_delta_is_concatenated() -> None:
    """llama.cpp's server repeats function.name on every delta: the call is named
    'final_resultfinal_result', which no tool answers to."""
    data = body(call(0, "call_fr", "final_result", '{"a": '), call(0, None, "final_result", "1}"))
    assert tool_calls(data) == [("call_fr", "final_resultfinal_result", '{"a": 1}')]


def test_an_id_that_changes_mid_call_replaces_the_first() -> None:
    """GLM through Mistral's API starts a call with one id and sends its fragments with another:
    the call is handed over with the later id, not the one it started with."""
    data = body(call(0, "chatcmpl-tool-1", "read", ""), call(0, "toolcall0", None, '{"f": 1}'))
    assert tool_calls(data) == [("toolcall0", "read", '{"f": 1}')]
