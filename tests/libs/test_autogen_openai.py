"""AutoGen's ``OpenAIChatCompletionClient.create_stream`` under its adapter: text at the read
that carried it, the calls and the turn's end from the final ``CreateResult``; a clean stream
passes, and the bugs its explanations name show."""

from __future__ import annotations

import pytest

from harness.model.driver import TextOut, ToolCallOut, TurnEnd
from harness.replay import replay
from harness.scenario import load_scenario
from tests.libs.chat_body import body, call
from tests.libs.driving import DRIVER, driven_by_reads

pytest.importorskip(
    "autogen_ext.models.openai", reason="autogen-ext is not installed (extra 'autogen')"
)

ADAPTER = "harness.adapters.libs.autogen_openai:make_adapter"

# AutoGen warns of a result with neither text nor calls
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def test_text_comes_out_at_its_read_and_the_calls_with_the_result() -> None:
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


def test_an_id_repeated_on_every_delta_is_joined() -> None:
    data = body(call(0, "call_k1", "kv_get", '{"key": '), call(0, "call_k1", None, '"a"}'))
    calls = [
        output for output, _ in driven_by_reads(ADAPTER, data) if isinstance(output, ToolCallOut)
    ]
    assert [c.id for c in calls] == ["call_k1call_k1"]


def test_a_cut_stream_ends_the_turn_all_the_same() -> None:
    result = replay(load_scenario(DRIVER / "cut-mid-arguments.yaml"), ADAPTER)
    assert {v.rule for v in result.violations} == {"error-surfaced"}
