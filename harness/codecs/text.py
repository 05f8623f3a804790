"""How the codecs write text on the wire: JSON with raw UTF-8, and the line ends of SSE.

Real servers write non-ASCII characters as raw UTF-8 (the recordings under
``cassettes/real-traffic`` hold a raw multiplication sign, degree sign and emoji from OpenAI's Responses API, Gemini and
Anthropic, and none holds a ``\\uXXXX`` escape), so a body cut into reads can split a
character. Every codec writes so by default; ``ascii_escapes`` writes the escapes instead, as a
relay that re-encodes each event with an ASCII-only JSON encoder does.

Every SSE dialect ends its lines with LF by default; ``crlf`` and ``lone_cr`` write the other
two line ends the WHATWG event-stream format allows (a line ends with CRLF, LF or CR).

>>> dumps({"city": "Zürich"}, ())
'{"city":"Zürich"}'
>>> dumps({"city": "Zürich"}, ("ascii_escapes",))
'{"city":"Z\\\\u00fcrich"}'
>>> line_ends("data: 1\\n\\n", ("lone_cr",))
'data: 1\\r\\r'
"""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any

ASCII_ESCAPES = "ascii_escapes"
CRLF = "crlf"
LONE_CR = "lone_cr"

#: the description of ``ascii_escapes``, the same in every dialect
ASCII_ESCAPES_QUIRK = (
    "non-ASCII characters written as \\uXXXX escapes instead of raw UTF-8; gateway-only: no "
    "recorded server escapes, a relay that re-encodes events with Python's json.dumps does "
    "(ensure_ascii is on by default: https://docs.python.org/3/library/json.html#json.dump)"
)
#: the description of ``crlf`` in a dialect whose own servers write LF
CRLF_GATEWAY_QUIRK = (
    "CRLF line ends; gateway-only: proxies and gateways in front of the API that rewrite line "
    "ends (miruamel/xuan#194, Continuum-AI-Corp/OrcaRouter-Lite#98)"
)
#: the description of ``lone_cr``, the same in every SSE dialect
LONE_CR_QUIRK = (
    "every line ended by a lone CR, which the event-stream format allows "
    "(https://html.spec.whatwg.org/multipage/server-sent-events.html#parsing-an-event-stream); "
    "gateway-only: no recorded server sends it, a proxy that rewrites line ends may, and "
    "readers that split on LF alone stall on it (EdamAme-x/pentect#1438, "
    "Continuum-AI-Corp/OrcaRouter-Lite#98)"
)


def dumps(payload: Any, quirks: Collection[str], separators: tuple[str, str] = (",", ":")) -> str:
    """``payload`` as compact JSON on one line: raw UTF-8 unless ``ascii_escapes``."""
    return json.dumps(payload, separators=separators, ensure_ascii=ASCII_ESCAPES in quirks)


def line_end(quirks: Collection[str]) -> str:
    """The line end the quirks ask for: a lone CR, CRLF, or LF (the default)."""
    if LONE_CR in quirks:
        return "\r"
    return "\r\n" if CRLF in quirks else "\n"


def line_ends(text: str, quirks: Collection[str]) -> str:
    """SSE text written with LF line ends, with the line end the quirks ask for instead. Only
    for text whose every LF ends a line: JSON written on one line escapes any LF it holds."""
    end = line_end(quirks)
    return text if end == "\n" else text.replace("\n", end)
