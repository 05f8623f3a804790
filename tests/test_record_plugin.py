"""The pytest side of recording: the harness_record marker and fixture, --record-mode, and
living with pytest-recording (installed, or left out with -p no:recording)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.test_record_e2e import ANTHROPIC_BODY, API_KEY, PLANTED, RESPONSE_HEADERS

pytestmark = pytest.mark.slow

TESTS = f"""
import os

import httpx2
import pytest

URL = os.environ["LOOPBACK_URL"]


def call():
    response = httpx2.post(
        URL + "/v1/messages", params={{"key": "{API_KEY}"}}, headers={{"x-api-key": "{API_KEY}"}},
        json={{"stream": True}},
    )
    return response.text.count("event: ")


@pytest.mark.harness_record
def test_marked():
    assert call() == 15


def test_fixture(harness_recording):
    assert call() == 15
    assert len(harness_recording) == 1


class TestGrouped:
    @pytest.mark.harness_record(record_mode="once")
    def test_in_class(self):
        assert call() == 15
"""

#: pytest-recording's vcr_config: its filters are merged with ours
CONFTEST = """
import pytest


@pytest.fixture
def vcr_config():
    return {"filter_headers": [("user-agent", "REDACTED-BY-VCR-CONFIG")]}
"""

WITH_AND_WITHOUT = pytest.mark.parametrize(
    "plugins", [(), ("-p", "no:recording")], ids=["pytest-recording", "no-pytest-recording"]
)


@pytest.fixture
def project(pytester: pytest.Pytester, loopback_stream: Any, monkeypatch: Any) -> Any:
    monkeypatch.setenv(
        "LOOPBACK_URL", loopback_stream(ANTHROPIC_BODY, "text/event-stream", RESPONSE_HEADERS)
    )
    pytester.makepyfile(test_calls=TESTS)
    return pytester


@WITH_AND_WITHOUT
def test_record_once_then_replay_by_default(
    project: pytest.Pytester, loopback_stream: Any, plugins: tuple[str, ...]
) -> None:
    recorded = project.runpytest_subprocess(*plugins, "--record-mode=once")
    recorded.assert_outcomes(passed=3)
    folder = project.path / "cassettes" / "test_calls"
    names = sorted(p.name for p in folder.iterdir())
    assert names == ["TestGrouped.test_in_class.yaml", "test_fixture.yaml", "test_marked.yaml"]
    for path in folder.iterdir():
        text = path.read_text(encoding="utf-8")
        assert PLANTED not in text and "events:" in text

    loopback_stream.stop()
    replayed = project.runpytest_subprocess(*plugins)  # the default: none, offline
    replayed.assert_outcomes(passed=3)


@WITH_AND_WITHOUT
def test_the_default_mode_never_records(project: pytest.Pytester, plugins: tuple[str, ...]) -> None:
    result = project.runpytest_subprocess(*plugins, "-k", "test_marked")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*CannotOverwriteExistingCassetteException*"])
    assert not (project.path / "cassettes").exists()


def test_pytest_recording_vcr_config_is_merged(project: pytest.Pytester) -> None:
    project.makeconftest(CONFTEST)
    project.runpytest_subprocess("--record-mode=once", "-k", "test_marked").assert_outcomes(
        passed=1
    )
    text = (project.path / "cassettes" / "test_calls" / "test_marked.yaml").read_text()
    assert "REDACTED-BY-VCR-CONFIG" in text and PLANTED not in text


def test_pytest_recording_tests_may_use_the_events_format(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_vcr="""
        import pytest
        from test_calls import call

        @pytest.mark.vcr(serializer="harness")
        def test_with_vcr():
            assert call() == 15
        """
    )
    project.runpytest_subprocess("--record-mode=once", "test_vcr.py").assert_outcomes(passed=1)
    [cassette] = (project.path / "cassettes" / "test_vcr").iterdir()
    assert "events:" in cassette.read_text(encoding="utf-8")


def test_a_refused_recording_fails_the_test_and_writes_nothing(
    pytester: pytest.Pytester, loopback_stream: Any, monkeypatch: Any
) -> None:
    echoed = b'data: {"echo": "' + API_KEY.encode() + b'"}\n\n'
    monkeypatch.setenv("LOOPBACK_URL", loopback_stream(echoed, "text/event-stream"))
    pytester.makepyfile(
        test_echo="""
        import os
        import httpx2
        import pytest

        @pytest.mark.harness_record
        def test_echo():
            httpx2.post(os.environ["LOOPBACK_URL"])
        """
    )
    result = pytester.runpytest_subprocess("--record-mode=once")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        ["*SecretRefused: *not written*", "*response body, offset 16: anthropic-key*"]
    )
    assert API_KEY not in result.stdout.str()
    assert not (pytester.path / "cassettes").exists()


@WITH_AND_WITHOUT
def test_a_bogus_record_mode_is_a_usage_error(
    pytester: pytest.Pytester, plugins: tuple[str, ...]
) -> None:
    result = pytester.runpytest_subprocess(*plugins, "--record-mode=bogus")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--record-mode*invalid choice*'bogus'*"])


def test_the_marker_is_registered(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess("--markers", "-p", "no:recording")
    result.stdout.fnmatch_lines(["@pytest.mark.harness_record*"])


def test_the_cassette_folder_is_beside_the_test_file(tmp_path: Path) -> None:
    from harness.record.plugin import default_path

    class Node:
        name = "test_x[a/b]"
        path = tmp_path / "tests" / "test_mod.py"

    class Request:
        node = Node()
        cls = None

    path = default_path(Request())  # type: ignore[arg-type]
    assert path == tmp_path / "tests" / "cassettes" / "test_mod" / "test_x[a-b].yaml"
