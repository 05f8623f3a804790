"""What the smolagents scripts share: the Chat Completions body builders, and the deltas of
OpenAIModel.generate_stream on a body (a ToolCallingAgent runs agglomerate_stream_deltas on
them)."""

import sys
from pathlib import Path

from openai import DefaultHttpxClient
from smolagents.models import ChatMessage, MessageRole, OpenAIModel

sys.path.append(str(Path(__file__).resolve().parents[1]))  # the modules the folders share

from _chat_wire import ROLE, body, call
from _offline_http import http_client

__all__ = ["ROLE", "body", "call", "calls", "generate_stream"]


def generate_stream(data):
    """The deltas OpenAIModel.generate_stream yields on the body, one at a time."""
    http = http_client(DefaultHttpxClient, data)
    model = OpenAIModel(
        "gpt-4o", api_key="x", client_kwargs={"http_client": http, "max_retries": 0}
    )
    prompt = ChatMessage(role=MessageRole.USER, content=[{"type": "text", "text": "go"}])
    return model.generate_stream([prompt])


def calls(message):
    """The calls of an agglomerated message: (id, name, arguments)."""
    return [(c.id, c.function.name, c.function.arguments) for c in message.tool_calls]
