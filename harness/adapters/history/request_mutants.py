"""The reference history store with one bug put back in its error flags, its thinking blocks or
its converter's repair: one class per bug."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from harness.adapters.history.reference import ReferenceHistoryStore
from harness.adapters.registry import mutant_registrar
from harness.history import INTERRUPTED_RESULT, from_anthropic, repair_history, to_anthropic
from harness.model import session as ev
from harness.model.observation import AttachedCall, Message

mutant = mutant_registrar("history")


def _blocks(messages: list[dict[str, Any]], change: Any) -> list[dict[str, Any]]:
    """Each message with every content block passed through ``change`` (None drops it)."""
    out = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, list):
            kept = [b for b in (change(dict(block)) for block in content) if b is not None]
            message = {**message, "content": kept}
        out.append(message)
    return out


@mutant(
    "error-flag-lost-on-persist",
    "The store writes every tool_result with is_error false: a failed tool is persisted, sent "
    "and rebuilt as succeeded.",
)
class ErrorFlagLostOnPersist(ReferenceHistoryStore):
    def on_tool_completed(self, event: ev.ToolCompleted, store: Any) -> None:
        results = tuple(replace(r, is_error=False) for r in event.results)
        super().on_tool_completed(replace(event, results=results), store)


def _no_error(block: dict[str, Any]) -> dict[str, Any]:
    if block.get("type") == "tool_result":
        block["is_error"] = False
    return block


@mutant(
    "request-error-flag-false",
    "The converter writes is_error: false on every tool_result it sends, so the provider is "
    "told a failed tool succeeded.",
)
class RequestErrorFlagFalse(ReferenceHistoryStore):
    def request(self, session_id: str) -> list[dict[str, object]]:
        return _blocks(super().request(session_id), _no_error)


@mutant(
    "rebuild-drops-error-flag",
    "Rebuilding a transcript from the stored history drops each result's error flag.",
)
class RebuildDropsErrorFlag(ReferenceHistoryStore):
    def rebuild(self, session_id: str) -> list[Any]:
        return [
            Message(
                m.message_id,
                m.role,
                m.text,
                tuple(AttachedCall(c.id, c.name, c.input, c.result, False) for c in m.tool_calls),
            )
            for m in super().rebuild(session_id)
        ]


def _no_thinking(block: dict[str, Any]) -> dict[str, Any] | None:
    return None if block.get("type") == "thinking" else block


def _unsigned(block: dict[str, Any]) -> dict[str, Any]:
    if block.get("type") == "thinking":
        block.pop("signature", None)
    return block


@mutant(
    "request-drops-thinking",
    "The converter leaves thinking blocks out of the request, so the Messages API rejects the "
    "continuation of a tool-use turn that was made with thinking.",
)
class RequestDropsThinking(ReferenceHistoryStore):
    def request(self, session_id: str) -> list[dict[str, object]]:
        return _blocks(super().request(session_id), _no_thinking)


@mutant(
    "request-drops-signature",
    "The converter sends thinking blocks without their signatures.",
)
class RequestDropsSignature(ReferenceHistoryStore):
    def request(self, session_id: str) -> list[dict[str, object]]:
        return _blocks(super().request(session_id), _unsigned)


@mutant(
    "repair-placeholder-apart",
    "The converter's repair puts the placeholder results it adds for unanswered calls into a "
    "separate user message before the existing one that holds the other calls' results, "
    "orphaning those (docker/docker-agent#2058's repairSequencing before its fix); a "
    "placeholder with no real result beside it goes where it should.",
)
class RepairPlaceholderApart(ReferenceHistoryStore):
    def request(self, session_id: str) -> list[dict[str, object]]:
        stored = self.history(session_id)
        answered = {
            block["tool_use_id"]
            for message in stored
            for block in message["content"]  # type: ignore[attr-defined]
            if block.get("type") == "tool_result"
        }
        out: list[dict[str, object]] = []
        for message in repair_history(stored):
            content = message.get("content")
            content = content if isinstance(content, list) else []
            added = [
                b
                for b in content
                if b.get("type") == "tool_result"
                and b.get("content") == INTERRUPTED_RESULT
                and b["tool_use_id"] not in answered
            ]
            others = [b for b in content if b.get("type") == "tool_result" and b not in added]
            if message.get("role") == "user" and added and others:
                out.append({"role": "user", "content": added})
                message = {**message, "content": [b for b in content if b not in added]}
            out.append(message)
        return out


@mutant(
    "request-unrepaired-while-open",
    "The converter sends the stored history as it is and leaves the pairing to the store, which "
    "closes open calls when the turn ends and repairs a restored history as it loads it; a "
    "request built while a call runs then has a tool_use without its result.",
)
class RequestUnrepairedWhileOpen(ReferenceHistoryStore):
    def request(self, session_id: str) -> list[dict[str, object]]:
        return self.history(session_id)

    def on_resume(self, event: ev.Resume, store: Any) -> None:
        repaired = from_anthropic(repair_history(to_anthropic(event.history)))
        super().on_resume(replace(event, history=repaired), store)
