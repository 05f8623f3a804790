"""Rules are small functions registered by id; each yields violations for one checkpoint."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

Needs = Literal["notifications", "transcript"]


@dataclass(frozen=True, slots=True)
class Violation:
    """A broken rule: which rule, at which event of the expanded trace, and what was expected."""

    rule: str
    event_index: int
    message: str


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    layer: str
    statement: str
    source: str
    #: "notifications" rules also run at the light checkpoints where only notifications are read.
    needs: Needs
    check: Callable[[Any], Iterable[Violation]]


RULES: dict[str, Rule] = {}


def rule(
    rule_id: str, *, layer: str, statement: str, source: str, needs: Needs = "transcript"
) -> Callable[[Callable[[Any], Iterable[Violation]]], Callable[[Any], Iterable[Violation]]]:
    """Register a check under a stable id."""

    def register(
        check: Callable[[Any], Iterable[Violation]],
    ) -> Callable[[Any], Iterable[Violation]]:
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
