"""What the openai-chat-final scripts share: the Chat Completions body builders, the SDK's
chat.completions.stream over a body, and the run of an openai-chat script, whose accumulator
this library reads too."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[1]))  # the modules the folders share

from _chat_wire import ROLE, body, call
from _openai_sdk import chat_stream

__all__ = ["ROLE", "body", "call", "chat_stream", "run_openai_chat_script"]


def run_openai_chat_script(script: str) -> None:
    """Runs the openai-chat script of the same name as ``script`` (its output and its exit
    status are this one's)."""
    twin = Path(script).resolve().parents[1] / "openai-chat" / Path(script).name
    sys.exit(subprocess.run([sys.executable, str(twin)], check=False).returncode)
