"""The openai SDK's own client over a body (openai-chat, openai-chat-final and openai-responses
read through it)."""

from __future__ import annotations

from typing import Any

import openai
from _offline_http import http_client


def offline_client(data: str | bytes) -> openai.OpenAI:
    """A client whose every request is answered with the body."""
    http = http_client(openai.DefaultHttpxClient, data)
    return openai.OpenAI(api_key="offline", max_retries=0, http_client=http)


def chat_stream(data: str | bytes) -> Any:
    """``chat.completions.stream`` over the body: the stream manager, to enter with ``with``."""
    return offline_client(data).chat.completions.stream(
        model="gpt-4o", messages=[{"role": "user", "content": "go"}]
    )
