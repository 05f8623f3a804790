"""The Vercel AI SDK's UI message stream as a session dialect: a canonical session trace as what
an AI SDK front end reduces into ``UIMessage``s (``ai``'s ``readUIMessageStream`` and ``Chat``,
both over ``processUIMessageStream``).

Each session is a chat of its own (the AI SDK streams no sub-agent; a front end that shows each
agent gets one ``Chat`` per agent), and each of its interactions is one response: one stream of
chunks that builds the chat's assistant ``UIMessage``, a new one after the user's message, or
else the last assistant message continued (its ``start`` names that message, as the server
names it: ``getResponseUIMessageId``), each response opening a step of its own. What the
consumer is fed is one of three things, each naming its chat (the stream a chunk arrives on)::

    {"chat": S, "chunk": CHUNK}           a chunk of the response streaming into chat S
    {"chat": S, "sendMessage": MESSAGE}   the user's UIMessage, which the client adds itself
    {"chat": S, "setMessages": [...]}     the stored UIMessages a reconnecting client loads

    canonical                          AI SDK UI message stream
    user_message                       sendMessage {id, role: user, parts: [{type: text}]}
    interaction_start                  start {messageId}, start-step (a response opens)
    interaction_end                    what is still open ended (text-end, reasoning-end),
                                       finish-step, finish {finishReason}
    user_turn_start, a response open   abort: the user stopped it
    message_start/delta/end            text-start/-delta/-end {id: the message id}
      (a thought)                      reasoning-start/-delta/-end
    tool_select                        tool-input-start {toolCallId, toolName}
    tool_executing                     tool-input-delta {inputTextDelta: the arguments},
                                       tool-input-available {input}
    tool_completed                     what the call still lacks of the above, then
                                       tool-output-available {output} (tool-output-error
                                       {errorText} for a result with is_error)
    system_message                     data-system-message {transient: true}
    media                              file {url: a data: URL, mediaType}
    resume                             setMessages: the session rebuilt from its history;
                                       in motion, a response (continuing the last stored
                                       assistant message) re-sends the calls still running

**Where a call shows.** A text part keeps no id, and a tool part none of the message it belongs
to: a call belongs to the text or reasoning part before its tool part in the same response (the
``step-start`` part each response opens with marks where it begins in its UIMessage), or, for a
response that opens with calls, to the first one after it. The codec records which canonical message each text and reasoning part it
made stands for, by order, and decoding reads the parts back that way. A trace in which the
session layer puts a call elsewhere (a message started between the call's start and its
completion, a call its interaction leaves on no message, a call's events after its response
ended) has no AI SDK form, and is skipped.

**What the consumer shows.** Its view is ``{chat: [UIMessage]}``. A tool part in
``input-streaming`` is a call being prepared, in ``input-available`` one being used, in
``output-available`` or ``output-error`` a completed call with its output.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from harness.codecs.session.base import CannotExpress, RuleUse, dry_run
from harness.model import session as ev
from harness.model.history import ToolResultBlock
from harness.model.observation import (
    AttachedCall,
    MalformedObservation,
    Message,
    MessageUpdate,
    Notification,
    SessionView,
    Transcript,
    normalize_input,
)
from harness.rules.session_ledger import SessionLedger, project_history

NAME = "ai-sdk-ui"

QUIRKS: dict[str, str] = {
    "one-message-per-response": (
        "a response stream builds one assistant UIMessage; a stream whose start names the id of "
        "the chat's last assistant message continues it, another id starts a new one "
        "(ai 6.0.326: readUIMessageStream resets on another messageId, "
        "resetStateOnMessageIdChange; the server reuses the last assistant message's id, "
        "getResponseUIMessageId)"
    ),
    "the-client-adds-user-messages": (
        "the stream carries the assistant's response only: the user's message is the one the "
        "client adds before it sends (Chat.sendMessage), and a reconnecting client is loaded "
        "with the stored messages (Chat messages); the harness feeds both as events of their own"
    ),
    "position-is-attachment": (
        "parts are kept in the order their start chunks came, and neither a text part nor a "
        "tool part names the message it belongs to (TextUIPart keeps no id): a call belongs to "
        "the text or reasoning part before it in its response"
    ),
    "call-found-in-current-step": (
        "tool-input-start for a toolCallId already in the current step updates that part in "
        "place under the new tool name, and an output finds its call in the current step, then "
        "anywhere in the message (ai 6.0.326 process-ui-message-stream: updateToolPart, "
        "getToolInvocation); a call is never looked for in another message"
    ),
    "abort-changes-no-part": (
        "processUIMessageStream has no case for abort: the parts of a response the user stopped "
        "stay as they were, tool parts in input-streaming or input-available included "
        "(ai 6.0.326); a response cancelled mid-stream left the protocol state broken for the "
        "next prompts in marimo-team/marimo#9562"
    ),
    "output-error-live": (
        "tool-output-error {errorText} fails a call live, and a stored tool part in output-error "
        "keeps it (ai 6.0.326 UIMessageChunk, ToolUIPart)"
    ),
    "finish-leaves-client-calls": (
        "finish ends a response whose calls may still wait in input-available for the client to "
        "run them (onToolCall, addToolOutput; finishReason 'tool-calls'): finish clears no part"
    ),
    "subagents-as-tool-output": (
        "the AI SDK streams a sub-agent as its delegation tool's preliminary outputs, a "
        "UIMessage the tool yields (ai docs, 'Subagents'); the harness gives each session a "
        "chat of its own instead, as the session layer ties no sub-session to a call"
    ),
}

#: the shapes real producers of the UI message stream send, which a consumer must read as it
#: reads the codec's own (``harness.codecs.session.base``): each replayed as a case of its own,
#: ``SCENARIO[VARIANT]``
VARIANTS: dict[str, str] = {
    "input-not-streamed": (
        "a call whose input the model does not stream arrives as tool-input-available alone, "
        "with no tool-input-start or tool-input-delta before it (ai 6.0.326 stream-text.ts "
        "toUIMessageStream: tool-input-start and -delta are forwarded only when the model "
        "streams the call's input, and every call becomes tool-input-available; "
        "processUIMessageStream makes the tool part there when it has none)"
    ),
    "message-metadata": (
        "a message-metadata chunk after every chunk of a response, and messageMetadata on start "
        "and finish, as a server with a messageMetadata callback sends them (ai 6.0.326 "
        "stream-text.ts toUIMessageStream: 'start and finish events already have metadata so we "
        "only need to send metadata for other parts'; ai docs, Message Metadata)"
    ),
    "provider-metadata": (
        "providerMetadata on the text, reasoning and tool input chunks, as the providers' item "
        "ids arrive (ai 6.0.326 stream-text.ts toUIMessageStream forwards part.providerMetadata "
        "on text-start/-delta/-end, reasoning-*, tool-input-start and tool-input-available)"
    ),
    "data-parts": (
        "a persistent data part in each response (data-status, with an id), sent after "
        "start-step and updated in place before finish-step (ai docs, Streaming Custom Data: "
        "'Same ID = update existing part'; Stream Protocol, Data Parts); it is no text and no "
        "call"
    ),
}

PROFILE: dict[str, RuleUse] = {
    "session-keyed-tracking": RuleUse(
        True,
        "A call is (chat, toolCallId): a sub-agent's call, streamed to its own chat, never "
        "restarts, renames or shows a call of its parent's chat with the same id.",
    ),
    "notification-lifecycle": RuleUse(
        True,
        "A call's tool part shows its state: input-streaming is 'preparing' (from "
        "tool-input-start), input-available is 'using' (from tool-input-available), and "
        "output-available or output-error completes it. Chunks for a call after its output "
        "are not sent (a producer does not restart a finished call).",
    ),
    "cleanup-interaction-end": RuleUse(
        False,
        "finish ends the response, and a tool part it leaves in input-available is a call "
        "waiting for the client to run it (onToolCall, addToolOutput): nothing clears it.",
    ),
    "cleanup-user-turn": RuleUse(
        True,
        "The user's stop cuts the response off (abort), and no tool part of the message it was "
        "building may stay in input-streaming or input-available: the call never ran to an "
        "output, so its part goes (a candidate rule, after marimo-team/marimo#10174).",
    ),
    "lost-completion": RuleUse(
        True,
        "A call whose output never arrives never shows one: an abort does not turn its part "
        "into output-error.",
    ),
    "backward-attachment": RuleUse(
        True,
        "A call shows on the text or reasoning part before its tool part in the same "
        "response: the message the response streamed before the call's tool-input-start. "
        "Message-updated notices are not judged: a UIMessage re-renders whole.",
    ),
    "forward-attachment": RuleUse(
        True,
        "A tool part that opens its response (no text or reasoning part before it) belongs to "
        "the first text or reasoning part after it in the same response.",
    ),
    "exactly-once": RuleUse(
        True,
        "Each call is one tool part: an output delivered twice changes nothing, and a later "
        "response never repeats an earlier response's call.",
    ),
    "resume-equivalence": RuleUse(
        True,
        "The stored UIMessages a reconnecting client is loaded with (setMessages) show the "
        "same messages, calls and outputs as the live responses did.",
    ),
    "streamed-tool-results": RuleUse(
        False,
        "A preliminary tool output replaces the one before it and the final output replaces "
        "them all: a UIMessage keeps no stream of parts (a scenario with streamed tool output "
        "is skipped).",
    ),
    "subsession-isolation": RuleUse(
        True,
        "Each session is a chat of its own: a sub-agent's responses never change the parent's "
        "messages, even where its message and call ids are the parent's.",
    ),
    "result-error-flag": RuleUse(
        True,
        "tool-output-error is a failed call: its errorText is the result, shown as failed, "
        "live and in stored messages.",
    ),
    "reference-comparison": RuleUse(
        True,
        "Everything shown is compared with the bundled AI SDK reference consumer's view of "
        "the same chunks (session-ai-sdk-ui-reference).",
    ),
}

_TEXT, _REASONING = "text", "reasoning"
_FINAL = ("output-available", "output-error", "output-denied")


class AISDKUISessionCodec:
    """AI SDK UI message stream chunks for a canonical session trace
    (``harness.codecs.session.base``)."""

    name = NAME
    profile = PROFILE
    quirks = QUIRKS
    variants = VARIANTS

    def can_express(self, trace: Sequence[ev.SessionEvent]) -> str | None:
        return dry_run(self, trace)

    def project(self, event: ev.SessionEvent) -> ev.SessionEvent:
        return event  # an output carries any JSON and tool-output-error the error flag

    def encoder(self, trace: Sequence[ev.SessionEvent], variant: str = "") -> AISDKUIEncoder:
        if variant and variant not in VARIANTS:
            raise ValueError(
                f"the AI SDK UI stream has no producer variant {variant!r} (its variants: "
                f"{', '.join(VARIANTS)})"
            )
        return AISDKUIEncoder(_Plan.of(trace), _Producer(variant) if variant else None)


@dataclass(frozen=True)
class _Plan:
    """What the encoder must know ahead: where the session layer puts each completed call,
    and the arguments its completion carries (a producer sends them whole before it runs the
    tool)."""

    #: (session, call id) -> the message it belongs on, or None for one the trace puts on none
    hosts: dict[tuple[str, str], str | None]
    arguments: dict[tuple[str, str], str]

    @classmethod
    def of(cls, trace: Sequence[ev.SessionEvent]) -> _Plan:
        ledger = SessionLedger(trace)
        completed = {k: r for k, r in ledger.calls.items() if r.completed_index >= 0}
        hosts = {
            key: r.host if r.mode in ("backward", "forward") else None
            for key, r in completed.items()
        }
        return cls(hosts, {key: r.arguments for key, r in completed.items()})


@dataclass(eq=False)
class _Response:
    """A response streaming into one chat: the assistant UIMessage it builds, and where its
    parts stand."""

    chat: str
    message_id: str
    #: open text and reasoning parts: id -> _TEXT | _REASONING
    texts: dict[str, str] = field(default_factory=dict)
    #: the message of its latest text or reasoning part
    latest: str | None = None
    #: calls whose parts came before any text or reasoning part of the response
    waiting: list[_Call] = field(default_factory=list)
    #: its calls, in the order of their parts
    calls: list[_Call] = field(default_factory=list)


@dataclass(eq=False)
class _Call:
    session: str
    call_id: str
    name: str
    #: the response whose message holds its part; None when it has none (yet, or any more)
    response: _Response | None = None
    available: bool = False
    #: the arguments its tool-input-available carried
    arguments: str = ""
    done: bool = False
    #: cleared by its interaction's end or the user's turn: the session layer shows it no more
    cleared: bool = False
    #: the message its part belongs to by position, once known
    position: str | None = None
    #: where the session layer puts it, once completed, while its position is not known yet
    expect: str | None = None


class AISDKUIEncoder:
    """One replay's AI SDK encoding, and the decoding of what the consumer shows."""

    def __init__(self, plan: _Plan, producer: _Producer | None = None) -> None:
        self.plan = plan
        self.producer = producer
        self.responses: dict[str, _Response] = {}  # chat -> its open response
        self.calls: dict[tuple[str, str], _Call] = {}
        #: (chat, UIMessage id) -> the message each of its text and reasoning parts stands for,
        #: in the order the parts were made
        self.parts: dict[tuple[str, str], list[str]] = {}
        #: chat -> the id of its last UIMessage when that is an assistant message: a response
        #: then continues it (the server reuses its id, getResponseUIMessageId)
        self.last_assistant: dict[str, str | None] = {}
        self.made = 0

    # -- encoding ------------------------------------------------------------------------------

    def encode(self, event: ev.SessionEvent) -> list[dict[str, Any]]:
        if not event.session_id:
            raise CannotExpress(
                "an AI SDK chunk arrives on one chat's stream; a channel that does not label "
                "sub-sessions has no AI SDK form"
            )
        handler = _HANDLERS.get(type(event))
        out: list[dict[str, Any]] = handler(self, event) if handler is not None else []
        return out if self.producer is None else self.producer.rewrite(out)

    @staticmethod
    def _chunk(chat: str, chunk: dict[str, Any]) -> dict[str, Any]:
        return {"chat": chat, "chunk": chunk}

    def _open(self, chat: str, out: list[dict[str, Any]]) -> _Response:
        """The chat's open response, started if none is."""
        response = self.responses.get(chat)
        if response is not None:
            return response
        message_id = self.last_assistant.get(chat)
        if message_id is None:
            self.made += 1
            message_id = self.last_assistant[chat] = f"{chat}.response-{self.made}"
        response = self.responses[chat] = _Response(chat, message_id)
        self.parts.setdefault((chat, message_id), [])
        out.append(self._chunk(chat, {"type": "start", "messageId": message_id}))
        out.append(self._chunk(chat, {"type": "start-step"}))
        return response

    def _close(self, chat: str, out: list[dict[str, Any]], *, aborted: bool) -> None:
        response = self.responses.pop(chat, None)
        if response is None:
            return
        for call in response.waiting:
            if call.expect is not None:
                raise CannotExpress(
                    f"tool call {call.call_id!r} of session {chat!r} completed before any "
                    f"message of its response, and the response ended with none, while the "
                    f"session layer puts the call on {call.expect!r}, a message of a later "
                    f"response; an AI SDK call belongs to a part of its own response"
                )
        if aborted:
            for call in response.calls:
                if not call.done:
                    call.response = None  # a correct consumer drops the part
            out.append(self._chunk(chat, {"type": "abort", "reason": "the user stopped it"}))
            return
        for part_id, kind in response.texts.items():
            out.append(self._chunk(chat, {"type": f"{kind}-end", "id": part_id}))
        waiting_client = any(not c.done for c in response.calls)
        out.append(self._chunk(chat, {"type": "finish-step"}))
        finish = "tool-calls" if waiting_client else "stop"
        out.append(self._chunk(chat, {"type": "finish", "finishReason": finish}))

    def _new_part(self, response: _Response, message_id: str) -> None:
        """A text or reasoning part standing for ``message_id`` is made in ``response``."""
        self.parts[(response.chat, response.message_id)].append(message_id)
        response.latest = message_id
        for call in response.waiting:
            call.position = message_id
            if call.expect is not None and call.expect != message_id:
                raise _moved(call, call.expect)
        response.waiting = []

    # -- the user's side -----------------------------------------------------------------------

    def on_user_message(self, event: ev.UserMessage) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        chat = event.session_id
        self._close(chat, out, aborted=False)  # a new prompt: the response before it is over
        self.last_assistant[chat] = None
        message = {
            "id": event.message_id,
            "role": "user",
            "parts": [{"type": "text", "text": event.text}],
        }
        out.append({"chat": chat, "sendMessage": message})
        return out

    def on_user_turn_start(self, event: ev.UserTurnStart) -> list[dict[str, Any]]:
        for call in self._running():
            if call.response is not None and call.response is not self.responses.get(call.session):
                raise CannotExpress(
                    f"the user's turn starts while tool call {call.call_id!r} of session "
                    f"{call.session!r}, of a response that already ended, still runs; the AI "
                    f"SDK stops a response only while it streams (abort)"
                )
        out: list[dict[str, Any]] = []
        for chat in list(self.responses):
            self._close(chat, out, aborted=True)
        for call in self._running():
            call.cleared = True
        return out

    def _running(self, session: str | None = None) -> list[_Call]:
        """The calls started and neither completed nor cleared (of one session, or all)."""
        return [
            c
            for c in self.calls.values()
            if not c.done and not c.cleared and session in (None, c.session)
        ]

    # -- responses -----------------------------------------------------------------------------

    def on_interaction_start(self, event: ev.InteractionStart) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        self._close(event.session_id, out, aborted=False)
        self._open(event.session_id, out)
        return out

    def on_interaction_end(self, event: ev.InteractionEnd) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        self._close(event.session_id, out, aborted=False)
        for call in self._running(event.session_id):
            call.cleared = True  # left for the client (input-available), or lost
        return out

    def on_subsession_start(self, event: ev.SubsessionStart) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        self._close(event.session_id, out, aborted=False)  # a new interaction of its own
        return out

    def on_message_start(self, event: ev.MessageStart) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        response = self._open(event.session_id, out)
        kind = _REASONING if event.role == "thought" else _TEXT
        response.texts[event.message_id] = kind
        out.append(self._chunk(response.chat, {"type": f"{kind}-start", "id": event.message_id}))
        self._new_part(response, event.message_id)
        return out

    def on_message_delta(self, event: ev.MessageDelta) -> list[dict[str, Any]]:
        response = self.responses.get(event.session_id)
        kind = response.texts.get(event.message_id) if response is not None else None
        if kind is None:
            raise CannotExpress(
                f"text of message {event.message_id!r} of session {event.session_id!r} streams "
                f"after its response ended; a text-delta belongs to a part its response has open"
            )
        if not event.text:
            return []
        chunk = {"type": f"{kind}-delta", "id": event.message_id, "delta": event.text}
        return [self._chunk(event.session_id, chunk)]

    def on_message_end(self, event: ev.MessageEnd) -> list[dict[str, Any]]:
        response = self.responses.get(event.session_id)
        kind = response.texts.pop(event.message_id, None) if response is not None else None
        if kind is None:
            return []
        return [self._chunk(event.session_id, {"type": f"{kind}-end", "id": event.message_id})]

    # -- calls ---------------------------------------------------------------------------------

    def _call(self, session: str, call: ev.ToolCall, out: list[dict[str, Any]]) -> _Call | None:
        """The call with its part in the chat's open response (made there if it has none);
        None for a finished call, whose later events no producer sends."""
        key = (session, call.id)
        state = self.calls.get(key)
        if state is not None and state.done:
            return None
        if state is not None and state.response is not None:
            if state.response is not self.responses.get(session):
                raise CannotExpress(
                    f"tool call {call.id!r} of session {session!r} goes on after the response "
                    f"holding its part ended; an AI SDK chunk finds a call in the message its "
                    f"response builds"
                )
            return state
        response = self._open(session, out)
        if state is None:
            state = self.calls[key] = _Call(session, call.id, call.name)
        state.response, state.available, state.cleared = response, False, False
        state.position = response.latest
        if state.position is None:
            response.waiting.append(state)
        response.calls.append(state)
        start = {"type": "tool-input-start", "toolCallId": call.id, "toolName": state.name}
        out.append(self._chunk(session, start))
        return state

    def _available(self, state: _Call, call: ev.ToolCall, out: list[dict[str, Any]]) -> None:
        if state.available:
            return
        state.available = True
        arguments = self.plan.arguments.get((state.session, call.id)) or call.arguments
        state.arguments = arguments
        chat = state.session
        if arguments:
            delta = {"type": "tool-input-delta", "toolCallId": call.id, "inputTextDelta": arguments}
            out.append(self._chunk(chat, delta))
        available = {
            "type": "tool-input-available",
            "toolCallId": call.id,
            "toolName": state.name,
            "input": normalize_input(arguments),
        }
        out.append(self._chunk(chat, available))

    def on_tool_select(self, event: ev.ToolSelect) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for call in event.calls:
            self._call(event.session_id, call, out)
        return out

    def on_tool_executing(self, event: ev.ToolExecuting) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for call in event.calls:
            state = self._call(event.session_id, call, out)
            if state is not None:
                self._available(state, call, out)
        return out

    def on_tool_completed(self, event: ev.ToolCompleted) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        session = event.session_id
        for call in event.calls:
            state = self.calls.get((session, call.id))
            if state is not None and state.done:
                if state.response is None or state.response is not self.responses.get(session):
                    raise CannotExpress(
                        f"the completion of tool call {call.id!r} of session {session!r} comes "
                        f"again after the response holding its part ended; no stream carries it"
                    )
            else:
                state = self._call(session, call, out)
                assert state is not None
                self._available(state, call, out)
                self._place(state)
                state.done = True
            result = event.result_for(call.id)
            chunk: dict[str, Any]
            if result is not None and result.is_error:
                chunk = {
                    "type": "tool-output-error",
                    "toolCallId": call.id,
                    "errorText": result.content,
                }
            else:
                output = result.content if result is not None else None
                chunk = {"type": "tool-output-available", "toolCallId": call.id, "output": output}
            out.append(self._chunk(session, chunk))
        return out

    def _place(self, state: _Call) -> None:
        """The call completes: where the session layer puts it must be where its part is."""
        host = self.plan.hosts.get((state.session, state.call_id))
        if host is None:
            raise CannotExpress(
                f"tool call {state.call_id!r} of session {state.session!r} completes with no "
                f"message of its interaction to carry it; an AI SDK call is a part of its "
                f"response's UIMessage, and the session layer shows such a call on none"
            )
        if state.position is None:
            state.expect = host
        elif state.position != host:
            raise _moved(state, host)

    def on_tool_stream(self, event: ev.ToolStreamPart) -> list[dict[str, Any]]:
        raise CannotExpress(
            "a preliminary tool output replaces the one before it, so a UIMessage keeps no "
            "stream of a tool's output, and this trace streams one in parts"
        )

    # -- the rest ------------------------------------------------------------------------------

    def on_system_message(self, event: ev.SystemMessage) -> list[dict[str, Any]]:
        if event.session_id not in self.responses:
            return []
        data = {"severity": event.severity, "text": event.text}
        chunk = {"type": "data-system-message", "data": data, "transient": True}
        return [self._chunk(event.session_id, chunk)]

    def on_media(self, event: ev.Media) -> list[dict[str, Any]]:
        if event.session_id not in self.responses:
            return []
        url = f"data:{event.content_type};charset=utf-8,{quote(event.content, safe='')}"
        chunk = {"type": "file", "url": url, "mediaType": event.content_type}
        return [self._chunk(event.session_id, chunk)]

    def on_resume(self, event: ev.Resume) -> list[dict[str, Any]]:
        chat = event.session_id
        response = self.responses.pop(chat, None)
        if response is not None and response.texts:
            raise CannotExpress(
                f"session {chat!r} is resumed while a message of it streams; the AI SDK would "
                f"resume that response's stream, which the history does not hold"
            )
        for block in (b for m in event.history for b in m.blocks):
            if isinstance(block, ToolResultBlock):
                state = self.calls.get((chat, block.tool_use_id))
                if state is not None:
                    state.done = True
        stored = self._stored(chat, event.history)
        out: list[dict[str, Any]] = [{"chat": chat, "setMessages": stored}]
        running = self._running(chat)
        for call in running:
            if call.response is not None and call.response is not response:
                raise CannotExpress(
                    f"session {chat!r} is resumed while tool call {call.call_id!r}, of a "
                    f"response that already ended, still runs; no stream carries it on"
                )
        last = stored[-1] if stored else None
        self.last_assistant[chat] = last["id"] if last and last["role"] == "assistant" else None
        if not running:
            return out
        self._open(chat, out)  # in motion: the response goes on, re-sending what still runs
        for call in running:
            was_available = call.available
            call.response = None
            again = ev.ToolCall(call.call_id, call.name, call.arguments)
            state = self._call(chat, again, out)
            if state is not None and was_available:
                self._available(state, again, out)
        return out

    def _stored(self, chat: str, history: Sequence[Any]) -> list[dict[str, Any]]:
        """The UIMessages a store holds for a session rebuilt from ``history`` (as the resume
        spec, ``project_history``, rebuilds it): each user message one, and the messages between
        two user messages one assistant UIMessage of a text or reasoning part each, its calls
        after it."""
        out: list[dict[str, Any]] = []
        assistant: dict[str, Any] | None = None
        for message in project_history(chat, history):
            message_id = message.message_id or ""
            if message.role == "user":
                assistant = None
                parts = [{"type": "text", "text": message.text, "state": "done"}]
                out.append({"id": message_id, "role": "user", "parts": parts})
                continue
            if assistant is None:
                assistant = {
                    "id": f"{message_id}.response",
                    "role": "assistant",
                    "parts": [{"type": "step-start"}],
                }
                out.append(assistant)
                self.parts[(chat, assistant["id"])] = []
            kind = _REASONING if message.role == "thought" else _TEXT
            assistant["parts"].append({"type": kind, "text": message.text, "state": "done"})
            self.parts[(chat, assistant["id"])].append(message_id)
            for call in message.tool_calls:
                part: dict[str, Any] = {
                    "type": f"tool-{call.name}",
                    "toolCallId": call.id,
                    "input": call.input,
                }
                if call.is_error:
                    part.update(state="output-error", errorText=call.result or "")
                else:
                    part.update(state="output-available", output=call.result)
                assistant["parts"].append(part)
        return out

    # -- decoding ------------------------------------------------------------------------------

    def decode(self, view: Any) -> tuple[tuple[Notification, ...], Transcript]:
        if not isinstance(view, Mapping):
            raise MalformedObservation(
                f"an AI SDK view should be an object of chat id -> UIMessages, got "
                f"{type(view).__name__}"
            )
        notes: list[Notification] = []
        sessions: dict[str, SessionView] = {}
        updates: list[MessageUpdate] = []
        for chat, messages in view.items():
            if not isinstance(messages, list):
                raise MalformedObservation(f"view[{chat!r}] should be a list of UIMessages")
            shown: list[Message] = []
            for i, raw in enumerate(messages):
                path = f"view[{chat!r}][{i}]"
                message = _mapping(raw, path)
                message_id, role = message.get("id"), message.get("role")
                parts = message.get("parts")
                if not isinstance(message_id, str) or not isinstance(parts, list):
                    raise MalformedObservation(f"{path} should have a string id and a parts list")
                if role == "user":
                    shown.append(Message(message_id, "user", _text(parts, path)))
                elif role == "assistant":
                    made = self.parts.get((str(chat), message_id), [])
                    self._decode_response(str(chat), parts, made, path, shown, notes, updates)
            sessions[str(chat)] = SessionView(messages=tuple(shown))
        return tuple(notes), Transcript(sessions=sessions, updates=tuple(updates))

    def _decode_response(
        self,
        chat: str,
        parts: list[Any],
        made: list[str],
        path: str,
        shown: list[Message],
        notes: list[Notification],
        updates: list[MessageUpdate],
    ) -> None:
        """One assistant UIMessage: its text and reasoning parts are the messages ``made``
        says, in order; each tool part belongs to the one before it in its response (a
        ``step-start`` part opens each), or the first one after it."""
        texts: list[list[Any]] = []  # [message id, role, text, calls] per text/reasoning part
        segment_first: int = 0  # index in ``texts`` of the first part of the current response
        waiting: list[AttachedCall] = []
        for j, raw in enumerate(parts):
            part = _mapping(raw, f"{path}.parts[{j}]")
            kind = part.get("type")
            if kind == "step-start":
                segment_first, waiting = len(texts), []
                continue
            if kind in (_TEXT, _REASONING):
                n = len(texts)
                message_id = made[n] if n < len(made) else None
                role = "thought" if kind == _REASONING else "assistant"
                texts.append([message_id, role, str(part.get("text") or ""), waiting])
                waiting = []
                continue
            name = _tool_name(part)
            if name is None:
                continue  # a file, source or data part
            call_id, state = str(part.get("toolCallId")), part.get("state")
            if state not in _FINAL:
                status = "preparing" if state == "input-streaming" else "using"
                notes.append(Notification(chat, call_id, name, status))  # type: ignore[arg-type]
                continue
            if state == "output-denied":
                continue
            error = state == "output-error"
            result = part.get("errorText") if error else part.get("output")
            attached = AttachedCall(
                call_id, name, normalize_input(part.get("input")), _output(result), error
            )
            if len(texts) > segment_first:
                texts[-1][3] = [*texts[-1][3], attached]
            else:
                waiting.append(attached)  # held for the response's first text part
        for message_id, role, text, calls in texts:
            shown.append(Message(message_id, role, text, tuple(calls)))
            if calls and message_id is not None:
                updates.append(MessageUpdate(chat, message_id))


class _Producer:
    """The chunks of the codec's own shape, rewritten as a producer variant sends them
    (``VARIANTS``); one per replay."""

    def __init__(self, variant: str) -> None:
        self.variant = variant
        self.sent = 0  # message-metadata: chunks sent so far

    def rewrite(self, out: list[dict[str, Any]]) -> list[dict[str, Any]]:
        if self.variant == "input-not-streamed":
            return self._input_not_streamed(out)
        rewritten: list[dict[str, Any]] = []
        step = getattr(self, "_" + self.variant.replace("-", "_"))
        for item in out:
            rewritten.extend(step(item) if "chunk" in item else [item])
        return rewritten

    @staticmethod
    def _input_not_streamed(out: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """A call started and made available by the same event (no moment shows its input
        streaming) sends tool-input-available alone, where its start was."""
        available = {
            (item["chat"], item["chunk"]["toolCallId"])
            for item in out
            if item.get("chunk", {}).get("type") == "tool-input-available"
        }
        started: set[tuple[str, str]] = set()
        for item in out:
            chunk = item.get("chunk", {})
            key = (item.get("chat"), chunk.get("toolCallId"))
            if chunk.get("type") == "tool-input-start" and key in available:
                started.add(key)
        return [
            item
            for item in out
            if not (
                item.get("chunk", {}).get("type") in ("tool-input-start", "tool-input-delta")
                and (item.get("chat"), item["chunk"].get("toolCallId")) in started
            )
        ]

    def _message_metadata(self, item: dict[str, Any]) -> list[dict[str, Any]]:
        chunk = item["chunk"]
        self.sent += 1
        metadata = {"model": "producer-model", "chunks": self.sent}
        if chunk["type"] in ("start", "finish"):
            return [{**item, "chunk": {**chunk, "messageMetadata": metadata}}]
        if chunk["type"] == "abort":
            return [item]
        extra = {"type": "message-metadata", "messageMetadata": metadata}
        return [item, {"chat": item["chat"], "chunk": extra}]

    _PROVIDED = (
        "text-start",
        "text-delta",
        "text-end",
        "reasoning-start",
        "reasoning-delta",
        "reasoning-end",
        "tool-input-start",
        "tool-input-available",
    )

    def _provider_metadata(self, item: dict[str, Any]) -> list[dict[str, Any]]:
        chunk = item["chunk"]
        if chunk["type"] not in self._PROVIDED:
            return [item]
        named = chunk.get("id") or chunk.get("toolCallId")
        metadata = {"producer": {"itemId": f"item_{named}"}}
        return [{**item, "chunk": {**chunk, "providerMetadata": metadata}}]

    def _data_parts(self, item: dict[str, Any]) -> list[dict[str, Any]]:
        chunk, chat = item["chunk"], item["chat"]
        if chunk["type"] == "start-step":
            data = {"type": "data-status", "id": "status", "data": {"state": "working"}}
            return [item, {"chat": chat, "chunk": data}]
        if chunk["type"] == "finish-step":
            data = {"type": "data-status", "id": "status", "data": {"state": "done"}}
            return [{"chat": chat, "chunk": data}, item]
        return [item]


def _moved(call: _Call, host: str) -> CannotExpress:
    return CannotExpress(
        f"tool call {call.call_id!r} of session {call.session!r} has its part after message "
        f"{call.position!r} in its response, and the session layer puts it on {host!r} (a "
        f"message started between the call's start and its completion); an AI SDK call "
        f"belongs to the part its position gives it"
    )


def _mapping(value: Any, path: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise MalformedObservation(f"{path} should be an object, got {type(value).__name__}")
    return value


def _text(parts: list[Any], path: str) -> str:
    return "".join(
        str(p.get("text") or "")
        for p in (_mapping(x, f"{path}.parts[]") for x in parts)
        if p.get("type") == _TEXT
    )


def _tool_name(part: Mapping[str, Any]) -> str | None:
    kind = part.get("type")
    if kind == "dynamic-tool":
        return str(part.get("toolName") or "")
    if isinstance(kind, str) and kind.startswith("tool-"):
        return kind[len("tool-") :]
    return None


def _output(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value)


_HANDLERS: dict[type[ev.SessionEvent], Any] = {
    ev.UserMessage: AISDKUIEncoder.on_user_message,
    ev.UserTurnStart: AISDKUIEncoder.on_user_turn_start,
    ev.InteractionStart: AISDKUIEncoder.on_interaction_start,
    ev.InteractionEnd: AISDKUIEncoder.on_interaction_end,
    ev.SubsessionStart: AISDKUIEncoder.on_subsession_start,
    ev.MessageStart: AISDKUIEncoder.on_message_start,
    ev.MessageDelta: AISDKUIEncoder.on_message_delta,
    ev.MessageEnd: AISDKUIEncoder.on_message_end,
    ev.ToolSelect: AISDKUIEncoder.on_tool_select,
    ev.ToolExecuting: AISDKUIEncoder.on_tool_executing,
    ev.ToolCompleted: AISDKUIEncoder.on_tool_completed,
    ev.ToolStreamPart: AISDKUIEncoder.on_tool_stream,
    ev.SystemMessage: AISDKUIEncoder.on_system_message,
    ev.Media: AISDKUIEncoder.on_media,
    ev.Resume: AISDKUIEncoder.on_resume,
}
