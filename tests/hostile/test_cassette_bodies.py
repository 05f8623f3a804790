"""A cassette's body that is not text (a number, a list, a mapping, true) and a status that is
no HTTP status are refused where the cassette is read, at their line, so that no command
(convert, run, bench --wire, serve) meets them later as a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness._errors import WireError
from harness.wire import read_cassette
from tests.hostile.for_tests import FUZZ, outcome, run_cli, write

NOT_TEXT = st.sampled_from(["12", "-1.5", "true", "[a, b]", "[]", "{x: 1}", "{}"])


def cassette(request_body: str, response_body: str, code: str = "200") -> str:
    return (
        "interactions:\n- request:\n"
        f"    body: {request_body}\n"  # line 3
        "    headers: {}\n    method: POST\n"
        "    uri: https://api.openai.com/v1/chat/completions\n  response:\n"
        "    headers: {Content-Type: [text/event-stream]}\n"
        f"    status: {{code: {code}, message: OK}}\n"  # line 9
        f"    body: {response_body}\n"  # line 10
        "version: 1\n"
    )


STREAM = '{string: "data: {\\"choices\\": []}\\n\\ndata: [DONE]\\n\\n"}'


@FUZZ
@given(value=NOT_TEXT, where=st.sampled_from(["request", "response"]))
def test_a_body_that_is_not_text_is_refused_at_its_line(
    tmp_path_factory: pytest.TempPathFactory, value: str, where: str
) -> None:
    text = (
        cassette(value, STREAM) if where == "request" else cassette("null", f"{{string: {value}}}")
    )
    path = write(tmp_path_factory.mktemp("bodies") / "c.yaml", text)
    found = outcome("cassette bodies", lambda: read_cassette(path))
    line = 3 if where == "request" else 10
    assert isinstance(found, WireError) and found.line == line, found
    assert "must be the body as text" in str(found), found
    code, _, err = run_cli("cassette bodies", "convert", str(path), "-o", str(path) + ".out.yaml")
    assert code == 2 and f"c.yaml:{line}:" in err, err


@FUZZ
@given(code=st.sampled_from(["0", "99", "600", "1000", "-200", "20000000000000000000000"]))
def test_a_status_that_is_no_http_status_is_refused(
    tmp_path_factory: pytest.TempPathFactory, code: str
) -> None:
    path = write(tmp_path_factory.mktemp("status") / "c.yaml", cassette("null", STREAM, code))
    found = outcome("cassette bodies", lambda: read_cassette(path))
    assert isinstance(found, WireError) and found.line == 9, found
    assert "HTTP status" in str(found), found


def test_text_bodies_and_real_statuses_are_read(tmp_path: Path) -> None:
    path = write(tmp_path / "c.yaml", cassette('"{}"', STREAM, "529"))
    (interaction,) = read_cassette(path)
    assert interaction.response_status == 529 and interaction.request_body == "{}"
