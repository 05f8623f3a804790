"""Keeping secrets out of cassettes: scrubbing at record time, then a final scan that refuses.

Scrubbing replaces what is known to be secret with ``<scrubbed>``: credential, cookie,
organisation and project headers (request and response), keys in query strings, and key-like
strings in request bodies. Response bodies are never changed. The final scan then looks at
every part of the cassette about to be written; a key-like string anywhere (a key a server
echoed, one in a URL path or an unknown header) refuses the whole cassette, with where it is
and which pattern matched, never the secret itself.

>>> scrubber = Scrubber()
>>> scrubber.scrub_uri("https://example.test/v1/models?key=AIzaSyA1234567890abcdefghijklmnopqrstu&alt=sse")
'https://example.test/v1/models?key=<scrubbed>&alt=sse'
>>> [f.pattern for f in scrubber.scan_text("echo: sk-ant-api03-AbC123dEf456GhI789jKl012")]
['anthropic-key']
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote_plus

from harness._errors import HarnessError, UsageError

PLACEHOLDER = "<scrubbed>"

#: request and response headers whose values are always secret or identify an account
SECRET_HEADERS = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "x-api-key",
        "api-key",
        "apikey",
        "x-goog-api-key",
        "x-goog-user-project",
        "ocp-apim-subscription-key",
        "x-amz-security-token",
        "x-auth-token",
        "x-access-token",
        "cookie",
        "set-cookie",
        "openai-organization",
        "openai-project",
        "anthropic-organization-id",
        "x-organization-id",
        "x-project-id",
        "x-ms-client-principal",
        "x-goog-authenticated-user-email",
        "cf-access-client-secret",
        "x-portkey-api-key",
        "helicone-auth",
    }
)
# ...and any header whose name ends so (x-groq-api-key, x-mistral-token, x-session-token, ...)
_SECRET_HEADER_NAME = re.compile(
    r"(?:api[-_]?key|[-_]key|[-_]token|secret|password|credentials?|"
    r"organi[sz]ation(?:[-_]id)?|[-_]org[-_]id|[-_]project(?:[-_]id)?)$",
    re.IGNORECASE,
)

#: query-string parameters whose values are secret
SECRET_QUERY = frozenset(
    {
        "key",
        "api_key",
        "api-key",
        "apikey",
        "access_token",
        "token",
        "auth",
        "client_secret",
        "secret",
        "password",
        "sig",
        "signature",
        "x-goog-api-key",
        "code",
    }
)
_SECRET_QUERY_NAME = re.compile(r"(?:[-_]key|[-_]token|secret|password)$", re.IGNORECASE)

# Ordinary ids that look random but are not secrets (tool calls, messages, responses).
_ID_PREFIXES = (
    "call_",
    "toolu_",
    "srvtoolu_",
    "msg_",
    "chatcmpl-",
    "resp_",
    "fc_",
    "rs_",
    "ws_",
    "req_",
    "run_",
    "thread_",
    "asst_",
    "file-",
    "batch_",
)
_UUID = re.compile(r"[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")


def _looks_random(text: str) -> bool:
    """Letters and digits mixed with a key's entropy, and not an ordinary id."""
    if text.startswith(_ID_PREFIXES) or _UUID.fullmatch(text):
        return False
    has_digit = any(c.isdigit() for c in text)
    has_alpha = any(c.isalpha() for c in text)
    if not (has_digit and has_alpha):
        return False
    counts = Counter(text)
    entropy = -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())
    return entropy >= 3.5


@dataclass(frozen=True, slots=True)
class SecretPattern:
    """A named regex for key-like strings; the ``secret`` group (or the whole match) is the
    secret; ``check`` (when given) must accept it too."""

    name: str
    regex: re.Pattern[str]
    check: Callable[[str], bool] | None = None

    def finditer(self, text: str) -> Iterator[tuple[int, int]]:
        """The spans of the secrets in ``text``."""
        group = "secret" if "secret" in self.regex.groupindex else 0
        for match in self.regex.finditer(text):
            start, end = match.span(group)
            if start < 0 or (self.check is not None and not self.check(text[start:end])):
                continue
            yield start, end


def _pattern(name: str, regex: str, check: Callable[[str], bool] | None = None) -> SecretPattern:
    return SecretPattern(name, re.compile(regex), check)


#: the patterns every cassette is scrubbed and scanned with, most specific first
BUILTIN_PATTERNS: tuple[SecretPattern, ...] = (
    _pattern("anthropic-key", r"\bsk-ant-[A-Za-z0-9_-]{20,}"),
    _pattern("openai-project-key", r"\bsk-proj-[A-Za-z0-9_-]{20,}"),
    _pattern("openai-key", r"\bsk-[A-Za-z0-9_-]{20,}", _looks_random),
    _pattern("google-api-key", r"\bAIza[0-9A-Za-z_-]{35}"),
    _pattern("groq-key", r"\bgsk_[A-Za-z0-9]{20,}"),
    _pattern("xai-key", r"\bxai-[A-Za-z0-9]{20,}"),
    _pattern("huggingface-token", r"\bhf_[A-Za-z0-9]{30,}"),
    _pattern("github-token", r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})"),
    _pattern("aws-access-key", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    _pattern("slack-token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    _pattern("private-key", r"-----BEGIN [A-Z ]*PRIVATE KEY-----"),
    _pattern("jwt", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    _pattern("bearer-token", r"\b[Bb]earer\s+(?P<secret>[A-Za-z0-9._~+/-]{16,}=*)"),
    _pattern("basic-auth", r"\b[Bb]asic\s+(?P<secret>[A-Za-z0-9+/]{16,}={0,2})"),
    _pattern(
        "named-secret",
        # a long random value right after a name that says key, token, secret, password
        r"(?i)[A-Za-z0-9_.-]*(?:api[_-]?key|secret|token|password|passwd|credential|"
        r"access[_-]?key|private[_-]?key)[\\\"']*\s*[:=]\s*[\\\"']*"
        r"(?P<secret>[A-Za-z0-9_+/=.~-]{20,})",
        _looks_random,
    ),
    _pattern(
        "query-key",
        r"[?&;](?:key|sig|signature)=(?P<secret>[A-Za-z0-9_%+/=.~-]{16,})",
        _looks_random,
    ),
)


def compile_patterns(
    patterns: Iterable[str | re.Pattern[str] | SecretPattern],
) -> list[SecretPattern]:
    """A user's patterns as ``SecretPattern`` s; a regex string that does not compile is a
    ``UsageError``."""
    compiled = []
    for number, pattern in enumerate(patterns, 1):
        if isinstance(pattern, SecretPattern):
            compiled.append(pattern)
            continue
        try:
            regex = re.compile(pattern) if isinstance(pattern, str) else pattern
        except re.error as exc:
            raise UsageError(
                f"secret pattern {pattern!r} is not a regular expression: {exc}"
            ) from None
        if regex.search(""):
            raise UsageError(f"secret pattern {regex.pattern!r} matches the empty string")
        compiled.append(SecretPattern(f"user-pattern-{number} /{regex.pattern}/", regex))
    return compiled


@dataclass(frozen=True, slots=True)
class Finding:
    """A key-like string left in a cassette: where, and which pattern; never the secret."""

    interaction: int
    part: str
    offset: int
    pattern: str
    masked: str

    def __str__(self) -> str:
        where = (
            self.part if self.interaction < 0 else f"interactions[{self.interaction}] {self.part}"
        )
        return f"{where}, offset {self.offset}: {self.pattern} ({self.masked})"


class SecretRefused(HarnessError):
    """The cassette still held key-like strings after scrubbing; nothing was written."""

    def __init__(self, path: str, findings: Sequence[Finding]) -> None:
        self.path = path
        self.findings = tuple(findings)
        listed = "\n".join(f"  {finding}" for finding in self.findings[:20])
        more = len(self.findings) - 20
        super().__init__(
            f"{path}: not written: {len(self.findings)} key-like string(s) remain after "
            f"scrubbing:\n{listed}"
            + (f"\n  ... and {more} more" if more > 0 else "")
            + "\nScrub them before the cassette is written (--scrub-header NAME, or a filter "
            "for a body) and record again."
        )


def mask(secret: str) -> str:
    """What a report may show of a secret: a short prefix and its length."""
    shown = secret[:4] if len(secret) >= 16 else ""
    return f"{shown}…, {len(secret)} characters"


class Scrubber:
    """Scrubs requests and responses as vcrpy records them, and scans what is to be written.

    ``patterns`` are added to ``BUILTIN_PATTERNS``; ``headers`` and ``query`` name more
    headers and query parameters to scrub (any case).
    """

    def __init__(
        self,
        patterns: Iterable[str | re.Pattern[str] | SecretPattern] = (),
        headers: Iterable[str] = (),
        query: Iterable[str] = (),
    ) -> None:
        self.patterns = (*BUILTIN_PATTERNS, *compile_patterns(patterns))
        self.headers = SECRET_HEADERS | {name.lower() for name in headers}
        self.query = SECRET_QUERY | {name.lower() for name in query}

    # -- scrubbing --------------------------------------------------------------------------

    def secret_header(self, name: str) -> bool:
        lowered = name.lower()
        return lowered in self.headers or bool(_SECRET_HEADER_NAME.search(lowered))

    def scrub_header_value(self, value: str) -> str:
        """A scheme word (Bearer, Basic, ...) stays readable; the rest goes."""
        scheme, _, rest = value.partition(" ")
        if rest and scheme.isalpha() and len(scheme) <= 12:
            return f"{scheme} {PLACEHOLDER}"
        return PLACEHOLDER

    def scrub_uri(self, uri: str) -> str:
        """``uri`` with the values of secret query parameters replaced; the rest as it was."""
        head, mark, query = uri.partition("?")
        if not mark:
            return uri
        query, hash_mark, fragment = query.partition("#")
        pieces = []
        for piece in query.split("&"):
            name, equals, value = piece.partition("=")
            lowered = unquote_plus(name).lower()
            if equals and value and (lowered in self.query or _SECRET_QUERY_NAME.search(lowered)):
                piece = f"{name}={PLACEHOLDER}"
            pieces.append(piece)
        return f"{head}?{'&'.join(pieces)}{hash_mark}{fragment}"

    def scrub_text(self, text: str) -> str:
        """Every key-like string in ``text`` replaced."""
        spans = sorted(self._spans(text), key=lambda span: (span[0], -span[1]))
        out, last = [], 0
        for start, end, _ in spans:
            if start < last:
                continue
            out += [text[last:start], PLACEHOLDER]
            last = end
        out.append(text[last:])
        return "".join(out)

    def scrub_body(self, body: Any) -> Any:
        """A request body (bytes, text or None) with its key-like strings replaced; bytes that
        are not UTF-8 are left for the final scan."""
        if isinstance(body, str):
            return self.scrub_text(body)
        if isinstance(body, bytes):
            try:
                text = body.decode("utf-8")
            except UnicodeDecodeError:
                return body
            scrubbed = self.scrub_text(text)
            return body if scrubbed == text else scrubbed.encode("utf-8")
        return body

    def scrub_request(self, request: Any) -> Any:
        """vcrpy's ``before_record_request``: headers, query string and body of a vcrpy
        ``Request`` (vcrpy hands it a copy)."""
        for name in list(request.headers):
            if self.secret_header(name):
                request.headers[name] = self.scrub_header_value(str(request.headers[name]))
        request.uri = self.scrub_uri(request.uri)
        request.body = self.scrub_body(request.body)
        return request

    def scrub_response(self, response: dict[str, Any]) -> dict[str, Any]:
        """vcrpy's ``before_record_response``: the headers of a response dict; the body is
        kept as the server sent it."""
        headers = response.get("headers") or {}
        for name, values in list(headers.items()):
            if self.secret_header(name):
                listed = values if isinstance(values, list) else [values]
                headers[name] = [self.scrub_header_value(str(value)) for value in listed]
        return response

    # -- the final scan -----------------------------------------------------------------------

    def _spans(self, text: str) -> Iterator[tuple[int, int, SecretPattern]]:
        for pattern in self.patterns:
            for start, end in pattern.finditer(text):
                yield start, end, pattern

    def scan_text(self, text: str, interaction: int = 0, part: str = "text") -> list[Finding]:
        """The key-like strings in ``text``: one finding per place, named by the most
        specific pattern that matched there."""
        findings: list[Finding] = []
        taken: list[tuple[int, int]] = []
        for start, end, pattern in sorted(
            self._spans(text), key=lambda span: (span[0], self.patterns.index(span[2]))
        ):
            if any(start < stop and end > begin for begin, stop in taken):
                continue
            taken.append((start, end))
            findings.append(Finding(interaction, part, start, pattern.name, mask(text[start:end])))
        return findings

    def scan(self, data: Mapping[str, Any]) -> list[Finding]:
        """Every key-like string in a cassette about to be serialized (vcrpy's dict of
        ``interactions``, ``metadata``), located by interaction and part."""
        findings: list[Finding] = []
        for index, entry in enumerate(data.get("interactions") or []):
            request, response = entry.get("request") or {}, entry.get("response") or {}
            for part, text in _parts(request, response):
                findings += self.scan_text(text, index, part)
        if data.get("metadata"):
            findings += self.scan_text(repr(data["metadata"]), -1, "metadata")
        return findings


def _parts(request: Mapping[str, Any], response: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    yield "request uri", str(request.get("uri", ""))
    yield from _header_parts("request", request.get("headers") or {})
    if request.get("body") is not None:
        yield "request body", _as_text(request["body"])
    status = response.get("status") or {}
    if isinstance(status, Mapping) and status.get("message"):
        yield "response status message", str(status["message"])
    yield from _header_parts("response", response.get("headers") or {})
    body = response.get("body") or {}
    # vcrpy's dict, before the serializer writes events: the body is its ``string``
    if isinstance(body, Mapping) and body.get("string") is not None:
        yield "response body", _as_text(body["string"])


def _header_parts(side: str, headers: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    for name, values in headers.items():
        yield f"{side} header name", str(name)
        for value in values if isinstance(values, (list, tuple)) else [values]:
            yield f"{side} header {name}", str(value)


def _as_text(body: Any) -> str:
    if isinstance(body, bytes):
        # not UTF-8 (compressed, binary): latin-1 keeps each byte's offset
        try:
            return body.decode("utf-8")
        except UnicodeDecodeError:
            return body.decode("latin-1")
    return body if isinstance(body, str) else repr(body)
