"""Replay one recorded response two ways, and compare what its consumer would act on.

**Through the SDK** (``replay_through_sdk``): the provider's own client (``anthropic`` for
``anthropic``, ``openai`` for ``openai-chat`` and ``openai-responses``) sends its real request to
the recorded URL with a dummy key, vcrpy (record mode ``none``) answers it from the cassette, and
the SDK's stream API yields what its user acts on, turned into driver outputs by the same code as
the SDK-backed driver adapters (``harness.adapters.libs``).

**Directly** (``replay_direct``): no HTTP; the recorded body, decoded by its dialect's codec, is
replayed as a recorded-stream (``wire:``) driver scenario into a driver adapter, the reference of
its dialect unless another is given, through ``harness.replay``.

Both return a ``Replayed``: the text, the tool calls (arguments parsed as JSON) and the stop
reason, so the two can be compared with ``==``:

>>> direct = replay_direct("cassettes/real-traffic/llm/test_tool_use_basic.yaml", 0)
>>> [(call.name, call.arguments) for call in direct.tool_calls], direct.stop_reason
([('multiply', {'a': 1231, 'b': 2331})], 'tool_use')

``replay_through_sdk`` of the same interaction gives an equal ``Replayed``.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from harness._errors import UsageError
from harness._yaml import building
from harness.adapters.libs import LIBRARIES
from harness.adapters.registry import AdapterInfo, resolve_adapter
from harness.codecs import dialects
from harness.model.driver import (
    DriverObservation,
    DriverOutput,
    ErrorReport,
    Refusal,
    TextOut,
    ToolCallOut,
    TurnEnd,
)
from harness.replay import replay
from harness.scenario import recorded_scenario
from harness.wire.recordings import RecordedResponse, choose_stream, recorded_responses

# -- what both ways give ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Unparsed:
    """Tool call arguments that are not JSON, as the text they are."""

    text: str


@dataclass(frozen=True, slots=True)
class ReplayedCall:
    id: str
    name: str
    #: the arguments as a JSON value (an empty text counts as ``{}``), or ``Unparsed``
    arguments: Any


@dataclass(frozen=True, slots=True)
class Replayed:
    """What a consumer of one recorded response acts on. Equality compares the text, the tool
    calls, the stop reason and whether the replay broke off, not how the replay was made."""

    #: every text delta, joined
    text: str
    tool_calls: tuple[ReplayedCall, ...]
    #: the first turn end's reason; None when the consumer never said the turn ended
    stop_reason: str | None
    #: the consumer refused the stream or raised (its type and message); None when it did not
    error: str | None = None
    dialect: str = field(default="", compare=False)
    #: the recording, and the interaction in a cassette
    label: str = field(default="", compare=False)
    #: ``sdk`` or the driver adapter's name
    via: str = field(default="", compare=False)

    @property
    def error_kind(self) -> str | None:
        """The error's type alone (the messages of two ways differ)."""
        return None if self.error is None else self.error.split(":", 1)[0]


def normalise(
    outputs: Iterable[DriverOutput],
    *,
    error: str | None = None,
    dialect: str = "",
    label: str = "",
    via: str = "",
) -> Replayed:
    """Driver outputs in the form both ways are compared in."""
    text: list[str] = []
    calls: list[ReplayedCall] = []
    reason: str | None = None
    for output in outputs:
        if isinstance(output, TextOut):
            text.append(output.text)
        elif isinstance(output, ToolCallOut):
            calls.append(ReplayedCall(output.id, output.name, _parsed(output.arguments)))
        elif isinstance(output, TurnEnd):
            reason = output.stop_reason if reason is None else reason
        elif isinstance(output, Refusal) and error is None:
            error = f"Refusal: {output.reason}"
        elif isinstance(output, ErrorReport) and error is None:
            error = f"ErrorReport: {output.message}"
    return Replayed("".join(text), tuple(calls), reason, error, dialect, label, via)


def _parsed(arguments: str) -> Any:
    if not arguments.strip():
        return {}
    try:
        return json.loads(arguments)
    except ValueError:
        return Unparsed(arguments)


# -- choosing the response -------------------------------------------------------------------------


def recorded_stream(
    path: str | os.PathLike[str], interaction: int | None = None
) -> RecordedResponse:
    """The streamed response to replay: a cassette's interaction ``interaction`` (by default its
    first streamed one), or a raw body file's body (``choose_stream``)."""
    return choose_stream(recorded_responses(path, interaction), interaction)


# -- (a) through the SDK, answered by vcrpy --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Sdk:
    """A provider's SDK, as ``replay_through_sdk`` uses it for one dialect."""

    #: the SDK's import name
    package: str
    #: the SDK-backed driver adapter's module: its ``client``, ``open_stream`` and ``outputs``
    module: str
    #: the path the SDK sends the request to, after its ``base_url``
    endpoint: str
    #: where the request goes for a raw body, which records no URL
    default_url: str


def _sdks() -> dict[str, Sdk]:
    """By dialect, the SDKs of ``LIBRARIES`` that say how a recording of it replays through them."""
    return {
        library.replays.dialect: Sdk(
            library.modules[0],
            library.adapter.partition(":")[0],
            library.replays.endpoint,
            library.replays.default_url,
        )
        for library in LIBRARIES
        if library.replays is not None
    }


#: the dialects that replay through an SDK
SDKS: dict[str, Sdk] = _sdks()


#: a request matches the interaction it is answered with on these (the query is left out: the
#: SDK sends none of its own, and a recorded one, such as ``?beta=true``, says nothing here)
MATCH_ON = ("method", "scheme", "host", "port", "path")


class SdkReplay:
    """One recorded response, ready to be replayed through its SDK as many times as wanted."""

    def __init__(self, response: RecordedResponse) -> None:
        dialect = response.dialect or ""
        sdk = SDKS.get(dialect)
        if sdk is None:
            raise UsageError(
                f"{response.label} is {dialect}: replaying through an SDK is offered for "
                f"{', '.join(SDKS)} only"
            )
        if importlib.util.find_spec(sdk.package) is None:
            raise UsageError(
                f"{response.label} is {dialect}, replayed through the {sdk.package!r} SDK, "
                "which is not installed: pip install 'streamharness[libs]'"
            )
        uri = response.request_uri or sdk.default_url
        parts = urlsplit(uri)
        if not parts.path.endswith(sdk.endpoint):
            raise UsageError(
                f"{response.label} was requested at {uri}, which the {sdk.package} SDK cannot "
                f"ask for: it sends {dialect} requests to a path ending in {sdk.endpoint}"
            )
        self.response = response
        self.sdk = sdk
        self.base_url = f"{parts.scheme}://{parts.netloc}{parts.path[: -len(sdk.endpoint)]}"
        self.code = importlib.import_module(sdk.module)
        self.persister = _Persister(response, uri)

    def outputs(self) -> tuple[tuple[DriverOutput, ...], str | None]:
        """What the SDK's stream gave, and the error it raised, if any."""
        import vcr  # type: ignore[import-untyped]
        from vcr.record_mode import RecordMode  # type: ignore[import-untyped]

        response = self.response
        recorder = vcr.VCR(record_mode=RecordMode.NONE, match_on=MATCH_ON)
        got: list[DriverOutput] = []
        with recorder.use_cassette(
            response.path,
            persister=self.persister,
        ):
            sdk = self.code.client(base_url=self.base_url)
            try:
                with self.code.open_stream(sdk) as stream:
                    got.extend(self.code.outputs(stream))
            except Exception as exc:
                unanswered = _from_vcrpy(exc)
                if unanswered is not None:  # the SDK wraps it (APIConnectionError)
                    raise UsageError(
                        f"{response.label}: vcrpy has no answer for the {self.sdk.package} SDK's "
                        f"request: {unanswered}"
                    ) from exc
                return tuple(got), f"{type(exc).__name__}: {exc}"
        return tuple(got), None

    def run(self) -> Replayed:
        outputs, error = self.outputs()
        response = self.response
        return normalise(
            outputs, error=error, dialect=response.dialect or "", label=response.label, via="sdk"
        )


def _from_vcrpy(exc: BaseException) -> BaseException | None:
    """vcrpy's refusal of a request, if that is what ``exc`` comes from."""
    seen: BaseException | None = exc
    while seen is not None:
        if type(seen).__module__.split(".")[0] == "vcr":
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


class _Persister:
    """How vcrpy gets the cassette: the one interaction replayed, as vcrpy reads a stock
    cassette; from one it cannot read (as pydantic-ai's flavour, whose bodies are
    ``parsed_body:`` YAML) as ``read_cassette`` read it, and a raw body file as one interaction
    at the dialect's URL. Read once and served on every replay (a cassette of 20,000
    interactions takes vcrpy seconds to read, which every round of ``harness bench --wire`` paid
    again and counted as the SDK's time). Nothing is ever saved (record mode ``none``)."""

    def __init__(self, response: RecordedResponse, uri: str) -> None:
        self.response = response
        self.uri = uri
        self._served: tuple[list[Any], list[Any]] | None = None  # read once, served every time

    def load_cassette(self, cassette_path: str, serializer: Any) -> tuple[list[Any], list[Any]]:
        if self._served is None:
            self._served = self._read(cassette_path, serializer)
        requests, answers = self._served
        return list(requests), list(answers)

    def _read(self, cassette_path: str, serializer: Any) -> tuple[list[Any], list[Any]]:
        from vcr.persisters.filesystem import FilesystemPersister  # type: ignore[import-untyped]

        wanted = self.response.interaction
        if wanted is not None:
            # a flavour vcrpy does not read: it gets what our reader made of it
            with contextlib.suppress(ValueError, TypeError, KeyError, IndexError), building():
                requests, answers, *_ = FilesystemPersister.load_cassette(cassette_path, serializer)
                return [requests[wanted]], [answers[wanted]]
        return [self._request(self.response)], [_answer(self.response)]

    def _request(self, response: RecordedResponse) -> Any:
        from vcr.request import Request  # type: ignore[import-untyped]

        return Request("POST", response.request_uri or self.uri, None, {})

    def save_cassette(self, cassette_path: str, cassette_dict: Any, serializer: Any) -> None:
        raise UsageError(f"{cassette_path} is replayed, never written")


def _answer(response: RecordedResponse) -> dict[str, Any]:
    # the body is decoded text already: no Content-Encoding or Content-Length of the original
    return {
        "status": {"code": response.status, "message": ""},
        "headers": {"Content-Type": [response.content_type or "text/event-stream"]},
        "body": {"string": response.body.encode("utf-8")},
    }


def replay_through_sdk(path: str | os.PathLike[str], interaction: int | None = None) -> Replayed:
    """A recorded response as its provider's SDK hands it to its user, vcrpy answering the SDK's
    request from the recording (interaction ``interaction`` of a cassette, by default the first
    streamed one; a raw body file is served at its dialect's official URL)."""
    return SdkReplay(recorded_stream(path, interaction)).run()


# -- (b) directly into a driver adapter ------------------------------------------------------------


class DirectReplay:
    """One recorded response decoded once, ready to be replayed into a driver adapter."""

    def __init__(
        self, response: RecordedResponse, adapter: str | AdapterInfo | None = None
    ) -> None:
        dialect = response.dialect or ""
        codec = dialects().get(dialect)
        if codec is None:
            raise UsageError(f"{response.label}: no codec reads {dialect!r}")
        name = f"driver-{dialect}-reference" if adapter is None else adapter
        self.info = resolve_adapter(name) if isinstance(name, str) else name
        self.response = response
        self.scenario = recorded_scenario(response)

    def run(self) -> Replayed:
        result = replay(self.scenario, self.info)
        emitted = result.observation if isinstance(result.observation, DriverObservation) else None
        error = result.error
        if result.status == "skip":
            error = f"skipped: {result.skip_reason}"
        elif error is None and emitted is not None:
            error = emitted.raised
        response = self.response
        return normalise(
            emitted.outputs if emitted is not None else (),
            error=error,
            dialect=response.dialect or "",
            label=response.label,
            via=self.info.name,
        )


def replay_direct(
    path: str | os.PathLike[str],
    interaction: int | None = None,
    adapter: str | AdapterInfo | None = None,
) -> Replayed:
    """A recorded response (chosen as for ``replay_through_sdk``) decoded by its dialect's codec
    and replayed, as recorded, into a driver adapter: a bundled name, ``MODULE:FACTORY`` or an
    ``AdapterInfo``; by default its dialect's reference driver."""
    return DirectReplay(recorded_stream(path, interaction), adapter).run()


__all__ = [
    "SDKS",
    "DirectReplay",
    "Replayed",
    "ReplayedCall",
    "Sdk",
    "SdkReplay",
    "Unparsed",
    "normalise",
    "recorded_stream",
    "replay_direct",
    "replay_through_sdk",
]
