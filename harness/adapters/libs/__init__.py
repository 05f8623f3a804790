"""Driver adapters around widely used consumer libraries' own stream accumulation code.

Each module imports its library inside the factory, so the core install never needs them
(``pip install "streamharness[libs]"`` brings the pinned versions). Pass one as
``--adapter harness.adapters.libs.MODULE:make_adapter``. The glue is kept to what a user of the
library writes: each adapter reports what the library hands its user, at the point it hands it.
"""

from __future__ import annotations

import importlib


def require(*modules: str, extra: str = "libs") -> None:
    """Import the library now, so a missing one stops the run with a hint instead of showing up
    in every scenario as a crash of the consumer."""
    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError as exc:
            raise ImportError(
                f"this adapter needs {module!r}: pip install 'streamharness[{extra}]'"
            ) from exc
