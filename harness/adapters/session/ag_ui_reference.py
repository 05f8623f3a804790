"""A correct AG-UI consumer: events in, the thread's messages out, as ``@ag-ui/client``'s
``defaultApplyEvents`` makes them, without its bugs (the session rules of the AG-UI profile,
``harness.codecs.session.ag_ui``).

It is also the model for a UI team's adapter: ``feed`` takes one AG-UI event (a dict),
``view`` returns ``{threadId: [messages]}`` in AG-UI's message shape.

A call is found by its agent (``subagentRunId``) and id, and a call started in an earlier run
is an earlier call: a new ``TOOL_CALL_START`` with the same id makes a new call. A tool result
delivered again (the same ``messageId``) is shown once.

It reads the shapes every producer may send (the AG-UI codec's producer variants): the
convenience events ``TEXT_MESSAGE_CHUNK`` and ``TOOL_CALL_CHUNK`` as the client's
``transformChunks`` expands them (a chunk naming no id continues its agent's open chunk stream,
which any other event of that agent closes), a ``TEXT_MESSAGE_START`` without a role as an
assistant's, and steps and ``RAW`` events as nothing to show.
"""

from __future__ import annotations

import copy
from typing import Any

Owner = str | None


class ReferenceAGUIConsumer:
    layers = ("session",)
    session_dialect = "ag-ui"

    def __init__(self) -> None:
        self.threads: dict[str, list[dict[str, Any]]] = {}
        self.thread = ""
        #: (owner, call id) -> the call and the message holding it, started in this run
        self.calls: dict[tuple[Owner, str], tuple[dict[str, Any], dict[str, Any]]] = {}
        #: (owner, call id) -> the latest call of that id, of any run
        self.latest: dict[tuple[Owner, str], tuple[dict[str, Any], dict[str, Any]]] = {}
        #: owner -> its open chunk stream: ("text" or "tool", the message or call id)
        self.chunk_open: dict[Owner, tuple[str, str]] = {}

    # -- the adapter protocol ----------------------------------------------------------------

    def feed(self, event: dict[str, Any]) -> None:
        kind = str(event.get("type", ""))
        if kind in ("RUN_STARTED", "RUN_FINISHED", "RUN_ERROR", "MESSAGES_SNAPSHOT"):
            self.chunk_open = {}
        elif not kind.endswith("_CHUNK") and kind not in ("RAW", "SUBAGENT_STARTED"):
            self.chunk_open.pop(event.get("subagentRunId"), None)  # the agent's stream ends
        handler = getattr(self, "on_" + kind.lower(), None)
        if handler is not None:
            handler(event)

    def view(self) -> dict[str, list[dict[str, Any]]]:
        return copy.deepcopy(self.threads)

    # -- helpers -------------------------------------------------------------------------------

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.threads.setdefault(self.thread, [])

    def find(self, message_id: str) -> dict[str, Any] | None:
        for message in self.messages:
            if message.get("id") == message_id and message.get("role") != "tool":
                return message
        return None

    def new_message(
        self, event: dict[str, Any], role: str, message_id: str, *, text: bool = True
    ) -> dict[str, Any]:
        message: dict[str, Any] = {"id": message_id, "role": role}
        if text:
            message["content"] = ""
        if event.get("subagentRunId") is not None:
            message["subagentRunId"] = event["subagentRunId"]
        self.messages.append(message)
        return message

    def call_key(self, event: dict[str, Any]) -> tuple[Owner, str]:
        return (event.get("subagentRunId"), event["toolCallId"])

    def find_call(self, event: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]] | None:
        key = self.call_key(event)
        return self.calls.get(key) or self.latest.get(key)

    # -- events --------------------------------------------------------------------------------

    def on_run_started(self, event: dict[str, Any]) -> None:
        self.thread = event["threadId"]
        self.threads.setdefault(self.thread, [])
        self.calls = {}
        for message in (event.get("input") or {}).get("messages", ()):
            if self.find(message["id"]) is None:
                self.messages.append(copy.deepcopy(message))

    def on_text_message_start(self, event: dict[str, Any]) -> None:
        if self.find(event["messageId"]) is None:
            self.new_message(event, event.get("role", "assistant"), event["messageId"])

    def on_text_message_content(self, event: dict[str, Any]) -> None:
        message = self.find(event["messageId"])
        if message is not None:
            message["content"] = (message.get("content") or "") + event["delta"]

    on_reasoning_message_content = on_text_message_content

    def on_reasoning_message_start(self, event: dict[str, Any]) -> None:
        if self.find(event["messageId"]) is None:
            self.new_message(event, "reasoning", event["messageId"])

    def host_for(self, event: dict[str, Any]) -> dict[str, Any]:
        parent = event.get("parentMessageId")
        if parent is not None:
            found = self.find(parent)
            if found is not None and found.get("role") == "assistant":
                return found
            if found is None:
                return self.new_message(event, "assistant", parent, text=False)
        return self.new_message(event, "assistant", event["toolCallId"], text=False)

    def on_tool_call_start(self, event: dict[str, Any]) -> None:
        key = self.call_key(event)
        if key in self.calls:
            return  # the same start again in this run
        host = self.host_for(event)
        call = {
            "id": event["toolCallId"],
            "type": "function",
            "function": {"name": event["toolCallName"], "arguments": ""},
        }
        host.setdefault("toolCalls", []).append(call)
        self.calls[key] = self.latest[key] = (call, host)

    def on_tool_call_args(self, event: dict[str, Any]) -> None:
        found = self.calls.get(self.call_key(event))
        if found is not None:
            found[0]["function"]["arguments"] += event["delta"]

    def on_tool_call_result(self, event: dict[str, Any]) -> None:
        found = self.find_call(event)
        if found is None:
            return
        host = found[1]
        if any(
            m.get("role") == "tool" and m.get("id") == event["messageId"] for m in self.messages
        ):
            return  # delivered again
        tool: dict[str, Any] = {
            "id": event["messageId"],
            "role": "tool",
            "toolCallId": event["toolCallId"],
            "content": event.get("content", ""),
        }
        if event.get("subagentRunId") is not None:
            tool["subagentRunId"] = event["subagentRunId"]
        at = self.messages.index(host) + 1
        while at < len(self.messages) and self.messages[at].get("role") == "tool":
            at += 1
        self.messages.insert(at, tool)

    def chunk_id(self, event: dict[str, Any], kind: str, field: str) -> str | None:
        """The message or call a chunk belongs to: the one it names, else its agent's open
        chunk stream of the same kind; the chunk then opens or continues that stream."""
        owner = event.get("subagentRunId")
        named = event.get(field)
        open_kind, open_id = self.chunk_open.get(owner, ("", ""))
        found = named if named is not None else (open_id if open_kind == kind else None)
        if found is not None:
            self.chunk_open[owner] = (kind, found)
        return found

    def on_text_message_chunk(self, event: dict[str, Any]) -> None:
        message_id = self.chunk_id(event, "text", "messageId")
        if message_id is None:
            return  # the client refuses a first chunk without a messageId
        message = self.find(message_id) or self.new_message(
            event, event.get("role") or "assistant", message_id
        )
        if event.get("delta"):
            message["content"] = (message.get("content") or "") + event["delta"]

    def on_tool_call_chunk(self, event: dict[str, Any]) -> None:
        call_id = self.chunk_id(event, "tool", "toolCallId")
        if call_id is None:
            return
        event = {**event, "toolCallId": call_id}
        if self.call_key(event) not in self.calls:
            if "toolCallName" not in event:
                return  # the client refuses a first chunk without a toolCallName
            self.on_tool_call_start(event)
        if event.get("delta"):
            self.on_tool_call_args(event)

    def on_messages_snapshot(self, event: dict[str, Any]) -> None:
        self.threads[self.thread] = copy.deepcopy(event["messages"])
        self.calls, self.latest = {}, {}
        for message in self.messages:
            for call in message.get("toolCalls") or ():
                key = (message.get("subagentRunId"), call["id"])
                self.calls[key] = self.latest[key] = (call, message)
