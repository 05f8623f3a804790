"""A correct history-layer consumer: a session store and the converter that builds requests.

It persists each session from the events it is fed, sub-sessions apart (also when their events
arrive without a session id, between their subsession_start and subsession_end); closes tool
calls a cancelled turn left open with an error result when the interaction ends or the user's
turn starts; and repairs the history once more when it builds a request, as
docker/docker-agent#2058 does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from harness.adapters.session.reference import ReferenceSessionConsumer
from harness.history import repair_history, to_anthropic, to_openai
from harness.model import session as ev
from harness.model.history import (
    Block,
    HistoryMessage,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from harness.model.projection import history_to_events

INTERRUPTED = "The tool call was interrupted before it returned a result."


class _Store:
    """One session's history, as mutable lists of blocks."""

    def __init__(self) -> None:
        self.messages: list[tuple[str, list[Block]]] = []  # (role, blocks)
        #: message id -> (message index, block index) of its text or thinking block
        self.text_at: dict[str, tuple[int, int]] = {}
        #: tool call id -> index of the assistant message holding its tool_use
        self.use_at: dict[str, int] = {}
        self.answered: set[str] = set()

    def assistant(self) -> int:
        """The assistant message new blocks go into (a new one after tool results)."""
        if not self.messages or self.messages[-1][0] != "assistant":
            self.messages.append(("assistant", []))
        return len(self.messages) - 1

    def add_use(self, call: ev.ToolCall) -> None:
        if call.id not in self.use_at:
            index = self.assistant()
            self.messages[index][1].append(ToolUseBlock(call.id, call.name, call.arguments or "{}"))
            self.use_at[call.id] = index

    def add_result(self, result: ToolResultBlock) -> None:
        """Into the user message right after the tool_use's message: one for all its results.

        A late real result takes the place of the 'interrupted' one written for its call; any
        other repeated result changes nothing."""
        index = self.use_at[result.tool_use_id] + 1
        if index >= len(self.messages) or self.messages[index][0] != "user":
            self.messages.insert(index, ("user", []))
            self._shift(index)
        blocks = self.messages[index][1]
        if not self._took_the_place_of_one_stored(blocks, result):
            blocks.insert(self._result_slot(blocks), result)
            self.answered.add(result.tool_use_id)

    def _took_the_place_of_one_stored(self, blocks: list[Block], result: ToolResultBlock) -> bool:
        """The call has a result stored already: the real one replaces an 'interrupted' one."""
        for n, block in enumerate(blocks):
            if isinstance(block, ToolResultBlock) and block.tool_use_id == result.tool_use_id:
                if block.content == INTERRUPTED and block.is_error:
                    blocks[n] = result
                return True
        return False

    def _result_slot(self, blocks: list[Block]) -> int:
        """Results first, then any text."""
        return sum(isinstance(b, ToolResultBlock) for b in blocks)

    def _shift(self, inserted: int) -> None:
        for key, at in self.use_at.items():
            if at >= inserted:
                self.use_at[key] = at + 1
        for key, (m, b) in self.text_at.items():
            if m >= inserted:
                self.text_at[key] = (m + 1, b)

    def close_interrupted(self) -> None:
        for tool_id in [t for t in self.use_at if t not in self.answered]:
            self.add_result(ToolResultBlock(tool_id, INTERRUPTED, True))

    def history(self) -> tuple[HistoryMessage, ...]:
        return tuple(
            HistoryMessage(role, tuple(blocks))  # type: ignore[arg-type]
            for role, blocks in self.messages
            if blocks
        )


class ReferenceHistoryStore:
    """Push-style history adapter: ``feed``, then ``history``, ``request`` and ``rebuild``."""

    layers = ("history",)

    def __init__(self) -> None:
        self.stores: dict[str, _Store] = {}
        #: sub-sessions open now, innermost last (for events that arrive without a session id)
        self.open: list[str] = []
        self.handlers: dict[type[ev.SessionEvent], Callable[[Any, _Store], None]] = {
            ev.UserMessage: self.on_user_message,
            ev.MessageStart: self.on_message_start,
            ev.MessageDelta: self.on_message_delta,
            ev.ToolExecuting: self.on_tool_executing,
            ev.ToolCompleted: self.on_tool_completed,
            ev.InteractionEnd: self.on_turn_over,
            ev.Resume: self.on_resume,
        }

    # -- the adapter protocol ----------------------------------------------------------------

    def feed(self, event: ev.SessionEvent) -> None:
        if isinstance(event, ev.SubsessionStart):
            self.open.append(event.session_id)
        elif isinstance(event, ev.SubsessionEnd):
            if event.session_id in self.open:
                self.open.remove(event.session_id)
        elif isinstance(event, ev.UserTurnStart):
            for store in self.stores.values():
                store.close_interrupted()
        handler = self.handlers.get(type(event))
        if handler is not None:
            handler(event, self.store_for(event))

    def history(self, session_id: str) -> list[dict[str, object]]:
        return to_anthropic(self.stored(session_id))

    def request(self, session_id: str) -> list[dict[str, object]]:
        return repair_history(self.history(session_id))

    def rebuild(self, session_id: str) -> list[Any]:
        """The transcript a reconnecting client rebuilds from the stored history."""
        consumer = ReferenceSessionConsumer()
        for event in history_to_events(session_id, self.stored_for_rebuild(session_id)):
            consumer.feed(event)
        view = consumer.transcript().sessions.get(session_id)
        return list(view.messages) if view else []

    # -- storing -----------------------------------------------------------------------------

    def session_of(self, event: ev.SessionEvent) -> str:
        return event.session_id or (self.open[-1] if self.open else "")

    def store_for(self, event: ev.SessionEvent) -> _Store:
        session_id = self.session_of(event)
        store = self.stores.get(session_id)
        if store is None:
            store = self.stores[session_id] = _Store()
        return store

    def stored(self, session_id: str) -> tuple[HistoryMessage, ...]:
        store = self.stores.get(session_id)
        return store.history() if store else ()

    def stored_for_rebuild(self, session_id: str) -> tuple[HistoryMessage, ...]:
        return self.stored(session_id)

    def on_user_message(self, event: ev.UserMessage, store: _Store) -> None:
        store.close_interrupted()
        last = store.messages[-1] if store.messages else None
        if last is not None and last[0] == "user":
            last[1].append(TextBlock(event.text))  # after the results, in the same message
        else:
            store.messages.append(("user", [TextBlock(event.text)]))

    def on_message_start(self, event: ev.MessageStart, store: _Store) -> None:
        index = store.assistant()
        block: Block = ThinkingBlock("") if event.role == "thought" else TextBlock("")
        store.messages[index][1].append(block)
        store.text_at[event.message_id] = (index, len(store.messages[index][1]) - 1)

    def on_message_delta(self, event: ev.MessageDelta, store: _Store) -> None:
        m, b = store.text_at[event.message_id]
        block = store.messages[m][1][b]
        grown = type(block)(block.text + event.text)  # type: ignore[union-attr,call-arg]
        store.messages[m][1][b] = grown

    def on_tool_executing(self, event: ev.ToolExecuting, store: _Store) -> None:
        for call in event.calls:
            store.add_use(call)

    def on_tool_completed(self, event: ev.ToolCompleted, store: _Store) -> None:
        for call in event.calls:
            store.add_use(call)
            result = event.result_for(call.id)
            block = ToolResultBlock(
                call.id, result.content if result else "", result.is_error if result else False
            )
            store.add_result(block)

    def on_turn_over(self, event: ev.InteractionEnd, store: _Store) -> None:
        store.close_interrupted()

    def on_resume(self, event: ev.Resume, store: _Store) -> None:
        """A restored session: the stored history is what was persisted before, as it was."""
        fresh = _Store()
        for message in event.history:
            fresh.messages.append((message.role, list(message.blocks)))
            for block in message.blocks:
                if isinstance(block, ToolUseBlock):
                    fresh.use_at[block.id] = len(fresh.messages) - 1
                elif isinstance(block, ToolResultBlock):
                    fresh.answered.add(block.tool_use_id)
        self.stores[self.session_of(event)] = fresh


class OpenAIReferenceHistoryStore(ReferenceHistoryStore):
    """The same store, whose converter sends the OpenAI Chat Completions request shape.

    It persists what the Anthropic-speaking store persists (``history`` is unchanged); only the
    request differs: ``tool`` messages instead of ``tool_result`` blocks, arguments as the raw
    JSON text, no ``is_error`` and no thinking."""

    dialect = "openai"

    def request(self, session_id: str) -> list[dict[str, object]]:
        return repair_history(to_openai(self.stored(session_id)))
