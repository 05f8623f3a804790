"""Recording real clients end to end: the anthropic and openai SDKs (on httpx2) and plain
httpx / httpx2 clients against a loopback server, with secrets planted everywhere."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness.cli import main
from harness.record import SecretRefused, recording
from harness.wire import read_cassette

ROOT = Path(__file__).resolve().parent.parent
TRAFFIC = ROOT / "cassettes" / "real-traffic"
ANTHROPIC_BODY = (TRAFFIC / "anthropic-sdk-python" / "tool_use_response.txt").read_bytes()
OPENAI_BODY = (
    TRAFFIC
    / "openai-python"
    / "f82268f2fefd5cfbc7eeb59c297688be2f6ca0849a6e4f17851b517310841d9b.bin"
).read_bytes()

# planted: every one must be absent from the cassette
API_KEY = "sk-ant-api03-Pl4ntedKey0Zx81Qm2Lp0Vb7Nc4Kd9Rt6Y"
OPENAI_KEY = "sk-proj-Pl4ntedKey1Qx7Vb1Nc8Rd3Zw6Hy0Js5Pa"
QUERY_KEY = "AIzaSyPl4ntedKey2Kq7Lm2Vb8Nc4Rt1Zw6Hy0J"
BODY_KEY = "gsk_Pl4ntedKey3Lm7Vb1Nc4Rt9Zw3Hy6Js0Pa"
COOKIE = "session=Pl4ntedCookie4"
ORGANIZATION = "org-Pl4ntedOrg5"
PROJECT = "proj_Pl4ntedProject6"
SET_COOKIE = "sid=Pl4ntedSetCookie7; HttpOnly"
RESPONSE_ORG = "Pl4ntedResponseOrg8"
PLANTED = "Pl4nted"
RESPONSE_HEADERS = {
    "Set-Cookie": SET_COOKIE,
    "anthropic-organization-id": RESPONSE_ORG,
    "openai-organization": RESPONSE_ORG,
}


def anthropic_run(url: str) -> Any:
    import anthropic

    with (
        anthropic.Anthropic(
            base_url=url,
            api_key=API_KEY,
            default_headers={"Cookie": COOKIE, "anthropic-organization-id": ORGANIZATION},
            default_query={"key": QUERY_KEY},
            max_retries=0,
        ) as client,
        client.messages.stream(
            model="claude-loopback",
            max_tokens=64,
            messages=[{"role": "user", "content": "weather?"}],
            metadata={"user_id": BODY_KEY},
        ) as stream,
    ):
        return stream.get_final_message().model_dump()


def openai_run(url: str) -> Any:
    import openai

    with openai.OpenAI(
        base_url=f"{url}/v1",
        api_key=OPENAI_KEY,
        organization=ORGANIZATION,
        project=PROJECT,
        default_headers={"Cookie": COOKIE},
        default_query={"key": QUERY_KEY},
        max_retries=0,
    ) as client:
        chunks = client.chat.completions.create(
            model="gpt-4o",
            messages=[{"role": "user", "content": "weather?"}],
            stream=True,
            extra_body={"user_api_key": BODY_KEY},
        )
        return [chunk.model_dump() for chunk in chunks]


def plain_run(module: str) -> Callable[[str], Any]:
    def run(url: str) -> Any:
        httpx = __import__(module)
        with httpx.Client() as client:
            response = client.post(
                f"{url}/v1/messages",
                params={"key": QUERY_KEY, "alt": "sse"},
                headers={
                    "x-api-key": API_KEY,
                    "Authorization": f"Bearer {OPENAI_KEY}",
                    "OpenAI-Organization": ORGANIZATION,
                    "OpenAI-Project": PROJECT,
                    "Cookie": COOKIE,
                },
                json={"stream": True, "api_key": BODY_KEY},
            )
            return response.status_code, response.text

    return run


CLIENTS = {
    "anthropic": (anthropic_run, ANTHROPIC_BODY),
    "openai": (openai_run, OPENAI_BODY),
    "httpx": (plain_run("httpx"), ANTHROPIC_BODY),
    "httpx2": (plain_run("httpx2"), OPENAI_BODY),
}


@pytest.mark.parametrize("name", sorted(CLIENTS))
def test_a_recording_holds_no_planted_secret_and_replays_offline(
    name: str, loopback_stream: Any, tmp_path: Path
) -> None:
    run, body = CLIENTS[name]
    url = loopback_stream(body, "text/event-stream", RESPONSE_HEADERS)
    cassette = tmp_path / "cassettes" / f"{name}.yaml"
    with recording(cassette, mode="once"):
        live = run(url)
    # the secrets did reach the server: the scrubbing is the cassette's, not the client's
    [(_, path, sent_headers, sent_body)] = loopback_stream.requests
    assert QUERY_KEY in path and BODY_KEY.encode() in sent_body
    assert COOKIE in sent_headers.values()

    text = cassette.read_text(encoding="utf-8")
    assert PLANTED not in text
    assert "<scrubbed>" in text and "events:" in text
    [interaction] = read_cassette(cassette)
    assert interaction.response_body.encode() == body  # the body exactly as streamed

    loopback_stream.stop()
    with recording(cassette, mode="none"):
        replayed = run(url)
    assert replayed == live


def test_a_secret_echoed_in_the_response_refuses_the_cassette(
    loopback_stream: Any, tmp_path: Path
) -> None:
    echoed = b'event: error\ndata: {"error": "invalid key ' + API_KEY.encode() + b'"}\n\n'
    url = loopback_stream(echoed, "text/event-stream")
    cassette = tmp_path / "echo.yaml"
    with pytest.raises(SecretRefused) as refused, recording(cassette):
        plain_run("httpx2")(url)
    assert "interactions[0] response body, offset 42: anthropic-key (sk-a…" in str(refused.value)
    assert API_KEY not in str(refused.value)
    assert list(tmp_path.iterdir()) == []
    # vcrpy's patches are gone: the server answers directly
    assert plain_run("httpx")(url)[0] == 200


def test_a_compressed_stream_is_stored_decompressed_as_events(
    loopback_stream: Any, tmp_path: Path
) -> None:
    url = loopback_stream(
        gzip.compress(OPENAI_BODY), "text/event-stream", {"Content-Encoding": "gzip"}
    )
    cassette = tmp_path / "gzip.yaml"
    with recording(cassette):
        live = openai_run(url)
    text = cassette.read_text(encoding="utf-8")
    assert "!!binary" not in text and "events:" in text
    assert read_cassette(cassette)[0].response_body.encode() == OPENAI_BODY
    loopback_stream.stop()
    with recording(cassette, mode="none"):
        assert openai_run(url) == live


def test_nothing_is_written_when_the_block_raises(loopback_stream: Any, tmp_path: Path) -> None:
    url = loopback_stream(ANTHROPIC_BODY, "text/event-stream")
    cassette = tmp_path / "raised.yaml"
    with pytest.raises(RuntimeError), recording(cassette):
        plain_run("httpx")(url)
        raise RuntimeError("the user's code failed")
    assert not cassette.exists()


# -- harness record ---------------------------------------------------------------------------

SCRIPT = """
import sys
import httpx2

url, key = sys.argv[1], sys.argv[2]
response = httpx2.post(url + "/v1/messages", headers={"x-api-key": key}, json={"stream": True})
print(response.text.count("event: "), "events")
if len(sys.argv) > 3:
    raise ValueError("the script's own failure")
sys.exit(3 if __name__ == "__main__" else 4)
"""


def harness(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "harness", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.slow
def test_harness_record_runs_the_script_and_writes_a_scrubbed_cassette(
    loopback_stream: Any, tmp_path: Path
) -> None:
    url = loopback_stream(ANTHROPIC_BODY, "text/event-stream", RESPONSE_HEADERS)
    (tmp_path / "client.py").write_text(SCRIPT, encoding="utf-8")
    out = harness("record", "-o", "out/c.yaml", "client.py", url, API_KEY, cwd=tmp_path)
    assert out.returncode == 3, out.stderr  # the script's own exit code
    assert "15 events" in out.stdout
    text = (tmp_path / "out" / "c.yaml").read_text(encoding="utf-8")
    assert PLANTED not in text and "events:" in text

    out = harness("record", "-o", "out/raised.yaml", "client.py", url, API_KEY, "x", cwd=tmp_path)
    assert out.returncode == 1
    assert (
        'client.py", line 9' in out.stderr and "ValueError: the script's own failure" in out.stderr
    )
    assert "runpy" not in out.stderr
    assert "the cassette out/raised.yaml was not written" in out.stderr
    assert not (tmp_path / "out" / "raised.yaml").exists()

    loopback_stream.stop()
    out = harness(
        "record", "--record-mode", "none", "-o", "out/c.yaml", "client.py", url, API_KEY,
        cwd=tmp_path,
    )  # fmt: skip
    assert (out.returncode, out.stdout.strip()) == (3, "15 events"), out.stderr


@pytest.mark.slow
def test_harness_record_refuses_an_echoed_key_with_exit_2(
    loopback_stream: Any, tmp_path: Path
) -> None:
    echoed = b'data: {"echo": "' + API_KEY.encode() + b'"}\n\n'
    url = loopback_stream(echoed, "text/event-stream")
    (tmp_path / "client.py").write_text(SCRIPT, encoding="utf-8")
    out = harness("record", "-o", "c.yaml", "client.py", url, "unused", cwd=tmp_path)
    assert out.returncode == 2
    assert "interactions[0] response body, offset 16: anthropic-key" in out.stderr
    assert API_KEY not in out.stderr + out.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["client.py"]


def test_harness_record_of_a_script_making_no_request_says_so_and_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "quiet.py").write_text("print('computed locally')\n", encoding="utf-8")
    assert main(["record", "-o", "c.yaml", "quiet.py"]) == 1
    out, err = capsys.readouterr()
    assert out == "computed locally\n"
    assert err == (
        "harness: error: quiet.py made no HTTP request that the recording saw; nothing was "
        "recorded, and the cassette c.yaml was not written\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["quiet.py"]


def test_harness_record_replaying_for_a_script_making_no_request_says_so_and_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    recorded = (TRAFFIC / "llm" / "test_tool_use_basic.yaml").read_bytes()
    (tmp_path / "c.yaml").write_bytes(recorded)
    (tmp_path / "quiet.py").write_text("print('computed locally')\n", encoding="utf-8")
    assert main(["record", "--record-mode", "none", "-o", "c.yaml", "quiet.py"]) == 1
    assert capsys.readouterr().err == (
        "harness: error: quiet.py made no HTTP request that the recording saw; nothing was "
        "recorded or replayed, and the cassette c.yaml was left as it was\n"
    )
    assert (tmp_path / "c.yaml").read_bytes() == recorded


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--record-mode", "bogus", "-o", "c.yaml", "client.py"], "invalid choice: 'bogus'"),
        (["-o", "c.yaml", "missing.py"], "no script at missing.py"),
        (["-o", "client.py/c.yaml", "client.py"], "client.py is not a folder"),
        (["-o", "locked/c.yaml", "client.py"], "locked is not writable"),
        (["--record-mode", "none", "-o", "c.yaml", "client.py"], "there is none at c.yaml"),
        (["--secret-pattern", "(", "-o", "c.yaml", "client.py"], "not a regular expression"),
    ],
)
def test_harness_record_bad_input_is_exit_2(args: list[str], message: str, tmp_path: Path) -> None:
    (tmp_path / "client.py").write_text("raise SystemExit('never run')", encoding="utf-8")
    (tmp_path / "locked").mkdir(mode=0o500)
    if "locked/c.yaml" in args and os.access(tmp_path / "locked", os.W_OK):
        pytest.skip("this user can write into a read-only folder (root)")
    out = harness("record", *args, cwd=tmp_path)
    assert out.returncode == 2
    assert message in out.stderr
    assert "never run" not in out.stderr
