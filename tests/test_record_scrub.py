"""Scrubbing at record time and the final scan that refuses a cassette."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from vcr.request import Request  # type: ignore[import-untyped]

from harness._errors import UsageError
from harness.record import PLACEHOLDER, Scrubber, SecretRefused, serializer
from harness.record._vcr import ScanningPersister

ROOT = Path(__file__).resolve().parent.parent
REAL_TRAFFIC = sorted((ROOT / "cassettes/real-traffic").glob("*/*.yaml"))

# planted, made up, key-shaped
SECRETS = {
    "anthropic-key": "sk-ant-api03-Zx81Qm2Lp0Vb7Nc4Kd9Rt6Yw3Hs5Jf1Gq8",
    "openai-project-key": "sk-proj-4fT9kLm2Qx7Vb1Nc8Rd3Zw6Hy0Js5Pa",
    "openai-key": "sk-9aB8cD7eF6gH5iJ4kL3mN2oP1qR0sT",
    "google-api-key": "AIzaSyD3x9Kq7Lm2Vb8Nc4Rt1Zw6Hy0Js5PaQx7",
    "groq-key": "gsk_8Kq2Lm7Vb1Nc4Rt9Zw3Hy6Js0PaQx5Fd",
    "xai-key": "xai-7Lm2Vb8Nc4Rt1Zw6Hy0Js5PaQx3Kq9",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjftJeZ4CVPmB92K27uhbUJU1p1r",
}


@pytest.mark.parametrize("name", sorted(SECRETS))
def test_each_kind_of_key_is_found_and_masked(name: str) -> None:
    secret = SECRETS[name]
    [finding] = Scrubber().scan_text(f'{{"echo": "{secret}"}}', 3, "response body")
    assert (finding.interaction, finding.part, finding.offset) == (3, "response body", 10)
    assert finding.pattern == name
    assert secret not in str(finding) and secret[:4] in finding.masked


@pytest.mark.parametrize(
    "text",
    [
        '{"id": "call_4XzlGBLtUe9dy3GVNV4jhq7h", "type": "function"}',
        '{"id": "toolu_01A09q90qw90lq917835lq9", "name": "get_weather"}',
        '{"id": "msg_019Q1hrJbZG26Fb9BQhrkHEr"}',
        '{"id": "chatcmpl-ABfwERreu9s99xXsVuOWtIB2UOx62"}',
        '{"thoughtSignature": "CiQBcsjafQ0hV2Q3uG7sPj9Yx3ZrmXl4nZqTgkHh1v8JQfW0bLEKcgFyyNp9"}',
        '{"max_tokens": 1024, "input_tokens": 377, "idempotency_key": '
        '"6f1c3e9a-2b4d-4f8e-9a7c-1d2e3f4a5b6c"}',
        "the task-management-system-for-everyone is ready",
    ],
)
def test_ordinary_ids_are_not_secrets(text: str) -> None:
    assert Scrubber().scan_text(text) == []
    assert Scrubber().scrub_text(text) == text


def test_credential_and_account_headers_are_scrubbed_keeping_the_scheme() -> None:
    request = Request(
        "POST",
        "https://api.example.test/v1/chat?api_key=abc123def456ghi789&alt=sse&key=AIzaSyD3x9",
        b'{"model": "m", "api_key": "Qx7Vb1Nc8Rd3Zw6Hy0Js5Pa4fT9kLm2", "n": 1}',
        {
            "Authorization": "Bearer " + SECRETS["openai-key"],
            "x-api-key": SECRETS["anthropic-key"],
            "api-key": "0123456789abcdef0123456789abcdef",
            "x-goog-api-key": SECRETS["google-api-key"],
            "OpenAI-Organization": "org-AbCdEf123",
            "OpenAI-Project": "proj_AbCdEf123",
            "Cookie": "session=abc",
            "x-groq-api-key": "whatever",
            "x-custom-token": "tok",
            "content-type": "application/json",
            "x-ratelimit-limit-tokens": "1000",
        },
    )
    scrubbed = Scrubber().scrub_request(copy.deepcopy(request))
    headers = dict(scrubbed.headers)
    assert headers["Authorization"] == f"Bearer {PLACEHOLDER}"
    for name in ("x-api-key", "api-key", "x-goog-api-key", "OpenAI-Organization"):
        assert headers[name] == PLACEHOLDER, name
    for name in ("OpenAI-Project", "Cookie", "x-groq-api-key", "x-custom-token"):
        assert headers[name] == PLACEHOLDER, name
    assert headers["content-type"] == "application/json"
    assert headers["x-ratelimit-limit-tokens"] == "1000"
    assert scrubbed.uri == (
        f"https://api.example.test/v1/chat?api_key={PLACEHOLDER}&alt=sse&key={PLACEHOLDER}"
    )
    assert json.loads(scrubbed.body) == {"model": "m", "api_key": PLACEHOLDER, "n": 1}


def test_response_headers_are_scrubbed_and_the_body_is_not() -> None:
    body = b'data: {"echo": "hello"}\n\n'
    response = {
        "status": {"code": 200, "message": "OK"},
        "headers": {
            "Set-Cookie": ["a=1", "b=2"],
            "anthropic-organization-id": ["0e1f2a3b"],
            "openai-organization": ["org-x"],
            "request-id": ["req_011CUn"],
        },
        "body": {"string": body},
    }
    scrubbed = Scrubber().scrub_response(copy.deepcopy(response))
    assert scrubbed["headers"]["Set-Cookie"] == [PLACEHOLDER, PLACEHOLDER]
    assert scrubbed["headers"]["anthropic-organization-id"] == [PLACEHOLDER]
    assert scrubbed["headers"]["openai-organization"] == [PLACEHOLDER]
    assert scrubbed["headers"]["request-id"] == ["req_011CUn"]
    assert scrubbed["body"]["string"] == body


def test_user_patterns_scrub_and_refuse() -> None:
    scrubber = Scrubber(patterns=[r"corp-(?P<secret>[0-9]{6})"])
    assert scrubber.scrub_text("id corp-123456 end") == f"id corp-{PLACEHOLDER} end"
    [finding] = scrubber.scan_text("x corp-654321")
    assert finding.pattern.startswith("user-pattern-1") and finding.offset == 7
    with pytest.raises(UsageError, match="not a regular expression"):
        Scrubber(patterns=["("])
    with pytest.raises(UsageError, match="matches the empty string"):
        Scrubber(patterns=["x*"])


@pytest.mark.slow
@pytest.mark.parametrize("path", REAL_TRAFFIC, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_real_recordings_are_not_refused_and_keep_their_bodies(path: Path) -> None:
    scrubber = Scrubber()
    interactions = []
    for entry in yaml.safe_load(path.read_text(encoding="utf-8"))["interactions"]:
        request, response = _vcrpy_shaped(entry)
        scrubbed = scrubber.scrub_request(copy.deepcopy(request))
        scrubbed_response = scrubber.scrub_response(copy.deepcopy(response))
        assert scrubbed.body == request.body
        assert scrubbed_response["body"] == response["body"]
        interactions.append({"request": scrubbed._to_dict(), "response": scrubbed_response})
    data = {"version": 1, "interactions": interactions}
    assert scrubber.scan(data) == []
    text = serializer.serialize(copy.deepcopy(data))
    assert scrubber.scan_text(text) == []


def test_a_secret_left_anywhere_refuses_the_cassette_and_nothing_is_written(
    tmp_path: Path,
) -> None:
    path = tmp_path / "out.yaml"
    cassette = {
        "requests": [
            Request(
                "POST",
                f"https://example.test/v1/{SECRETS['groq-key']}/chat",
                b"{}",
                {"x-forward": SECRETS["xai-key"]},
            )
        ],
        "responses": [
            {
                "status": {"code": 200, "message": "OK"},
                "headers": {"Content-Type": ["text/event-stream"]},
                "body": {"string": f'data: {{"key": "{SECRETS["anthropic-key"]}"}}\n\n'.encode()},
            }
        ],
    }
    persister = ScanningPersister(Scrubber())
    persister.save_cassette(str(path), cassette, serializer)
    assert not path.exists() and list(tmp_path.iterdir()) == []
    refused = persister.failure
    assert isinstance(refused, SecretRefused)
    located = {(f.interaction, f.part, f.offset, f.pattern) for f in refused.findings}
    assert located == {
        (0, "request uri", 24, "groq-key"),
        (0, "request header x-forward", 0, "xai-key"),
        (0, "response body", 15, "anthropic-key"),
    }
    message = str(refused)
    assert all(secret not in message for secret in SECRETS.values())
    assert "interactions[0] response body, offset 15: anthropic-key" in message


def test_a_clean_cassette_is_written_whole(tmp_path: Path) -> None:
    path = tmp_path / "deeper" / "out.yaml"
    path.parent.mkdir()
    path.write_text("old", encoding="utf-8")
    cassette = {
        "requests": [Request("GET", "https://example.test/v1/models", None, {})],
        "responses": [
            {"status": {"code": 200, "message": "OK"}, "headers": {}, "body": {"string": b"{}"}}
        ],
    }
    persister = ScanningPersister(Scrubber())
    persister.save_cassette(str(path), cassette, serializer)
    assert persister.failure is None
    assert [p.name for p in path.parent.iterdir()] == ["out.yaml"]
    requests, responses = persister.load_cassette(str(path), serializer)
    assert requests[0].uri == "https://example.test/v1/models"
    assert responses[0]["body"]["string"] == b"{}"


def _vcrpy_shaped(entry: dict[str, Any]) -> tuple[Request, dict[str, Any]]:
    """An interaction as vcrpy holds it while recording: a Request and a response dict."""
    request, response = entry["request"], entry["response"]
    body = request.get("body")
    if "parsed_body" in request:
        body = json.dumps(request["parsed_body"])
    if isinstance(body, str):
        body = body.encode("utf-8")
    if "parsed_body" in response:
        response = {**response, "body": {"string": json.dumps(response.pop("parsed_body"))}}
    string = response["body"]["string"]
    response["body"] = {"string": string.encode("utf-8") if isinstance(string, str) else string}
    headers = {
        name: values[0] if isinstance(values, list) else values
        for name, values in request["headers"].items()
    }
    return Request(request["method"], request["uri"], body, headers), response
