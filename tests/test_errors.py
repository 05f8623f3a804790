"""The drawing at the top of ``harness/_errors.py`` names every exception the package defines."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re

import harness
from harness import _errors

DRAWING = _errors.__doc__ or ""


def defined_exceptions() -> dict[str, type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for module_info in pkgutil.walk_packages(harness.__path__, "harness."):
        if module_info.name.endswith("__main__"):
            continue  # importing it runs the command line
        module = importlib.import_module(module_info.name)
        for name, value in vars(module).items():
            if (
                inspect.isclass(value)
                and issubclass(value, BaseException)
                and value.__module__ == module.__name__
            ):
                found[name] = value
    return found


def test_every_exception_the_package_defines_is_in_the_drawing() -> None:
    exceptions = defined_exceptions()
    assert {"AdapterError", "Hung", "StreamCancelled", "WireError"} <= set(exceptions)
    missing = [name for name in exceptions if not re.search(rf"\b{name}\b", DRAWING)]
    assert missing == []


def test_the_tree_shows_each_harness_error_under_its_parent() -> None:
    # "+-- Name" at a depth of five columns per level; the parent is the nearest shallower entry
    parents: dict[str, str] = {}
    stack: list[tuple[int, str]] = []
    for line in DRAWING.splitlines():
        entry = re.match(r"^((?: \|   | {5})*) \+-- (\w+)", line)
        if line == "HarnessError":
            stack = [(-1, "HarnessError")]
        elif entry:
            depth = len(entry.group(1)) // 5
            while stack and stack[-1][0] >= depth:
                stack.pop()
            parents[entry.group(2)] = stack[-1][1]
            stack.append((depth, entry.group(2)))
    for name, cls in defined_exceptions().items():
        if issubclass(cls, harness.HarnessError) and cls is not harness.HarnessError:
            assert name in parents, f"{name} is a HarnessError missing from the tree"
            assert cls.__mro__[1].__name__ == parents[name], name
