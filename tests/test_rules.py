"""The rule registry: a check yields findings, the registry names them with the rule's id."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from harness.rules import registry
from harness.rules.registry import Finding, Violation, rule


@pytest.fixture
def empty_registry(monkeypatch: pytest.MonkeyPatch) -> dict[str, registry.Rule]:
    rules: dict[str, registry.Rule] = {}
    monkeypatch.setattr(registry, "RULES", rules)
    return rules


def test_a_rules_findings_become_violations_named_by_its_id(empty_registry):
    @rule("no-odd-events", layer="test", statement="s", source="tests")
    def no_odd_events(events: list[int]) -> Iterator[Finding]:
        for index, value in enumerate(events):
            if value % 2:
                yield Finding(index, f"event {index} is {value}")

    registered = empty_registry["no-odd-events"]
    assert list(registered.check([2, 3, 4, 5])) == [
        Violation("no-odd-events", 1, "event 1 is 3"),
        Violation("no-odd-events", 3, "event 3 is 5"),
    ]
    # the decorator hands the check back unchanged, findings and all
    assert list(no_odd_events([1])) == [Finding(0, "event 0 is 1")]
    assert registry.rules_for("test") == [registered]


def test_an_id_is_registered_once(empty_registry):
    rule("twice", layer="test", statement="s", source="tests")(lambda c: ())
    with pytest.raises(ValueError, match="registered twice"):
        rule("twice", layer="test", statement="s", source="tests")(lambda c: ())
