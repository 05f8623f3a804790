"""Every explanation in the matrix is reproduced without the harness, by its own script, and
every script reproduces an explanation: ``docs/reproductions/LIBRARY/ID.py`` (``ID.mjs``, run
by node, for a Node.js library) for the explanation ``ID`` of ``LIBRARY``
(``harness.adapters.libs.explanations``), ``docs/reproductions/LOOP/ID.py`` for the explanation
``ID`` of the framework loop ``LOOP`` (``harness.adapters.loop.frameworks.explanations``). A
script exits 0 when the library (the framework) still does what its explanation says (and prints
what it saw); it fails (with its assertion) once it is fixed, and then the explanation and its
script go. The ``_*.py`` modules
beside them are what the scripts share, not reproductions.

A library and a loop may share a name, and so a folder (``openai-agents``): the folder's scripts
are then the explanations of both, which never share an id.

The scripts of the libraries and loops installed here run; the others are run by their matrix
environments (noxfile.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.adapters.libs import Library, libraries
from harness.adapters.libs.explanations import (
    REPRODUCTIONS,
    SCRIPT_SUFFIXES,
    Explanation,
    explanations,
)
from harness.adapters.loop.frameworks import FRAMEWORK_LOOPS, FrameworkLoop
from harness.adapters.loop.frameworks.explanations import LoopExplanation, loop_explanations

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / REPRODUCTIONS


def shared(path: Path) -> bool:
    """A name with a leading underscore is no reproduction: a module the scripts share (a
    folder's ``_wire.py``, or one of ``docs/reproductions/_*.py`` that several folders share),
    or Python's ``__pycache__``."""
    return path.name.startswith("_")


def scripts(library: str) -> set[str]:
    """The file names of the library's scripts, in either language (the modules they share
    left out)."""
    suffixes = set(SCRIPT_SUFFIXES.values())
    return {p.name for p in (FOLDER / library).glob("*") if p.suffix in suffixes and not shared(p)}


def explained(name: str) -> set[str]:
    """The file names of the scripts of the explanations in the folder ``name``: the library's
    of that name and the framework loop's."""
    library = {e.reproduction.name for e in explanations(name)}
    loop = {e.reproduction.name for e in loop_explanations(name)}
    assert not library & loop, f"{name}: the library and the loop both explain {library & loop}"
    return library | loop


def test_every_explanation_has_its_reproduction_and_every_reproduction_its_explanation() -> None:
    known = {library.name for library in libraries()} | {loop.name for loop in FRAMEWORK_LOOPS}
    strays = sorted(
        path.relative_to(ROOT).as_posix()
        for path in FOLDER.iterdir()
        if path.name not in known and path.name != "README.md" and not shared(path)
    )
    assert not strays, f"not a library's or a framework loop's folder of reproductions: {strays}"
    missing, orphans = [], []
    for name in sorted(known):
        wanted = explained(name)
        missing += [f"{name}/{file}" for file in sorted(wanted - scripts(name))]
        orphans += [f"{name}/{file}" for file in sorted(scripts(name) - wanted)]
    assert not missing, f"explanations without their script in {REPRODUCTIONS}: {missing}"
    assert not orphans, f"scripts in {REPRODUCTIONS} without their explanation: {orphans}"


#: the extra whose pinned libraries this environment holds (the matrix's sessions say it): the
#: libraries of other extras may be importable here too, at other versions than theirs
EXTRA = os.environ.get("HARNESS_MATRIX_EXTRA")


def _skip(library: Library) -> str | None:
    if EXTRA is not None and library.extra != EXTRA:
        return (
            f"{library.name} is pinned by the extra {library.extra}, this is {EXTRA}'s environment"
        )
    return None if library.installed() else f"{library.name} is not installed here"


def _cases() -> list[Any]:
    cases: list[Any] = []
    for library in libraries():
        skip = _skip(library)
        for explanation in explanations(library.name):
            cases.append(
                pytest.param(
                    library,
                    explanation,
                    id=f"{library.name}/{explanation.id}",
                    marks=pytest.mark.skipif(skip is not None, reason=skip or ""),
                )
            )
    return cases


def _run(script: Path, runtime: str = "python") -> subprocess.CompletedProcess[str]:
    """The script run as its docstring says to run it: by this environment's Python, or by
    node (a node script finds its library in the library's folder itself:
    docs/reproductions/README.md)."""
    runner = sys.executable if runtime == "python" else shutil.which("node")
    assert runner is not None, "node is not on the PATH"
    return subprocess.run(
        [runner, str(script)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,  # for a hang, not for speed
        check=False,
    )


@pytest.mark.matrix
@pytest.mark.parametrize(("library", "explanation"), _cases())
def test_the_reproduction_shows_the_bug(library: Library, explanation: Explanation) -> None:
    script = ROOT / explanation.reproduction
    assert script.is_file(), f"{explanation.reproduction} is missing"
    done = _run(script, library.runtime)
    assert done.returncode == 0, (
        f"{explanation.reproduction} no longer reproduces what the matrix says of "
        f"{library.name} ({explanation.id}):\n{done.stdout}\n{done.stderr}"
    )


def _loop_skip(loop: FrameworkLoop) -> str | None:
    if EXTRA is not None and loop.extra != EXTRA:
        return f"the {loop.name} loop is pinned by the extra {loop.extra}, this is {EXTRA}'s"
    return None if loop.version() is not None else f"the {loop.name} loop is not installed here"


def _loop_cases() -> list[Any]:
    cases: list[Any] = []
    for loop in FRAMEWORK_LOOPS:
        skip = _loop_skip(loop)
        for explanation in loop_explanations(loop.name):
            cases.append(
                pytest.param(
                    loop,
                    explanation,
                    id=f"{loop.name}/{explanation.id}",
                    marks=pytest.mark.skipif(skip is not None, reason=skip or ""),
                )
            )
    return cases


@pytest.mark.matrix
@pytest.mark.parametrize(("loop", "explanation"), _loop_cases())
def test_the_loop_reproduction_shows_the_bug(
    loop: FrameworkLoop, explanation: LoopExplanation
) -> None:
    script = ROOT / explanation.reproduction
    assert script.is_file(), f"{explanation.reproduction} is missing"
    done = _run(script)
    assert done.returncode == 0, (
        f"{explanation.reproduction} no longer reproduces what the matrix says of the "
        f"{loop.name} loop ({explanation.id}):\n{done.stdout}\n{done.stderr}"
    )
