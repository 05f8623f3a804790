"""The quirk cross product: every driver scenario under each quirk (and pair of quirks) of the
adapter's dialect that changes the stream, as named cases of its own, in the library, the
command line and the plugin."""

from __future__ import annotations

import itertools
import json
import shlex
from textwrap import dedent

import pytest

from harness.adapters.registry import BUNDLED
from harness.cli import main as harness_main
from harness.codecs import dialects
from harness.codecs.openai_chat import PER_MESSAGE_QUIRKS
from harness.library import library_path
from harness.replay import replay
from harness.replay.cases import cases_for
from harness.scenario import DriverScenario, Scenario
from harness.scenario.cases import driver_cases, gateway_only, select_cases
from tests.projects_for_tests import outside_xdist
from tests.scenarios_for_tests import library, library_driver

PARALLEL = library_driver("parallel-calls")
CHAT = dialects()["openai-chat"]
USAGE_MUTANT = "driver-mutant-openai-crashes-on-usage-chunk"


def stream(case: DriverScenario) -> tuple[object, ...]:
    return tuple(c.data for c in CHAT.encode(case.turn, case.quirks))


def test_the_scenario_as_written_comes_first_then_its_single_and_pair_cases() -> None:
    cases = driver_cases(PARALLEL, CHAT)
    assert cases[0] is PARALLEL and cases[0].case_id == "parallel-calls"
    added = [c.variant.split("+")[1:] for c in cases[1:]]
    singles = [a for a in added if len(a) == 1]
    assert singles and all(len(a) in (1, 2) for a in added)
    assert len(added) > len(singles), "parallel calls take pairs of quirks too"
    for case, quirks in zip(cases[1:], added, strict=True):
        assert case.case_id == f"parallel-calls[openai-chat+{'+'.join(quirks)}]"
        assert case.quirks == tuple(quirks) and case.turn == PARALLEL.turn


@pytest.mark.slow
def test_no_two_cases_feed_the_driver_the_same_stream() -> None:
    for scenario in library():
        if not isinstance(scenario, DriverScenario):
            continue
        for codec in dialects().values():
            cases = driver_cases(scenario, codec)
            streams = [tuple(c.data for c in codec.encode(x.turn, x.quirks)) for x in cases]
            assert len(set(streams)) == len(streams), (scenario.id, codec.name)


def test_a_quirk_only_gateways_send_tags_its_case_gateway() -> None:
    for case in driver_cases(PARALLEL, CHAT)[1:]:
        behind = any(gateway_only(CHAT, q) for q in case.quirks)
        assert ("gateway" in case.tags) == behind, case.case_id
    assert gateway_only(CHAT, "no_index") and not gateway_only(CHAT, "usage_chunk")


def test_a_scenario_with_quirks_of_its_own_adds_one_more_at_a_time() -> None:
    own = library_driver("no-index-on-call-deltas")
    assert own.quirks
    for case in driver_cases(own, CHAT)[1:]:
        assert (
            case.quirks[: len(own.quirks)] == own.quirks and len(case.quirks) == len(own.quirks) + 1
        )


def test_a_recorded_stream_is_fed_as_recorded_and_only_in_its_dialect() -> None:
    recorded = library_driver("recorded-openai-parallel-calls")
    assert driver_cases(recorded, CHAT) == (recorded,)
    assert driver_cases(recorded, dialects()["anthropic"]) == ()


def test_a_cancellation_is_never_placed_beyond_the_end_of_a_case() -> None:
    for scenario in library():
        if isinstance(scenario, DriverScenario) and scenario.cancel_after_reads:
            for codec in dialects().values():
                for case in driver_cases(scenario, codec):
                    assert scenario.cancel_after_reads < len(codec.encode(case.turn, case.quirks))


def test_selecting_none_one_case_or_an_unknown_quirk() -> None:
    assert select_cases(PARALLEL, CHAT, "none") == (PARALLEL,)
    (one,) = select_cases(PARALLEL, CHAT, ("usage_chunk", "no_done"))
    assert one.case_id == "parallel-calls[openai-chat+usage_chunk+no_done]"
    with pytest.raises(ValueError, match=r"has no quirk 'padded_json'.*usage_chunk"):
        select_cases(PARALLEL, CHAT, ("padded_json",))


@pytest.mark.slow
def test_every_reference_passes_every_case_of_the_library() -> None:
    scenarios = [s for s in library() if s.layer == "driver"]
    for info in BUNDLED.values():
        if info.layer == "driver" and info.kind == "reference":
            cases = cases_for(scenarios, info)
            assert len(cases) > 2 * len(scenarios)
            broken = [c.case_id for c in cases if replay(c, info).status in ("fail", "error")]
            assert not broken, (info.name, broken)


def empty_choices(case: Scenario) -> bool:
    """The case's stream has a chunk with no choices (what the usage-chunk mutant trips on)."""
    assert isinstance(case, DriverScenario)
    return any('"choices":[]' in str(c.data) for c in CHAT.encode(case.turn, case.quirks))


def per_message_only(case: Scenario) -> bool:
    """The case is judged only for drivers that pass calls on per message."""
    assert isinstance(case, DriverScenario)
    return bool(PER_MESSAGE_QUIRKS & set(case.quirks))


def test_a_mutant_only_a_quirk_shows_fails_exactly_the_cases_with_it() -> None:
    info = BUNDLED[USAGE_MUTANT]
    cases = cases_for([PARALLEL], info)
    failed = {c.case_id for c in cases if replay(c, info).status == "fail"}
    # a per-call mutant skips the cases judged only per message (interleaved fragments)
    shown = {c.case_id for c in cases if empty_choices(c) and not per_message_only(c)}
    assert failed == shown and "parallel-calls[openai-chat+usage_chunk]" in shown


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = harness_main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_printed_command_replays_exactly_the_failing_case(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "run", PARALLEL.path, "--adapter", USAGE_MUTANT, "-v")
    assert code == 1
    failing = [line.split()[1] for line in out.splitlines() if line.startswith("FAIL ")]
    commands = [
        line.split("reproduce: ", 1)[1] for line in out.splitlines() if "reproduce: " in line
    ]
    assert len(failing) == len(commands) > 1
    for case, command in itertools.islice(zip(failing, commands, strict=True), 3):
        argv = shlex.split(command)
        assert argv[0] == "harness"
        code, again, _ = run(capsys, *argv[1:], "--format", "json")
        results = json.loads(again)["results"]
        assert code == 1 and len(results) == 1
        assert f"{results[0]['scenario']}[{results[0]['case']}]" == case


def test_quirks_none_runs_the_scenarios_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "run", PARALLEL.path, "--adapter", USAGE_MUTANT, "--quirks=none")
    assert code == 0
    assert out.splitlines()[-1] == "1 scenarios: 1 passed, 0 failed, 0 errors, 0 skipped"


def test_an_unknown_quirk_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(
        capsys, "run", PARALLEL.path, "--adapter", USAGE_MUTANT, "--quirks=padded_json"
    )
    assert code == 2
    assert "--quirks: openai-chat has no quirk 'padded_json'" in err


@pytest.fixture
def chat_project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    outside_xdist(monkeypatch)
    folder = pytester.mkdir("scenarios")
    (folder / "parallel-calls.yaml").write_text(
        (library_path() / "driver" / "parallel-calls.yaml").read_text()
    )
    pytester.makepyprojecttoml(
        '[tool.pytest.ini_options]\nharness_library = "false"\nharness_scenarios = ["scenarios"]\n'
        'asyncio_default_fixture_loop_scope = "function"\n'
    )
    return pytester


def test_the_plugin_collects_one_item_per_case(chat_project: pytest.Pytester) -> None:
    result = chat_project.runpytest("-p", "no:cacheprovider", f"--harness-adapter={USAGE_MUTANT}")
    cases = cases_for([PARALLEL], BUNDLED[USAGE_MUTANT])
    # the mutant passes calls on per call: the cases judged only per message are skipped
    skipped = [c for c in cases if per_message_only(c)]
    failing = [c for c in cases if empty_choices(c) and not per_message_only(c)]
    assert skipped and not set(map(id, skipped)) & set(map(id, failing))
    result.assert_outcomes(
        passed=len(cases) - len(failing) - len(skipped), failed=len(failing), skipped=len(skipped)
    )
    out = result.stdout.str()
    assert f"parallel-calls[{USAGE_MUTANT}][openai-chat+usage_chunk]" in out
    assert "--harness-quirks=usage_chunk" in out
    # the printed selection runs that case alone
    again = chat_project.runpytest(
        "-p",
        "no:cacheprovider",
        f"--harness-adapter={USAGE_MUTANT}",
        "--harness-scenario=parallel-calls",
        "--harness-quirks=usage_chunk",
    )
    again.assert_outcomes(failed=1)


def test_an_adapter_from_the_fixture_runs_every_case_in_one_item(
    chat_project: pytest.Pytester,
) -> None:
    chat_project.makeconftest(
        dedent(
            f"""\
            import pytest

            @pytest.fixture
            def harness_adapter():
                return {USAGE_MUTANT!r}
            """
        )
    )
    chat_project.makepyprojecttoml(
        '[tool.pytest.ini_options]\nharness_library = "false"\nharness_scenarios = ["scenarios"]\n'
        'asyncio_default_fixture_loop_scope = "function"\n'
    )
    result = chat_project.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    cases = cases_for([PARALLEL], BUNDLED[USAGE_MUTANT])
    failing = sum(empty_choices(c) and not per_message_only(c) for c in cases)
    assert f"{failing} of the scenario's" in out
    assert "parallel-calls[openai-chat+usage_chunk]" in out


def test_a_quirk_that_rewrites_every_event_runs_alone_and_pairs_rework_one_event() -> None:
    anthropic = dialects()["anthropic"]
    text_then_call = library_driver("text-before-tool-call")
    cases = driver_cases(text_then_call, anthropic)
    paired = [c.quirks for c in cases if len(c.quirks) == 2]
    assert ("crlf",) in [c.quirks for c in cases] and paired
    assert not [p for p in paired if "crlf" in p or "padded_json" in p]
    base = anthropic.encode(text_then_call.turn)
    for a, b in paired:  # both change the chunks of one event at least
        touched = []
        for quirk in (a, b):
            mine = anthropic.encode(text_then_call.turn, (quirk,))
            touched.append(
                {
                    origin
                    for origin in {c.origin for c in (*base, *mine)}
                    if [c.data for c in base if c.origin == origin]
                    != [c.data for c in mine if c.origin == origin]
                }
            )
        assert touched[0] & touched[1], (a, b)


def test_a_scenarios_cases_are_found_once_and_let_go_with_it():
    import gc
    import weakref

    from harness.scenario.cases import _CASES, driver_cases
    from tests.scenarios_for_tests import library_driver

    codec = dialects()["openai-chat"]
    scenario = library_driver("parallel-calls")
    first = driver_cases(scenario, codec)
    again = driver_cases(scenario, codec)
    assert len(first) > 1 and first[0] is scenario and scenario in _CASES
    assert all(a is b for a, b in zip(first, again, strict=True))  # found once
    alive = weakref.ref(scenario)
    del scenario, first, again
    gc.collect()
    assert alive() is None  # the cache does not keep the scenario alive
