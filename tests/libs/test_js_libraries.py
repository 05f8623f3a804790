"""The Node.js libraries of the matrix (``js/libs/``: the AI SDK's streamText over three providers,
LangChain.js's ChatOpenAI) replayed as ``exec:`` adapters over single cases: a plain scenario
passes through each, and one bug of each shows as the rule it breaks. A group installs with
``npm ci --prefix js/libs/GROUP``; without node, or without that install, its tests skip."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness.adapters.libs import LIBRARIES, Library
from harness.adapters.registry import resolve_adapter
from harness.replay import cases_to_run, replay
from harness.replay.result import ScenarioResult
from harness.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[2]
DRIVER = ROOT / "scenarios" / "driver"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("node") is None, reason="needs node"),
]

#: library -> (the case that shows one of its bugs: scenario and quirks, the rule it breaks)
BUGS: dict[str, tuple[str, tuple[str, ...], str]] = {
    # a cut body ends with a finish part: the turn reads as finished
    "ai-sdk-openai": ("cut-mid-arguments", (), "error-surfaced"),
    # an event of a type the provider does not know is reported as an error part
    "ai-sdk-anthropic": ("parallel-calls", ("assembled_message",), "robust-framing"),
    # the last event, ended by a lone CR, is never parsed: Gemini's calls are lost
    "ai-sdk-google": ("parallel-calls", ("lone_cr",), "emit-once-early"),
    # a call the body cut off is completed by LangChain's partial JSON parser
    "langchain-js-openai": ("cut-mid-arguments", (), "strict-assembly"),
}


def library(name: str) -> Library:
    found = next(known for known in LIBRARIES if known.name == name)
    assert found.folder is not None
    if not (ROOT / found.folder / "node_modules").is_dir():
        pytest.skip(f"{name} is not installed: npm ci --prefix {found.folder}")
    return found


def run(name: str, scenario: str, *quirks: str) -> ScenarioResult:
    """The one case of ``scenario`` with ``quirks`` added (none: as written), from the project
    root, where the adapter's command finds its script."""
    info = resolve_adapter(library(name).adapter)
    loaded = [load_scenario(DRIVER / f"{scenario}.yaml")]
    (case,) = cases_to_run(loaded, info, quirks=quirks or "none")
    return replay(case, info, timeout=60)


@pytest.mark.parametrize("name", sorted(BUGS))
@pytest.mark.parametrize("scenario", ["text-before-tool-call", "parallel-calls"])
def test_a_plain_stream_passes(name: str, scenario: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    result = run(name, scenario)
    assert result.status == "pass", result.error or result.violations


@pytest.mark.parametrize("name", sorted(BUGS))
def test_a_bug_shows(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    scenario, quirks, rule = BUGS[name]
    result = run(name, scenario, *quirks)
    assert rule in {v.rule for v in result.violations}, result.error or result.violations


def test_a_cancelled_turn_is_the_library_s_own_abort(monkeypatch: pytest.MonkeyPatch) -> None:
    """ctx.signal is the request's abort signal: streamText reports the abort as a part, the
    adapter ends the turn cancelled, and the response is released."""
    monkeypatch.chdir(ROOT)
    result = run("ai-sdk-anthropic", "cancel-mid-arguments")
    assert result.status == "pass", result.error or result.violations
