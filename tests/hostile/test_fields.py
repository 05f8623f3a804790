"""Wrong types in scenario fields, a fault too large, and a recorded stream that does not decode:
each a located error that says what is wrong, where it is."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness._errors import ScenarioError
from harness.scenario import parse_scenario
from harness.scenario.generators import MAX_EVENTS
from tests.hostile.for_tests import FUZZ, outcome

HEADER = "id: x\ntitle: t\ndescription: d\nsource: s\n"
DRIVER = HEADER + "layer: driver\n"
WRONG = st.sampled_from(
    ["1", "-2", "3.5", "2.5e+3", "1.0e+400", "true", "null", "[a]", "{a: 1}", "[]"]
)
TEXT_FIELDS = [
    # (the scenario, with {v} where the value goes: all on line 7 unless said)
    HEADER.replace("title: t", "title: {v}")
    + "layer: session\ntrace:\n  - user_message: {{id: u, text: hi}}\n",
    DRIVER + "trace:\n  - cycle: {{id: {v}, blocks: [text: hi]}}\n",
    DRIVER + "trace:\n  - cycle: {{blocks: [text: {{text: {v}}}]}}\n",
    DRIVER + "trace:\n  - cycle: {{blocks: [tool_use: {{id: c, name: {v}}}]}}\n",
    DRIVER + "trace:\n  - cycle: {{blocks: [tool_use: {{id: c, name: f, arguments: {v}}}]}}\n",
    HEADER + "layer: session\ntrace:\n  - user_message: {{id: u, text: {v}}}\n",
    HEADER + "layer: session\ntrace:\n  - user_message: {{id: {v}, text: hi}}\n",
]


@FUZZ
@given(template=st.sampled_from(TEXT_FIELDS), value=WRONG)
def test_a_value_that_is_not_text_where_text_is_expected_is_refused(
    template: str, value: str
) -> None:
    text = template.format(v=value)
    result = outcome("field types", lambda: parse_scenario(text, "x.yaml"))
    assert isinstance(result, ScenarioError), f"{value!r} read as text in:\n{text}"
    line = next(i for i, row in enumerate(text.splitlines(), 1) if value in row.split(":", 1)[-1])
    assert f"x.yaml:{line}:" in str(result), str(result)


def test_a_number_is_not_read_as_text() -> None:
    with pytest.raises(
        ScenarioError, match=r"x.yaml:2: 'title' .* should be text, got int 5 \(quote it"
    ):
        parse_scenario(HEADER.replace("title: t", "title: 5") + "layer: session\n", "x.yaml")


@FUZZ
@given(times=st.integers(min_value=1, max_value=10) | st.integers(MAX_EVENTS, 10**12))
def test_a_fault_too_large_is_named_a_fault(times: int) -> None:
    text = (
        DRIVER
        + "trace:\n  - cycle: {blocks: [text: hi]}\n"
        + f"faults:\n  - duplicate: {{match: {{type: text_delta}}, times: {times}}}\n"
    )
    result = outcome("field types", lambda: parse_scenario(text, "x.yaml"))
    if times < MAX_EVENTS:
        assert not isinstance(result, ScenarioError), str(result)
    else:
        assert isinstance(result, ScenarioError)
        assert "x.yaml:9: this fault would grow the trace" in str(result), str(result)
        assert "generator" not in str(result)


BAD_LINES = st.sampled_from(["data: {broken", 'data: {"a": [1,}', "data: nul\x01l", "data: 1e999x"])


@FUZZ
@given(
    before=st.integers(min_value=0, max_value=5),
    bad=BAD_LINES,
    folded=st.booleans(),
)
def test_a_recorded_body_that_does_not_decode_is_located_at_its_line(
    before: int, bad: str, folded: bool
) -> None:
    chunk = 'data: {"id":"c","object":"chat.completion.chunk","choices":[]}'
    lines = [chunk, ""] * before + [bad, "", "data: [DONE]", ""]
    text = (
        DRIVER
        + "wire:\n  dialect: openai-chat\n  body: |\n"
        + "".join(f"    {line}\n" if line else "\n" for line in lines)
    )
    result = outcome("decode errors", lambda: parse_scenario(text, "x.yaml"))
    assert isinstance(result, ScenarioError), result
    # the body starts on line 9: its bad line is there, not at 'wire:' or line 1
    assert f"x.yaml:{9 + 2 * before}:" in str(result), str(result)
