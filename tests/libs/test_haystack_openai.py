"""Haystack's ``OpenAIChatGenerator`` under its adapter: the callback's text comes out at the
read that carried it and the reply's calls at the end; a clean stream passes, and the bugs its
explanations name show."""

from __future__ import annotations

import pytest

from harness.model.driver import TextOut, ToolCallOut, TurnEnd
from harness.replay import replay
from harness.scenario import load_scenario
from tests.libs.chat_body import body, call
from tests.libs.driving import DRIVER, driven_by_reads

pytest.importorskip("haystack", reason="haystack-ai is not installed (extra 'haystack')")
pytest.importorskip("openai", reason="the openai SDK is not installed (extra 'haystack')")

ADAPTER = "harness.adapters.libs.haystack_openai:make_adapter"


def test_text_comes_out_at_its_read_and_the_calls_with_the_reply() -> None:
    data = body({"content": "Reading."}, call(0, "call_1", "read", '{"f": 1}'))
    assert driven_by_reads(ADAPTER, data) == [
        (TextOut("Reading."), 2),
        (ToolCallOut("call_1", "read", '{"f": 1}', True), 4),
        (TurnEnd("tool_use"), 4),
    ]


@pytest.mark.parametrize("name", ["text-before-tool-call", "parallel-calls"])
def test_a_clean_stream_passes(name: str) -> None:
    result = replay(load_scenario(DRIVER / f"{name}.yaml"), ADAPTER)
    assert result.status == "pass", result.violations


def test_a_name_on_every_delta_is_joined() -> None:
    result = replay(load_scenario(DRIVER / "name-every-chunk.yaml"), ADAPTER)
    assert {v.rule for v in result.violations} == {"strict-assembly"}


def test_a_call_delta_without_an_index_makes_run_raise() -> None:
    with pytest.raises(ValueError, match="`index` must also be set"):
        driven_by_reads(ADAPTER, body(call(None, "call_1", "read", '{"f": 1}')))
