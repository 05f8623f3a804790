"""Agent frameworks' own loops, run unmodified by ``harness loop``: each module here is a small
program that builds one framework's agent with the loop scenarios' tools (each echoes its
arguments; ``delegate`` runs a second agent) and runs it through the framework's streaming API,
its model's client finding the stand-in through ``OPENAI_BASE_URL`` or ``ANTHROPIC_BASE_URL``.
Nothing of the loop is the program's: the framework streams, assembles the calls, runs the tools
and sends the history back::

    harness loop harness-library/loop -- python -m harness.adapters.loop.frameworks.pydantic_ai --model chat

``FRAMEWORK_LOOPS`` is the table ``harness matrix`` runs (``--loop NAME``): each framework's API
in every dialect its models speak, in the environment of its extra of streamharness.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import sys
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class LoopDialect:
    """One dialect a framework's loop is run in: the arguments that choose its model, and the
    provider SDK that model runs over (its import and distribution name)."""

    dialect: str
    arguments: tuple[str, ...]
    sdk: str


@dataclass(frozen=True, slots=True)
class FrameworkLoop:
    """A framework's agent loop as the matrix runs it."""

    #: how the matrix names it (unique)
    name: str
    #: what of the framework the program drives, in a few words
    api: str
    #: the program, run with ``python -m``, and the arguments every dialect shares
    module: str
    arguments: tuple[str, ...]
    dialects: tuple[LoopDialect, ...]
    #: the framework's import name and its distribution
    framework: str
    distribution: str
    #: the extra of streamharness that installs it
    extra: str

    def command(self, dialect: str, *, python: str | None = None) -> list[str]:
        """The program's command line in ``dialect`` (run by this Python unless ``python``
        names another, as a reproduction written down says ``python``)."""
        chosen = next(d for d in self.dialects if d.dialect == dialect)
        return [
            python or sys.executable,
            "-m",
            self.module,
            *self.arguments,
            *chosen.arguments,
        ]

    def installed_dialects(self) -> tuple[LoopDialect, ...]:
        """The dialects whose SDK is installed beside the framework (none: it is missing)."""
        if not _importable(self.framework):
            return ()
        return tuple(d for d in self.dialects if _importable(d.sdk))

    def version(self) -> str | None:
        """``2.68.0 (openai 3.54.0, anthropic 2.12.0)``: the framework's, then the SDKs' it
        runs over; None when it is not installed."""
        dialects = self.installed_dialects()
        if not dialects:
            return None
        sdks = dict.fromkeys(d.sdk for d in dialects)
        return f"{_version(self.distribution)} ({', '.join(f'{s} {_version(s)}' for s in sdks)})"


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ImportError:
        return False


def _version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


_HERE = "harness.adapters.loop.frameworks"

_OPENAI = (
    LoopDialect("openai-chat", ("--model", "chat"), "openai"),
    LoopDialect("openai-responses", ("--model", "responses"), "openai"),
)
_ANTHROPIC = LoopDialect("anthropic", ("--model", "anthropic"), "anthropic")

#: every framework loop, in the order the matrix shows them
FRAMEWORK_LOOPS: tuple[FrameworkLoop, ...] = (
    FrameworkLoop(
        "pydantic-ai-run-stream",
        "Agent.run_stream",
        f"{_HERE}.pydantic_ai",
        ("--api", "run_stream"),
        (*_OPENAI, _ANTHROPIC),
        "pydantic_ai",
        "pydantic-ai-slim",
        "libs",
    ),
    FrameworkLoop(
        "pydantic-ai-run-stream-events",
        "Agent.run_stream_events",
        f"{_HERE}.pydantic_ai",
        ("--api", "run_stream_events"),
        (*_OPENAI, _ANTHROPIC),
        "pydantic_ai",
        "pydantic-ai-slim",
        "libs",
    ),
    FrameworkLoop(
        "openai-agents",
        "Runner.run_streamed",
        f"{_HERE}.openai_agents",
        (),
        _OPENAI,
        "agents",
        "openai-agents",
        "openai-agents",
    ),
    FrameworkLoop(
        "strands",
        "Agent.stream_async",
        f"{_HERE}.strands_agents",
        (),
        (_OPENAI[0], _ANTHROPIC),
        "strands",
        "strands-agents",
        "strands",
    ),
)
