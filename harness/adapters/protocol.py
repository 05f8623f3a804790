"""The adapter contract: a tiny protocol per layer, each in a sync and an async form.

An adapter is any object with the methods of its layer; it declares the layers it implements in
``layers`` (an adapter without it is taken for a session adapter if it has that layer's
methods). The factory given to ``--harness-adapter MODULE:FACTORY`` is called once per
scenario, so every replay starts fresh.

- **session** (push): the replayer feeds canonical session events one at a time and asks what
  the consumer shows at checkpoints. ``SessionAdapter``, ``AsyncSessionAdapter``.
- **history** (push): the same events, which the consumer stores; the replayer asks, per
  top-level session, for the stored history, the request the converter would send, and at the
  end the transcript rebuilt from storage. ``HistoryAdapter``, ``AsyncHistoryAdapter``.
- **driver** (pull): the consumer reads a provider's raw stream and yields what it emits.
  ``DriverAdapter``, ``AsyncDriverAdapter``.

An adapter is async when its ``feed`` is a coroutine function (its other methods may then be
either), and a driver when ``drive`` is an async generator function. The protocols are
``runtime_checkable``, but ``isinstance`` only sees that the methods exist, not their forms.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias, runtime_checkable

from harness.model.driver import DriverOutput
from harness.model.history import HistoryMessage
from harness.model.observation import Message, Notification, Transcript
from harness.model.session import SessionEvent

#: what ``notifications()`` returns: our class or plain dicts of the same fields
Notifications: TypeAlias = Iterable[Notification | Mapping[str, Any]]
#: what ``transcript()`` returns: ``{"sessions": {id: {"messages": [...], "tool_streams": [...]}},
#: "updates": [{"session_id", "message_id"}]}``, or our class
TranscriptLike: TypeAlias = Transcript | Mapping[str, Any]
#: a stored history or a request: a list of messages in the Anthropic or OpenAI shape (plain
#: JSON objects), or the provider-neutral messages of ``harness.model.history``
StoredMessages: TypeAlias = list[dict[str, Any]] | tuple[HistoryMessage, ...]
#: a rebuilt session's messages: our class or dicts ``{"role", "text", "tool_calls", ...}``
RebuiltMessages: TypeAlias = Iterable[Message | Mapping[str, Any]]
#: one item a driver yields: ``TextOut``, ``ToolCallOut``, ``TurnEnd``, ``Refusal``,
#: ``ErrorReport``, or a dict ``{"type": "text" | "tool_call" | "turn_end" | "refusal" |
#: "error", ...}`` with the same fields
Emitted: TypeAlias = DriverOutput | Mapping[str, Any]


@runtime_checkable
class UIProtocolAdapter(Protocol):
    """A session-layer consumer of a UI protocol (docs/ADAPTERS.md, "A consumer of a UI
    protocol"): fed the protocol's events, it shows the protocol's own state::

    class MyAGUIReducer:
        layers = ("session",)
        session_dialect = "ag-ui"

        def feed(self, event: dict[str, Any]) -> None:
            self.store.dispatch(event)

        def view(self) -> Any:
            return {"main": self.store.messages}
    """

    session_dialect: str

    def feed(self, event: dict[str, Any]) -> None: ...

    def view(self) -> Any: ...


@runtime_checkable
class SessionAdapter(Protocol):
    """A session-layer consumer::

    class MyAdapter:
        layers = ("session",)

        def feed(self, event: SessionEvent) -> None:
            self.processor.process(to_my_event(event))

        def notifications(self) -> list[dict[str, str]]:
            return [{"session_id": ..., "tool_call_id": ..., "tool_name": ..., "status": ...}]

        def transcript(self) -> dict[str, Any]:
            return {"sessions": {...}, "updates": [...]}
    """

    def feed(self, event: SessionEvent) -> None: ...

    def notifications(self) -> Notifications: ...

    def transcript(self) -> TranscriptLike: ...


@runtime_checkable
class AsyncSessionAdapter(Protocol):
    """A session-layer consumer with an async ``feed``; ``notifications`` and ``transcript`` may
    be coroutines too::

        class MyAdapter:
            layers = ("session",)

            async def feed(self, event: SessionEvent) -> None:
                await self.processor.process(to_my_event(event))

            async def notifications(self) -> list[dict[str, str]]: ...

            def transcript(self) -> dict[str, Any]: ...
    """

    async def feed(self, event: SessionEvent) -> None: ...

    def notifications(self) -> Awaitable[Notifications] | Notifications: ...

    def transcript(self) -> Awaitable[TranscriptLike] | TranscriptLike: ...


@runtime_checkable
class HistoryAdapter(Protocol):
    """A session store and the converter that sends its history back to a provider.

    Each method after ``feed`` is asked for every top-level session seen so far::

        class MyStore:
            layers = ("history",)

            def feed(self, event: SessionEvent) -> None:
                self.store.persist(to_my_event(event))

            def history(self, session_id: str) -> list[dict[str, Any]]:
                return self.store.messages(session_id)  # as stored, Anthropic or OpenAI shape

            def request(self, session_id: str) -> list[dict[str, Any]]:
                return self.converter.messages_for(session_id)  # what would be sent

            def rebuild(self, session_id: str) -> list[dict[str, Any]]:
                return [{"role": ..., "text": ..., "tool_calls": [...]}, ...]  # after a restart
    """

    @property
    def layers(self) -> Sequence[str]: ...

    def feed(self, event: SessionEvent) -> None: ...

    def history(self, session_id: str) -> StoredMessages: ...

    def request(self, session_id: str) -> StoredMessages: ...

    def rebuild(self, session_id: str) -> RebuiltMessages: ...


@runtime_checkable
class AsyncHistoryAdapter(Protocol):
    """``HistoryAdapter`` with an async ``feed``; the other methods may be coroutines too::

    class MyStore:
        layers = ("history",)

        async def feed(self, event: SessionEvent) -> None: ...

        async def history(self, session_id: str) -> list[dict[str, Any]]: ...

        async def request(self, session_id: str) -> list[dict[str, Any]]: ...

        async def rebuild(self, session_id: str) -> list[dict[str, Any]]: ...
    """

    @property
    def layers(self) -> Sequence[str]: ...

    async def feed(self, event: SessionEvent) -> None: ...

    def history(self, session_id: str) -> Awaitable[StoredMessages] | StoredMessages: ...

    def request(self, session_id: str) -> Awaitable[StoredMessages] | StoredMessages: ...

    def rebuild(self, session_id: str) -> Awaitable[RebuiltMessages] | RebuiltMessages: ...


@runtime_checkable
class DriverAdapter(Protocol):
    """A driver: reads a provider's raw stream, yields what it emits, as a generator.

    ``chunks`` yields the raw text of each server-sent event (or JSON chunk) in the ``dialect``
    it names (``harness.codecs.dialects()``: ``anthropic``, ``openai-chat``, ...) and has a
    ``close()`` to call when the driver stops reading. A read the scenario cancels raises into
    the driver, as a cancelled connection does. A stream that fails (the server's error event,
    a body that ends before the turn) ends without ``TurnEnd``: the driver raises, or yields
    ``ErrorReport`` (docs/ADAPTERS.md, "When the stream fails")::

        class MyDriver:
            layers = ("driver",)
            dialect = "anthropic"

            def drive(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
                try:
                    for call in my_stream_reader(chunks):
                        yield ToolCallOut(call.id, call.name, call.arguments, valid=call.valid)
                    yield TurnEnd("end_turn")
                finally:
                    chunks.close()

    Optional attributes: ``emits_calls`` (``"per-call"`` or ``"per-message"``), ``reads``
    (``"events"`` or ``"bytes"``), and ``asks_for``, the request options its requests set that
    make servers send shapes they send only on request (``"stream_function_call_arguments"``
    for Gemini's streamed arguments); a shape of an option not declared is never fed to it.
    ``TurnEnd()`` (the reason ``"unknown"``) is the end of a turn whose library does not say why
    it ended: the turn's lifetime is checked, not a reason made up.
    """

    @property
    def layers(self) -> Sequence[str]: ...

    @property
    def dialect(self) -> str: ...

    def drive(self, chunks: Iterator[str]) -> Iterator[Emitted]: ...


@runtime_checkable
class AsyncDriverAdapter(Protocol):
    """A driver whose ``drive`` is an async generator (``async def`` with ``yield``).

    ``chunks`` is an async iterator with an ``aclose()``; a read the scenario cancels raises
    ``asyncio.CancelledError``, as a cancelled task does::

        class MyDriver:
            layers = ("driver",)
            dialect = "openai-chat"

            async def drive(self, chunks: AsyncIterator[str]) -> AsyncIterator[DriverOutput]:
                try:
                    async for chunk in chunks:
                        ...
                        yield TextOut(text)
                finally:
                    await chunks.aclose()
    """

    @property
    def layers(self) -> Sequence[str]: ...

    @property
    def dialect(self) -> str: ...

    def drive(self, chunks: AsyncIterator[str]) -> AsyncIterator[Emitted]: ...


def adapter_layers(adapter: object) -> tuple[str, ...]:
    """The layers an adapter declares (``layers``), or those its methods imply."""
    declared = getattr(adapter, "layers", None)
    if declared is not None:
        if isinstance(declared, str):
            return (declared,)
        return tuple(declared)
    return ("session",) if isinstance(adapter, SessionAdapter) else ()


if TYPE_CHECKING:
    # mypy checks that the bundled adapters are ordinary users of these protocols
    from harness.adapters.driver.ag_ui import AGUIDriver
    from harness.adapters.driver.gemini import GeminiDriver, GeminiJSONArrayDriver
    from harness.adapters.driver.openai_responses import OpenAIResponsesDriver
    from harness.adapters.driver.reference import AnthropicDriver, OpenAIChatDriver
    from harness.adapters.history.reference import ReferenceHistoryStore
    from harness.adapters.process import ProcessAdapter
    from harness.adapters.session.reference import ReferenceSessionConsumer

    _SESSION: tuple[type[SessionAdapter], ...] = (ReferenceSessionConsumer, ProcessAdapter)
    _HISTORY: type[HistoryAdapter] = ReferenceHistoryStore
    _DRIVERS: tuple[type[DriverAdapter], ...] = (
        AnthropicDriver,
        OpenAIChatDriver,
        OpenAIResponsesDriver,
        GeminiDriver,
        GeminiJSONArrayDriver,
        AGUIDriver,
    )
