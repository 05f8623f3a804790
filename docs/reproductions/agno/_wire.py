"""What the agno scripts share: the Chat Completions body builders, and the assistant message
OpenAIChat.process_response_stream builds from a body (what an Agent runs for each model
request when it streams)."""

import sys
from pathlib import Path

from agno.models.base import MessageData
from agno.models.message import Message
from agno.models.openai import OpenAIChat
from openai import DefaultHttpxClient

sys.path.append(str(Path(__file__).resolve().parents[1]))  # the modules the folders share

from _chat_wire import ROLE, body, call
from _offline_http import http_client

__all__ = ["ROLE", "assistant_message", "body", "call", "summary"]


def assistant_message(data):
    """The assistant message agno builds from the body; reading it raises what agno raises."""
    http = http_client(DefaultHttpxClient, data)
    model = OpenAIChat(
        id="gpt-4o", api_key="x", client_params={"http_client": http, "max_retries": 0}
    )
    message = Message(role="assistant")
    prompt = [Message(role="user", content="go")]
    for _ in model.process_response_stream(prompt, message, MessageData()):
        pass
    return message


def summary(calls):
    """The message's calls as (id, name, arguments)."""
    return [(c["id"], c["function"]["name"], c["function"]["arguments"]) for c in calls]
