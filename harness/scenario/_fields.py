"""Typed, located reading of one YAML mapping; every problem names file and line."""

from __future__ import annotations

import builtins
from collections.abc import Collection
from typing import Any, NoReturn

from harness._errors import Problem, excerpt
from harness._yaml import LocatedDict, LocatedList


class Invalid(Exception):
    """Raised to abandon the current item; the problem is already recorded."""


class Fields:
    """Reads the fields of one mapping, checking types and unknown keys."""

    def __init__(
        self,
        data: Any,
        where: builtins.str,
        path: builtins.str,
        line: builtins.int,
        problems: list[Problem],
    ):
        self.path = path
        self.where = where
        self.problems = problems
        if data is None:
            data = LocatedDict()
            data.line = line
            data.value_lines = {}
        if not isinstance(data, LocatedDict):
            self.fail(line, f"{where} should be a mapping, got {_describe(data)}")
        self.data: LocatedDict = data
        self.line = data.line

    def note(self, line: builtins.int, message: builtins.str) -> None:
        """Record a problem that does not stop reading this item."""
        self.problems.append(Problem(self.path, line, message))

    def fail(self, line: builtins.int, message: builtins.str) -> NoReturn:
        """Record a problem that ends reading this item."""
        self.note(line, message)
        raise Invalid

    def line_of(self, key: builtins.str) -> builtins.int:
        return self.data.line_of(key)

    def check_keys(self, allowed: Collection[builtins.str]) -> None:
        """Record every unknown key; reading goes on, so later problems are reported too."""
        known = ", ".join(sorted(allowed)) or "none"
        for key in self.data:
            if key not in allowed:
                self.note(
                    self.data.line_of(key),
                    f"unknown field {key!r} in {self.where} (known fields: {known})",
                )

    def has(self, key: builtins.str) -> builtins.bool:
        return key in self.data

    def raw(self, key: builtins.str, default: Any = None) -> Any:
        return self.data.get(key, default)

    def str(self, key: builtins.str, default: builtins.str | None = None) -> builtins.str:
        if key not in self.data:
            if default is None:
                self.fail(self.line, f"{self.where} is missing the required field {key!r}")
            return default
        value = self.data[key]
        if not isinstance(value, str):
            number = isinstance(value, (int, float)) and not isinstance(value, bool)
            hint = " (quote it)" if number else ""
            self.fail(
                self.line_of(key),
                f"{key!r} in {self.where} should be text, got {_describe(value)}{hint}",
            )
        return value

    def optional_str(self, key: builtins.str) -> builtins.str | None:
        if self.data.get(key) is None:
            return None
        return self.str(key)

    def int(
        self,
        key: builtins.str,
        default: builtins.int | None = None,
        *,
        minimum: builtins.int | None = None,
    ) -> builtins.int:
        if key not in self.data:
            if default is None:
                self.fail(self.line, f"{self.where} is missing the required field {key!r}")
            return default
        value = self.data[key]
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(
                self.line_of(key),
                f"{key!r} in {self.where} should be a whole number, got {_describe(value)}",
            )
        if minimum is not None and value < minimum:
            self.fail(self.line_of(key), f"{key!r} in {self.where} must be at least {minimum}")
        return int(value)

    def bool(self, key: builtins.str, default: builtins.bool) -> builtins.bool:
        value = self.data.get(key, default)
        if not isinstance(value, bool):
            self.fail(
                self.line_of(key),
                f"{key!r} in {self.where} should be true or false, got {_describe(value)}",
            )
        return bool(value)

    def choice(
        self,
        key: builtins.str,
        choices: Collection[builtins.str],
        default: builtins.str | None = None,
    ) -> builtins.str:
        value = self.str(key, default)
        if value not in choices:
            self.fail(
                self.line_of(key),
                f"{key!r} in {self.where} is {excerpt(value)}; expected one of {', '.join(choices)}",
            )
        return value

    def list(self, key: builtins.str, *, required: builtins.bool = False) -> LocatedList:
        if key not in self.data or self.data[key] is None:
            if required:
                self.fail(self.line, f"{self.where} is missing the required field {key!r}")
            empty = LocatedList()
            empty.line = self.line
            empty.item_lines = []
            return empty
        value = self.data[key]
        if not isinstance(value, LocatedList):
            self.fail(
                self.line_of(key),
                f"{key!r} in {self.where} should be a list, got {_describe(value)}",
            )
        return value

    def str_list(self, key: builtins.str) -> tuple[builtins.str, ...]:
        items = self.list(key)
        out = []
        for i, item in enumerate(items):
            if not isinstance(item, str):
                self.fail(
                    items.line_of(i),
                    f"{key!r} in {self.where} should list text, got {_describe(item)}",
                )
            out.append(item)
        return tuple(out)


def _describe(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return f"the text {excerpt(value)}"
    return f"{type(value).__name__} {excerpt(value)}"
