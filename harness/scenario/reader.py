"""The step reader every step module uses: located fields, the event budget, ids and the seed.

A step module is a table of handlers, one per step name; a handler reads one step's fields and
returns its events. Handlers use the reader openly: ``reader.fields(...)`` to read a nested
mapping, ``reader.budget.take(...)`` before expanding, ``reader.auto_id(...)`` for ids the
scenario leaves out, ``reader.steps(...)`` for nested steps (``repeat``, ``between``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from harness._errors import Problem
from harness._yaml import LocatedDict, LocatedList
from harness.scenario._fields import Fields, Invalid
from harness.scenario.generators import MAX_EVENTS

#: Reads one step's fields and returns its events.
Handler = Callable[["StepReader", Fields], list[Any]]

#: After this many problems a file is not read further.
MAX_PROBLEMS = 50

#: Generated events a scenario keeps expanded, so that replaying it again does not make them
#: again; generators past this many make theirs on every pass (``harness.model.trace``), so
#: memory stays bounded however long the trace.
KEEP_EXPANDED = 200_000


class Budget:
    """How many events the trace has grown to; no step may take it past ``MAX_EVENTS``."""

    def __init__(self) -> None:
        self.used = 0

    def take(self, count: int, fields: Fields, key: str) -> None:
        if count > MAX_EVENTS - self.used:
            fields.fail(
                fields.line_of(key),
                f"this generator would expand the trace past {MAX_EVENTS:,} events "
                f"(asked for {count:,} more after {self.used:,}); lower {key!r}",
            )
        self.used += count


class StepReader:
    """Reads the steps of one scenario file with one table of handlers."""

    def __init__(
        self,
        path: str,
        problems: list[Problem],
        handlers: Mapping[str, Handler],
        event_types: Mapping[str, type],
        *,
        seed: int = 0,
        default_session: str = "main",
        text: str = "",
    ) -> None:
        self.path = path
        #: the file's text, for placing what the YAML values alone cannot (an inline body's lines)
        self.text = text
        self.problems = problems
        self.handlers = handlers
        #: the event types a fault's ``match`` may name
        self.event_types = event_types
        self.seed = seed
        self.default_session = default_session
        self.budget = Budget()
        #: each session's parent, as far as the steps read so far say
        self.parents: dict[str, str | None] = {}
        self.bursts = 0
        #: generated events kept expanded so far, and how many may be (``KEEP_EXPANDED``)
        self.kept = 0
        self.keep = KEEP_EXPANDED
        self._ids = 0

    def fields(self, data: Any, where: str, line: int) -> Fields:
        return Fields(data, where, self.path, line, self.problems)

    def note(self, line: int, message: str) -> None:
        self.problems.append(Problem(self.path, line, message))

    def auto_number(self) -> int:
        """The next number for an id the scenario leaves out (one counter for the file)."""
        self._ids += 1
        return self._ids

    def auto_id(self, prefix: str) -> str:
        return f"{prefix}{self.auto_number()}"

    def steps(self, items: LocatedList, where: str) -> list[Any]:
        """Every step's events in order; a bad step is recorded and reading goes on."""
        out: list[Any] = []
        for i, item in enumerate(items):
            try:
                out.extend(self.step(item, items.line_of(i), where))
            except Invalid:
                if len(self.problems) >= MAX_PROBLEMS:
                    raise
        return out

    def step(self, item: Any, line: int, where: str) -> list[Any]:
        if not isinstance(item, LocatedDict) or len(item) != 1:
            self.note(
                line,
                f"each {where} step is a mapping with one key naming the event type, "
                "e.g. '- tool_select: {...}'",
            )
            raise Invalid
        ((name, body),) = item.items()
        handler = self.handlers.get(name)
        if handler is None:
            known = ", ".join(sorted(self.handlers))
            self.note(line, f"unknown event type {name!r} (known: {known})")
            raise Invalid
        return handler(self, self.fields(body, f"'{name}'", item.line_of(name)))

    def arguments(self, f: Fields) -> str:
        """A tool call's raw argument text: ``arguments`` as written, or ``input`` as JSON."""
        if f.has("input") and f.has("arguments"):
            f.fail(
                f.line_of("arguments"),
                "give either 'input' (a value) or 'arguments' (raw JSON text), not both",
            )
        if f.has("arguments"):
            return f.str("arguments")
        return json.dumps(_plain(f.raw("input", {})))


def substitute(value: Any, old: str, new: str) -> Any:
    """``value`` (located YAML) with ``old`` replaced by ``new`` in every string, lines kept."""
    if isinstance(value, str):
        return value.replace(old, new)
    if isinstance(value, LocatedDict):
        out = LocatedDict((k, substitute(v, old, new)) for k, v in value.items())
        out.line, out.value_lines = value.line, value.value_lines
        return out
    if isinstance(value, LocatedList):
        items = LocatedList(substitute(v, old, new) for v in value)
        items.line, items.item_lines = value.line, value.item_lines
        return items
    return value


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value
