"""What the pydantic-ai-run-stream scripts share: the model endpoint on loopback, and
pydantic-ai's agent loop run by Agent.run_stream over it."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[1]))  # the modules the folders share

from _loop_server import serving
from _pydantic_ai_loop import agent, run_stream

__all__ = ["agent", "run_stream", "serving"]
