"""The text of the wire: every codec writes raw UTF-8 unless ``ascii_escapes``, every SSE dialect
can end its lines with CRLF or a lone CR, and each bug of reading that text (a read decoded on
its own, lines split at LF only, a lone CR not taken as a line end, thinking read as the answer)
is caught in every dialect whose servers send the shape, and only under it."""

from __future__ import annotations

import dataclasses
import re

import pytest

from harness.adapters.registry import BUNDLED
from harness.codecs import dialects
from harness.replay import ScenarioResult, replay
from harness.scenario import DriverScenario
from tests.scenarios_for_tests import library_driver, parse_driver

ALL = tuple(dialects())
SSE = tuple(
    n for n, c in dialects().items() if getattr(c, "content_type", "") != "application/json"
)

TEXT_AND_CALL = """\
id: text-and-call
title: t
description: d
source: tests
layer: driver
trace:
  - cycle:
      blocks:
        - text: {{text: "{text}", chunks: 2}}
        - tool_use: {{id: call_1, name: get_forecast, input: {{city: "{city}"}}, chunks: 2}}
"""


def text_and_call(text: str, city: str) -> DriverScenario:
    return parse_driver(TEXT_AND_CALL.format(text=text, city=city), "text-and-call.yaml")


NON_ASCII = text_and_call("Température à Zürich — 🙂", "Zürich")
ASCII = text_and_call("The weather in Oslo", "Oslo")
#: two calls, the first complete well before the body ends: a driver that frames nothing until
#: the body ends is late with it
TWO_CALLS = parse_driver(
    """\
id: two-calls
title: t
description: d
source: tests
layer: driver
trace:
  - cycle:
      blocks:
        - tool_use: {id: call_1, name: write_file, input: {path: a.rs, content: "fn a() {}"}, chunks: 3}
        - tool_use: {id: call_2, name: write_file, input: {path: b.rs, content: "fn b() {}"}, chunks: 3}
""",
    "two-calls.yaml",
)


def body(name: str, scenario: DriverScenario, quirks: tuple[str, ...] = ()) -> str:
    codec = dialects()[name]
    return "".join(c.data for c in codec.encode(scenario.turn, (*scenario.quirks, *quirks)))


def with_quirks(scenario: DriverScenario, *quirks: str) -> DriverScenario:
    return dataclasses.replace(scenario, quirks=(*scenario.quirks, *quirks))


def failure(result: ScenarioResult) -> str:
    return result.error or "\n".join(f"[{v.rule}] {v.message}" for v in result.violations)


@pytest.mark.parametrize("name", ALL)
def test_every_codec_writes_raw_utf8_unless_asked_to_escape(name: str) -> None:
    raw = body(name, NON_ASCII)
    assert "Température" in raw and "🙂" in raw
    assert "\\u00e9" not in raw and "\\ud83d" not in raw
    escaped = body(name, NON_ASCII, ("ascii_escapes",))
    assert escaped.isascii() and "\\u00fc" in escaped
    codec = dialects()[name]
    assert codec.decode(escaped, source="t") == codec.decode(raw, source="t")


@pytest.mark.parametrize("name", SSE)
@pytest.mark.parametrize(("quirk", "end"), [("crlf", "\r\n"), ("lone_cr", "\r")])
def test_every_sse_dialect_ends_its_lines_as_asked(name: str, quirk: str, end: str) -> None:
    plain = body(name, ASCII)
    ended = body(name, ASCII, (quirk,))
    assert ended.replace(end, "\n") == plain
    assert set(re.findall(r"\r\n|\r|\n", ended)) == {end}
    codec = dialects()[name]
    assert codec.decode(ended, source="t") == codec.decode(plain, source="t")


def caught(mutant: str, scenario: DriverScenario) -> ScenarioResult:
    """The mutant's result on ``scenario``, which its dialect's reference passes."""
    adapter = BUNDLED[f"driver-mutant-{mutant}"]
    dialect = str(getattr(adapter.factory(), "dialect"))  # noqa: B009 (a driver adapter's)
    scenario = dataclasses.replace(scenario, dialects=(dialect,))
    reference = BUNDLED[f"driver-{dialect}-bytes-reference"]
    assert replay(scenario, reference).status == "pass", failure(replay(scenario, reference))
    return replay(scenario, adapter)


DECODES = ["anthropic", "anthropic-agent", "openai-chat", "openai-responses", "ag-ui"]


@pytest.mark.parametrize("dialect", DECODES)
def test_a_read_decoded_alone_is_caught_on_raw_utf8_only(dialect: str) -> None:
    mutant = f"{dialect}-decodes-each-read"
    assert caught(mutant, ASCII).status == "pass"
    assert caught(mutant, with_quirks(NON_ASCII, "ascii_escapes")).status == "pass"
    result = caught(mutant, NON_ASCII)
    assert result.status == "fail" and "order" in result.rules_broken, failure(result)


@pytest.mark.parametrize("dialect", ["openai-chat", "openai-responses", "ag-ui"])
def test_lines_split_at_lf_only_are_caught_under_crlf(dialect: str) -> None:
    mutant = f"{dialect}-lines-end-at-lf"
    assert caught(mutant, TWO_CALLS).status == "pass"
    result = caught(mutant, with_quirks(TWO_CALLS, "crlf"))
    assert result.status == "fail" and "emit-once-early" in result.rules_broken, failure(result)


@pytest.mark.parametrize(
    "dialect", ["anthropic", "openai-chat", "openai-responses", "gemini-sse", "ag-ui"]
)
def test_a_lone_cr_not_taken_for_a_line_end_is_caught_under_lone_cr(dialect: str) -> None:
    mutant = f"{dialect}-no-lone-cr"
    # a call held back is late only once content after it is held back too: in Gemini, whose
    # calls arrive whole, text must follow the first call
    scenario = (
        library_driver("text-between-parallel-calls") if dialect == "gemini-sse" else TWO_CALLS
    )
    assert caught(mutant, with_quirks(scenario, "crlf")).status == "pass"
    result = caught(mutant, with_quirks(scenario, "lone_cr"))
    assert result.status == "fail" and "emit-once-early" in result.rules_broken, failure(result)


THINKING = library_driver("thinking-before-tool-call")


@pytest.mark.parametrize(
    ("mutant", "dialect"),
    [
        ("gemini-thought-as-text", "gemini-sse"),
        ("gemini-json-array-thought-as-text", "gemini-json-array"),
        ("responses-reasoning-as-text", "openai-responses"),
        ("ag-ui-thinking-as-text", "ag-ui"),
    ],
)
@pytest.mark.parametrize("quirks", [(), ("reasoning_events",)], ids=["plain", "reasoning"])
def test_thinking_read_as_the_answer_is_caught_in_each_dialect(
    mutant: str, dialect: str, quirks: tuple[str, ...]
) -> None:
    if quirks and dialect != "ag-ui":
        pytest.skip("REASONING_* events are AG-UI's")
    adapter = BUNDLED[f"driver-mutant-{mutant}"]
    assert getattr(adapter.factory(), "dialect") == dialect  # noqa: B009 (a driver adapter's)
    scenario = dataclasses.replace(with_quirks(THINKING, *quirks), dialects=(dialect,))
    reference = BUNDLED[f"driver-{dialect}-reference"]
    assert replay(scenario, reference).status == "pass"
    no_thinking = dataclasses.replace(ASCII, dialects=(dialect,))
    assert replay(no_thinking, adapter).status == "pass"
    result = replay(scenario, adapter)
    assert result.status == "fail" and "order" in result.rules_broken, failure(result)
    assert any("user wants tomorrow" in v.message for v in result.violations), failure(result)
