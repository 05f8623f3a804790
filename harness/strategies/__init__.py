"""Hypothesis strategies for the streams and traces the harness replays, to use in your own
property tests and behind ``harness explore``.

Every strategy draws a *document* (what a scenario file holds) and reads it with the scenario
loader, so what it generates is valid by construction and can be written out as a scenario::

    from hypothesis import given
    from harness import replay
    from harness.strategies import driver_scenarios

    @given(driver_scenarios(dialect="openai-chat"))
    def test_my_driver(scenario):
        assert replay(scenario, "my_project.testing:make_driver").status == "pass"

Parameters are keyword-only and checked when the strategy is built, as hypothesis's own are.
"""

from harness.strategies.documents import dump_document, scenario_from_document
from harness.strategies.driver import (
    argument_fragments,
    arguments_json,
    driver_documents,
    driver_scenarios,
)
from harness.strategies.session import session_documents, session_scenarios

__all__ = [
    "argument_fragments",
    "arguments_json",
    "driver_documents",
    "driver_scenarios",
    "dump_document",
    "scenario_from_document",
    "session_documents",
    "session_scenarios",
]
