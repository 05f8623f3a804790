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
import re
from collections.abc import Mapping
from typing import Any

import yaml

from harness.wire.recordings import event_pieces, framing_of

#: the name the serializer is registered under with vcrpy
NAME = "harness"


def split_body(body: str, content_type: str, uri: str = "") -> list[str] | None:
    """The events of a streamed body, in order, or None when it is not one (as
    ``harness.wire.recordings.framing_of`` tells). Joining the result gives ``body`` back."""
    framing = framing_of(content_type, body, uri)
    return None if framing is None else event_pieces(body, framing)


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
    request = entry.get("request")
    uri = request.get("uri", "") if isinstance(request, dict) else ""
    events = split_body(body["string"], _header(headers, "content-type"), str(uri or ""))
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
