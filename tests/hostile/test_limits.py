"""Nesting, long numbers and alias bombs in every reader: a located error past the limits, the
value within them; never a RecursionError or a ValueError."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness._errors import ScenarioError, WireError
from harness._yaml import MAX_DEPTH, MAX_NODES
from harness.scenario import load_scenario
from harness.wire import read_cassette
from harness.wire.recordings import recorded_responses
from tests.hostile.for_tests import FUZZ, outcome, run_cli, write

# past the limit PyYAML's scanner looks up to 1,024 characters ahead for a key: a deep input
# costs a fraction of a second however long it is, so fewer examples keep CI's time
DEPTHS = st.integers(min_value=1, max_value=3000)
FEWER = settings(FUZZ, max_examples=max(FUZZ.max_examples // 2, 1))
DIGITS = st.integers(min_value=1, max_value=20000)


def session_scenario(tool_input: str) -> str:
    """A session scenario whose tool input (at line 10) is ``tool_input``."""
    return (
        "id: x\ntitle: t\ndescription: d\nsource: s\nlayer: session\ntrace:\n"
        "  - user_message: {id: u1, text: hi}\n  - interaction_start: {id: i1}\n"
        "  - tool:\n"
        f"      {{id: t1, name: f, result: ok, input: {tool_input}}}\n"
        "  - message: {id: m1, text: done}\n  - interaction_end: {id: i1}\n"
    )


def cassette(body: str) -> str:
    return (
        "interactions:\n- request:\n    body: null\n    headers: {}\n    method: POST\n"
        "    uri: https://api.openai.com/v1/chat/completions\n  response:\n"
        "    headers: {Content-Type: [application/json]}\n    status: {code: 200, message: OK}\n"
        f"    parsed_body: {body}\nversion: 1\n"
    )


def nested(depth: int, inner: str = "1") -> str:
    return "[" * depth + inner + "]" * depth


def expect_limit(result: object, depth: int, line: int) -> None:
    if depth <= MAX_DEPTH - 5:  # the document's own levels come on top
        assert not isinstance(result, (ScenarioError, WireError)) or "deeper" not in str(result)
        return
    if depth > MAX_DEPTH:
        assert isinstance(result, (ScenarioError, WireError)), result
        assert "deeper than" in str(result) and f":{line}:" in str(result), str(result)


@FEWER
@given(depth=DEPTHS)
def test_deep_nesting_in_a_scenario(tmp_path_factory: pytest.TempPathFactory, depth: int) -> None:
    path = write(tmp_path_factory.mktemp("deep") / "x.yaml", session_scenario(nested(depth)))
    expect_limit(outcome("nesting", lambda: load_scenario(path)), depth, 10)


@FEWER
@given(depth=DEPTHS)
def test_deep_nesting_in_a_cassette(tmp_path_factory: pytest.TempPathFactory, depth: int) -> None:
    path = write(tmp_path_factory.mktemp("deep") / "c.yaml", cassette(nested(depth)))
    expect_limit(outcome("nesting", lambda: read_cassette(path)), depth, 10)


@FUZZ
@given(depth=DEPTHS)
def test_deep_nesting_in_a_history(tmp_path_factory: pytest.TempPathFactory, depth: int) -> None:
    text = '[{"role": "user",\n "content": ' + nested(depth, '""') + "}]"
    path = write(tmp_path_factory.mktemp("deep") / "h.json", text)
    code, _, err = run_cli("nesting", "check-history", str(path))
    if depth > MAX_DEPTH:
        assert code == 2 and f"{path}:2:" in err and "deeper than" in err, err


@FUZZ
@given(depth=DEPTHS)
def test_deep_nesting_in_a_recorded_stream(
    tmp_path_factory: pytest.TempPathFactory, depth: int
) -> None:
    body = 'data: {"object": "chat.completion.chunk", "x": ' + nested(depth) + "}\n\n"
    path = write(tmp_path_factory.mktemp("deep") / "r.txt", "\n" + body)
    outcome("nesting", lambda: recorded_responses(path))


@FUZZ
@given(digits=DIGITS, where=st.sampled_from(["scenario", "cassette", "history", "stream"]))
def test_long_integers(tmp_path_factory: pytest.TempPathFactory, digits: int, where: str) -> None:
    number = "7" * digits
    folder = tmp_path_factory.mktemp("long")
    if where == "scenario":
        path = write(folder / "x.yaml", session_scenario(f"{{n: {number}}}"))
        result = outcome("long numbers", lambda: load_scenario(path))
    elif where == "cassette":
        path = write(folder / "c.yaml", cassette(f"{{n: {number}}}"))
        result = outcome("long numbers", lambda: read_cassette(path))
    elif where == "stream":
        path = write(
            folder / "r.txt", 'data: {"object": "chat.completion.chunk", "n": ' + number + "}\n\n"
        )
        result = outcome("long numbers", lambda: recorded_responses(path))
    else:
        path = write(folder / "h.json", '[{"role": "user", "content": "x"},\n' + number + "]")
        code, _, err = run_cli("long numbers", "check-history", str(path))
        assert code in (1, 2)
        if digits > 4300:
            assert code == 2 and f"{path}:2:" in err, err
        return
    if digits > 4300 and where != "stream":
        assert isinstance(result, (ScenarioError, WireError)) and "too long" in str(result)


@FUZZ
@given(levels=st.integers(min_value=1, max_value=40), width=st.integers(min_value=2, max_value=9))
def test_alias_bombs(tmp_path_factory: pytest.TempPathFactory, levels: int, width: int) -> None:
    lines = ["a0: &a0 [x]"]
    for level in range(1, levels):
        lines.append(f"a{level}: &a{level} [" + ", ".join([f"*a{level - 1}"] * width) + "]")
    # the values the document stands for with its aliases expanded: a list and its items, a
    # mapping and its keys and values
    size = 2
    expanded = 1 + 1 + size
    for _ in range(1, levels):
        size = 1 + width * size
        expanded += 1 + size
    folder = tmp_path_factory.mktemp("bomb")
    path = write(folder / "x.yaml", "\n".join(lines) + "\nid: x\n")
    scenario = outcome("alias bombs", lambda: load_scenario(path))
    cassette_path = write(folder / "c.yaml", "\n".join(lines) + "\nversion: 1\ninteractions: []\n")
    cassette = outcome("alias bombs", lambda: read_cassette(cassette_path))
    if expanded > MAX_NODES + 10:  # + the few keys after the bomb
        assert isinstance(scenario, ScenarioError) and "aliases expanded" in str(scenario)
        assert isinstance(cassette, WireError) and "aliases expanded" in str(cassette)
    elif expanded < MAX_NODES:
        # within the limit: the scenario is refused for what it lacks, the cassette is read
        assert isinstance(scenario, ScenarioError) and "aliases" not in str(scenario)
        assert isinstance(cassette, tuple)


def test_within_the_limits_nothing_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "x.yaml", session_scenario(nested(MAX_DEPTH - 6)))
    load_scenario(path)


@pytest.mark.parametrize("reader", ["libyaml", "python"])
def test_too_many_values_are_refused_before_the_document_is_composed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reader: str
) -> None:
    """A long file of plain values past the limit: refused at the first value past it, not once
    the whole document is composed (a 65 MB one took 270 s and 10 GB that way)."""
    import harness._yaml as bounded

    monkeypatch.setattr(bounded, "MAX_NODES", 50)
    monkeypatch.setattr(bounded, "SCAN_ABOVE", 0)  # this short text is scanned as a long one
    if reader == "python":
        monkeypatch.setattr(bounded, "_HAS_LIBYAML", False)
    composed: list[object] = []

    def never(self: object, node: object) -> None:
        composed.append(node)
        raise AssertionError("the whole document was composed")

    monkeypatch.setattr(bounded.BoundedLoader, "construct_document", never)
    steps = "".join(f"  - interaction_start: {{id: i{n}}}\n" for n in range(60))
    path = write(tmp_path / "long.yaml", "id: x\nlayer: session\ntrace:\n" + steps)
    with pytest.raises(ScenarioError) as raised:
        load_scenario(path)
    (problem,) = raised.value.problems
    # the document, 'id', 'x', 'layer', 'session', 'trace' and the list are 7 values, then each
    # step (on lines 4 on) is 5: the 51st is in step 8
    assert problem.line == 4 + (51 - 7 - 1) // 5
    assert "more than 50 values" in problem.message
    assert not composed


@pytest.mark.parametrize("reader", ["libyaml scanned", "libyaml", "python"])
def test_the_values_limit_is_each_documents(monkeypatch: pytest.MonkeyPatch, reader: str) -> None:
    """Two documents, each within the limit and past it together: the file is refused for
    holding two, as before the values were counted as they are read."""
    import harness._yaml as bounded

    monkeypatch.setattr(bounded, "MAX_NODES", 50)
    monkeypatch.setattr(bounded, "SCAN_ABOVE", 0 if reader == "libyaml scanned" else 10**9)
    monkeypatch.setattr(bounded, "_HAS_LIBYAML", reader != "python")
    steps = "".join(f"  - interaction_start: {{id: i{n}}}\n" for n in range(5))
    document = "id: x\nlayer: session\ntrace:\n" + steps  # 32 values
    with pytest.raises(ScenarioError) as raised:
        bounded.load_yaml(document + "---\n" + document, "two.yaml")
    assert [p.message for p in raised.value.problems] == [
        "one scenario per file: found several documents"
    ]


@pytest.mark.parametrize("which", ["aliases", "nesting"])
def test_a_scanned_text_is_still_measured_where_the_count_proves_nothing(
    monkeypatch: pytest.MonkeyPatch, which: str
) -> None:
    """The early count lets the loader skip measuring a long text only when the count proves
    it within the limits: with aliases (which the count does not expand) or deep nesting, the
    measure still runs and refuses."""
    import harness._yaml as bounded

    monkeypatch.setattr(bounded, "SCAN_ABOVE", 0)
    monkeypatch.setattr(bounded, "MAX_NODES", 50)
    monkeypatch.setattr(bounded, "MAX_DEPTH", 5)
    if which == "aliases":  # 15 values written, 10 x 11 with the aliases expanded
        text = "a: &ten [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]\nb: [" + ", ".join(["*ten"] * 10) + "]\n"
        expected = "holds more than 50 values"
    else:
        text = "a: [[[[[[1]]]]]]\n"
        expected = "nests deeper than 5 levels"
    assert bounded.scan_values(text, "scenario") is False
    with pytest.raises(ScenarioError) as raised:
        bounded.load_yaml(text, "x.yaml")
    assert expected in raised.value.problems[0].message
