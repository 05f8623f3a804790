"""Shapes that only gateways, proxies and third-party servers send: the ``gateway`` tag of the
driver scenarios, the ``gateway-only`` codec quirks, and ``harness matrix`` showing the failures
on them apart from those on first-party shapes (docs/SCENARIOS.md, "First party or behind a
gateway")."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from harness.adapters.libs import Library
from harness.adapters.libs.explanations import _REGISTERED, Explanation, explanations
from harness.codecs.registry import dialects
from harness.matrix import (
    LibraryRun,
    document,
    render_json,
    render_markdown,
    render_summary,
    run_libraries,
)
from harness.results.causes import origin
from harness.scenario import DriverScenario, load_all, load_scenario
from harness.scenario.cases import GATEWAY_TAG, NONE

ROOT = Path(__file__).resolve().parents[1]
DRIVER = ROOT / "scenarios" / "driver"

#: what may send a gateway shape: gateways, proxies, translation layers and third-party
#: servers speaking another vendor's dialect; a tagged scenario names one of them
SENDERS = (
    "gateway",
    "proxy",
    "proxies",
    "relay",
    "litellm",
    "openrouter",
    "portkey",
    "bifrost",
    "bedrock",
    "ollama",
    "groq",
    "mistral",
    "deepseek",
    "vllm",
    "llama.cpp",
    "writer",
    "openai-compatible",
    "compatibility endpoint",
    "second layer",
)
#: a "library" that fails text-before-tool-call: a bundled driver mutant
MUTANT = Library(
    "mutant", "driver-mutant-anthropic-text-after-calls", ("harness",), ("streamharness",)
)


def driver_scenarios() -> list[DriverScenario]:
    scenarios, problems = load_all([str(DRIVER)])
    assert not problems
    return [s for s in scenarios if isinstance(s, DriverScenario)]


def gateway_only_quirks() -> dict[str, str]:
    quirks: dict[str, str] = {}
    for codec in dialects().values():
        for name, description in codec.quirks.items():
            if "gateway-only" in description:
                quirks[name] = description
    return quirks


def test_every_gateway_scenario_names_what_sends_its_shape() -> None:
    tagged = [s for s in driver_scenarios() if GATEWAY_TAG in s.tags]
    assert tagged
    silent = [
        s.id
        for s in tagged
        if not any(word in f"{s.source} {s.description}".lower() for word in SENDERS)
    ]
    assert not silent, f"tagged {GATEWAY_TAG} without naming a gateway or proxy: {silent}"


def test_a_scenario_with_a_gateway_only_quirk_is_tagged_gateway() -> None:
    quirks = gateway_only_quirks()
    assert {"same_index", "no_index", "duplicate_block_stop", "keep_alive"} <= set(quirks)
    # a quirk's name may be shared by dialects whose first-party servers differ (crlf): it
    # counts in the dialects the scenario runs in
    codecs = dialects()

    def gateway_only_here(scenario: DriverScenario, quirk: str) -> bool:
        names = scenario.dialects or tuple(codecs)
        return any("gateway-only" in codecs[n].quirks.get(quirk, "") for n in names)

    untagged = [
        f"{s.id} ({', '.join(q for q in s.quirks if gateway_only_here(s, q))})"
        for s in driver_scenarios()
        if GATEWAY_TAG not in s.tags and any(gateway_only_here(s, q) for q in s.quirks)
    ]
    assert not untagged, f"scenarios with gateway-only quirks but no {GATEWAY_TAG} tag: {untagged}"


def test_a_gateway_only_quirk_names_who_sends_it() -> None:
    for name, description in gateway_only_quirks().items():
        _, senders = description.split("gateway-only", 1)
        assert any(sender in senders.lower() for sender in SENDERS), (name, senders)


def test_first_party_shapes_stay_untagged() -> None:
    # recorded first-party traffic and shapes first-party servers send at times
    scenarios = {s.id: s for s in driver_scenarios()}
    for scenario_id in (
        "recorded-anthropic-tool-use",
        "recorded-openai-parallel-calls",
        "usage-chunk-empty-choices",
        "finish-stop-with-tool-calls",
        "truncated-arguments-max-tokens",
        "parallel-calls",
    ):
        assert GATEWAY_TAG not in scenarios[scenario_id].tags, scenario_id


@pytest.fixture(scope="module")
def split_run() -> LibraryRun:
    """The mutant over one first-party scenario and the same turn tagged gateway: both fail."""
    first = load_scenario(DRIVER / "text-before-tool-call.yaml")
    behind = dataclasses.replace(
        first, id="text-before-tool-call-behind-a-proxy", tags=(*first.tags, GATEWAY_TAG)
    )
    passing = load_scenario(DRIVER / "continuation-without-id.yaml")
    (run,) = run_libraries([behind, passing, first], [MUTANT], quirks=NONE)
    assert [r.status for r in run.results] == ["fail", "pass", "fail"]
    return run


@pytest.fixture
def explained(monkeypatch: pytest.MonkeyPatch) -> None:
    """The mutant's failures explained, one explanation for each scenario."""
    explanations("mutant")  # the package's own explanations are loaded first
    monkeypatch.setitem(
        _REGISTERED,
        "mutant",
        [
            Explanation(
                frozenset({"text-before-tool-call"}), library="mutant", id="in-the-open", text="."
            ),
            Explanation(
                frozenset({"text-before-tool-call-behind-a-proxy"}),
                library="mutant",
                id="behind",
                text=".",
            ),
        ],
    )


def test_the_json_counts_cases_and_causes_by_origin(split_run: LibraryRun) -> None:
    (library,) = json.loads(render_json(document([split_run])))["libraries"]
    assert library["cases"] == {
        "first-party": {"pass": 1, "fail": 1, "error": 0, "skip": 0},
        "gateway": {"pass": 0, "fail": 1, "error": 0, "skip": 0},
    }
    origins = {c["scenario"]: c["origin"] for c in library["unexplained"]}
    assert origins == {
        "text-before-tool-call-behind-a-proxy": "gateway",
        "text-before-tool-call": "first-party",
    }
    assert [origin(r) for r in split_run.failed_results()] == ["gateway", "first-party"]


def test_the_markdown_lists_first_party_bugs_first_and_counts_apart(
    split_run: LibraryRun, explained: None
) -> None:
    markdown = render_markdown(document([split_run]))
    assert "| 1 passed, 2 failed, 0 skipped | 1 (1 cause) | 1 (1 cause) |" in markdown
    assert "Contract: per-call. 1 passed, 2 failed, 0 skipped." in markdown
    section = markdown[markdown.index("## mutant") :]
    first = section.index("- **in-the-open** ")
    heading = section.index("### Behind gateways and proxies")
    behind = section.index("- **behind** ")
    assert first < heading < behind
    assert "No bug on what first-party servers send." not in section


def test_a_library_failing_only_behind_gateways_says_so(
    split_run: LibraryRun, explained: None
) -> None:
    only_behind = dataclasses.replace(
        split_run, results=tuple(r for r in split_run.results if origin(r) == "gateway")
    )
    markdown = render_markdown(document([only_behind]))
    assert "| 0 | 1 (1 cause) |" in markdown
    section = markdown[markdown.index("## mutant") :]
    assert section.index("No bug on what first-party servers send.") < section.index(
        "### Behind gateways and proxies"
    )


def test_the_demo_summary_counts_gateway_failures_apart(split_run: LibraryRun) -> None:
    first_only = dataclasses.replace(
        split_run, results=tuple(r for r in split_run.results if origin(r) == "first-party")
    )
    lines = render_summary([split_run, first_only]).splitlines()[1:]
    assert lines[0].endswith("per-call     1 passed, 1 failed (+1 gateway), 0 skipped")
    assert lines[1].endswith("per-call     1 passed, 1 failed, 0 skipped")
