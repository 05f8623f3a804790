"""Every violation message names both sides: what the trace (or stream, or scenario) says should
be shown, and what the consumer showed, with at least one value quoted.

The sample is the first violation of each rule that some bundled mutant triggers over its
layer's library, so a new rule whose message names only one side fails here. The two reference
comparisons speak as a diff does, each differing field with the reference's value and the
adapter's (``REFERENCE_SIDES``).
"""

from __future__ import annotations

import re

import pytest

from harness.adapters.registry import BUNDLED
from harness.replay import replay
from harness.rules.reference import REFERENCE_RULES
from harness.rules.registry import Violation
from harness.scenario import load_all
from tests.scenarios_for_tests import LIBRARY

#: the side of what should be: the recorded trace, the wire stream, the live session, the
#: scenario's pinned expectation, or the rule's own "should"
EXPECTED_SIDE = re.compile(r"\b(the trace|the stream|the live session|expected|should)\b")
#: the side of what the consumer did: what it shows, emitted, stored or would send
OBSERVED_SIDE = re.compile(
    r"\b(shows?|shown|emitted|the driver|the adapter|the transcript|the request|the stored history)\b"
)
#: a value as repr writes it
QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")

#: the reference comparisons name each differing field as a diff does, a value as JSON writes it
#: (`path: expected "a", observed "b"`, `expected true, observed false`, `expected [...], missing`,
#: `not expected, observed {...}`): the reference's side, then the adapter's, for each field
_JSON = r"(\"(?:[^\"\\]|\\.)*\"|true|false|null|-?\d[\d.eE+-]*|\[.*?\]|\{.*?\})"
REFERENCE_SIDES = (
    ("an expected side", re.compile(rf": (expected {_JSON}|not expected), ")),
    ("an observed side", re.compile(rf", (observed {_JSON}|missing)")),
    ("a value", re.compile(rf"\b(expected|observed) {_JSON}")),
)


def first_violation_per_rule() -> dict[str, tuple[str, str, Violation]]:
    scenarios, problems = load_all([LIBRARY])
    assert not problems
    found: dict[str, tuple[str, str, Violation]] = {}
    for adapter in BUNDLED.values():
        if adapter.kind != "mutant":
            continue
        for scenario in scenarios:
            if scenario.layer != adapter.layer:
                continue
            for violation in replay(scenario, adapter).violations:
                found.setdefault(violation.rule, (adapter.name, scenario.id, violation))
    return found


@pytest.mark.slow
def test_every_sampled_message_names_the_expected_and_the_observed_value() -> None:
    sample = first_violation_per_rule()
    # one rule of each layer at least, and the scenario's own pinned expectations
    assert {"expectation", "backward-attachment", "repair-merges", "order"} <= set(sample)
    one_sided = []
    for rule, (mutant, scenario, violation) in sorted(sample.items()):
        message = violation.message
        sides = (
            REFERENCE_SIDES
            if rule in REFERENCE_RULES
            else (
                ("an expected side", EXPECTED_SIDE),
                ("an observed side", OBSERVED_SIDE),
                ("a quoted value", QUOTED),
            )
        )
        missing = [what for what, pattern in sides if not pattern.search(message)]
        if missing:
            one_sided.append(
                f"[{rule}] ({mutant} on {scenario}) lacks {', '.join(missing)}: {message}"
            )
    assert not one_sided, "\n".join(one_sided)
