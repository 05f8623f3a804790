"""The rule registry: a check yields findings, the registry names them with the rule's id."""

from __future__ import annotations

from collections.abc import Iterator
from typing import cast

import pytest

from harness._errors import UsageError
from harness._registry import Registry
from harness.model.observation import Notification, NotificationStatus
from harness.replay.session import prepare
from harness.results.attribution import attribute_causes
from harness.rules import registry
from harness.rules.registry import Finding, Violation, rule
from harness.rules.session import SessionFacts
from harness.scenario import SessionScenario, load_all
from tests.scenarios_for_tests import LIBRARY


@pytest.fixture
def empty_registry() -> Iterator[Registry[registry.Rule[object]]]:
    """No rule registered, for the test; every bundled rule again after it."""
    with Registry.scoped():
        registry.RULES.clear()
        yield registry.RULES


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
    with pytest.raises(UsageError, match="a rule named 'twice' is already registered"):
        rule("twice", layer="test", statement="s", source="tests")(lambda c: ())


def _register(rule_id: str, precedence: int, derived: bool = False) -> None:
    @rule(
        rule_id, layer="test", statement="s", source="tests", precedence=precedence, derived=derived
    )
    def check(context: object) -> Iterator[Finding]:
        yield from ()


def test_violations_about_one_call_follow_the_most_fundamental_one(empty_registry):
    _register("merged", 20)
    _register("lost", 50)
    _register("order", 80, derived=True)
    _register("turn", 70)
    found = [
        Violation("lost", 5, "a lost", "call_a"),
        Violation("merged", 6, "a and b merged into ab", "call_a call_b call_ab"),
        Violation("lost", 10, "b lost", "call_b"),
        Violation("lost", 11, "ab unknown", "call_ab"),
        Violation("order", 12, "order differs"),
        Violation("turn", 12, "read past the end"),
    ]
    grouped = attribute_causes(found)
    root = ("merged", 6)
    assert [(v.rule, v.event_index, v.cause) for v in grouped] == [
        ("merged", 6, None),
        ("lost", 5, root),
        ("lost", 10, root),
        ("lost", 11, root),
        ("order", 12, root),
        ("turn", 12, None),  # about the turn as a whole: a root of its own
    ]


def test_a_derived_violation_alone_is_its_own_root(empty_registry):
    _register("order", 80, derived=True)
    (only,) = attribute_causes([Violation("order", 3, "order differs")])
    assert only.cause is None


def test_roots_that_share_a_call_follow_one_chain_to_the_best_root(empty_registry):
    # c shares a call with b, b shares one with a, which ranks best: everything leads to a
    _register("a", 10)
    _register("b", 20)
    _register("c", 30)
    grouped = attribute_causes(
        [
            Violation("c", 1, "c", "y"),
            Violation("b", 2, "b", "x y"),
            Violation("a", 3, "a", "x"),
        ]
    )
    assert [(v.rule, v.cause) for v in grouped] == [("a", None), ("c", ("a", 3)), ("b", ("a", 3))]


def test_a_violation_seen_again_at_a_later_point_follows_from_its_first_sighting(empty_registry):
    # a corrupt restored history is still corrupt at every later checkpoint: one root cause
    _register("pairing", 50)
    grouped = attribute_causes(
        [
            Violation("pairing", 0, "message 3 answers nothing"),
            Violation("pairing", 14, "message 3 answers nothing"),
            Violation("pairing", 15, "message 4 answers nothing"),
        ]
    )
    assert [(v.event_index, v.cause) for v in grouped] == [
        (0, None),
        (14, ("pairing", 0)),
        (15, None),
    ]


def _notifications_rules_findings(wrong: bool) -> tuple[int, int]:
    """(checkpoints looked at, findings) of every notifications rule over the library's session
    scenarios, shown the expected notifications at each checkpoint (one more if ``wrong``)."""
    light = [r for r in registry.rules_for("session") if r.needs == "notifications"]
    looked = found = 0
    scenarios, problems = load_all([LIBRARY / "session"])
    assert not problems
    for scenario in scenarios:
        assert isinstance(scenario, SessionScenario)
        prepared = prepare(scenario)
        for checkpoint in prepared.plan:
            expected = prepared.ledger.notes_at.get(checkpoint.index, frozenset())
            notes = [
                Notification(s, call, name, cast(NotificationStatus, status))
                for s, call, status, name in expected
            ]
            if wrong:
                notes.append(Notification("main", "toolu_nobody_selected", "x", "using"))
            context = SessionFacts(prepared.ledger, scenario.trace, checkpoint, tuple(notes), None)
            assert context.notifications_as_expected is not wrong
            looked += 1
            found += sum(len(list(r.check(context))) for r in light)
    return looked, found


def test_notifications_rules_find_nothing_when_the_expected_notifications_show():
    """The replay skips the notifications rules at a light checkpoint whose notifications are
    exactly the expected ones; this holds each of them to finding nothing there."""
    looked, found = _notifications_rules_findings(wrong=False)
    assert looked > 100 and found == 0
    # the same walk sees a notification no event selected, at every checkpoint
    assert _notifications_rules_findings(wrong=True)[1] >= looked
