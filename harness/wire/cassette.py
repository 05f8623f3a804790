"""Reading vcrpy ``version: 1`` cassettes, stock, in pydantic-ai's flavour or with streamed
bodies as events (the harness's own), into interactions.

>>> from harness.wire import read_cassette
>>> interactions = read_cassette("cassettes/real-traffic/llm-gemini/test_tools.yaml")
>>> interactions[0].response_body[:2], interactions[0].line
('[{', 2)
"""

from __future__ import annotations

import json
import os
import types
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from harness._errors import UsageError, WireError, excerpt
from harness._files import mib, read_text, size_setting
from harness._yaml import (
    _HAS_LIBYAML,
    SCAN_ABOVE,
    BoundedLoader,
    LimitExceeded,
    building,
    disallowed_tag,
    mark_line,
    reader_line,
    scan_values,
)

if _HAS_LIBYAML:
    from yaml.cyaml import CParser  # type: ignore[attr-defined]

#: A compressed body may not inflate to more bytes than this.
MAX_BODY_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Interaction:
    """One recorded request and its response, as vcrpy would replay it.

    Bodies are text: decompressed when ``Content-Encoding`` says so, decoded as UTF-8.
    ``response_headers`` maps each header name, spelled as recorded, to its values.
    ``index`` counts interactions from 0; ``line`` is where the interaction starts in ``path``.
    """

    request_method: str
    request_uri: str
    request_body: str | None
    response_status: int
    response_headers: Mapping[str, tuple[str, ...]]
    response_body: str
    index: int
    line: int
    path: str

    def header(self, name: str) -> tuple[str, ...]:
        """The values of a response header, whatever the case of its recorded name."""
        wanted = name.lower()
        return tuple(
            value
            for key, values in self.response_headers.items()
            if key.lower() == wanted
            for value in values
        )

    @property
    def response_source(self) -> str:
        """How errors about the response body name it (lines count within the body)."""
        return f"{self.path} interactions[{self.index}] response body"


def read_cassette(
    path: str | os.PathLike[str], interaction: int | None = None
) -> tuple[Interaction, ...]:
    """Every interaction of a vcrpy cassette, or only the one numbered ``interaction`` (the
    others are checked for shape, their bodies neither decompressed nor decoded); any problem
    is a ``WireError`` with file and line, a number the cassette does not have a
    ``UsageError``.

    Reads the stock format (bodies as strings, or ``!!binary`` and gzip-compressed),
    pydantic-ai's flavour (``parsed_body:`` holding the JSON body as YAML) and the harness's
    own (``body: {events: [...]}``, a streamed body as its events; ``harness.record``). The
    bodies read may come to ``max_cassette_bytes()`` in all, aliases and compression undone.
    """
    source = os.fspath(path)
    with building():
        return _read(source, interaction)


def _read(source: str, interaction: int | None) -> tuple[Interaction, ...]:
    text = read_text(source, what="cassette")
    root, data = _load_yaml(text, source)
    places = _check_shape(root, data, source)
    entries = list(enumerate(zip(data["interactions"], places, strict=True)))
    if interaction is not None:
        if not 0 <= interaction < len(entries):
            raise UsageError(
                f"{source} has {len(entries)} interactions (0 to {len(entries) - 1}); "
                f"there is no interaction {interaction}"
            )
        entries = [entries[interaction]]
    budget = _Budget(source)
    read = []
    for index, (entry, place) in entries:
        where = f"interactions[{index}]"
        entry = _restore_parsed_bodies(entry, place, where, source)
        budget.charge(_raw_size(entry), where, place.line)
        (request,), (response,) = _vcrpy_deserialize(text, entry, source)
        read.append(_interaction(index, request, response, entry, place, source, budget))
    return tuple(read)


#: what the bodies of a cassette may come to in all when ``HARNESS_MAX_CASSETTE_BYTES`` is not
#: set: one body repeated by aliases, or inflated from a few bytes, counts each time it is read
DEFAULT_MAX_CASSETTE_BYTES = 256 * 1024 * 1024
CASSETTE_LIMIT_VARIABLE = "HARNESS_MAX_CASSETTE_BYTES"


def max_cassette_bytes() -> int:
    """The limit in force on a cassette's bodies in all: ``HARNESS_MAX_CASSETTE_BYTES`` if
    set (``500M``, ``2G``, a number of bytes), else the default."""
    return size_setting(CASSETTE_LIMIT_VARIABLE, DEFAULT_MAX_CASSETTE_BYTES)


class _Budget:
    """The bytes the bodies read so far come to, within ``max_cassette_bytes()``."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.limit = max_cassette_bytes()
        self.used = 0

    @property
    def room(self) -> int:
        return self.limit - self.used

    def charge(self, size: int, where: str, line: int) -> None:
        self.used += size
        if self.used > self.limit:
            raise WireError(
                self.source,
                line,
                f"the cassette's bodies come to more than {mib(self.limit)} in all once "
                f"aliases and compression are undone (past it at {where}); refused. "
                f"{CASSETTE_LIMIT_VARIABLE} raises the limit",
            )


def _raw_size(entry: dict[str, Any]) -> int:
    """The bytes an interaction's bodies hold as written (before any decompression)."""
    response = entry["response"]["body"]
    bodies = [entry["request"].get("body"), response.get("string")]
    if "events" in response:
        bodies.extend(response["events"])
    return sum(len(body) for body in bodies if isinstance(body, (str, bytes)))


# -- loading ---------------------------------------------------------------------------------------
#
# Why vcrpy is used the way it is: vcrpy persists a cassette as `serializer.serialize(dict)`
# and reads it back through `vcr.serialize.deserialize(text, serializer)`, which takes any
# serializer object with a `deserialize(text)` method, checks for the pre-1.0 format and
# rebuilds `Request` objects and response dicts (string bodies encoded to bytes), which is what
# a replay sees. We call that function, so the stock format means what vcrpy says it means. We
# do not use vcrpy's own `yamlserializer`: its loader, besides the safe constructors, also
# builds `!!python/tuple`, `_io.BytesIO` and `builtins.iter` objects, and it keeps no line
# numbers. Our serializer is plain `yaml.SafeLoader` with the line marks kept, which also gives
# us `!!binary` bodies. pydantic-ai's flavour needs one more step before vcrpy sees the data:
# pydantic-ai registers its own serializer (tests/json_body_serializer.py) that writes JSON
# bodies as a `parsed_body:` YAML tree and, on reading, turns it back into `body` with
# `json.dumps`; the stock serializer rejects it (`Request` has no `parsed_body`). We do the same
# small step, `_restore_parsed_bodies`, with errors located at the `parsed_body:` line.


class _AlreadyParsed:
    """A vcrpy serializer whose YAML was already read, safely and with its lines."""

    def __init__(self, data: Any) -> None:
        self._data = data

    def deserialize(self, cassette_string: str) -> Any:
        return self._data


class _CassetteLoader(BoundedLoader):
    """The bounded safe loader, with ``!!binary`` (vcrpy writes compressed bodies so)."""

    what = "cassette"


_CassetteLoader.add_constructor(
    "tag:yaml.org,2002:binary", yaml.SafeLoader.yaml_constructors["tag:yaml.org,2002:binary"]
)


if _HAS_LIBYAML:

    class _FastCassetteLoader(CParser, _CassetteLoader):
        """``_CassetteLoader``'s constructors on libyaml's parser, ten times faster on a long
        cassette; a text it refuses is read again by ``_CassetteLoader`` for the message."""

        def __init__(self, stream: str) -> None:
            CParser.__init__(self, stream)
            yaml.constructor.SafeConstructor.__init__(self)
            yaml.resolver.Resolver.__init__(self)


def _load_yaml(text: str, source: str) -> tuple[yaml.Node, Any]:
    try:
        if _HAS_LIBYAML:
            try:
                within = len(text) > SCAN_ABOVE and scan_values(text, _CassetteLoader.what)
                return _load_with(_FastCassetteLoader(text), within, source)
            except (LimitExceeded, yaml.constructor.ConstructorError):
                raise  # the same problem at the same line as the Python loader's
            except yaml.YAMLError:
                pass  # libyaml refuses the text: the Python loader says where and why
        return _load_with(_CassetteLoader(text), False, source)
    except yaml.reader.ReaderError as exc:
        raise WireError(source, *reader_line(exc, text)) from None
    except LimitExceeded as exc:
        raise WireError(source, mark_line(exc), exc.problem or "") from None
    except yaml.constructor.ConstructorError as exc:
        problem = exc.problem or "cannot be loaded"
        if (tag := disallowed_tag(problem)) is not None:
            problem = (
                f"the tag {tag} is not allowed: a cassette is plain data (mappings, lists, "
                "strings, numbers and !!binary), read with a safe YAML loader"
            )
        raise WireError(source, mark_line(exc), problem) from None
    except yaml.MarkedYAMLError as exc:
        what = " ".join(part for part in (exc.context, exc.problem) if part)
        raise WireError(source, mark_line(exc), f"not valid YAML: {what}") from None
    except yaml.YAMLError as exc:
        raise WireError(source, 1, f"not valid YAML: {exc}") from None


def _load_with(loader: _CassetteLoader, within_limits: bool, source: str) -> tuple[yaml.Node, Any]:
    loader.within_limits = within_limits
    try:
        node = loader.get_single_node()
        if node is None:
            raise WireError(source, 1, "the file is empty; a vcrpy cassette is a YAML mapping")
        return node, loader.construct_document(node)
    finally:
        loader.dispose()


# -- shape -----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Place:
    """Where one interaction's parts are in the file (1-based lines)."""

    line: int
    request: int
    request_body: int
    response: int
    response_body: int


def _line(node: yaml.Node) -> int:
    return node.start_mark.line + 1


def _child(node: yaml.MappingNode, key: str) -> yaml.Node | None:
    for key_node, value_node in node.value:
        # a key tagged otherwise (``!!binary interactions``) is not the text key in the data
        if (
            isinstance(key_node, yaml.ScalarNode)
            and key_node.tag == "tag:yaml.org,2002:str"
            and key_node.value == key
        ):
            found: yaml.Node = value_node
            return found
    return None


def _check_shape(root: yaml.Node, data: Any, source: str) -> list[_Place]:
    """Check what vcrpy would trip over, and where each interaction's parts are."""
    if isinstance(data, list) and data and isinstance(data[0], dict) and "request" in data[0]:
        raise WireError(
            source,
            _line(root),
            "this is a cassette in vcrpy's pre-1.0 format (a bare list); re-record it",
        )
    if not isinstance(root, yaml.MappingNode) or not isinstance(data, dict):
        raise WireError(
            source,
            _line(root),
            "a vcrpy cassette is a mapping with `interactions:` and `version: 1`; "
            f"this file holds a {type(data).__name__}",
        )
    version = _child(root, "version")
    if version is None:
        raise WireError(source, _line(root), "no `version:`; a vcrpy cassette has `version: 1`")
    if isinstance(data["version"], bool) or data["version"] != 1:
        raise WireError(
            source,
            _line(version),
            f"`version: {excerpt(data['version'])}` is not supported; this reads vcrpy's `version: 1`",
        )
    interactions = _child(root, "interactions")
    if interactions is None:
        raise WireError(source, _line(root), "no `interactions:` list; not a vcrpy cassette")
    if not isinstance(interactions, yaml.SequenceNode):
        raise WireError(
            source, _line(interactions), "`interactions:` must be a list of request/response pairs"
        )
    places = []
    for index, (item, entry) in enumerate(
        zip(interactions.value, data["interactions"], strict=True)
    ):
        where = f"interactions[{index}]"
        if not isinstance(item, yaml.MappingNode) or not isinstance(entry, dict):
            raise WireError(
                source, _line(item), f"{where} must be a mapping with request and response"
            )
        parts: dict[str, yaml.MappingNode] = {}
        for part in ("request", "response"):
            node = _child(item, part)
            if node is None:
                raise WireError(source, _line(item), f"{where} has no `{part}:`")
            if not isinstance(node, yaml.MappingNode) or not isinstance(entry[part], dict):
                raise WireError(source, _line(node), f"{where} `{part}:` must be a mapping")
            parts[part] = node
        request, response = entry["request"], entry["response"]
        request_node, response_node = parts["request"], parts["response"]
        _check_keys(
            request, request_node, {"method", "uri", "body", "headers"}, f"{where} request", source
        )
        _check_keys(
            response, response_node, {"status", "headers", "body"}, f"{where} response", source
        )
        for key in ("method", "uri"):
            if not isinstance(request[key], str):
                raise WireError(
                    source, _line(request_node), f"{where} request `{key}:` must be a string"
                )
        _check_headers(request, request_node, f"{where} request", source)
        _check_headers(response, response_node, f"{where} response", source)
        status = response["status"]
        code = status.get("code") if isinstance(status, dict) else None
        if not isinstance(code, int) or isinstance(code, bool) or not 100 <= code <= 599:
            status_node = _child(response_node, "status")
            assert status_node is not None
            raise WireError(
                source,
                _line(status_node),
                f"{where} response `status:` must be a mapping with an HTTP status `code:` "
                f"(a whole number from 100 to 599), got {excerpt(code)}",
            )
        request_body = _child(request_node, "body") or _child(request_node, "parsed_body")
        response_body = _child(response_node, "body") or _child(response_node, "parsed_body")
        assert request_body is not None and response_body is not None  # _check_keys saw them
        if "body" in request:
            _check_text(request["body"], request_body, f"{where} request `body:`", source)
        if (
            "body" in response
            and isinstance(response["body"], dict)
            and "string" in response["body"]
        ):
            string = (
                _child(response_body, "string")
                if isinstance(response_body, yaml.MappingNode)
                else None
            )
            _check_text(
                response["body"]["string"],
                string or response_body,
                f"{where} response `string:`",
                source,
            )
        elif "body" in response:
            _check_events(response["body"], response_body, f"{where} response", source)
        places.append(
            _Place(
                _line(item),
                _line(request_node),
                _line(request_body),
                _line(response_node),
                _line(response_body),
            )
        )
    return places


def _check_text(value: Any, node: yaml.Node, where: str, source: str) -> None:
    """A body as vcrpy keeps it: text, bytes (``!!binary``) or nothing."""
    if value is not None and not isinstance(value, (str, bytes)):
        raise WireError(
            source,
            _line(node),
            f"{where} must be the body as text (or !!binary, or null), not {type(value).__name__}",
        )


def _check_events(body: Any, node: yaml.Node, where: str, source: str) -> None:
    """A streamed body in the ``harness`` format: ``events:``, a list of strings to join."""
    events = _child(node, "events") if isinstance(node, yaml.MappingNode) else None
    if not isinstance(body, dict) or events is None or len(body) != 1:
        raise WireError(
            source, _line(node), f"{where} `body:` must have a `string:` (or a list of `events:`)"
        )
    if not isinstance(events, yaml.SequenceNode) or not isinstance(body["events"], list):
        raise WireError(source, _line(events), f"{where} `events:` must be a list of strings")
    for position, (item, value) in enumerate(zip(events.value, body["events"], strict=True)):
        if not isinstance(value, str):
            raise WireError(
                source,
                _line(item),
                f"{where} `events[{position}]` must be a string (one event of the body), not "
                f"{type(value).__name__}",
            )


def _check_keys(
    part: dict[Any, Any], node: yaml.MappingNode, needed: set[str], where: str, source: str
) -> None:
    allowed = needed | {"parsed_body"}
    unknown = sorted(str(key) for key in part if key not in allowed)
    if unknown:
        raise WireError(source, _line(node), f"{where} has keys vcrpy does not know: {unknown}")
    if "body" in part and "parsed_body" in part:
        raise WireError(source, _line(node), f"{where} has both `body:` and `parsed_body:`")
    present = set(part) | ({"body"} if "parsed_body" in part else set())
    missing = sorted(needed - present)
    if missing:
        listed = ", ".join(f"`{key}:`" for key in missing)
        raise WireError(source, _line(node), f"{where} has no {listed}")


def _check_headers(part: dict[Any, Any], node: yaml.MappingNode, where: str, source: str) -> None:
    headers = part["headers"]
    headers_node = _child(node, "headers")
    assert headers_node is not None
    if not isinstance(headers, dict):
        raise WireError(source, _line(headers_node), f"{where} `headers:` must be a mapping")
    for name, values in headers.items():
        listed = values if isinstance(values, list) else [values]
        if not isinstance(name, str) or not all(isinstance(v, str) for v in listed):
            raise WireError(
                source,
                _line(headers_node),
                f"{where} header {excerpt(name)} must map a name to a string or a list of strings",
            )


def _restore_parsed_bodies(
    entry: dict[str, Any], place: _Place, where: str, source: str
) -> dict[str, Any]:
    """pydantic-ai's reading step: a `parsed_body:` tree becomes the JSON `body` again; and
    the ``harness`` format's, a body's events joined. A new entry: the one read stays as it is
    (aliases may share it with other interactions)."""
    parts = {}
    for kind, line in (("request", place.request_body), ("response", place.response_body)):
        part = dict(entry[kind])
        if "parsed_body" in part:
            try:
                body = json.dumps(part.pop("parsed_body"))
            except (TypeError, ValueError, RecursionError) as exc:
                reason = "it is nested too deeply" if isinstance(exc, RecursionError) else exc
                raise WireError(
                    source, line, f"{where} {kind} `parsed_body:` is not JSON data: {reason}"
                ) from None
            part["body"] = {"string": body} if kind == "response" else body
        parts[kind] = part
    body = parts["response"]["body"]
    if isinstance(body, dict) and "events" in body:
        parts["response"]["body"] = {"string": "".join(body["events"])}
    return {**entry, **parts}


def _vcrpy_deserialize(text: str, entry: Any, source: str) -> tuple[list[Any], list[Any]]:
    # Imported only when a cassette is read: importing vcr loads its HTTP-patching machinery.
    from vcr.serialize import deserialize  # type: ignore[import-untyped]

    data = {"version": 1, "interactions": [entry]}
    try:
        result = deserialize(text, _AlreadyParsed(data))
    except (ValueError, TypeError, KeyError) as exc:
        raise WireError(source, 1, f"vcrpy cannot read this cassette: {exc}") from None
    return list(result[0]), list(result[1])


# -- bodies ----------------------------------------------------------------------------------------


def _interaction(
    index: int,
    request: Any,
    response: Any,
    entry: Any,
    place: _Place,
    source: str,
    budget: _Budget,
) -> Interaction:
    where = f"interactions[{index}]"
    request_headers = entry["request"]["headers"]
    request_body = request.body
    if request_body is not None:
        request_body = _body_text(
            request_body,
            _header_values(request_headers, "content-encoding"),
            f"{where} request body",
            source,
            place.request_body,
            budget,
        )
    response_headers = {
        name: tuple(values) if isinstance(values, list) else (values,)
        for name, values in response["headers"].items()
    }
    body = response["body"]["string"]
    response_body = _body_text(
        b"" if body is None else body,
        _header_values(response_headers, "content-encoding"),
        f"{where} response body",
        source,
        place.response_body,
        budget,
    )
    return Interaction(
        request_method=request.method,
        request_uri=request.uri,
        request_body=request_body,
        response_status=response["status"]["code"],
        response_headers=types.MappingProxyType(response_headers),
        response_body=response_body,
        index=index,
        line=place.line,
        path=source,
    )


def _header_values(headers: Mapping[str, Any], name: str) -> list[str]:
    values: list[str] = []
    for key, value in headers.items():
        if key.lower() == name:
            values.extend([value] if isinstance(value, str) else value)
    return values


def _body_text(
    body: Any, encodings: list[str], where: str, source: str, line: int, budget: _Budget
) -> str:
    """A recorded body as text: undo its Content-Encoding, then decode UTF-8 strictly."""
    if isinstance(body, str):  # vcrpy leaves a string it could not encode (lone surrogates)
        try:
            body = body.encode("utf-8")
        except UnicodeEncodeError:
            raise WireError(source, line, f"{where} is not valid Unicode text") from None
    if not isinstance(body, bytes):
        raise WireError(
            source, line, f"{where} must be a string or !!binary, not {type(body).__name__}"
        )
    codings = [c.strip().lower() for value in encodings for c in value.split(",")]
    for coding in reversed(codings):  # the header lists them in the order they were applied
        if coding in ("", "identity") or not body:
            continue
        if coding in ("gzip", "x-gzip", "deflate"):
            size = len(body)
            body = _inflate(body, coding, where, source, line, budget.room + size)
            budget.charge(len(body) - size, where, line)
        else:
            raise WireError(
                source,
                line,
                f"{where} is {excerpt(coding)}-encoded; only gzip and deflate bodies can be read",
            )
    try:
        text: str = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        hint = (
            " It starts like gzip data, but no `Content-Encoding: gzip` header says so."
            if body.startswith(b"\x1f\x8b")
            else ""
        )
        raise WireError(
            source,
            line,
            f"{where} is binary, not UTF-8 text (byte 0x{body[exc.start]:02x} at offset "
            f"{exc.start}); binary streams such as AWS eventstreams are not supported.{hint}",
        ) from None
    if "\x00" in text:
        raise WireError(
            source,
            line,
            f"{where} holds NUL characters: it is binary (an AWS eventstream?), not text",
        )
    return text


def _inflate(body: bytes, coding: str, where: str, source: str, line: int, room: int) -> bytes:
    """Decompress within MAX_BODY_BYTES (and no more than ``room`` bytes, what is left of the
    cassette's limit: past it the budget refuses the body); gzip may have several members, as
    gzip.decompress allows."""
    most = min(MAX_BODY_BYTES, max(room, 0))
    wbits = zlib.MAX_WBITS | 16 if coding != "deflate" else zlib.MAX_WBITS
    out = bytearray()
    rest = body
    try:
        while rest:
            inflater = zlib.decompressobj(wbits)
            out += inflater.decompress(rest, most + 1 - len(out))
            if len(out) > most and most < MAX_BODY_BYTES:
                break  # the budget says why, naming the cassette's limit
            if len(out) > MAX_BODY_BYTES or inflater.unconsumed_tail:
                raise WireError(
                    source,
                    line,
                    f"{where} inflates to more than {MAX_BODY_BYTES:,} bytes; refused",
                )
            if not inflater.eof:
                raise zlib.error("the compressed data ends early (truncated)")
            rest = inflater.unused_data
            if coding == "deflate" or not rest.strip(b"\x00"):
                break
    except zlib.error as exc:
        raise WireError(
            source,
            line,
            f"Content-Encoding says {coding}, but {where} is not {coding} data: {exc}",
        ) from None
    return bytes(out)
