"""YAML that is not JSON, and characters YAML refuses, in scenarios and cassettes: a located
error at load (or, for an unquoted date, the text as written), never a TypeError or a
ReaderError traceback later."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness._errors import ScenarioError, WireError
from harness.scenario import load_scenario, parse_scenario
from harness.wire import read_cassette
from tests.hostile.for_tests import FUZZ, ROOT, outcome, write
from tests.hostile.test_limits import session_scenario

NOT_JSON = st.sampled_from(
    [
        "!!timestamp 2024-01-01",
        "!!timestamp 2024-01-01T10:00:00Z",
        "!!set {a, b}",
        "!!binary aGVsbG8=",
        "!!omap [{a: 1}]",
        "!!pairs [{a: 1}]",
        ".nan",
        "-.inf",
        "!!python/object:os.system {}",
        "!!python/name:os.system ''",
        "!!float .inf",
    ]
)
DATES = st.sampled_from(["2024-01-01", "2001-12-14t21:59:43.10-05:00", "2002-12-14"])


@FUZZ
@given(value=NOT_JSON, key=st.sampled_from(["q", "when", "nested"]))
def test_yaml_types_json_has_not_are_refused_at_their_line(
    tmp_path_factory: pytest.TempPathFactory, value: str, key: str
) -> None:
    tool_input = f"{{{key}: [{value}]}}" if key == "nested" else f"{{{key}: {value}}}"
    path = write(tmp_path_factory.mktemp("types") / "x.yaml", session_scenario(tool_input))
    result = outcome("yaml types", lambda: load_scenario(path))
    assert isinstance(result, ScenarioError), result
    assert ":10:" in str(result), str(result)


@FUZZ
@given(date=DATES)
def test_an_unquoted_date_is_the_text_written(
    tmp_path_factory: pytest.TempPathFactory, date: str
) -> None:
    path = write(tmp_path_factory.mktemp("date") / "x.yaml", session_scenario(f"{{when: {date}}}"))
    scenario = outcome("yaml types", lambda: load_scenario(path))
    calls = [e for e in scenario.trace if e.kind == "tool_executing"]
    assert json.loads(calls[0].calls[0].arguments) == {"when": date}


CONTROL = st.sampled_from([chr(c) for c in [*range(0, 9), 11, 12, *range(14, 32), 127, 0xFFFE]])


@FUZZ
@given(char=CONTROL, at=st.floats(min_value=0, max_value=1))
def test_a_control_character_is_located(
    tmp_path_factory: pytest.TempPathFactory, char: str, at: float
) -> None:
    folder = tmp_path_factory.mktemp("control")
    for original, read in (
        (ROOT / "cassettes/real-traffic/llm/test_tool_use_basic.yaml", read_cassette),
        (ROOT / "scenarios/session/tool-first-turn.yaml", load_scenario),
    ):
        text = original.read_text(encoding="utf-8")
        cut = int(at * len(text))
        path = write(folder / original.name, text[:cut] + char + text[cut:])
        result = outcome("control characters", lambda: read(path))  # noqa: B023
        assert isinstance(result, (ScenarioError, WireError)) and "U+" in str(result), result
        assert f":{text.count(chr(10), 0, cut) + 1}:" in str(result), str(result)


def test_a_nul_in_a_cassette_names_its_line() -> None:
    with pytest.raises(WireError, match=r"x\.yaml:3: the character U\+0000"):
        from harness.wire.cassette import _load_yaml

        _load_yaml("version: 1\ninteractions:\n- a\x00\n", "x.yaml")


def test_a_parse_of_the_text_refuses_the_same() -> None:
    with pytest.raises(ScenarioError, match=":10: the tag !!set is not allowed"):
        parse_scenario(session_scenario("!!set {a}"), "x.yaml")
