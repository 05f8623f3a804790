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
import re
import sys
from collections.abc import Collection
from json.encoder import encode_basestring, encode_basestring_ascii
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
    return json_text(payload, separators, ensure_ascii=ASCII_ESCAPES in quirks)


#: a string value this long or longer is escaped once and its JSON reused (``json_text``)
LONG = 4096
#: the escaped long strings kept, by (string, escaped to ASCII), least recently used first, and
#: their bytes
_ESCAPED: dict[tuple[str, bool], str] = {}
_escaped_bytes = 0
#: the bytes of strings and escapes kept at most: a turn of 50 MB of text fits
ESCAPED_LIMIT = 256 << 20
#: a long string's place in the payload while the rest is written (``\u0000`` in the JSON)
_MARK = "\x00%d\x00"
_MARKED = re.compile(r'"\\u0000(\d+)\\u0000"')


def json_text(
    payload: Any,
    separators: tuple[str, str],
    *,
    ensure_ascii: bool,
    around: tuple[str, str] = ("", ""),
) -> str:
    """``json.dumps(payload, separators=..., ensure_ascii=...)``, exactly, between the two texts
    of ``around``, with every string value of ``LONG`` characters or more escaped once and
    reused: a turn's text and argument fragments are the same in every quirk case of a
    scenario, and escaping them again in each case's encoding was most of the work of encoding
    a large turn. The result is written in one piece, so a long string is copied once."""
    before, after = around
    longs: list[str] = []
    marked = _marked(payload, longs)
    text = json.dumps(marked, separators=separators, ensure_ascii=ensure_ascii)
    if not longs:
        return f"{before}{text}{after}"
    pieces = _MARKED.split(text)  # text, a mark's index, text, ...: each long in its place
    marks = [int(index) for index in pieces[1::2]]
    if sorted(marks) != list(range(len(longs))):  # a short string looked like a mark
        text = json.dumps(payload, separators=separators, ensure_ascii=ensure_ascii)
        return f"{before}{text}{after}"
    pieces[1::2] = [_escaped(longs[index], ensure_ascii) for index in marks]
    return "".join((before, *pieces, after))


def _marked(value: Any, longs: list[str]) -> Any:
    """``value`` with each long string in it replaced by its mark (the same object if none);
    a payload is a few levels of small containers: one call per container, none per leaf."""
    kind = type(value)
    if kind is str:
        if len(value) < LONG:
            return value
        longs.append(value)
        return _MARK % (len(longs) - 1)
    if kind is not dict and kind is not list:
        return value
    out = None
    for key, item in value.items() if kind is dict else enumerate(value):
        kind_of_item = type(item)
        if kind_of_item is str and len(item) < LONG:
            continue
        if kind_of_item is not str and kind_of_item is not dict and kind_of_item is not list:
            continue
        new = _marked(item, longs)
        if new is item:
            continue
        if out is None:
            out = dict(value) if kind is dict else list(value)
        out[key] = new
    return value if out is None else out


def _escaped(text: str, ensure_ascii: bool) -> str:
    """``text`` as a JSON string, as ``json.dumps`` writes it, kept for the next encoding."""
    global _escaped_bytes
    # printable ASCII is written the same either way (DEL is escaped only to ASCII)
    ensure_ascii = ensure_ascii and not (text.isascii() and "\x7f" not in text)
    key = (text, ensure_ascii)
    found = _ESCAPED.pop(key, None)
    if found is not None:
        _ESCAPED[key] = found  # used again: the last to go
        return found
    written = (encode_basestring_ascii if ensure_ascii else encode_basestring)(text)
    size = sys.getsizeof(text) + sys.getsizeof(written)
    if size <= ESCAPED_LIMIT:
        # the least recently used go first: a turn's own fragments, used by every case, stay
        # while the fragments of a quirk that cuts them anew (one case's) make room
        while _ESCAPED and _escaped_bytes + size > ESCAPED_LIMIT:
            oldest = next(iter(_ESCAPED))
            _escaped_bytes -= sys.getsizeof(oldest[0]) + sys.getsizeof(_ESCAPED.pop(oldest))
        _ESCAPED[key] = written
        _escaped_bytes += size
    return written


def sse_data(
    payload: Any,
    quirks: Collection[str],
    *,
    event: str | None = None,
    separators: tuple[str, str] = (",", ":"),
    pad: str = "",
) -> str:
    """One server-sent event carrying ``payload``: an ``event:`` line when ``event`` names one,
    the payload as ``dumps`` writes it (between two ``pad``) on a ``data:`` line, and the blank
    line that ends the event, each line ended as the quirks ask. In one piece: a turn's long
    text is copied once into its event, not once for each line around it.

    >>> sse_data({"n": 1}, ("crlf",), event="ping")
    'event: ping\\r\\ndata: {"n":1}\\r\\n\\r\\n'
    """
    end = line_end(quirks)
    head = f"data: {pad}" if event is None else f"event: {event}{end}data: {pad}"
    around = (head, f"{pad}{end}{end}")
    return json_text(payload, separators, ensure_ascii=ASCII_ESCAPES in quirks, around=around)


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
