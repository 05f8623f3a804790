"""An alias inside the value its anchor names (``a: &x [*x]``, a merge of a mapping into
itself) stands for a value without end: every reader of YAML refuses it at once, located,
instead of expanding it for ever."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness._errors import ScenarioError, WireError
from harness.scenario import load_scenario
from harness.wire import read_cassette
from tests.hostile.for_tests import FUZZ, outcome, run_cli, write


@st.composite
def self_referencing(draw: st.DrawFn) -> str:
    """A YAML value (on one line) whose anchor's own value holds its alias, at some depth and
    in some form."""
    inner = draw(st.sampled_from(["[*x]", "[1, *x]", "{k: *x}", "{<<: *x, k: 1}", "[{k: [*x]}]"]))
    wrappers = draw(st.lists(st.sampled_from(["[{}]", "{{w: {}}}"]), max_size=4))
    value = inner
    for wrapper in wrappers:
        value = wrapper.format(value)
    return f"&x {value}"


@FUZZ
@given(text=self_referencing(), before=st.integers(min_value=0, max_value=5))
def test_every_reader_refuses_an_alias_inside_its_own_anchor(
    tmp_path_factory: pytest.TempPathFactory, text: str, before: int
) -> None:
    padding = "".join(f"p{i}: {i}\n" for i in range(before))
    line = before + 1
    folder = tmp_path_factory.mktemp("self")
    scenario = write(folder / "x.yaml", padding + f"trace: {text}\nid: x\n")
    found = outcome("self-referencing aliases", lambda: load_scenario(scenario))
    assert isinstance(found, ScenarioError), found
    assert f"x.yaml:{line}:" in str(found) and "alias inside" in str(found), str(found)

    cassette = write(folder / "c.yaml", padding + f"interactions: {text}\nversion: 1\n")
    found = outcome("self-referencing aliases", lambda: read_cassette(cassette))
    assert isinstance(found, WireError), found
    assert f"c.yaml:{line}:" in str(found) and "alias inside" in str(found), str(found)


@pytest.mark.parametrize(
    "command", [["validate"], ["run", "--adapter", "session-reference"], ["show"]]
)
def test_commands_that_read_scenarios_refuse_it(
    tmp_path_factory: pytest.TempPathFactory, command: list[str]
) -> None:
    path = write(tmp_path_factory.mktemp("self") / "x.yaml", "id: x\ntrace: &t [*t]\n")
    code, _, err = run_cli("self-referencing aliases", *command, str(path))
    assert code == 2 and f"{path}:2:" in err and "alias inside" in err, err
