"""The reference history store with one bug put back that no specific history rule targets:
each is caught by the reference comparison (`harness rules`: history-reference-comparison),
which holds every stored and sent block to the reference's."""

from __future__ import annotations

from harness.adapters.history.reference import ReferenceHistoryStore, _Store
from harness.adapters.registry import mutant_registrar
from harness.history import repair_history, to_anthropic
from harness.model import session as ev
from harness.model.history import HistoryMessage, ToolResultBlock, ToolUseBlock

mutant = mutant_registrar("history")


@mutant(
    "request-drops-text-beside-results",
    "The converter sends only the tool_result blocks of a user message that holds results, so "
    "the user's words typed after an interrupted call never reach the model.",
)
class RequestDropsTextBesideResults(ReferenceHistoryStore):
    def request(self, session_id: str) -> list[dict[str, object]]:
        sent = []
        for message in self.stored(session_id):
            if any(isinstance(b, ToolResultBlock) for b in message.blocks):
                kept = tuple(b for b in message.blocks if isinstance(b, ToolResultBlock))
                message = HistoryMessage(message.role, kept)
            sent.append(message)
        return repair_history(to_anthropic(tuple(sent)))


class _UsesWithoutArguments(_Store):
    def add_use(self, call: ev.ToolCall) -> None:
        if call.id not in self.use_at:
            index = self.assistant()
            self.messages[index][1].append(ToolUseBlock(call.id, call.name, "{}"))
            self.use_at[call.id] = index


@mutant(
    "arguments-not-stored",
    "A tool_use is stored when the call starts executing, before its arguments are known, and "
    "never updated: every stored call has empty arguments.",
)
class ArgumentsNotStored(ReferenceHistoryStore):
    def store_for(self, event: ev.SessionEvent) -> _Store:
        store = super().store_for(event)
        store.__class__ = _UsesWithoutArguments
        return store
