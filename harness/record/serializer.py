"""The ``harness`` cassette format: vcrpy's ``version: 1`` YAML, with streamed bodies kept as
their events.

A streamed response body (server-sent events, JSON lines, a JSON array streamed element by
element) is written as ``body: {events: [...]}``, one readable string per event with its
separator, in literal block style where YAML allows; the strings join back to exactly the
recorded text. Every other body is written as vcrpy writes it (``body: {string: ...}``).

>>> body = 'event: ping\\ndata: {}\\n\\nevent: stop\\ndata: {}\\n\\n'
>>> split_body(body, "text/event-stream")
['event: ping\\ndata: {}\\n\\n', 'event: stop\\ndata: {}\\n\\n']
>>> "".join(split_body(body, "text/event-stream")) == body
True
"""

from __future__ import annotations

import copy
import functools
import itertools
import re
from collections.abc import Mapping
from typing import Any

import yaml

#: the name the serializer is registered under with vcrpy
NAME = "harness"

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_JSON_LINES = frozenset(
    {
        "application/x-ndjson",
        "application/ndjson",
        "application/jsonl",
        "application/x-jsonlines",
        "application/json-lines",
        "application/jsonlines",
        "application/stream+json",
    }
)


def stream_kind(content_type: str) -> str | None:
    """``"sse"``, ``"lines"`` or ``"json"`` (maybe a streamed array) for a Content-Type, else
    None."""
    media = content_type.split(";", 1)[0].strip().lower()
    if media == "text/event-stream":
        return "sse"
    if media in _JSON_LINES:
        return "lines"
    if media == "application/json" or media.endswith("+json"):
        return "json"
    return None


def split_body(body: str, content_type: str) -> list[str] | None:
    """The events of a streamed body, in order, or None when it is not one.

    Joining the result gives ``body`` back, whatever ``body`` is.
    """
    kind = stream_kind(content_type)
    if kind == "sse":
        return split_sse_events(body)
    if kind == "lines":
        return _LINE.findall(body)
    if kind == "json":
        return split_json_array(body)
    return None


def split_sse_events(text: str) -> list[str]:
    """Server-sent events, each with the blank line that ends it (any of CRLF, CR, LF).

    Blank lines before an event's first field go with that event, so every item but the last
    ends with its separator.
    """
    events: list[str] = []
    current: list[str] = []
    started = False
    for line in _LINE.findall(text):
        current.append(line)
        if line.strip("\r\n"):
            started = True
        elif started:
            events.append("".join(current))
            current, started = [], False
    if current:
        events.append("".join(current))
    return events


def split_json_array(text: str) -> list[str] | None:
    """A JSON array whose elements are separated across lines (Gemini's streamed form), one
    item per element: the first holds ``[``, each other begins with its comma, the last holds
    ``]``. None for anything else (an object, a one-line array, text that is not an array)."""
    start = len(text) - len(text.lstrip())
    if not text.startswith("[", start):
        return None
    cuts: list[int] = []
    depth = 0
    in_string = escaped = False
    end = None
    for index in range(start, len(text)):
        char = text[index]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
            if depth == 0:
                end = index
                break
        elif char == "," and depth == 1:
            cuts.append(index)
    if end is None or text[end + 1 :].strip():
        return None
    # streamed: a line break between elements; a one-line or pretty-printed-in-one array stays
    if not cuts or not all(_line_break_around(text, cut) for cut in cuts):
        return None
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


def _line_break_around(text: str, cut: int) -> bool:
    """Whether the whitespace around the comma at ``cut`` holds a line break."""
    before = text[:cut]
    after = text[cut + 1 :]
    return "\n" in before[len(before.rstrip()) :] + after[: len(after) - len(after.lstrip())]


# -- vcrpy's serializer interface ----------------------------------------------------------------


def serialize(cassette_dict: Mapping[str, Any]) -> str:
    """vcrpy's serializer ``serialize``: the cassette as YAML, streamed bodies as events."""
    data = dict(cassette_dict)
    data["interactions"] = [_with_events(entry) for entry in data.get("interactions", [])]
    return yaml.dump(data, Dumper=_dumper(), allow_unicode=True, width=120)


def deserialize(cassette_string: str) -> Any:
    """vcrpy's serializer ``deserialize``: events are joined into ``string`` again."""
    from vcr.serializers import yamlserializer  # type: ignore[import-untyped]

    data = yamlserializer.deserialize(cassette_string)
    if isinstance(data, dict):
        for index, entry in enumerate(data.get("interactions") or []):
            body = entry.get("response", {}).get("body") if isinstance(entry, dict) else None
            if isinstance(body, dict) and "events" in body:
                body["string"] = join_events(body.pop("events"), f"interactions[{index}]")
    return data


def join_events(events: Any, where: str = "the body") -> str:
    """The recorded body of an ``events:`` list; anything but a list of strings is a
    ValueError."""
    if not isinstance(events, list):
        raise ValueError(f"{where} response `events:` must be a list of strings")
    for position, item in enumerate(events):
        if not isinstance(item, str):
            raise ValueError(
                f"{where} response `events[{position}]` must be a string, not {type(item).__name__}"
            )
    return "".join(events)


def _with_events(entry: Any) -> Any:
    response = entry.get("response") if isinstance(entry, dict) else None
    if not isinstance(response, dict):
        return entry
    body = response.get("body")
    if not isinstance(body, dict) or set(body) != {"string"} or not isinstance(body["string"], str):
        return entry
    headers = response.get("headers") or {}
    if _header(headers, "content-encoding") not in ("", "identity"):
        return entry
    events = split_body(body["string"], _header(headers, "content-type"))
    if events is None:
        return entry
    entry = copy.copy(entry)
    entry["response"] = {**response, "body": {"events": [_Text(event) for event in events]}}
    return entry


def _header(headers: Mapping[str, Any], name: str) -> str:
    for key, values in headers.items():
        if isinstance(key, str) and key.lower() == name:
            listed = values if isinstance(values, list) else [values]
            return ", ".join(str(value) for value in listed).strip().lower()
    return ""


class _Text(str):
    """An event: written in literal block style when YAML can carry it so."""

    __slots__ = ()


def _represent_text(dumper: yaml.BaseDumper, text: _Text) -> yaml.ScalarNode:
    # The emitter falls back to double quotes where a block cannot hold the text exactly
    # (trailing spaces, CR, other line separators); those need no help here.
    style = "|" if "\n" in text and not _SPECIAL.search(text) else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", str(text), style=style)


# characters a YAML loader would normalise inside a block scalar
_SPECIAL = re.compile("[\r\x85\u2028\u2029\ufeff]|[^\\S\n ]\n| \n")


@functools.cache
def _dumper() -> type[yaml.BaseDumper]:
    """vcrpy's cassette dumper (so everything else is written as vcrpy writes it), taught
    event strings; built on first use, as importing vcr patches nothing but costs time."""
    from vcr.serializers.yamlserializer import _CassetteDumper  # type: ignore[import-untyped]

    dumper: type[yaml.BaseDumper] = type("_HarnessDumper", (_CassetteDumper,), {})
    dumper.add_representer(_Text, _represent_text)
    return dumper
