"""What the openai-responses script reads through: the openai SDK's own client over a body,
shared with the Chat Completions folders."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[1]))  # the modules the folders share

from _openai_sdk import offline_client

__all__ = ["offline_client"]
