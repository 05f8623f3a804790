"""Conformance rules, registered by id."""

from harness.rules import driver as _driver  # noqa: F401  (registers the driver rules)
from harness.rules import driver_errors as _driver_errors  # noqa: F401  (the failed-stream rule)
from harness.rules import error_flags as _error_flags  # noqa: F401  (session and history)
from harness.rules import history as _history  # noqa: F401  (registers the history rules)
from harness.rules import loop as _loop  # noqa: F401  (an agent loop's requests)
from harness.rules import reference as _reference  # noqa: F401  (the reference comparison)
from harness.rules import requests as _requests  # noqa: F401  (history: the request)
from harness.rules import session as _session  # noqa: F401  (registers the session rules)
from harness.rules.registry import RULES, Finding, Rule, Violation, rule, rules_for

__all__ = ["RULES", "Finding", "Rule", "Violation", "rule", "rules_for"]
