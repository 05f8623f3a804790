"""What the openai-agents-buffered scripts read through: the Chat Completions body builders, and the Agents
SDK's Chat Completions model over a body, shared with openai-agents."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[1]))  # the modules the folders share

from _agents_sdk import function_calls, stream_response
from _chat_wire import ROLE, body, call

__all__ = ["ROLE", "body", "call", "function_calls", "stream_response"]
