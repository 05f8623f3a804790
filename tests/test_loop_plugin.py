"""The ``harness_loop`` fixture, as a team uses it (pytester): its test is the client, its
requests are judged at teardown, and ``"all"`` makes the test once per loop scenario."""

from __future__ import annotations

import functools
from textwrap import dedent

import pytest

from harness.loop.find import loop_scenarios
from tests.projects_for_tests import outside_xdist

openai = pytest.importorskip("openai")
# In-process runs drop the modules they import: the HTTP stack the SDK loads on its first
# request is loaded here, so that it stays one copy for the tests that run after these
openai.DefaultHttpxClient().close()
pytest.importorskip("httpcore2")

#: a project's agent: the bundled Chat Completions loop, run in the test's own process, with a
#: bug when the test names one
AGENT = dedent(
    """\
    import openai
    import pytest

    from harness.adapters.loop.openai_agent import ChatConversation


    def run_agent(base_url, bug=None):
        client = openai.OpenAI(base_url=base_url, api_key="unused", max_retries=0)
        return ChatConversation(client, "gpt-4o", bug).run("Begin.")
    """
)


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    outside_xdist(monkeypatch)
    pytester.makepyfile(agent=AGENT)
    pytester.syspathinsert()
    pytester.makepyprojecttoml('[tool.pytest.ini_options]\nharness_library = "false"\n')
    common = ("-p", "no:cacheprovider", "-o", "asyncio_default_fixture_loop_scope=function")
    monkeypatch.setattr(pytester, "runpytest", functools.partial(pytester.runpytest, *common))
    return pytester


def test_a_correct_agent_passes_and_sees_the_urls_in_its_environment(project):
    project.makepyfile(
        test_agent=dedent(
            """\
            import os
            import pytest
            from agent import run_agent


            @pytest.mark.harness_loop("loop-two-tool-cycles", dialect="openai-chat", settle=0.05)
            def test_agent(harness_loop):
                assert os.environ["OPENAI_BASE_URL"] == harness_loop.openai_base_url
                assert os.environ["ANTHROPIC_BASE_URL"] == harness_loop.anthropic_base_url
                answer = run_agent(os.environ["OPENAI_BASE_URL"])
                assert answer == "Done: the summary is in summary.txt."
                assert len(harness_loop.requests) == 3
            """
        )
    )
    result = project.runpytest()
    result.assert_outcomes(passed=1)


def test_a_buggy_agent_fails_at_teardown_with_the_rules_messages(project):
    project.makepyfile(
        test_agent=dedent(
            """\
            import pytest
            from agent import run_agent


            @pytest.mark.harness_loop("loop-two-tool-cycles", settle=0.05)
            def test_agent(harness_loop):
                run_agent(harness_loop.openai_base_url, bug="pair-by-position")
            """
        )
    )
    result = project.runpytest()
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*ERROR at teardown of test_agent*",
            "*loop violation(s) in loop-two-tool-cycles[[]openai-chat[]]*",
            "*[[]loop-forward-pairing[]] response 3, *two-tool-cycles.yaml:*",
            "*request 3 (POST /v1/chat/completions) would be refused by the provider*",
        ]
    )


def test_all_runs_the_test_once_per_loop_scenario_its_dialect_carries(project):
    project.makepyfile(
        test_agent=dedent(
            """\
            import openai
            import pytest
            from agent import run_agent


            @pytest.mark.harness_loop("all", dialect="openai-chat", settle=0.05)
            def test_agent(harness_loop):
                try:
                    run_agent(harness_loop.openai_base_url)
                except (SystemExit, openai.APIConnectionError):
                    pass  # a stream cut short (the connection dropped, or the body ended
                    # before its finish_reason): the agent gives up, as it should
            """
        )
    )
    result = project.runpytest("-v")
    chat = [s.id for s in loop_scenarios() if "openai-chat" in s.dialects]
    result.assert_outcomes(passed=len(chat))
    result.stdout.fnmatch_lines([f"*test_agent[[]{name}[]] PASSED*" for name in sorted(chat)[:1]])


def test_a_scenario_file_beside_the_test_and_an_unknown_id(project):
    project.makepyfile(
        test_agent=dedent(
            """\
            import urllib.request
            import pytest


            @pytest.mark.harness_loop("mine.yaml", settle=0)
            def test_mine(harness_loop):
                pass  # sends nothing: the scenario's request is owed


            @pytest.mark.harness_loop("no-such-loop")
            def test_unknown(harness_loop):
                pass
            """
        )
    )
    project.makefile(
        ".yaml",
        mine=dedent(
            """\
            id: mine
            title: t
            description: d
            source: s
            layer: loop
            responses:
              - trace:
                  - cycle: {blocks: [{text: hi}]}
            """
        ),
    )
    result = project.runpytest()
    result.assert_outcomes(passed=1, errors=2)
    result.stdout.fnmatch_lines(
        [
            "*the program sent no request to the stand-in*",
            "*harness_loop: no loop scenario 'no-such-loop'*",
        ]
    )
