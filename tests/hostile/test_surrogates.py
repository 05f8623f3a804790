"""Halves of UTF-16 surrogate pairs, which JSON-style escapes can write: decided where text is
read. In YAML a pair written as two escapes is the one character it stands for, and a half
alone is refused at its line; an ``exec:`` adapter's answer holding a half alone is an error
result naming it. So every writer (the table, ``show``, JSON, HTML) only ever meets text."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness._errors import ScenarioError
from harness.library import library_path
from harness.replay import replay
from harness.scenario import load_scenario
from tests.hostile.for_tests import FUZZ, outcome, run_cli, write

HOSTILE = Path(__file__).parent.parent / "processes" / "hostile_process.py"
HIGH = st.integers(min_value=0xD800, max_value=0xDBFF)
LOW = st.integers(min_value=0xDC00, max_value=0xDFFF)
PLAIN = st.text(alphabet="abc xyz", max_size=5)


@st.composite
def escaped_text(draw: st.DrawFn) -> tuple[str, str | None]:
    """A double-quoted YAML string of escapes, and the text it stands for (None: it holds a
    half alone)."""
    parts: list[str] = []
    meant: list[str] | None = []
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        kind = draw(st.sampled_from(["pair", "high", "low", "plain"]))
        if kind == "pair":
            high, low = draw(HIGH), draw(LOW)
            parts.append(f"\\u{high:04x}\\u{low:04x}")
            if meant is not None:
                meant.append(chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)))
        elif kind == "plain":
            text = draw(PLAIN)
            parts.append(text)
            if meant is not None:
                meant.append(text)
        else:
            parts.append(f"\\u{draw(HIGH if kind == 'high' else LOW):04x}x")
            meant = None
    return '"' + "".join(parts) + '"', None if meant is None else "".join(meant)


@FUZZ
@given(title=escaped_text())
def test_yaml_joins_pairs_and_refuses_a_half_alone(
    tmp_path_factory: pytest.TempPathFactory, title: tuple[str, str | None]
) -> None:
    written, meant = title
    text = (
        f"title: {written}\nid: x\ndescription: d\nsource: s\nlayer: session\n"
        "trace:\n  - user_message: {text: hi}\n"
    )
    path = write(tmp_path_factory.mktemp("surrogates") / "x.yaml", text)
    found = outcome("surrogates", lambda: load_scenario(path))
    code, out, err = run_cli("surrogates", "show", str(path))
    if meant is None:
        assert isinstance(found, ScenarioError) and "x.yaml:1:" in str(found), found
        assert "half of a surrogate pair" in str(found)
        assert code == 2 and "x.yaml:1:" in err
    else:
        assert not isinstance(found, ScenarioError), found
        assert found.title == meant
        assert code == 0 and meant in out


@FUZZ
@given(half=st.one_of(HIGH, LOW), where=st.sampled_from(["id", "text"]))
def test_an_adapter_answer_holding_a_half_alone_is_an_error_result(half: int, where: str) -> None:
    answer = json.dumps(
        {"ok": True, "notifications": [], "transcript": {"sessions": {}, "updates": []}}
    )
    answer = answer.replace('"sessions": {}', f'"sessions": {{"m\\u{half:04x}": []}}')
    if where == "text":
        answer = answer.replace(
            '"notifications": []', f'"notifications": [{{"text": "\\u{half:04x}"}}]'
        )
    plan = json.dumps([["hello", {"layers": ["session"]}], ["raw", answer]])
    scenario = load_scenario(library_path() / "session" / "backward-attachment-basic.yaml")
    result = replay(scenario, f"exec:{sys.executable} {HOSTILE} '{plan}'", timeout=30)
    assert result.status == "error" and "half of a surrogate pair" in (result.error or ""), result
