"""Where the built-in scenario library lives: packaged with the harness, or in a checkout."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def library_path() -> Path:
    """The built-in scenarios folder."""
    packaged = _PACKAGE / "builtin_scenarios"
    if packaged.is_dir():
        return packaged
    return _PACKAGE.parent / "scenarios"
