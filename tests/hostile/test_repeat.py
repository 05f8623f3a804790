"""A ``repeat`` is bounded by the work it asks for, not only by the events it makes: one whose
steps make no event (none at all, or only repeats of nothing) is refused at its line, whatever
its count, instead of spinning through the count."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness._errors import ScenarioError
from harness.scenario import SessionScenario, load_scenario
from tests.hostile.for_tests import FUZZ, outcome, write

HEADER = (
    "id: x\ntitle: t\ndescription: d\nsource: s\nlayer: session\n"
    "trace:\n  - user_message: {id: u1, text: hi}\n"
)
#: the line of the repeat's ``steps`` (nested repeats are on the same line)
STEPS_LINE = 10

#: steps that make no event, as a one-line YAML list
NOTHING = st.recursive(
    st.just("[]"),
    lambda inner: (
        st.builds(
            lambda times, steps: f"[{{repeat: {{times: {times}, steps: {steps}}}}}]",
            st.sampled_from([0, 1, 7]),
            inner,
        )
        | st.builds(
            lambda times: (
                f"[{{repeat: {{times: {times}, steps: [{{user_message: {{text: a}}}}]}}}}]"
            ),
            st.just(0),
        )
    ),
    max_leaves=4,
)


@FUZZ
@given(times=st.integers(min_value=1, max_value=10**12), steps=NOTHING)
def test_a_repeat_of_nothing_is_refused_at_once(
    tmp_path_factory: pytest.TempPathFactory, times: int, steps: str
) -> None:
    text = HEADER + f"  - repeat:\n      times: {times}\n      steps: {steps}\n"
    path = write(tmp_path_factory.mktemp("repeat") / "x.yaml", text)
    found = outcome("repeats of nothing", lambda: load_scenario(path))
    assert isinstance(found, ScenarioError), found
    assert f"x.yaml:{STEPS_LINE}: a repeat of steps that make no events" in str(found), found


def test_a_repeat_of_something_is_still_read(tmp_path: Path) -> None:
    text = HEADER + "  - repeat:\n      times: 3\n      steps: [{user_message: {text: a}}]\n"
    scenario = load_scenario(write(tmp_path / "x.yaml", text))
    assert isinstance(scenario, SessionScenario) and len(scenario.trace) == 4
