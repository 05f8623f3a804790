"""Driver adapters around widely used consumer libraries' own stream accumulation code.

Each module imports its library inside the factory, so the core install never needs them
(``pip install "streamharness[libs]"`` brings the pinned versions). Pass one as
``--adapter harness.adapters.libs.MODULE:make_adapter``. The glue is kept to what a user of the
library writes: each adapter reports what the library hands its user, at the point it hands it.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
from dataclasses import dataclass


def install_hint(extra: str) -> str:
    """The command that installs an extra of streamharness."""
    return f"pip install 'streamharness[{extra}]'"


def require(*modules: str, extra: str = "libs") -> None:
    """Import the library now, so a missing one stops the run with a hint instead of showing up
    in every scenario as a crash of the consumer."""
    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError as exc:
            raise ImportError(f"this adapter needs {module!r}: {install_hint(extra)}") from exc


@dataclass(frozen=True)
class Library:
    """One consumer library as ``harness matrix`` runs it."""

    #: how the matrix names it (unique)
    name: str
    #: ``MODULE:FACTORY`` of its driver adapter
    adapter: str
    #: the modules its adapter imports: all present, the library is installed
    modules: tuple[str, ...]
    #: the distributions whose versions identify what was measured, the library's own first
    distributions: tuple[str, ...]
    #: the extra of streamharness that installs it
    extra: str = "libs"

    def installed(self) -> bool:
        return all(importlib.util.find_spec(module) is not None for module in self.modules)

    def version(self) -> str | None:
        """``2.68.0``, or with what it runs over, ``2.68.0 (openai 3.54.0)``; None if missing."""
        if not self.installed():
            return None
        own, *others = (_version(d) for d in self.distributions)
        extra = ", ".join(f"{d} {v}" for d, v in zip(self.distributions[1:], others, strict=True))
        return f"{own} ({extra})" if extra else own


def _version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


_HERE = "harness.adapters.libs"

#: every library adapter, in the order the matrix shows them
LIBRARIES: tuple[Library, ...] = (
    Library("anthropic", f"{_HERE}.anthropic_sdk:make_adapter", ("anthropic",), ("anthropic",)),
    Library("openai-chat", f"{_HERE}.openai_chat:make_adapter", ("openai",), ("openai",)),
    Library(
        "openai-chat-final", f"{_HERE}.openai_chat:make_final_adapter", ("openai",), ("openai",)
    ),
    Library("openai-responses", f"{_HERE}.openai_responses:make_adapter", ("openai",), ("openai",)),
    Library(
        "langchain-core",
        f"{_HERE}.langchain_core:make_adapter",
        ("langchain_core",),
        ("langchain-core",),
    ),
    Library(
        "pydantic-ai",
        f"{_HERE}.pydantic_ai:make_adapter",
        ("pydantic_ai", "openai"),
        ("pydantic-ai-slim", "openai"),
    ),
    Library(
        "litellm",
        f"{_HERE}.litellm:make_adapter",
        ("litellm",),
        ("litellm", "openai"),
        extra="litellm",
    ),
)
