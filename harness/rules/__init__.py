"""Conformance rules, registered by id."""

from harness.rules import driver as _driver  # noqa: F401  (registers the driver rules)
from harness.rules import driver_errors as _driver_errors  # noqa: F401  (the failed-stream rule)
from harness.rules import history as _history  # noqa: F401  (registers the history rules)
from harness.rules import session as _session  # noqa: F401  (registers the session rules)
from harness.rules.registry import RULES, Finding, Rule, Violation, rule, rules_for

__all__ = ["RULES", "Finding", "Rule", "Violation", "rule", "rules_for"]
