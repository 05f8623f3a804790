"""The one module that drives vcrpy: a recording context, and the persister that scans a
cassette before it writes it, atomically.

vcrpy is imported only when a recording starts: importing it loads its patching machinery.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from harness._errors import HarnessError, UsageError
from harness.record import serializer
from harness.record.scrub import Finding, Scrubber, SecretPattern, SecretRefused

#: vcrpy's record modes that ``recording`` takes (pytest's ``rewrite`` is the plugin's)
RECORD_MODES = ("once", "new_episodes", "all", "none")

#: a filter gets (request, response) before the cassette is written and returns them (changed
#: or not), or None to leave the interaction out: vcrpy's ``before_save_interaction``
Filter = Callable[[Any, Any], Any]


class CassetteNotWritten(HarnessError):
    """The cassette could not be written (its folder, the disk); the old file is unchanged."""


class NothingRecorded(HarnessError):
    """No HTTP request went through a recording that asked for one (``require_traffic``):
    nothing was recorded or played back, and the cassette was not written."""

    def __init__(self, path: str) -> None:
        self.path = path
        super().__init__(f"{path}: no HTTP request went through the recording; nothing was written")


def register(vcr: Any) -> None:
    """Register the ``harness`` serializer on a ``vcr.VCR`` (pytest-recording's hook does)."""
    vcr.register_serializer(serializer.NAME, serializer)


@contextlib.contextmanager
def recording(
    path: str | os.PathLike[str],
    *,
    mode: str = "once",
    patterns: Iterable[str | re.Pattern[str] | SecretPattern] = (),
    filters: Iterable[Filter] = (),
    scrub_headers: Iterable[str] = (),
    scrub_query: Iterable[str] = (),
    vcr_config: Mapping[str, Any] | None = None,
    require_traffic: bool = False,
) -> Iterator[Any]:
    """Record (or replay) the HTTP traffic of ``httpx``, ``httpx2`` and every other library
    vcrpy patches, into the cassette at ``path``, scrubbed::

        with harness.record.recording("cassettes/chat.yaml", mode="once"):
            client.messages.create(..., stream=True)

    ``mode`` is vcrpy's record mode (once, new_episodes, all, none). ``patterns`` (regexes;
    a ``secret`` group marks the secret part) add to the built-in key patterns; ``filters``
    run on each interaction before the scan; ``scrub_headers`` and ``scrub_query`` name more
    headers and query parameters to scrub. ``vcr_config`` is more of ``use_cassette``'s
    arguments (pytest-recording's ``vcr_config``): its filters run before the scrubbing.

    On leaving, the cassette is scanned: a key-like string left anywhere raises
    ``SecretRefused`` and nothing is written. If the block raises, nothing is written either.
    A block through which no request went writes nothing; with ``require_traffic`` it raises
    ``NothingRecorded``. Yields vcrpy's ``Cassette``.
    """
    if mode not in RECORD_MODES:
        raise UsageError(f"record mode {mode!r} is not one of {', '.join(RECORD_MODES)}")
    import vcr  # type: ignore[import-untyped]

    scrubber = Scrubber(patterns, scrub_headers, scrub_query)
    persister = ScanningPersister(scrubber)
    config = dict(vcr_config or {})
    for key in ("persister", "serializer", "path", "record_mode", "record_on_exception"):
        config.pop(key, None)
    config["before_record_request"] = [
        *_listed(config.get("before_record_request", config.pop("before_record", None))),
        scrubber.scrub_request,
    ]
    config["before_record_response"] = [
        *_listed(config.get("before_record_response")),
        scrubber.scrub_response,
    ]
    config["before_save_interaction"] = [
        *_listed(config.get("before_save_interaction")),
        *filters,
    ]
    config.setdefault("decode_compressed_response", True)
    recorder = vcr.VCR(record_mode=mode)
    register(recorder)
    recorder.register_persister(persister)
    with recorder.use_cassette(
        os.fspath(path), serializer=serializer.NAME, record_on_exception=False, **config
    ) as cassette:
        yield cassette
        untouched = not cassette.dirty and cassette.play_count == 0  # vcrpy's save resets dirty
    # raised only now, with vcrpy's patches undone (an error inside its exit would leave them)
    if persister.failure is not None:
        raise persister.failure
    if untouched and require_traffic:
        raise NothingRecorded(os.fspath(path))


def _listed(value: Any) -> list[Any]:
    if value is None:
        return []
    if callable(value):
        return [value]
    return list(value)


class ScanningPersister:
    """vcrpy's persister: loads like vcrpy's own; saves only a cassette the scan finds clean,
    through a temporary file in the same folder renamed over the old one."""

    def __init__(self, scrubber: Scrubber) -> None:
        self.scrubber = scrubber
        self.failure: HarnessError | None = None

    def load_cassette(self, cassette_path: str, serializer: Any) -> Any:
        from vcr.persisters.filesystem import (  # type: ignore[import-untyped]
            CassetteDecodeError,
            CassetteNotFoundError,
        )
        from vcr.serialize import deserialize  # type: ignore[import-untyped]

        path = Path(cassette_path)
        if not path.is_file():
            raise CassetteNotFoundError()
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise CassetteDecodeError("the cassette is not UTF-8 text") from exc
        if not text.strip():
            raise CassetteNotFoundError()
        return deserialize(text, serializer)

    def save_cassette(self, cassette_path: str, cassette_dict: Any, serializer: Any) -> None:
        from vcr.serialize import serialize

        capture = _Capturing(serializer)
        text = serialize(cassette_dict, capture)
        findings = self.scrubber.scan(capture.data)
        if not findings:
            findings = _located(self.scrubber.scan_text(text, -1, "cassette text"), text)
        if findings:
            self.failure = SecretRefused(os.fspath(cassette_path), findings)
            return
        try:
            write_atomically(Path(cassette_path), text)
        except OSError as exc:
            self.failure = CassetteNotWritten(
                f"{cassette_path}: the cassette was not written: {exc.strerror or exc}"
            )


class _Capturing:
    """Hands vcrpy's serializer the data and keeps it for the scan."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.data: Mapping[str, Any] = {}

    def serialize(self, data: Mapping[str, Any]) -> str:
        self.data = data
        text: str = self.inner.serialize(data)
        return text


def _located(findings: list[Finding], text: str) -> list[Finding]:
    """A finding in the serialized text, by line (only what the parts did not show)."""
    return [
        Finding(
            -1,
            f"cassette line {text.count(chr(10), 0, f.offset) + 1}",
            f.offset,
            f.pattern,
            f.masked,
        )
        for f in findings
    ]


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all: a temporary file in the same folder,
    flushed, then renamed over ``path``; removed if anything fails."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
