"""What the strands-openai scripts share: the Chat Completions body builders, and what Strands'
event loop makes of OpenAIModel's stream of a body."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import openai
from strands.models.openai import OpenAIModel

sys.path.append(str(Path(__file__).resolve().parents[1]))  # the modules the folders share

from _chat_wire import ROLE, body, call
from _offline_http import http_client
from _strands import streamed, tool_uses

__all__ = ["ROLE", "body", "call", "streamed_over", "tool_uses"]


def streamed_over(data: str) -> tuple[str, str, dict[str, Any]]:
    """The text streamed, the stop reason and the message the event loop hands over."""
    http = http_client(openai.DefaultAsyncHttpxClient, data)
    model = OpenAIModel(
        client_args={"api_key": "offline", "max_retries": 0, "http_client": http},
        model_id="gpt-4o",
    )
    return streamed(model)
