"""One replay's violations, each under its root cause: one root cause is reported once.

``attribute_causes`` groups the violations about the same subject (a tool call) under the one of
the most fundamental rule (lowest ``precedence``), and a rule whose findings follow from the
others' (``derived``, e.g. the order of outputs) under the first root cause, when there is one.
Across the cases of a run, ``harness.results.causes`` groups the root causes this leaves.

This module sits with the rules (the replay calls it for every result), below the rest of
``results/``.
"""

from __future__ import annotations

from collections.abc import Iterable

from harness.rules.registry import RULES, Violation


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
