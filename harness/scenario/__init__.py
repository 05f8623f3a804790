"""YAML scenarios: found, read safely, expanded once into frozen, typed scenarios per layer.

>>> from harness.scenario import load_scenario
>>> scenario = load_scenario("scenarios/session/tool-first-turn.yaml")
>>> scenario.layer, type(scenario).__name__
('session', 'SessionScenario')
"""

from harness.scenario.generators import MAX_EVENTS
from harness.scenario.loader import (
    LAYERS,
    discover,
    load_all,
    load_scenario,
    parse_scenario,
    recorded_scenario,
)
from harness.scenario.types import (
    DriverScenario,
    Expectation,
    LoopResponse,
    LoopScenario,
    PinnedMessage,
    Scenario,
    ScenarioHeader,
    SessionScenario,
)

__all__ = [
    "LAYERS",
    "MAX_EVENTS",
    "DriverScenario",
    "Expectation",
    "LoopResponse",
    "LoopScenario",
    "PinnedMessage",
    "Scenario",
    "ScenarioHeader",
    "SessionScenario",
    "discover",
    "load_all",
    "load_scenario",
    "parse_scenario",
    "recorded_scenario",
]
