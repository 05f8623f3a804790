"""What the llama-index-openai scripts share: the Chat Completions body builders, and the calls
the OpenAI class hands a FunctionAgent from a body."""

import sys
from pathlib import Path

import httpx
from llama_index.llms.openai import OpenAI

sys.path.append(str(Path(__file__).resolve().parents[1]))  # the modules the folders share

from _chat_wire import body, call
from _llama_index import streamed_calls
from _offline_http import http_client

__all__ = ["body", "call", "calls_of"]


def calls_of(data):
    """The calls FunctionAgent runs: those of the stream's last response."""
    http = http_client(httpx.Client, data)
    llm = OpenAI(model="gpt-4o", api_key="offline", max_retries=0, http_client=http)
    _, calls = streamed_calls(llm, "read_file", allow_parallel_tool_calls=True)
    return calls
