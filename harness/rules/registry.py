"""Rules are small functions registered by id; each yields findings for one checkpoint.

A check knows only where a problem is and what it is (a ``Finding``); the registry names the rule,
so a check never retypes its own id, and ``Rule.check`` hands its callers finished violations.

One root cause is reported once: ``attribute_causes`` groups the violations about the same
subject (a tool call) under the one of the most fundamental rule (lowest ``precedence``), and a
rule whose findings follow from the others' (``derived``, e.g. the order of outputs) under the
first root cause, when there is one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple, TypeVar

from harness._registry import Registry

Needs = Literal["notifications", "transcript"]


@dataclass(frozen=True, slots=True)
class Violation:
    """A broken rule: which rule, at which event of the expanded trace, and what was expected."""

    rule: str
    event_index: int
    message: str
    #: what the violation is about (the ids of the tool calls it concerns, separated by
    #: spaces), or "" for the run as a whole
    subject: str = ""
    #: the root cause this violation follows from: (rule, event index), or None for a root
    cause: tuple[str, int] | None = None


class Finding(NamedTuple):
    """What a check yields: the event of the expanded trace at fault, what was expected, and
    what it is about (a tool call's id; "" for the run as a whole)."""

    event_index: int
    message: str
    subject: str = ""


Check = Callable[[Any], Iterable[Finding]]
C = TypeVar("C", bound=Check)


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    layer: str
    statement: str
    source: str
    #: "notifications" rules also run at the light checkpoints where only notifications are
    #: read, and judge only the notifications: they find nothing when exactly the expected ones
    #: show, and the replay does not run them then (tests/test_rules.py holds them to it).
    needs: Needs
    find: Check
    #: how fundamental a violation of it is: of two about the same subject, the lower is the cause
    precedence: int = 50
    #: its findings follow from the other rules' (the order of the outputs): a consequence of the
    #: first root cause, when there is one
    derived: bool = False

    def check(self, context: Any) -> Iterator[Violation]:
        """The rule's findings for one checkpoint, each named with the rule's id."""
        rule_id = self.id
        for event_index, message, subject in self.find(context):
            yield Violation(rule_id, event_index, message, subject)


RULES: Registry[Rule] = Registry("rule")


def rule(
    rule_id: str,
    *,
    layer: str,
    statement: str,
    source: str,
    needs: Needs = "transcript",
    precedence: int = 50,
    derived: bool = False,
) -> Callable[[C], C]:
    """Register a check under a stable id."""

    def register(check: C) -> C:
        RULES.add(
            rule_id, Rule(rule_id, layer, statement, source, needs, check, precedence, derived)
        )
        return check

    return register


def attribute_causes(violations: Iterable[Violation]) -> tuple[Violation, ...]:
    """The violations with each consequence pointing at its root cause, roots first, each
    followed by its consequences. A violation seen again later (the same rule and message at
    another observation point, e.g. a corrupt restored history at every checkpoint) follows
    from its first sighting."""
    found = list(violations)
    first_seen: dict[tuple[str, str], Violation] = {}
    for v in sorted(found, key=lambda v: v.event_index):
        first_seen.setdefault((v.rule, v.message), v)

    def rank(v: Violation) -> tuple[int, int, str]:
        known = RULES.get(v.rule)
        return (known.precedence if known else 50, v.event_index, v.rule)

    # a subject may name several calls (two calls merged into a third): each is a key
    roots: dict[str, Violation] = {}
    for v in sorted((v for v in found if v.subject), key=rank):
        for key in v.subject.split():
            roots.setdefault(key, v)

    def root_of(v: Violation) -> Violation:
        """The best-ranked violation sharing a subject with ``v``, followed to its own root."""
        seen = {id(v)}
        while True:
            candidates = [roots[key] for key in v.subject.split()]
            best = min(candidates, key=rank) if candidates else v
            if id(best) in seen:
                return v
            seen.add(id(best))
            v = best

    tops = [root_of(v) for v in roots.values()]
    first = min(tops, key=lambda v: (v.event_index, rank(v))) if tops else None
    heads: list[Violation] = []
    under: dict[int, list[Violation]] = {}  # id of a root -> its consequences
    for v in found:
        root: Violation | None = root_of(v) if v.subject else None
        known = RULES.get(v.rule)
        if root is None and known is not None and known.derived and first is not None:
            root = first
        earlier = first_seen[v.rule, v.message]
        if earlier is not v:
            root = root_of(earlier) if earlier.subject else earlier
        if root is None or root is v:
            heads.append(v)
        else:
            cause = (root.rule, root.event_index)
            under.setdefault(id(root), []).append(
                Violation(v.rule, v.event_index, v.message, v.subject, cause)
            )
    ordered: list[Violation] = []
    for head in heads:
        ordered.append(head)
        ordered.extend(under.get(id(head), ()))
    return tuple(ordered)


def rules_for(layer: str, *, disabled: Iterable[str] = (), only: Iterable[str] = ()) -> list[Rule]:
    disabled, only = set(disabled), set(only)
    return [
        r
        for r in RULES.values()
        if r.layer == layer and r.id not in disabled and (not only or r.id in only)
    ]
