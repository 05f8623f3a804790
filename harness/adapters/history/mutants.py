"""The reference history store with one known bug put back, one class per bug."""

from __future__ import annotations

from harness.adapters.history.reference import INTERRUPTED, ReferenceHistoryStore, _Store
from harness.adapters.registry import mutant_registrar
from harness.history import to_anthropic
from harness.model import session as ev
from harness.model.history import Block, HistoryMessage, TextBlock, ToolResultBlock, ToolUseBlock

mutant = mutant_registrar("history")


@mutant("subagent-into-parent", "Sub-agent events are persisted into the parent session's history.")
class SubagentIntoParent(ReferenceHistoryStore):
    def __init__(self) -> None:
        super().__init__()
        self.root = ""

    def session_of(self, event: ev.SessionEvent) -> str:
        if event.parent_session_id is None and event.session_id and not self.open:
            self.root = event.session_id
        return self.root or event.session_id


def _merge_missing(history: tuple[HistoryMessage, ...]) -> list[HistoryMessage]:
    """Adds an error result for every tool_use without one, into the next user message; keeps
    everything else as it is (orphans included)."""
    out = list(history)
    i = 0
    while i < len(out):
        message = out[i]
        if message.role == "assistant":
            uses = [b.id for b in message.blocks if isinstance(b, ToolUseBlock)]
            following = out[i + 1] if i + 1 < len(out) and out[i + 1].role == "user" else None
            answered = (
                {b.tool_use_id for b in following.blocks if isinstance(b, ToolResultBlock)}
                if following
                else set()
            )
            missing = tuple(
                ToolResultBlock(u, INTERRUPTED, True) for u in uses if u not in answered
            )
            if missing and following is not None:
                out[i + 1] = HistoryMessage("user", missing + following.blocks)
            elif missing:
                out.insert(i + 1, HistoryMessage("user", missing))
        i += 1
    return out


@mutant(
    "no-orphan-guard",
    "The converter sends tool_results whose tool_use is not in the preceding assistant message.",
)
class NoOrphanGuard(ReferenceHistoryStore):
    def request(self, session_id: str) -> list[dict[str, object]]:
        return to_anthropic(tuple(_merge_missing(self.stored(session_id))))


@mutant(
    "repair-inserts-message",
    "The repair inserts a separate user message with the missing results before the existing next user message.",
)
class RepairInsertsMessage(ReferenceHistoryStore):
    def request(self, session_id: str) -> list[dict[str, object]]:
        history = list(self.stored(session_id))
        out: list[HistoryMessage] = []
        for i, message in enumerate(history):
            out.append(message)
            if message.role != "assistant":
                continue
            following = history[i + 1] if i + 1 < len(history) else None
            answered = {
                b.tool_use_id
                for b in (following.blocks if following else ())
                if isinstance(b, ToolResultBlock)
            }
            missing = [
                b.id for b in message.blocks if isinstance(b, ToolUseBlock) and b.id not in answered
            ]
            if missing:
                out.append(
                    HistoryMessage(
                        "user", tuple(ToolResultBlock(u, INTERRUPTED, True) for u in missing)
                    )
                )
        return to_anthropic(tuple(out))


@mutant(
    "parallel-results-split",
    "The results of parallel tool calls are stored as separate user messages, one per completion.",
)
class ParallelResultsSplit(ReferenceHistoryStore):
    def on_tool_completed(self, event: ev.ToolCompleted, store: _Store) -> None:
        for call in event.calls:
            store.add_use(call)
            result = event.result_for(call.id)
            store.messages.append(
                (
                    "user",
                    [
                        ToolResultBlock(
                            call.id,
                            result.content if result else "",
                            result.is_error if result else False,
                        )
                    ],
                )
            )
            store.answered.add(call.id)


@mutant(
    "interrupted-left-open",
    "A cancelled turn leaves its tool_use without a result, in storage and in the request.",
)
class InterruptedLeftOpen(ReferenceHistoryStore):
    def request(self, session_id: str) -> list[dict[str, object]]:
        return self.history(session_id)

    def feed(self, event: ev.SessionEvent) -> None:
        if isinstance(event, (ev.UserTurnStart, ev.InteractionEnd)):
            return  # no closing of interrupted calls
        super().feed(event)

    def on_user_message(self, event: ev.UserMessage, store: _Store) -> None:
        store.messages.append(("user", [TextBlock(event.text)]))


@mutant(
    "custom-message-between",
    "A system message is persisted as a user message, and results are appended after it, so it lands between a tool_use and its tool_result.",
)
class CustomMessageBetween(ReferenceHistoryStore):
    def feed(self, event: ev.SessionEvent) -> None:
        if isinstance(event, ev.SystemMessage):
            store = self.store_for(event)
            store.messages.append(("user", [TextBlock(f"[{event.severity}] {event.text}")]))
            return
        super().feed(event)

    def on_tool_completed(self, event: ev.ToolCompleted, store: _Store) -> None:
        for call in event.calls:
            store.add_use(call)
            result = event.result_for(call.id)
            block = ToolResultBlock(
                call.id, result.content if result else "", bool(result and result.is_error)
            )
            last = store.messages[-1]
            if last[0] == "user" and all(isinstance(b, ToolResultBlock) for b in last[1]):
                last[1].append(block)
            else:
                store.messages.append(("user", [block]))
            store.answered.add(call.id)


@mutant(
    "resume-skips-tool-calls",
    "Rebuilding a transcript from stored history skips regular tool calls.",
)
class ResumeSkipsToolCalls(ReferenceHistoryStore):
    def stored_for_rebuild(self, session_id: str) -> tuple[HistoryMessage, ...]:
        return tuple(
            HistoryMessage(m.role, tuple(b for b in m.blocks if not isinstance(b, ToolUseBlock)))
            for m in self.stored(session_id)
        )


class _StoreBug(ReferenceHistoryStore):
    """The reference whose sessions are kept in ``store_class`` stores, restored ones too."""

    store_class: type[_Store] = _Store

    def store_for(self, event: ev.SessionEvent) -> _Store:
        store = super().store_for(event)
        store.__class__ = self.store_class  # the subclass adds behaviour only, no state
        return store


class _ResultsAppended(_Store):
    def _took_the_place_of_one_stored(self, blocks: list[Block], result: ToolResultBlock) -> bool:
        return False  # the bug: no look for a result already stored for the call


@mutant(
    "result-appended-twice",
    "Each completion appends a tool_result without looking for one already stored for the "
    "call, so a repeated completion, or a real result after the 'interrupted' one, gives the "
    "tool_use two results.",
)
class ResultAppendedTwice(_StoreBug):
    store_class = _ResultsAppended


class _ResultsAtTheEnd(_Store):
    def _result_slot(self, blocks: list[Block]) -> int:
        return len(blocks)  # the bug: after whatever the message already holds


@mutant(
    "result-after-user-text",
    "A tool result is appended at the end of the user message that answers its call, so a "
    "result written into a message that already holds the user's text comes after it, where "
    "the provider rejects it (tool_result blocks must come first).",
)
class ResultAfterUserText(_StoreBug):
    store_class = _ResultsAtTheEnd
