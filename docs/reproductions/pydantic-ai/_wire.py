"""What the pydantic-ai scripts share: the Chat Completions body builders, and what
OpenAIChatModel's streamed response hands over on a body."""

import asyncio
import sys
from pathlib import Path

import httpx
from openai import AsyncOpenAI
from pydantic_ai import ModelRequest
from pydantic_ai.direct import model_request_stream
from pydantic_ai.messages import PartEndEvent
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

sys.path.append(str(Path(__file__).resolve().parents[1]))  # the modules the folders share

from _chat_wire import ROLE, body, call
from _offline_http import http_client

__all__ = ["ROLE", "body", "call", "ended_parts"]


def ended_parts(data):
    """The part of each PartEndEvent the streamed response hands over on the body, and the
    response it ends as."""

    async def run():
        client = AsyncOpenAI(
            api_key="x", max_retries=0, http_client=http_client(httpx.AsyncClient, data)
        )
        model = OpenAIChatModel("gpt-4o", provider=OpenAIProvider(openai_client=client))
        ended = []
        async with model_request_stream(model, [ModelRequest.user_text_prompt("go")]) as stream:
            async for event in stream:
                if isinstance(event, PartEndEvent):
                    ended.append(event.part)
            return ended, stream.get()

    return asyncio.run(run())
