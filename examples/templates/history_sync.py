"""A minimal history-layer adapter: a session store, its converter and its rebuild, in the
Anthropic Messages shape (an OpenAI Chat list works too). Copy it, and put your store inside.

    python -m pytest --harness-adapter=history_sync:make_adapter

The harness feeds the same canonical events as to a session adapter; after each, for every
top-level session seen so far, it asks ``history`` (what is stored), ``request`` (what would be
sent to the provider) and, at the end, ``rebuild`` (the transcript a restarted client shows).
"""

from __future__ import annotations

from typing import Any

from harness.model import session as ev

Message = dict[str, Any]


class HistoryTemplate:
    layers = ("history",)

    def __init__(self) -> None:
        self.stored: dict[str, list[Message]] = {}
        self.texts: dict[str, dict[str, Any]] = {}  # message id -> its text block
        self.answered: set[tuple[str, str]] = set()  # (session, call): a completion may repeat

    def feed(self, event: ev.SessionEvent) -> None:
        if event.parent_session_id is not None:
            return  # a sub-agent's events stay out of the parent's history
        messages = self.stored.setdefault(event.session_id, [])
        if isinstance(event, ev.UserMessage):
            block = {"type": "text", "text": event.text}
            if messages and messages[-1]["role"] == "user":
                messages[-1]["content"].append(block)  # after the tool results it holds
            else:
                messages.append({"role": "user", "content": [block]})
        elif isinstance(event, ev.MessageStart):
            block = {"type": "text", "text": ""}
            self.texts[event.message_id] = block
            messages.append({"role": "assistant", "content": [block]})
        elif isinstance(event, ev.MessageDelta) and event.message_id in self.texts:
            self.texts[event.message_id]["text"] += event.text
        elif isinstance(event, ev.ToolCompleted):
            self._completed(messages, event)

    def _completed(self, messages: list[Message], event: ev.ToolCompleted) -> None:
        calls = [c for c in event.calls if (event.session_id, c.id) not in self.answered]
        self.answered.update((event.session_id, c.id) for c in calls)
        if not calls:
            return
        last = messages[-1] if messages else None
        if not (last and last["role"] == "user" and _only_results(last)):
            # the results go in the user message right after the assistant message that called
            if last is None or last["role"] != "assistant":
                messages.append({"role": "assistant", "content": []})
            messages.append({"role": "user", "content": []})
        caller, answers = messages[-2]["content"], messages[-1]["content"]
        for call in calls:
            result = event.result_for(call.id)
            caller.append(
                {"type": "tool_use", "id": call.id, "name": call.name, "input": call.input}
            )
            answers.append(
                {
                    "type": "tool_result",
                    "tool_use_id": call.id,
                    "content": "" if result is None else result.content,
                    "is_error": bool(result and result.is_error),
                }
            )

    def history(self, session_id: str) -> list[Message]:
        return self.stored.get(session_id, [])

    def request(self, session_id: str) -> list[Message]:
        # what your converter sends: here, the stored history without empty text blocks
        return [
            {"role": m["role"], "content": [b for b in m["content"] if b.get("text") != ""]}
            for m in self.history(session_id)
        ]

    def rebuild(self, session_id: str) -> list[dict[str, Any]]:
        results = {
            b["tool_use_id"]: b
            for m in self.history(session_id)
            for b in m["content"]
            if b["type"] == "tool_result"
        }
        rebuilt = []
        for message in self.history(session_id):
            text = "".join(b["text"] for b in message["content"] if b["type"] == "text")
            calls = [
                {
                    "id": b["id"],
                    "name": b["name"],
                    "input": b["input"],
                    "result": results[b["id"]]["content"] if b["id"] in results else None,
                    "is_error": b["id"] in results and results[b["id"]]["is_error"],
                }
                for b in message["content"]
                if b["type"] == "tool_use"
            ]
            if message["role"] == "user" and not text:
                continue  # only tool results: shown on the calls they answer
            rebuilt.append({"role": message["role"], "text": text, "tool_calls": calls})
        return rebuilt


def _only_results(message: Message) -> bool:
    return all(block["type"] == "tool_result" for block in message["content"])


def make_adapter() -> HistoryTemplate:
    return HistoryTemplate()
