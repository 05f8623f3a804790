"""What the litellm scripts share: the Chat Completions body builders, and what
litellm.completion(stream=True) and stream_chunk_builder make of a body."""

import os
import sys
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no price-list fetch at import

import httpx
import litellm
import openai

sys.path.append(str(Path(__file__).resolve().parents[1]))  # the modules the folders share

from _chat_wire import ROLE, body, call
from _offline_http import http_client

__all__ = ["ROLE", "body", "call", "completion", "summary"]


def completion(data):
    """The chunks litellm.completion(stream=True) yields on the body, and the choice
    stream_chunk_builder builds from them."""
    client = openai.OpenAI(api_key="x", max_retries=0, http_client=http_client(httpx.Client, data))
    messages = [{"role": "user", "content": "go"}]
    chunks = list(litellm.completion("openai/gpt-4o", messages, stream=True, client=client))
    return chunks, litellm.stream_chunk_builder(chunks).choices[0]


def summary(message):
    """The message's calls as (id, name, arguments)."""
    return [(c.id, c.function.name, c.function.arguments) for c in message.tool_calls]
