"""A correct consumer of the AI SDK UI message stream: chunks in, each chat's UIMessages out, as
``ai``'s ``processUIMessageStream`` makes them (under ``readUIMessageStream`` and ``Chat``),
without its bugs (the rules of the AI SDK profile, ``harness.codecs.session.ai_sdk_ui``).

It is also the model for a UI team's adapter: ``feed`` takes one event (a chunk of a chat's
response, the user's message, or the stored messages of a reconnect), ``view`` returns
``{chat: [UIMessage]}``.

A response builds one assistant UIMessage: a new one, unless its ``start`` names the chat's last
assistant message. A call is found by its id in the message its response builds, never in
another chat. An output for a call whose part is already final changes nothing, and a response
the user stops (``abort``) drops the tool parts it left unfinished.

It reads the shapes every producer may send (the AI SDK codec's producer variants): a call that
arrives as ``tool-input-available`` alone, ``message-metadata`` (merged into the message's
``metadata``), ``providerMetadata`` on any chunk, and persistent ``data-*`` parts (kept, and
updated in place by id; a transient one is not kept).
"""

from __future__ import annotations

import contextlib
import copy
import json
from dataclasses import dataclass, field
from typing import Any

FINAL = ("output-available", "output-error", "output-denied")


@dataclass
class Stream:
    """One response streaming into a chat."""

    message: dict[str, Any]
    active: dict[str, dict[str, Any]] = field(default_factory=dict)  # text/reasoning part id
    partial: dict[str, str] = field(default_factory=dict)  # call id -> its input text so far


class ReferenceAISDKUIConsumer:
    layers = ("session",)
    session_dialect = "ai-sdk-ui"

    def __init__(self) -> None:
        self.chats: dict[str, list[dict[str, Any]]] = {}
        self.streams: dict[str, Stream] = {}

    # -- the adapter protocol ----------------------------------------------------------------

    def feed(self, event: dict[str, Any]) -> None:
        chat = event["chat"]
        messages = self.chats.setdefault(chat, [])
        if "sendMessage" in event:
            messages.append(copy.deepcopy(event["sendMessage"]))
        elif "setMessages" in event:
            self.chats[chat] = copy.deepcopy(event["setMessages"])
            self.streams.pop(chat, None)  # the reconnect drops the stream it was reading
        else:
            chunk = event["chunk"]
            kind = str(chunk.get("type", ""))
            if kind.startswith("data-"):
                self.on_data(chat, chunk)
                return
            handler = getattr(self, "on_" + kind.replace("-", "_"), None)
            if handler is not None:
                handler(chat, chunk)

    def view(self) -> dict[str, list[dict[str, Any]]]:
        return copy.deepcopy(self.chats)

    # -- responses -----------------------------------------------------------------------------

    def on_start(self, chat: str, chunk: dict[str, Any]) -> None:
        messages = self.chats[chat]
        last = messages[-1] if messages else None
        wanted = chunk.get("messageId")
        if last is not None and last["role"] == "assistant" and wanted in (None, last["id"]):
            message = last  # the response continues the last assistant message
        else:
            message = {"id": wanted or f"{chat}.{len(messages)}", "role": "assistant", "parts": []}
            messages.append(message)
        self.streams[chat] = Stream(message)
        self.on_message_metadata(chat, chunk)

    def on_message_metadata(self, chat: str, chunk: dict[str, Any]) -> None:
        stream = self.streams.get(chat)
        metadata = chunk.get("messageMetadata")
        if stream is not None and metadata is not None:
            stream.message["metadata"] = {**(stream.message.get("metadata") or {}), **metadata}

    def on_data(self, chat: str, chunk: dict[str, Any]) -> None:
        if chunk.get("transient"):
            return  # for the client's onData only, never a part
        parts = self.parts(chat)
        part_id = chunk.get("id")
        for part in parts:
            if (
                part_id is not None
                and part.get("type") == chunk["type"]
                and part.get("id") == part_id
            ):
                part["data"] = chunk.get("data")
                return
        parts.append({k: v for k, v in chunk.items() if k in ("type", "id", "data")})

    def on_start_step(self, chat: str, chunk: dict[str, Any]) -> None:
        self.parts(chat).append({"type": "step-start"})

    def on_finish_step(self, chat: str, chunk: dict[str, Any]) -> None:
        stream = self.streams.get(chat)
        if stream is not None:
            stream.active = {}

    def on_finish(self, chat: str, chunk: dict[str, Any]) -> None:
        self.on_message_metadata(chat, chunk)
        self.streams.pop(chat, None)

    def on_abort(self, chat: str, chunk: dict[str, Any]) -> None:
        stream = self.streams.pop(chat, None)
        if stream is None:
            return
        parts = stream.message["parts"]
        parts[:] = [p for p in parts if not self.is_tool(p) or p.get("state") in FINAL]

    # -- text ----------------------------------------------------------------------------------

    def parts(self, chat: str) -> list[dict[str, Any]]:
        stream = self.streams.get(chat)
        if stream is None:
            raise ValueError(f"a chunk for chat {chat!r} outside a response (no start)")
        parts: list[dict[str, Any]] = stream.message["parts"]
        return parts

    def open_part(self, chat: str, chunk: dict[str, Any], kind: str) -> None:
        part: dict[str, Any] = {"type": kind, "text": "", "state": "streaming"}
        self.parts(chat).append(part)
        self.streams[chat].active[chunk["id"]] = part

    def on_text_start(self, chat: str, chunk: dict[str, Any]) -> None:
        self.open_part(chat, chunk, "text")

    def on_reasoning_start(self, chat: str, chunk: dict[str, Any]) -> None:
        self.open_part(chat, chunk, "reasoning")

    def on_text_delta(self, chat: str, chunk: dict[str, Any]) -> None:
        stream = self.streams.get(chat)
        part = stream.active.get(chunk["id"]) if stream is not None else None
        if part is not None:
            part["text"] += chunk["delta"]

    on_reasoning_delta = on_text_delta

    def on_text_end(self, chat: str, chunk: dict[str, Any]) -> None:
        stream = self.streams.get(chat)
        part = stream.active.pop(chunk["id"], None) if stream is not None else None
        if part is not None:
            part["state"] = "done"

    on_reasoning_end = on_text_end

    def on_file(self, chat: str, chunk: dict[str, Any]) -> None:
        self.parts(chat).append(
            {"type": "file", "url": chunk["url"], "mediaType": chunk["mediaType"]}
        )

    # -- tools ---------------------------------------------------------------------------------

    @staticmethod
    def is_tool(part: dict[str, Any]) -> bool:
        kind = str(part.get("type", ""))
        return kind.startswith("tool-") or kind == "dynamic-tool"

    def find_call(self, chat: str, call_id: str) -> dict[str, Any] | None:
        """The tool part of ``call_id`` in the message the chat's response builds."""
        parts: list[dict[str, Any]] = self.parts(chat)
        return next(
            (p for p in reversed(parts) if self.is_tool(p) and p.get("toolCallId") == call_id),
            None,
        )

    def on_tool_input_start(self, chat: str, chunk: dict[str, Any]) -> None:
        call_id = chunk["toolCallId"]
        if self.find_call(chat, call_id) is not None:
            return  # the same start again
        self.streams[chat].partial[call_id] = ""
        part = {
            "type": f"tool-{chunk['toolName']}",
            "toolCallId": call_id,
            "state": "input-streaming",
            "input": None,
        }
        self.parts(chat).append(part)

    def on_tool_input_delta(self, chat: str, chunk: dict[str, Any]) -> None:
        call_id = chunk["toolCallId"]
        part = self.find_call(chat, call_id)
        if part is None or part["state"] != "input-streaming":
            return
        partial = self.streams[chat].partial
        partial[call_id] = partial.get(call_id, "") + chunk["inputTextDelta"]
        with contextlib.suppress(ValueError):  # incomplete: the input so far stays
            part["input"] = json.loads(partial[call_id])
        part["rawInput"] = partial[call_id]

    def on_tool_input_available(self, chat: str, chunk: dict[str, Any]) -> None:
        part = self.find_call(chat, chunk["toolCallId"])
        if part is None:
            part = {"type": f"tool-{chunk['toolName']}", "toolCallId": chunk["toolCallId"]}
            self.parts(chat).append(part)
        elif part.get("state") in FINAL:
            return
        part.update(state="input-available", input=chunk.get("input"))
        part.pop("rawInput", None)

    def output(self, chat: str, chunk: dict[str, Any], **fields: Any) -> None:
        part = self.find_call(chat, chunk["toolCallId"])
        if part is None or part.get("state") in FINAL:
            return  # no such call, or its output came already
        part.update(fields)

    def on_tool_output_available(self, chat: str, chunk: dict[str, Any]) -> None:
        self.output(chat, chunk, state="output-available", output=chunk.get("output"))

    def on_tool_output_error(self, chat: str, chunk: dict[str, Any]) -> None:
        self.output(chat, chunk, state="output-error", errorText=chunk["errorText"])
