"""What the haystack scripts share: the Chat Completions body builders, and the reply of
OpenAIChatGenerator.run, streaming, on a body."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import httpx
from haystack.components.generators.chat import OpenAIChatGenerator
from haystack.dataclasses import ChatMessage
from haystack.utils import Secret

sys.path.append(str(Path(__file__).resolve().parents[1]))  # the modules the folders share

from _chat_wire import ROLE, body, call
from _offline_http import transport

__all__ = ["ROLE", "body", "call", "reply"]


def reply(data: str) -> Any:
    """The reply of OpenAIChatGenerator.run with a streaming callback, over a transport that
    answers with ``data``."""
    generator = OpenAIChatGenerator(
        api_key=Secret.from_token("offline"),
        model="gpt-4o",
        max_retries=0,
        http_client_kwargs={"transport": transport(httpx.Client, data)},
    )
    result = generator.run([ChatMessage.from_user("go")], streaming_callback=lambda chunk: None)
    return result["replies"][0]
