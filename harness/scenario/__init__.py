"""YAML scenarios: loading, validation, generators and faults."""

from harness.scenario.generators import MAX_EVENTS
from harness.scenario.loader import Scenario, discover, load_all, load_scenario, parse_scenario

__all__ = ["MAX_EVENTS", "Scenario", "discover", "load_all", "load_scenario", "parse_scenario"]
