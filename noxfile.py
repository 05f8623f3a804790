"""The conformance matrix's environments (``make matrix``; nox, with uv where it is installed).

Consumer libraries pin conflicting versions (litellm wants an older ``openai`` than pydantic-ai's
models; agent frameworks pin their own SDKs), so each extra of streamharness that installs
libraries gets an environment of its own: ``nox -s "lib-EXTRA"`` installs ``.[test,EXTRA]``
(its pins are in pyproject.toml), runs every library of that extra over every case of the
driver scenarios, and every framework loop of that extra over the loop scenarios, into
``build/matrix/EXTRA.json`` (failing on a cause or a failed run no explanation covers, or an
explanation that covers none), and runs the library tests there: the adapters' own and
each explanation's reproduction. The Node.js libraries (the extra ``node``) install with
``npm ci`` into their folders (``js/libs/GROUP``, and ``examples/ui-consumers`` for the UI
protocols' consumers, each pinned by its package-lock.json) beside ``.[test]``. ``nox -s
merge`` then writes ``docs/conformance.md`` and ``docs/conformance.json`` from the parts;
``nox`` alone runs every environment, then the merge.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nox

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))  # this checkout's table of libraries, whatever harness nox has
from harness.adapters.libs import LIBRARIES, Library  # noqa: E402
from harness.adapters.loop.frameworks import FRAMEWORK_LOOPS  # noqa: E402

nox.options.default_venv_backend = "uv|virtualenv"
nox.options.reuse_existing_virtualenvs = True
nox.options.error_on_missing_interpreters = True

PARTS = ROOT / "build" / "matrix"

#: extra -> the libraries it installs, in the matrix's order
EXTRAS: dict[str, list[Library]] = {}
for _library in LIBRARIES:
    EXTRAS.setdefault(_library.extra, []).append(_library)

#: extra -> the framework loops it installs, in the matrix's order
LOOPS: dict[str, list[str]] = {}
for _loop in FRAMEWORK_LOOPS:
    LOOPS.setdefault(_loop.extra, []).append(_loop.name)

nox.options.sessions = [*(f"lib-{extra}" for extra in EXTRAS), "merge"]


def _library_session(extra: str, libraries: list[Library]) -> None:
    names = [library.name for library in libraries]
    node = [library for library in libraries if library.runtime == "node"]

    @nox.session(name=f"lib-{extra}")
    def run(session: nox.Session) -> None:
        # an extra of Node.js libraries only is no extra of the Python package
        session.install("-e", ".[test]" if len(node) == len(libraries) else f".[test,{extra}]")
        for folder in dict.fromkeys(library.folder or "." for library in node):
            session.run("npm", "ci", "--prefix", folder, "--no-audit", "--no-fund", external=True)
        PARTS.mkdir(parents=True, exist_ok=True)
        part = PARTS / f"{extra}.json"
        part.unlink(missing_ok=True)  # a failed run leaves no stale part behind
        chosen = [f"--library={name}" for name in names]
        chosen += [f"--loop={name}" for name in LOOPS.get(extra, ())]
        session.run("harness", "matrix", *chosen, "--format=json", f"--out={part}", "--check")
        # the tests of libraries not installed here skip; these never all do
        session.run(
            "python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/libs",
            env={"HARNESS_MATRIX_EXTRA": extra},
        )  # fmt: skip

    loops = "".join(f", the {name} loop" for name in LOOPS.get(extra, ()))
    run.__doc__ = f"{', '.join(names)}{loops}: the matrix part and the library tests"


for _extra, _libraries in EXTRAS.items():
    _library_session(_extra, _libraries)


@nox.session(python=False)
def merge(session: nox.Session) -> None:
    """docs/conformance.md and docs/conformance.json from every part in build/matrix."""
    parts = sorted(str(p) for p in PARTS.glob("*.json"))
    expected = {f"{extra}.json" for extra in EXTRAS}
    missing = sorted(expected - {Path(p).name for p in parts})
    if missing:
        session.error(f"no part for {', '.join(missing)}: run their lib- sessions first")
    out = ROOT / "docs"
    for name, form in (("conformance.json", "json"), ("conformance.md", "markdown")):
        session.run(
            "harness", "matrix", "--from", *parts, f"--format={form}", f"--out={out / name}"
        )
