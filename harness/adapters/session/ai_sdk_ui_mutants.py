"""The AI SDK reference consumer with one bug put back, one class per bug: what ``ai``'s
``processUIMessageStream`` does that the AI SDK profile calls a bug (docs/ui-protocols.md), and
the mistakes a hand-written reducer of the stream makes. The self-tests prove that some case
catches every one."""

from __future__ import annotations

import copy
from typing import Any

from harness.adapters.registry import mutant_registrar
from harness.adapters.session.ai_sdk_ui_reference import (
    FINAL,
    ReferenceAISDKUIConsumer,
    Stream,
)

mutant = mutant_registrar("session")


@mutant(
    "ai-sdk-ui-call-restarted-by-id",
    "A tool-input-start whose toolCallId names a tool part the client already has, in any chat, "
    "restarts that part in place under the new tool (as processUIMessageStream's updateToolPart "
    "does within a step), and the call's later chunks go to it: a sub-agent's call_0 replaces "
    "its parent's earlier call_0.",
)
class AISDKUICallRestartedById(ReferenceAISDKUIConsumer):
    def find_call(self, chat: str, call_id: str) -> dict[str, Any] | None:
        parts: list[dict[str, Any]] = [
            p for messages in self.chats.values() for m in messages for p in m.get("parts", ())
        ]
        return next(
            (p for p in reversed(parts) if self.is_tool(p) and p.get("toolCallId") == call_id),
            None,
        )

    def on_tool_input_start(self, chat: str, chunk: dict[str, Any]) -> None:
        part = self.find_call(chat, chunk["toolCallId"])
        if part is None:
            super().on_tool_input_start(chat, chunk)
            return
        for stale in ("output", "errorText", "rawInput"):
            part.pop(stale, None)
        part.update(type=f"tool-{chunk['toolName']}", state="input-streaming", input=None)
        self.streams[chat].partial[chunk["toolCallId"]] = ""


@mutant(
    "ai-sdk-ui-output-appended-again",
    "An output for a call whose tool part is already final appends a second part for the call, "
    "so an output a relay delivers twice shows the call twice.",
)
class AISDKUIOutputAppendedAgain(ReferenceAISDKUIConsumer):
    def output(self, chat: str, chunk: dict[str, Any], **fields: Any) -> None:
        part = self.find_call(chat, chunk["toolCallId"])
        if part is not None and part.get("state") in FINAL:
            again = copy.deepcopy(part)
            again.update(fields)
            self.parts(chat).append(again)
            return
        super().output(chat, chunk, **fields)


@mutant(
    "ai-sdk-ui-abort-leaves-parts",
    "abort changes no part: the tool parts of a response the user stopped stay in "
    "input-streaming or input-available, shown as running for good (processUIMessageStream "
    "has no case for abort; marimo-team/marimo#10174).",
)
class AISDKUIAbortLeavesParts(ReferenceAISDKUIConsumer):
    def on_abort(self, chat: str, chunk: dict[str, Any]) -> None:
        self.streams.pop(chat, None)


@mutant(
    "ai-sdk-ui-state-kept-across-streams",
    "The stream state outlives its response: a new response of the chat goes on with the "
    "previous one's message and open parts whatever its start says, so its parts land on the "
    "previous assistant message, before the user's new prompt.",
)
class AISDKUIStateKeptAcrossStreams(ReferenceAISDKUIConsumer):
    def __init__(self) -> None:
        super().__init__()
        self.kept: dict[str, Stream] = {}

    def on_start(self, chat: str, chunk: dict[str, Any]) -> None:
        kept = self.kept.get(chat)
        if kept is not None and any(kept.message is m for m in self.chats[chat]):
            self.streams[chat] = kept
            return
        super().on_start(chat, chunk)
        self.kept[chat] = self.streams[chat]


@mutant(
    "ai-sdk-ui-output-error-as-output",
    "tool-output-error is taken for an output: the part goes to output-available with the "
    "errorText as its output, so a failed call shows as succeeded.",
)
class AISDKUIOutputErrorAsOutput(ReferenceAISDKUIConsumer):
    def on_tool_output_error(self, chat: str, chunk: dict[str, Any]) -> None:
        self.output(chat, chunk, state="output-available", output=chunk["errorText"])


@mutant(
    "ai-sdk-ui-part-made-at-input-start",
    "A tool part is made only by tool-input-start: a tool-input-available for a call it has no "
    "part for is dropped, so a call whose input the model did not stream (tool-input-available "
    "alone, as streamText sends it) never shows.",
)
class AISDKUIPartMadeAtInputStart(ReferenceAISDKUIConsumer):
    def on_tool_input_available(self, chat: str, chunk: dict[str, Any]) -> None:
        if self.find_call(chat, chunk["toolCallId"]) is None:
            return
        super().on_tool_input_available(chat, chunk)


@mutant(
    "ai-sdk-ui-metadata-ends-message",
    "message-metadata is taken for the end of the message, as metadata sent at finish would "
    "be: its open text and reasoning parts are closed, so the text a server streams after "
    "metadata it sends with every chunk is lost.",
)
class AISDKUIMetadataEndsMessage(ReferenceAISDKUIConsumer):
    def on_message_metadata(self, chat: str, chunk: dict[str, Any]) -> None:
        super().on_message_metadata(chat, chunk)
        stream = self.streams.get(chat)
        if stream is not None and chunk.get("type") == "message-metadata":
            stream.active = {}
