"""Driver adapters around widely used consumer libraries' own stream accumulation code.

Each module imports its library inside the factory, so the core install never needs them
(``pip install "streamharness[libs]"`` brings the pinned versions). Pass one as
``--adapter harness.adapters.libs.MODULE:make_adapter``. The glue is kept to what a user of the
library writes: each adapter reports what the library hands its user, at the point it hands it.

``LIBRARIES`` is the one table of them: what ``harness matrix`` runs, and, where a library is a
provider's SDK, how a recording of its dialect is replayed through it (``harness.wirereplay``).
A library kept outside this package joins the table through the entry-point group
``streamharness.adapters``: each entry names a ``Library``, or a sequence of them::

    [project.entry-points."streamharness.adapters"]
    my-client = "my_project.testing:LIBRARY"
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from harness._errors import UsageError

#: the entry-point group of libraries kept outside this package
ENTRY_POINT_GROUP = "streamharness.adapters"


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
class WireRoute:
    """Where a provider's SDK sends a request of its dialect, for replaying a recording of that
    dialect through the SDK's own client (``harness.wirereplay``)."""

    dialect: str
    #: the path the SDK sends the request to, after its ``base_url``
    endpoint: str
    #: where the request goes for a raw body, which records no URL
    default_url: str


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
    #: what runs its code: Python (``modules`` are import names), or Node.js (``modules`` are
    #: npm packages, resolved from ``folder``, and the adapter an ``exec:`` command)
    runtime: Literal["python", "node"] = "python"
    #: a Node.js library's: the folder, relative to the project root, whose ``node_modules``
    #: holds its packages (installed there with ``npm ci``); None: the project root itself.
    #: The harness runs from the project root, so that the adapter command's paths, relative
    #: to it as well, reach the script, which finds its packages from where it lies
    folder: str | None = None
    #: a provider SDK's: how recordings of its dialect replay through its client; its adapter
    #: module then has the ``client``, ``open_stream`` and ``outputs`` that replay uses
    replays: WireRoute | None = None
    #: the layer its adapter implements: a driver (every quirk case of the driver scenarios in
    #: its dialect), or a UI protocol's consumer (every variation of the session scenarios its
    #: session dialect can carry)
    layer: Literal["driver", "session"] = "driver"

    def installed(self) -> bool:
        if self.runtime == "node":
            return _node_resolves(self.modules, self.folder)
        return all(_importable(module) for module in self.modules)

    def install_hint(self) -> str:
        """The command that installs it: its extra, or a Node.js library's ``npm ci``."""
        if self.runtime == "node":
            return f"npm ci --prefix {self.folder or '.'}"
        return install_hint(self.extra)

    def version(self) -> str | None:
        """``2.68.0``, or with what it runs over, ``2.68.0 (openai 3.54.0)``; None if missing."""
        if not self.installed():
            return None
        own, *others = (self._version(d) for d in self.distributions)
        extra = ", ".join(f"{d} {v}" for d, v in zip(self.distributions[1:], others, strict=True))
        return f"{own} ({extra})" if extra else own

    def _version(self, distribution: str) -> str:
        if self.runtime == "node":
            return _node_version(distribution, self.folder)
        try:
            return importlib.metadata.version(distribution)
        except importlib.metadata.PackageNotFoundError:
            return "unknown"


def _importable(module: str) -> bool:
    """Whether ``module`` can be imported, without importing it; a dotted name whose parent
    package is missing (``google.genai`` with no ``google``) is simply not importable."""
    try:
        return importlib.util.find_spec(module) is not None
    except ImportError:  # ModuleNotFoundError for the missing parent
        return False


def _node(script: str, folder: str | None, *args: str) -> str | None:
    """What a Node.js script prints, run in ``folder`` (None: the working folder) so that it
    resolves packages from there; None without node, or if the script fails (a missing folder
    included)."""
    node = shutil.which("node")
    if node is None:
        return None
    try:
        done = subprocess.run(
            [node, "--input-type=module", "-e", script, "--", *args],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def _node_resolves(packages: Sequence[str], folder: str | None) -> bool:
    script = "for (const p of process.argv.slice(1)) import.meta.resolve(p)"
    return _node(script, folder, *packages) is not None


#: the version in the package.json of the package's own folder in node_modules, found from its
#: entry point (a package's "exports" need not list its package.json)
_VERSION_SCRIPT = """
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
const name = process.argv[1];
let folder = dirname(fileURLToPath(import.meta.resolve(name)));
for (;;) {
  try {
    const found = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
    if (found.name === name) { console.log(found.version); break; }
  } catch {}
  if (dirname(folder) === folder) process.exit(1);
  folder = dirname(folder);
}
"""


def _node_version(package: str, folder: str | None) -> str:
    return _node(_VERSION_SCRIPT, folder, package) or "unknown"


_HERE = "harness.adapters.libs"

#: every library adapter, in the order the matrix shows them
LIBRARIES: tuple[Library, ...] = (
    Library(
        "anthropic",
        f"{_HERE}.anthropic_sdk:make_adapter",
        ("anthropic",),
        ("anthropic",),
        replays=WireRoute("anthropic", "/v1/messages", "https://api.anthropic.com/v1/messages"),
    ),
    Library(
        "openai-chat",
        f"{_HERE}.openai_chat:make_adapter",
        ("openai",),
        ("openai",),
        replays=WireRoute(
            "openai-chat", "/chat/completions", "https://api.openai.com/v1/chat/completions"
        ),
    ),
    Library(
        "openai-chat-final", f"{_HERE}.openai_chat:make_final_adapter", ("openai",), ("openai",)
    ),
    Library(
        "openai-responses",
        f"{_HERE}.openai_responses:make_adapter",
        ("openai",),
        ("openai",),
        replays=WireRoute("openai-responses", "/responses", "https://api.openai.com/v1/responses"),
    ),
    Library(
        "langchain-core",
        f"{_HERE}.langchain_core:make_adapter",
        ("langchain_core", "openai"),
        ("langchain-core", "openai"),
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
        ("litellm", "openai"),
        ("litellm", "openai"),
        extra="litellm",
    ),
    Library(
        "google-genai",
        f"{_HERE}.google_genai:make_adapter",
        ("google.genai", "httpx2"),
        ("google-genai", "httpx2"),
        extra="google-genai",
    ),
    Library(
        "openai-agents",
        f"{_HERE}.openai_agents:make_adapter",
        ("agents", "openai"),
        ("openai-agents", "openai"),
        extra="openai-agents",
    ),
    Library(
        "openai-agents-buffered",
        f"{_HERE}.openai_agents:make_buffered_adapter",
        ("agents", "openai"),
        ("openai-agents", "openai"),
        extra="openai-agents",
    ),
    Library(
        "strands-openai",
        f"{_HERE}.strands_agents:make_openai_adapter",
        ("strands", "openai"),
        ("strands-agents", "openai"),
        extra="strands",
    ),
    Library(
        "strands-anthropic",
        f"{_HERE}.strands_agents:make_anthropic_adapter",
        ("strands", "anthropic"),
        ("strands-agents", "anthropic"),
        extra="strands",
    ),
    Library(
        "smolagents",
        f"{_HERE}.smolagents:make_adapter",
        ("smolagents", "openai"),
        ("smolagents", "openai"),
        extra="smolagents",
    ),
    Library(
        "agno",
        f"{_HERE}.agno:make_adapter",
        ("agno", "openai"),
        ("agno", "openai"),
        extra="agno",
    ),
    Library(
        "haystack",
        f"{_HERE}.haystack_openai:make_adapter",
        ("haystack", "openai"),
        ("haystack-ai", "openai"),
        extra="haystack",
    ),
    Library(
        "autogen",
        f"{_HERE}.autogen_openai:make_adapter",
        ("autogen_ext", "autogen_core", "openai"),
        ("autogen-ext", "autogen-core", "openai"),
        extra="autogen",
    ),
    Library(
        "llama-index-openai",
        f"{_HERE}.llama_index:make_openai_adapter",
        ("llama_index.llms.openai", "openai"),
        ("llama-index-llms-openai", "llama-index-core", "openai"),
        extra="llama-index",
    ),
    Library(
        "llama-index-anthropic",
        f"{_HERE}.llama_index:make_anthropic_adapter",
        ("llama_index.llms.anthropic", "anthropic"),
        ("llama-index-llms-anthropic", "llama-index-core", "anthropic"),
        extra="llama-index",
    ),
    # Node.js libraries: each group's folder pins its packages (npm ci --prefix FOLDER)
    Library(
        "openai-node-chat",
        "exec:node js/libs/openai/chat.mjs",
        ("openai",),
        ("openai",),
        extra="node",
        runtime="node",
        folder="js/libs/openai",
    ),
    Library(
        "openai-node-chat-final",
        "exec:node js/libs/openai/chat.mjs --final",
        ("openai",),
        ("openai",),
        extra="node",
        runtime="node",
        folder="js/libs/openai",
    ),
    Library(
        "openai-node-responses",
        "exec:node js/libs/openai/responses.mjs",
        ("openai",),
        ("openai",),
        extra="node",
        runtime="node",
        folder="js/libs/openai",
    ),
    Library(
        "anthropic-node",
        "exec:node js/libs/anthropic/messages.mjs",
        ("@anthropic-ai/sdk",),
        ("@anthropic-ai/sdk",),
        extra="node",
        runtime="node",
        folder="js/libs/anthropic",
    ),
    Library(
        "ai-sdk-openai",
        "exec:node js/libs/ai-sdk/openai.mjs",
        ("ai", "@ai-sdk/openai"),
        ("ai", "@ai-sdk/openai"),
        extra="node",
        runtime="node",
        folder="js/libs/ai-sdk",
    ),
    Library(
        "ai-sdk-anthropic",
        "exec:node js/libs/ai-sdk/anthropic.mjs",
        ("ai", "@ai-sdk/anthropic"),
        ("ai", "@ai-sdk/anthropic"),
        extra="node",
        runtime="node",
        folder="js/libs/ai-sdk",
    ),
    Library(
        "ai-sdk-google",
        "exec:node js/libs/ai-sdk/google.mjs",
        ("ai", "@ai-sdk/google"),
        ("ai", "@ai-sdk/google"),
        extra="node",
        runtime="node",
        folder="js/libs/ai-sdk",
    ),
    Library(
        "langchain-js-openai",
        "exec:node js/libs/langchain/chat-openai.mjs",
        ("@langchain/openai", "@langchain/core", "openai"),
        ("@langchain/openai", "@langchain/core", "openai"),
        extra="node",
        runtime="node",
        folder="js/libs/langchain",
    ),
    # consumers of UI protocols (session dialects, docs/ui-protocols.md), pinned together
    Library(
        "ag-ui-client",
        "exec:node examples/ui-consumers/ag-ui-client.mjs",
        ("@ag-ui/client",),
        ("@ag-ui/client",),
        extra="node",
        runtime="node",
        folder="examples/ui-consumers",
        layer="session",
    ),
    Library(
        "ai-sdk-ui",
        "exec:node examples/ui-consumers/ai-sdk-ui.mjs",
        ("ai",),
        ("ai",),
        extra="node",
        runtime="node",
        folder="examples/ui-consumers",
        layer="session",
    ),
)


def libraries() -> tuple[Library, ...]:
    """``LIBRARIES``, then the libraries that installed packages add through the entry-point
    group ``streamharness.adapters``, in the order of their entry points' names."""
    found = list(LIBRARIES)
    for entry in sorted(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP), key=_name):
        where = f"the {ENTRY_POINT_GROUP} entry point {entry.name!r} ({entry.value})"
        try:
            loaded = entry.load()
        except Exception as exc:
            raise UsageError(f"{where} cannot be loaded: {type(exc).__name__}: {exc}") from None
        given = [loaded] if isinstance(loaded, Library) else loaded
        if not isinstance(given, Sequence) or not all(isinstance(g, Library) for g in given):
            raise UsageError(
                f"{where} should name a harness.adapters.libs.Library, or a sequence of them; "
                f"it names {type(loaded).__name__}"
            )
        found.extend(given)
    seen: dict[str, Library] = {}
    for library in found:
        if library.name in seen:
            raise UsageError(
                f"two libraries are named {library.name!r}: {seen[library.name].adapter} and "
                f"{library.adapter}; a library's name is its row in the matrix"
            )
        seen[library.name] = library
    return tuple(found)


def _name(entry: importlib.metadata.EntryPoint) -> str:
    return entry.name
