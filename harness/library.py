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


#: how commands and pytest node ids name the library's folder, wherever it is installed
#: (``harness run harness-library/session/x.yaml``)
LIBRARY_PREFIX = "harness-library"


def command_line_path(path: str | Path) -> str:
    """``path`` as a command line run from the current folder gives it: a file under the
    current folder relative to it, a scenario of the installed library as ``harness-library/...``
    (wherever the package is, even in a virtual environment inside the current folder)."""
    resolved = Path(path).resolve()
    roots = [(Path.cwd().resolve(), ""), (library_path(), LIBRARY_PREFIX)]
    if library_path().name == "builtin_scenarios":  # installed: never name site-packages
        roots.reverse()
    for root, prefix in roots:
        if resolved.is_relative_to(root):
            relative = resolved.relative_to(root).as_posix()
            return f"{prefix}/{relative}" if prefix else relative
    return str(path)


def resolve_command_line_path(path: str) -> str:
    """The file or folder a command line's ``path`` names: ``harness-library/...`` is in the
    built-in library unless the current folder has a path of that name."""
    head, _, rest = path.replace("\\", "/").partition("/")
    if head == LIBRARY_PREFIX and not Path(path).exists():
        return str(library_path() / rest)
    return path
