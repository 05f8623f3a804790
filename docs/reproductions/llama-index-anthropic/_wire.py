"""What the llama-index-anthropic scripts share: the Messages body builders, and what the
Anthropic class streams, and hands a FunctionAgent, from a body."""

import sys
from pathlib import Path

import anthropic
import httpx
from llama_index.llms.anthropic import Anthropic

sys.path.append(str(Path(__file__).resolve().parents[1]))  # the modules the folders share

from _anthropic_wire import START, end, fragment, sse, stop, text, text_start, tool_start
from _llama_index import streamed_calls
from _offline_http import http_client

__all__ = [
    "START",
    "end",
    "fragment",
    "responses_of",
    "sse",
    "stop",
    "text",
    "text_start",
    "tool_start",
]


def responses_of(data):
    """Every streamed response, and the calls of the last one (those FunctionAgent runs)."""
    llm = Anthropic(model="claude-sonnet-4-5", api_key="offline", max_retries=0)
    # the class takes no HTTP client: its SDK client is replaced by one over the body
    http = http_client(httpx.Client, data)
    llm._client = anthropic.Anthropic(api_key="offline", max_retries=0, http_client=http)
    return streamed_calls(llm, "write_file")
