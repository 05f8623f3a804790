"""Projections between live session events and persisted history, both ways.

``history_from_events`` is what a correct store persists from a session's events;
``history_to_events`` replays a stored history as the events a resumed session would have seen.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from harness.model import session as ev
from harness.model.history import (
    Block,
    HistoryMessage,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)


def history_from_events(
    events: Iterable[ev.SessionEvent], session_id: str
) -> tuple[HistoryMessage, ...]:
    """What a correct store persists for ``session_id`` from live session events.

    Sub-session events are left out; completed tool calls become ``tool_use`` blocks of the
    current assistant message and their results a ``tool_result`` user message right after it.
    A ``Resume`` of the session restarts from the history it delivered.
    """
    out: list[HistoryMessage] = []
    blocks: list[Block] = []
    text_parts: dict[str, list[str]] = {}
    block_for: dict[str, int] = {}
    results: list[ToolResultBlock] = []

    def flush() -> None:
        if blocks:
            out.append(HistoryMessage("assistant", tuple(_fill(blocks, block_for, text_parts))))
        if results:
            out.append(HistoryMessage("user", tuple(results)))
        blocks.clear()
        block_for.clear()
        results.clear()

    for event in events:
        if event.session_id != session_id:
            continue
        if isinstance(event, ev.Resume):
            flush()
            out[:] = event.history
        elif isinstance(event, ev.UserMessage):
            flush()
            text = TextBlock(event.text)
            if out and out[-1].role == "user":  # after the results: one user message, results first
                out[-1] = HistoryMessage("user", (*out[-1].blocks, text))
            else:
                out.append(HistoryMessage("user", (text,)))
        elif isinstance(event, (ev.InteractionStart, ev.InteractionEnd)):
            flush()
        elif isinstance(event, ev.MessageStart):
            if results:
                flush()
            block_for[event.message_id] = len(blocks)
            text_parts[event.message_id] = []
            blocks.append(ThinkingBlock("") if event.role == "thought" else TextBlock(""))
        elif isinstance(event, ev.MessageDelta):
            text_parts.setdefault(event.message_id, []).append(event.text)
        elif isinstance(event, ev.ToolCompleted):
            for call in event.calls:
                if any(isinstance(b, ToolUseBlock) and b.id == call.id for b in blocks):
                    continue
                blocks.append(ToolUseBlock(call.id, call.name, call.arguments))
                result = event.result_for(call.id)
                results.append(
                    ToolResultBlock(
                        call.id,
                        result.content if result else "",
                        result.is_error if result else False,
                    )
                )
    flush()
    return tuple(out)


def _fill(
    blocks: list[Block], block_for: dict[str, int], text_parts: dict[str, list[str]]
) -> Iterator[Block]:
    index_to_message = {i: m for m, i in block_for.items()}
    for i, block in enumerate(blocks):
        message_id = index_to_message.get(i)
        if message_id is None:
            yield block
        elif isinstance(block, ThinkingBlock):
            yield ThinkingBlock("".join(text_parts[message_id]))
        else:
            yield TextBlock("".join(text_parts[message_id]))


def history_to_events(
    session_id: str, history: Iterable[HistoryMessage]
) -> Iterator[ev.SessionEvent]:
    """Replay a stored history as the live events that would have produced it.

    Each user message with text starts a new interaction; thinking and text blocks become
    thought and assistant messages; the ``tool_use`` blocks of an assistant message complete
    together, with the results found anywhere in the history (a ``tool_use`` without a result
    never completed and yields nothing).
    """
    history = tuple(history)
    results = {
        b.tool_use_id: b
        for m in history
        if m.role == "user"
        for b in m.blocks
        if isinstance(b, ToolResultBlock)
    }
    count = 0
    for message in history:
        if message.role == "user":
            for block in message.blocks:
                if isinstance(block, TextBlock):
                    count += 1
                    yield ev.UserMessage(
                        session_id=session_id, message_id=f"resumed-{count}", text=block.text
                    )
            continue
        pending: list[ToolUseBlock] = []
        blocks: tuple[Block | None, ...] = (*message.blocks, None)  # None flushes the last calls
        for item in blocks:
            if isinstance(item, ToolUseBlock):
                pending.append(item)
                continue
            if pending:
                done = [u for u in pending if u.id in results]
                if done:
                    yield ev.ToolCompleted(
                        session_id=session_id,
                        calls=tuple(ev.ToolCall(u.id, u.name, u.arguments) for u in done),
                        results=tuple(
                            ev.ToolResult(u.id, results[u.id].content, results[u.id].is_error)
                            for u in done
                        ),
                    )
                pending = []
            if isinstance(item, (TextBlock, ThinkingBlock)):
                count += 1
                message_id = f"resumed-{count}"
                role: ev.MessageRole = "thought" if isinstance(item, ThinkingBlock) else "assistant"
                yield ev.MessageStart(session_id=session_id, message_id=message_id, role=role)
                if item.text:
                    yield ev.MessageDelta(
                        session_id=session_id, message_id=message_id, text=item.text
                    )
                yield ev.MessageEnd(session_id=session_id, message_id=message_id)
