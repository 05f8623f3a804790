"""The AG-UI reference consumer with one bug put back, one class per bug: the bugs
``@ag-ui/client`` 1.0.0 shows on the session library (docs/ui-protocols.md), and the ones the
AG-UI issue tracker reports. The self-tests prove that some case catches every one."""

from __future__ import annotations

from typing import Any

from harness.adapters.registry import mutant_registrar
from harness.adapters.session.ag_ui_reference import ReferenceAGUIConsumer

mutant = mutant_registrar("session")


@mutant(
    "ag-ui-call-found-by-id-anywhere",
    "A TOOL_CALL_START whose id is on any message (of any agent, of any earlier run) updates "
    "that call in place, renaming it, and the result goes after the first message holding the "
    "id: a sub-agent's call_0 renames the parent's call_0 of an earlier run and doubles its "
    "result (@ag-ui/client 1.0.0, ag-ui-protocol/ag-ui#2330).",
)
class AGUICallFoundByIdAnywhere(ReferenceAGUIConsumer):
    def any_call(self, call_id: str) -> tuple[dict[str, Any], dict[str, Any]] | None:
        for message in self.messages:
            for call in message.get("toolCalls") or ():
                if call["id"] == call_id:
                    return call, message
        return None

    def on_tool_call_start(self, event: dict[str, Any]) -> None:
        found = self.any_call(event["toolCallId"])
        if found is None:
            super().on_tool_call_start(event)
            return
        found[0]["function"]["name"] = event["toolCallName"]
        self.calls[self.call_key(event)] = found

    def find_call(self, event: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]] | None:
        return self.any_call(event["toolCallId"])


@mutant(
    "ag-ui-result-appended-again",
    "A TOOL_CALL_RESULT delivered again inserts a second tool message for the call, so the call "
    "shows its result twice (@ag-ui/client 1.0.0 defaultApplyEvents inserts every result).",
)
class AGUIResultAppendedAgain(ReferenceAGUIConsumer):
    def on_tool_call_result(self, event: dict[str, Any]) -> None:
        found = self.find_call(event)
        if found is None:
            return
        at = self.messages.index(found[1]) + 1
        while at < len(self.messages) and self.messages[at].get("role") == "tool":
            at += 1
        tool = {"id": event["messageId"], "role": "tool", "toolCallId": event["toolCallId"]}
        tool["content"] = event.get("content", "")
        if event.get("subagentRunId") is not None:
            tool["subagentRunId"] = event["subagentRunId"]
        self.messages.insert(at, tool)


@mutant(
    "ag-ui-parent-message-ignored",
    "A TOOL_CALL_START goes on the latest assistant message, whatever its parentMessageId names, "
    "so the calls of an interaction that opens with calls land on the previous interaction's "
    "message (or a message of their own) instead of the message the producer named.",
)
class AGUIParentMessageIgnored(ReferenceAGUIConsumer):
    def host_for(self, event: dict[str, Any]) -> dict[str, Any]:
        agent = event.get("subagentRunId")
        latest: list[dict[str, Any]] = [
            m
            for m in self.messages
            if m.get("role") == "assistant" and m.get("subagentRunId") == agent
        ]
        if latest:
            return latest[-1]
        return self.new_message(event, "assistant", event["toolCallId"], text=False)


@mutant(
    "ag-ui-subagent-runid-ignored",
    "Events are applied without their subagentRunId, so a sub-agent's messages and calls show "
    "as the parent's: sub-agent events written into the parent, as in docker/docker-agent#1738, in AG-UI terms.",
)
class AGUISubagentRunIdIgnored(ReferenceAGUIConsumer):
    def feed(self, event: dict[str, Any]) -> None:
        if "subagentRunId" in event:
            event = {k: v for k, v in event.items() if k != "subagentRunId"}
        super().feed(event)


@mutant(
    "ag-ui-snapshot-merged",
    "A MESSAGES_SNAPSHOT is merged into the messages shown (the snapshot's messages replace "
    "those of the same id, the others stay), so a resumed thread keeps messages the snapshot "
    "no longer holds.",
)
class AGUISnapshotMerged(ReferenceAGUIConsumer):
    def on_messages_snapshot(self, event: dict[str, Any]) -> None:
        kept = [m for m in self.messages if all(m.get("id") != s["id"] for s in event["messages"])]
        super().on_messages_snapshot(event)
        self.threads[self.thread] = kept + self.messages


@mutant(
    "ag-ui-chunks-ignored",
    "TEXT_MESSAGE_CHUNK and TOOL_CALL_CHUNK are not applied, as by a reducer that applies "
    "events without the client's transformChunks stage: a producer that sends its messages "
    "and calls as the convenience events shows nothing (AG-UI docs, Events, TextMessageChunk).",
)
class AGUIChunksIgnored(ReferenceAGUIConsumer):
    def on_text_message_chunk(self, event: dict[str, Any]) -> None:
        return None

    def on_tool_call_chunk(self, event: dict[str, Any]) -> None:
        return None


@mutant(
    "ag-ui-role-copied",
    "TEXT_MESSAGE_START's role is copied onto the message as given, with no default: a start "
    "without one (the field is optional; the client makes the message an assistant's) gives a "
    "message of no role, which no front end shows.",
)
class AGUIRoleCopied(ReferenceAGUIConsumer):
    def on_text_message_start(self, event: dict[str, Any]) -> None:
        if self.find(event["messageId"]) is None:
            self.new_message(event, event.get("role"), event["messageId"])  # type: ignore[arg-type]
