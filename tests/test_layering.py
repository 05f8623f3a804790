"""The import direction ARCHITECTURE.md draws: each module imports only from its own layer or
the layers below, and no modules import each other in a cycle. Imports inside functions count:
a deferred import is still a dependency. Imports under ``if TYPE_CHECKING:`` do not: they never
run, and only name a type for the checker."""

from __future__ import annotations

import ast
import graphlib
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "harness"

#: bottom to top, as in ARCHITECTURE.md: the rooms of the house, each named, with the modules in
#: it; a module belongs to the first entry its name starts with
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "foundations",
        (
            "harness._errors",
            "harness._registry",
            "harness._yaml",
            "harness._files",
            "harness._progress",
            "harness.library",
        ),
    ),
    ("model", ("harness.model",)),
    ("wire and history", ("harness.wire", "harness.history")),
    # one replay's violations, grouped under their root cause, sit with the rules they rank
    ("codecs and rules", ("harness.codecs", "harness.rules", "harness.results.attribution")),
    ("scenarios", ("harness.scenario",)),
    ("adapters and strategies", ("harness.adapters", "harness.strategies")),
    ("replay", ("harness.replay",)),
    # what a run produced, apart from how it is drawn: causes, baselines, the comparison
    ("results", ("harness.results",)),
    ("report", ("harness.report",)),
    # the stand-in provider: a scenario, a cassette or a body served over HTTP
    ("stand-in", ("harness.standin",)),
    # whole agent loops: a program run against the stand-in serving a loop scenario, judged
    ("loop", ("harness.loop",)),
    (
        "tools",
        (
            "harness.bench",
            "harness.bench_driver",
            "harness.demo",
            "harness.matrix",
            "harness.explore",
            "harness.coverage",
            "harness.wirereplay",
            "harness.convert",
            "harness.record",
        ),
    ),
    (
        "shells",
        (
            "harness.cli",
            "harness.pytest_plugin",
            # where moved modules were, re-exporting them for the shells and users
            "harness.serve",
            "harness.snapshot",
            "harness.html_report",
            "harness.pytest_recordings",
            "harness.__main__",
            "harness",
        ),
    ),
)


def module_files() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = module_files()


def owner(name: str) -> str | None:
    """The module of ours that ``name`` (a module, or a name imported from one) is."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def imports(module: str) -> Iterator[tuple[str, int]]:
    """Every module of ours that ``module`` imports, with the line, wherever the import is."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    for node in _runtime_nodes(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            targets = [
                f"{node.module}.{alias.name}"
                if f"{node.module}.{alias.name}" in MODULES
                else node.module
                for alias in node.names
            ]
        else:
            continue
        for target in targets:
            found = owner(target) if target.split(".")[0] == "harness" else None
            if found is not None and found != module:
                yield found, node.lineno


def _runtime_nodes(node: ast.AST) -> Iterator[ast.AST]:
    """Every node below ``node``, except the bodies of ``if TYPE_CHECKING:``."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _names_type_checking(child.test):
            yield from (n for orelse in child.orelse for n in (orelse, *_runtime_nodes(orelse)))
            continue
        yield child
        yield from _runtime_nodes(child)


def _names_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


@cache
def import_graph() -> dict[str, list[tuple[str, int]]]:
    """Each module of ours -> the modules of ours it imports, with the line; parsed when a test
    asks, not when the module is collected (in every worker)."""
    return {module: sorted(set(imports(module))) for module in MODULES}


def layer_of(module: str) -> int:
    for level, (_, prefixes) in enumerate(LAYERS):
        # "harness" is the package itself: a prefix of every module, so it matches only itself
        if any(module == p or (p != "harness" and module.startswith(p + ".")) for p in prefixes):
            return level
    raise AssertionError(f"{module} is in no layer of LAYERS: add it where it belongs")


def room(module: str) -> str:
    return LAYERS[layer_of(module)][0]


def test_every_module_has_a_layer() -> None:
    for module in MODULES:
        layer_of(module)


def test_a_module_in_no_layer_is_named() -> None:
    with pytest.raises(AssertionError, match=r"harness\.brand_new is in no layer"):
        layer_of("harness.brand_new")


def test_no_module_imports_from_a_higher_layer() -> None:
    upward = [
        f"{MODULES[m].relative_to(PACKAGE.parent)}:{line}: {m} ({room(m)}) imports {target} "
        f"({room(target)})"
        for m, edges in import_graph().items()
        for target, line in edges
        if layer_of(target) > layer_of(m)
    ]
    assert not upward, "imports against the layering:\n" + "\n".join(upward)


def test_no_import_cycles() -> None:
    graph = {module: [target for target, _ in edges] for module, edges in import_graph().items()}
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as exc:
        pytest.fail("modules that import each other: " + " -> ".join(exc.args[1]))


def test_the_checker_sees_deferred_imports() -> None:
    # the loader imports the rule registry inside a function, to check a scenario's rule ids
    assert "harness.rules" in {target for target, _ in import_graph()["harness.scenario.loader"]}


def test_the_checker_skips_type_checking_imports() -> None:
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    import harness.report\nelse:\n    import harness.model\n"
        "def f():\n    import harness.replay\n"
    )
    found = {
        alias.name
        for node in _runtime_nodes(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    assert found == {"harness.model", "harness.replay"}
