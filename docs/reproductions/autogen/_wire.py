"""What the autogen scripts share: the Chat Completions body builders, and what
OpenAIChatCompletionClient.create_stream yields on a body."""

from __future__ import annotations

import asyncio
import sys
import warnings
from pathlib import Path
from typing import Any

from autogen_core.models import UserMessage
from autogen_ext.models.openai import OpenAIChatCompletionClient
from openai import DefaultAsyncHttpxClient

sys.path.append(str(Path(__file__).resolve().parents[1]))  # the modules the folders share

from _chat_wire import ROLE, body, call
from _offline_http import http_client

__all__ = ["ROLE", "body", "call", "stream"]

warnings.simplefilter("ignore")  # AutoGen warns of an empty result; the output says it all


def stream(data: str) -> tuple[list[str], Any]:
    """What create_stream yields over a transport that answers with ``data``: the str chunks,
    and the CreateResult."""

    async def run() -> tuple[list[str], Any]:
        client = OpenAIChatCompletionClient(
            model="gpt-4o",
            api_key="offline",
            max_retries=0,
            http_client=http_client(DefaultAsyncHttpxClient, data),
        )
        texts, result = [], None
        async for item in client.create_stream([UserMessage(content="go", source="user")]):
            if isinstance(item, str):
                texts.append(item)
            else:
                result = item
        await client.close()
        return texts, result

    return asyncio.run(run())
