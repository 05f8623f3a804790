"""Rules are small functions registered by id; each yields findings for one checkpoint.

A check knows only where a problem is and what it is (a ``Finding``); the registry names the rule,
so a check never retypes its own id, and ``Rule.check`` hands its callers finished violations.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple, TypeVar

Needs = Literal["notifications", "transcript"]


@dataclass(frozen=True, slots=True)
class Violation:
    """A broken rule: which rule, at which event of the expanded trace, and what was expected."""

    rule: str
    event_index: int
    message: str


class Finding(NamedTuple):
    """What a check yields: the event of the expanded trace at fault, and what was expected."""

    event_index: int
    message: str


Check = Callable[[Any], Iterable[Finding]]
C = TypeVar("C", bound=Check)


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    layer: str
    statement: str
    source: str
    #: "notifications" rules also run at the light checkpoints where only notifications are read.
    needs: Needs
    find: Check

    def check(self, context: Any) -> Iterator[Violation]:
        """The rule's findings for one checkpoint, each named with the rule's id."""
        rule_id = self.id
        for event_index, message in self.find(context):
            yield Violation(rule_id, event_index, message)


RULES: dict[str, Rule] = {}


def rule(
    rule_id: str, *, layer: str, statement: str, source: str, needs: Needs = "transcript"
) -> Callable[[C], C]:
    """Register a check under a stable id."""

    def register(check: C) -> C:
        if rule_id in RULES:
            raise ValueError(f"rule {rule_id!r} is registered twice")
        RULES[rule_id] = Rule(rule_id, layer, statement, source, needs, check)
        return check

    return register


def rules_for(layer: str, *, disabled: Iterable[str] = (), only: Iterable[str] = ()) -> list[Rule]:
    disabled, only = set(disabled), set(only)
    return [
        r
        for r in RULES.values()
        if r.layer == layer and r.id not in disabled and (not only or r.id in only)
    ]
