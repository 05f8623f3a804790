"""Cassette bombs: one body repeated by aliases, or inflated from a few bytes, may come to no
more than ``HARNESS_MAX_CASSETTE_BYTES`` in all; only the interaction a reader names is
inflated; and a long valid cassette is read in time linear in its length."""

from __future__ import annotations

import base64
import gzip
import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness._errors import WireError
from harness.wire import read_cassette
from harness.wire.cassette import CASSETTE_LIMIT_VARIABLE
from tests.hostile.for_tests import FUZZ, ROOT, outcome, run_cli, write

URI = "https://api.openai.com/v1/chat/completions"


def _event(text: str) -> str:
    chunk = {
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": {"content": text}}],
    }
    return f"data: {json.dumps(chunk)}\n\n"


def _cassette(bodies: list[str], *, aliased: int = 0, gzipped: bool = False) -> str:
    """A cassette of one interaction per body, then ``aliased`` more that repeat the first by
    an alias (its response, compressed with ``gzipped``)."""
    lines = ["interactions:"]
    for index, body in enumerate(bodies):
        anchor = " &first" if index == 0 else ""
        lines += [
            "- request:",
            f"    method: POST\n    uri: '{URI}'\n    body: null\n    headers: {{}}",
        ]
        headers = "{Content-Type: [text/event-stream]" + (
            ", Content-Encoding: [gzip]}" if gzipped else "}"
        )
        if gzipped:
            data = base64.b64encode(gzip.compress(body.encode(), 9)).decode()
            string = f"!!binary {data}"
        else:
            string = json.dumps(body)
        lines += [
            f"  response:{anchor}",
            "    status: {code: 200, message: OK}",
            f"    headers: {headers}",
            f"    body: {{string: {string}}}",
        ]
    for _ in range(aliased):
        lines += [
            "- request:",
            f"    method: POST\n    uri: '{URI}'\n    body: null\n    headers: {{}}",
            "  response: *first",
        ]
    lines.append("version: 1")
    return "\n".join(lines) + "\n"


def _stream(size: int) -> str:
    return _event("x" * size) + "data: [DONE]\n\n"


def test_a_body_repeated_by_aliases_is_refused_past_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CASSETTE_LIMIT_VARIABLE, "4M")
    path = write(tmp_path / "c.yaml", _cassette([_stream(1 << 20)], aliased=8, gzipped=True))
    error = outcome("cassette bombs", lambda: read_cassette(path))
    assert isinstance(error, WireError), error
    assert CASSETTE_LIMIT_VARIABLE in error.message and "4.0 MiB" in error.message
    assert error.line > 1  # at the interaction past the limit, not the file's start
    # one interaction named: within the limit, whichever it is
    (only,) = outcome("cassette bombs", lambda: read_cassette(path, 7))
    assert only.index == 7 and len(only.response_body) > 1 << 20


def test_only_the_named_interaction_is_inflated(tmp_path: Path) -> None:
    text = _cassette([_stream(10), _stream(10)], gzipped=True)
    # the second body is no gzip data at all: reading it is an error, naming the first is not
    _first, second = text.split("!!binary ")[1:]
    text = text.replace(f"!!binary {second}", f"!!binary AAAA{second}")
    path = write(tmp_path / "c.yaml", text)
    assert isinstance(outcome("cassette bombs", lambda: read_cassette(path)), WireError)
    code, _, err = run_cli(
        "cassette bombs", "convert", str(path), "--interaction", "0", "-o", str(tmp_path / "s.yaml")
    )
    assert code == 0, err
    scenario = tmp_path / "linked.yaml"
    scenario.write_text(
        "id: linked\ntitle: A linked interaction\ndescription: the first of two\n"
        "source: https://vcrpy.readthedocs.io/\nlayer: driver\nrules: [strict-assembly]\n"
        "wire: {dialect: openai-chat, cassette: c.yaml, interaction: 0}\n"
    )
    code, _, err = run_cli("cassette bombs", "validate", str(scenario))
    assert code == 0, err


@pytest.mark.slow
def test_an_aliased_bomb_stays_under_a_gigabyte(tmp_path: Path) -> None:
    """The issue's case: one body inflating to 60 MiB, repeated by 40 aliases (2.4 GB read
    whole); measured in a child process, whose address space is capped so that a regression
    fails the test instead of the machine."""
    path = write(tmp_path / "c.yaml", _cassette([_stream(60 << 20)], aliased=40, gzipped=True))
    code = (
        "import sys\nfrom harness.wire import read_cassette\nfrom harness._errors import WireError\n"
        "try:\n    read_cassette(sys.argv[1])\nexcept WireError as e:\n    print(e)\n"
    )

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    done = subprocess.run(
        [sys.executable, "-c", code, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=cap,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=False,
    )
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    assert done.returncode == 0, done.stderr[-2000:]
    assert CASSETTE_LIMIT_VARIABLE in done.stdout, done.stdout
    assert peak < 1 << 30, f"{peak / (1 << 20):.0f} MiB"


@pytest.mark.slow
def test_a_long_valid_cassette_is_read_in_linear_time(tmp_path: Path) -> None:
    """20,000 interactions (9 MB): PyYAML's Python loader took over a minute."""
    path = write(tmp_path / "c.yaml", _cassette([_stream(200) for _ in range(20_000)]))
    (last,) = outcome("large valid inputs", lambda: read_cassette(path, 19_999))
    assert last.index == 19_999 and last.line > 20_000
    interactions = outcome("large valid inputs", lambda: read_cassette(path))
    assert len(interactions) == 20_000


@FUZZ
@given(
    sizes=st.lists(st.integers(min_value=0, max_value=300_000), min_size=1, max_size=4),
    aliased=st.integers(min_value=0, max_value=30),
    gzipped=st.booleans(),
    named=st.none() | st.integers(min_value=0, max_value=40),
)
def test_any_cassette_is_read_within_its_limit(
    tmp_path_factory: pytest.TempPathFactory,
    sizes: list[int],
    aliased: int,
    gzipped: bool,
    named: int | None,
) -> None:
    limit = 1 << 20
    path = write(
        tmp_path_factory.mktemp("bomb") / "c.yaml",
        _cassette([_stream(size) for size in sizes], aliased=aliased, gzipped=gzipped),
    )
    os.environ[CASSETTE_LIMIT_VARIABLE] = str(limit)
    try:
        if named is not None and named >= len(sizes) + aliased:
            with pytest.raises(Exception, match="there is no interaction"):
                read_cassette(path, named)
            return
        result = outcome("cassette bombs", lambda: read_cassette(path, named))
    finally:
        del os.environ[CASSETTE_LIMIT_VARIABLE]
    if isinstance(result, WireError):
        assert CASSETTE_LIMIT_VARIABLE in result.message, result
    else:
        assert sum(len(i.response_body) for i in result) <= limit
        streams = [_stream(size) for size in sizes] + [_stream(sizes[0])] * aliased
        expected = streams if named is None else [streams[named]]
        assert [i.response_body for i in result] == expected
