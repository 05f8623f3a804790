"""AG-UI as a session dialect: a canonical session trace as the events an AG-UI client applies
(``@ag-ui/client``: ``verifyEvents``, then ``defaultApplyEvents`` turning them into messages).

One top-level session is one thread; each of its interactions is one run. A sub-session is a
sub-agent of the run (``SUBAGENT_STARTED``), and its events carry its ``subagentRunId`` (the
sub-session's id)::

    canonical                         AG-UI
    user_message                      TEXT_MESSAGE_START {role: user}, _CONTENT, _END (in a run)
    interaction_start (top level)     RUN_STARTED {threadId, runId}, unless a run is open
    interaction_end (top level)       what is still open closed (TEXT_MESSAGE_END, TOOL_CALL_END,
                                      REASONING_*_END, SUBAGENT_FINISHED), then RUN_FINISHED
    user_turn_start, a run open       RUN_ERROR {code: abort}: the run was cut off, as HttpAgent
                                      reports an aborted request
    message_start/delta/end           TEXT_MESSAGE_START {role: assistant}/_CONTENT/_END
      (a thought)                     REASONING_START, REASONING_MESSAGE_START/_CONTENT/_END,
                                      REASONING_END
    tool_select                       TOOL_CALL_START {toolCallId, toolCallName, parentMessageId}
    tool_executing                    TOOL_CALL_ARGS {delta: the arguments}, TOOL_CALL_END
    tool_completed                    what the call still lacks of the above, then
                                      TOOL_CALL_RESULT {messageId: "<session>.<id>.result",
                                      content}
    subsession_start/_end             SUBAGENT_STARTED/_FINISHED {subagentRunId: the session}
    resume (top level)                MESSAGES_SNAPSHOT of the rebuilt session
    system_message, media             CUSTOM {name: "system_message" | "media", value}

**The producer decides where a call attaches.** ``parentMessageId`` names the message the call
belongs to, as the trace says (the ledger's host): the latest message before its completion,
or for an interaction that opens with calls, the next one. A reasoning message cannot hold calls
(the client falls back to a message named after the call), so a thought's calls go on an
assistant message of their own, ``"<thought id>.calls"``; a call that never completes has no
host, and goes on ``"<call id>.call"``. These messages the codec made are not messages of the
transcript: decoding puts their calls back on the host they stand for.

**What the consumer shows.** Its view is ``{threadId: [AG-UI messages]}``. A tool message
(``role: tool``) is the result of the call of its ``toolCallId`` on the nearest assistant
message before it (where the client inserts it); a call with one is a completed call on its
host, shown once per result; a call without one is in progress: "preparing" while its arguments
have not arrived (``TOOL_CALL_START`` only), "using" once they have.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

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

NAME = "ag-ui"

QUIRKS: dict[str, str] = {
    "reasoning-holds-no-calls": (
        "a TOOL_CALL_START whose parentMessageId names a reasoning message is put on a new "
        "assistant message named after the call (@ag-ui/client 1.0.0, defaultApplyEvents: "
        "'matches a reasoning message, not assistant — falling back to toolCallId')"
    ),
    "in-progress-calls-shown": (
        "a call is on its message from TOOL_CALL_START on, with the arguments so far: the "
        "messages carry no state, so a call without a tool message is in progress (or pending "
        "for the front end after the run: RUN_FINISHED outcome.pendingToolCallIds)"
    ),
    "no-error-flag-live": (
        "TOOL_CALL_RESULT has no error field (@ag-ui/core 1.0.0 ToolCallResultEventSchema); "
        "only a tool message of a MESSAGES_SNAPSHOT carries 'error'"
    ),
    "ids-per-run": (
        "verifyEvents refuses, within one run, a message or tool call id that another agent "
        "(sub-agent or parent) already owns, and forgets them at the next RUN_STARTED: ids may "
        "repeat across runs, as models' call ids do"
    ),
    "snapshot-replaces-thread": (
        "MESSAGES_SNAPSHOT replaces the whole thread's messages, sub-agents' included "
        "(defaultApplyEvents keeps only messages the snapshot names, and reasoning messages "
        "when the snapshot holds none)"
    ),
    "abort-is-run-error": (
        "an aborted request reaches the client as RUN_ERROR {code: 'abort'} "
        "(@ag-ui/client transformHttpEventStream)"
    ),
}

#: the shapes real AG-UI producers send, which a consumer must read as it reads the codec's own
#: (``harness.codecs.session.base``): each replayed as a case of its own, ``SCENARIO[VARIANT]``
VARIANTS: dict[str, str] = {
    "chunk-events": (
        "text messages and tool calls sent as TEXT_MESSAGE_CHUNK and TOOL_CALL_CHUNK events, "
        "each naming its message or call, with no END: 'convenience event that expands to "
        "Start → Content → End automatically' (AG-UI docs, Events, TextMessageChunk and "
        "ToolCallChunk); @ag-ui/client 1.0.0 expands them in runAgent (transformChunks), "
        "closing an open chunk stream at the next event of its agent"
    ),
    "no-role": (
        "an assistant's TEXT_MESSAGE_START without its role: the field is optional "
        "(@ag-ui/core 1.0.0 TextMessageStartEventSchema, role optional) and a message without "
        "one is an assistant's (@ag-ui/client 1.0.0 defaultApplyEvents: role = 'assistant')"
    ),
    "steps": (
        "each run's work inside STEP_STARTED/STEP_FINISHED, a step per graph node (the model's, "
        "then the tools'), as ag-ui-langgraph sends them at each node change "
        "(ag-ui-protocol/ag-ui integrations/langgraph/python/ag_ui_langgraph/agent.py, "
        "handle_node_change); they change no message"
    ),
    "raw-events": (
        "a RAW event, the producer's own event passed through, before every event of a run, as "
        "ag-ui-langgraph sends one for every LangGraph event "
        "(ag-ui-protocol/ag-ui integrations/langgraph/python/ag_ui_langgraph/agent.py, "
        "_handle_stream_events); a consumer shows nothing of it"
    ),
}

_NOT_A_STATE = (
    "AG-UI messages carry no call state, and a call the run leaves without result stays on its "
    "message, pending for the front end (RUN_FINISHED outcome.pendingToolCallIds): "
)

PROFILE: dict[str, RuleUse] = {
    "session-keyed-tracking": RuleUse(
        True,
        "A call is (agent, toolCallId): a sub-agent's call with an id its parent used in an "
        "earlier run is a call of its own; it never renames, moves or shows the parent's call.",
    ),
    "notification-lifecycle": RuleUse(
        True,
        "A call shows in progress from its TOOL_CALL_START: 'preparing' until its arguments "
        "arrive, 'using' after them; its tool message completes it. Lifecycle events after "
        "the result are not sent (a producer does not restart a finished call).",
    ),
    "cleanup-interaction-end": RuleUse(False, _NOT_A_STATE + "nothing clears it at RUN_FINISHED."),
    "cleanup-user-turn": RuleUse(False, _NOT_A_STATE + "nothing clears it at RUN_ERROR either."),
    "lost-completion": RuleUse(
        True,
        "A call whose TOOL_CALL_RESULT never arrives never shows a result, whatever ends the run.",
    ),
    "backward-attachment": RuleUse(
        True,
        "The consumer shows the call where the producer put it: on the message its "
        "parentMessageId names (for a thought, the assistant message the producer made for "
        "its calls). Message-updated notices are not judged: the messages re-render whole.",
    ),
    "forward-attachment": RuleUse(
        True,
        "A call whose parentMessageId names a message that has not started yet is held on "
        "that message: when its TEXT_MESSAGE_START comes, the text joins the same message.",
    ),
    "exactly-once": RuleUse(
        True,
        "Each call shows one result: a TOOL_CALL_RESULT delivered twice is one tool message, "
        "and a later run's call with the same id adds nothing to the earlier call.",
    ),
    "resume-equivalence": RuleUse(
        True,
        "A MESSAGES_SNAPSHOT of a resumed thread shows the same messages, calls and results "
        "as the live run did.",
    ),
    "streamed-tool-results": RuleUse(
        False,
        "AG-UI streams no tool output: TOOL_CALL_RESULT carries a result whole "
        "(a scenario with streamed tool output is skipped).",
    ),
    "subsession-isolation": RuleUse(
        True,
        "A sub-agent's events (its subagentRunId) never change the parent's messages: its "
        "messages, calls and results are its own, even where its ids match the parent's.",
    ),
    "result-error-flag": RuleUse(
        True,
        "A tool message of a snapshot keeps its 'error'; a live TOOL_CALL_RESULT carries no "
        "error flag, so a live result is expected without one.",
    ),
    "reference-comparison": RuleUse(
        True,
        "Everything shown is compared with the bundled AG-UI reference consumer's view of the "
        "same events (session-ag-ui-reference).",
    ),
}

_ABORT = {"type": "RUN_ERROR", "message": "Request aborted", "code": "abort"}


class AGUISessionCodec:
    """AG-UI events for a canonical session trace (``harness.codecs.session.base``)."""

    name = NAME
    profile = PROFILE
    quirks = QUIRKS
    variants = VARIANTS

    def can_express(self, trace: Sequence[ev.SessionEvent]) -> str | None:
        return dry_run(self, trace)

    def project(self, event: ev.SessionEvent) -> ev.SessionEvent:
        """A live result without its error flag (TOOL_CALL_RESULT has none), and a completion
        without a result as one with an empty content (a tool message is what completes a
        call)."""
        if type(event) is not ev.ToolCompleted:
            return event
        results = tuple(
            ev.ToolResult(c.id, found.content if (found := event.result_for(c.id)) else "")
            for c in event.calls
        )
        if results == event.results:
            return event
        return replace(event, results=results)

    def encoder(self, trace: Sequence[ev.SessionEvent], variant: str = "") -> AGUIEncoder:
        if variant and variant not in VARIANTS:
            raise ValueError(
                f"AG-UI has no producer variant {variant!r} (its variants: {', '.join(VARIANTS)})"
            )
        return AGUIEncoder(_Plan.of(trace), _Producer(variant) if variant else None)


@dataclass(frozen=True)
class _Plan:
    """What the encoder must know ahead: where each completed call belongs, and which messages
    are thoughts."""

    #: (session, call id) -> the message it belongs on, or None for a completed call the trace
    #: puts on no message
    hosts: dict[tuple[str, str], str | None]
    thoughts: frozenset[tuple[str, str]]
    #: (session, call id) -> the arguments its completion carries: a producer sends a call's
    #: arguments whole before it runs the tool
    arguments: dict[tuple[str, str], str]

    @classmethod
    def of(cls, trace: Sequence[ev.SessionEvent]) -> _Plan:
        ledger = SessionLedger(trace)
        hosts = {
            key: record.host if record.mode in ("backward", "forward") else None
            for key, record in ledger.calls.items()
            if record.completed_index >= 0
        }
        thoughts = frozenset(k for k, m in ledger.messages.items() if m.role == "thought")
        arguments = {
            key: record.arguments
            for key, record in ledger.calls.items()
            if record.completed_index >= 0
        }
        return cls(hosts, thoughts, arguments)


@dataclass
class _Call:
    session: str
    name: str
    parent: str
    args: str = ""
    ended: bool = False
    done: bool = False


@dataclass
class _Run:
    run_id: str
    texts: dict[str, str] = field(default_factory=dict)  # open message id -> "text"/"reasoning"
    calls: dict[str, str] = field(default_factory=dict)  # call id -> session, in this run
    open_calls: list[str] = field(default_factory=list)  # started, not ended (session|id keys)
    subagents: list[str] = field(default_factory=list)  # active, in start order


class AGUIEncoder:
    """One replay's AG-UI encoding, and the decoding of what the consumer shows."""

    def __init__(self, plan: _Plan, producer: _Producer | None = None) -> None:
        self.plan = plan
        self.producer = producer
        self.parent: dict[str, str | None] = {}
        self.root: str | None = None
        self.run: _Run | None = None
        self.runs = 0
        self.calls: dict[tuple[str, str], _Call] = {}
        #: message id -> the session that owns it, in the thread
        self.owners: dict[str, str] = {}
        #: ids of the assistant messages the codec made -> (session, the host they stand for)
        self.synthetic: dict[str, tuple[str, str | None]] = {}
        self.subagents_seen: set[str] = set()
        #: the messages the stream has started (a call may name one it has not started yet)
        self.started: set[str] = set()
        self.future_hosts = {h for h in plan.hosts.values() if h is not None}

    # -- encoding ------------------------------------------------------------------------------

    def encode(self, event: ev.SessionEvent) -> list[dict[str, Any]]:
        kind = type(event)
        session = event.session_id
        if not session:
            raise CannotExpress(
                "an AG-UI event names its agent (subagentRunId); a channel that does not label "
                "sub-sessions has no AG-UI form"
            )
        if event.parent_session_id is not None:
            self.parent.setdefault(session, event.parent_session_id)
        elif session not in self.parent:
            self.parent[session] = None
            if self.root is None:
                self.root = session
            elif self.root != session:
                raise CannotExpress(
                    f"AG-UI events name their thread only in RUN_STARTED; this trace has two "
                    f"top-level sessions ({self.root!r}, {session!r}), which the harness feeds "
                    f"as one thread"
                )
        handler = _HANDLERS.get(kind)
        out: list[dict[str, Any]] = handler(self, event) if handler is not None else []
        return out if self.producer is None else self.producer.rewrite(out)

    def _top(self, session: str) -> str:
        seen = 0
        while (up := self.parent.get(session)) is not None and seen < 64:
            session, seen = up, seen + 1
        return session

    def _attributed(self, session: str, data: dict[str, Any]) -> dict[str, Any]:
        if self.parent.get(session) is not None:
            data["subagentRunId"] = session
        return data

    def _open(self, out: list[dict[str, Any]]) -> _Run:
        if self.run is None:
            self.runs += 1
            self.run = _Run(f"run_{self.runs}")
            out.append({"type": "RUN_STARTED", "threadId": self.root, "runId": self.run.run_id})
        return self.run

    def _enter(self, session: str, out: list[dict[str, Any]]) -> _Run:
        """The open run, with the session's sub-agent (and its parents') started in it."""
        run = self._open(out)
        chain = []
        while (up := self.parent.get(session)) is not None and session not in run.subagents:
            chain.append((session, up))
            session = up
        for sub, up in reversed(chain):
            started: dict[str, Any] = {
                "type": "SUBAGENT_STARTED",
                "subagentRunId": sub,
                "name": sub,
            }
            if self.parent.get(up) is not None:
                started["parentSubagentRunId"] = up
            out.append(started)
            run.subagents.append(sub)
            self.subagents_seen.add(sub)
        return run

    def _close(self, out: list[dict[str, Any]], *, error: bool) -> None:
        run, self.run = self.run, None
        if run is None:
            return
        for key in run.open_calls:  # a call's arguments belong to the run that started it
            self.calls[_split(key)].ended = True
        if error:
            out.append(dict(_ABORT))
            return
        for message_id, kind in run.texts.items():
            out.extend(self._text_end(message_id, kind))
        for key in run.open_calls:
            session, call_id = _split(key)
            out.append(self._attributed(session, {"type": "TOOL_CALL_END", "toolCallId": call_id}))
        for sub in reversed(run.subagents):
            out.append({"type": "SUBAGENT_FINISHED", "subagentRunId": sub})
        out.append({"type": "RUN_FINISHED", "threadId": self.root, "runId": run.run_id})

    def _text_end(self, message_id: str, kind: str) -> list[dict[str, Any]]:
        session = self.owners[message_id]
        if kind == "text":
            return [
                self._attributed(session, {"type": "TEXT_MESSAGE_END", "messageId": message_id})
            ]
        return [
            self._attributed(session, {"type": "REASONING_MESSAGE_END", "messageId": message_id}),
            self._attributed(session, {"type": "REASONING_END", "messageId": message_id}),
        ]

    def _own(self, session: str, message_id: str) -> None:
        owner = self.owners.setdefault(message_id, session)
        if owner != session:
            raise CannotExpress(
                f"message id {message_id!r} is used by sessions {owner!r} and {session!r} of one "
                f"thread; an AG-UI message id names one message of the thread, whichever agent "
                f"streams it"
            )

    def on_user_message(self, event: ev.UserMessage) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        session = event.session_id
        if self.parent.get(session) is None and self.run is not None:
            self._close(out, error=False)  # a new prompt of the thread: a new run
        self._enter(session, out)
        self._own(session, event.message_id)
        start = {"type": "TEXT_MESSAGE_START", "messageId": event.message_id, "role": "user"}
        out.append(self._attributed(session, start))
        if event.text:
            content = {
                "type": "TEXT_MESSAGE_CONTENT",
                "messageId": event.message_id,
                "delta": event.text,
            }
            out.append(self._attributed(session, content))
        out.append(
            self._attributed(session, {"type": "TEXT_MESSAGE_END", "messageId": event.message_id})
        )
        return out

    def on_interaction_start(self, event: ev.InteractionStart) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        self._enter(event.session_id, out)
        return out

    def on_interaction_end(self, event: ev.InteractionEnd) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        if self.parent.get(event.session_id) is None:
            self._close(out, error=False)
        return out

    def on_user_turn_start(self, event: ev.UserTurnStart) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        self._close(out, error=True)
        return out

    def on_message_start(self, event: ev.MessageStart) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        session, message_id = event.session_id, event.message_id
        run = self._enter(session, out)
        self._own(session, message_id)
        self.started.add(message_id)
        if event.role == "thought":
            run.texts[message_id] = "reasoning"
            out.append(
                self._attributed(session, {"type": "REASONING_START", "messageId": message_id})
            )
            start = {
                "type": "REASONING_MESSAGE_START",
                "messageId": message_id,
                "role": "reasoning",
            }
        else:
            run.texts[message_id] = "text"
            start = {"type": "TEXT_MESSAGE_START", "messageId": message_id, "role": "assistant"}
        out.append(self._attributed(session, start))
        return out

    def on_message_delta(self, event: ev.MessageDelta) -> list[dict[str, Any]]:
        run = self.run
        kind = run.texts.get(event.message_id) if run is not None else None
        if kind is None:
            raise CannotExpress(
                f"text of message {event.message_id!r} streams after its run ended; AG-UI "
                f"content belongs to a message open in the run"
            )
        if not event.text:
            return []
        name = "TEXT_MESSAGE_CONTENT" if kind == "text" else "REASONING_MESSAGE_CONTENT"
        data = {"type": name, "messageId": event.message_id, "delta": event.text}
        return [self._attributed(event.session_id, data)]

    def on_message_end(self, event: ev.MessageEnd) -> list[dict[str, Any]]:
        run = self.run
        kind = run.texts.pop(event.message_id, None) if run is not None else None
        return [] if kind is None else self._text_end(event.message_id, kind)

    def _parent_of(self, session: str, call_id: str) -> str:
        """The message a call's TOOL_CALL_START names: its host, or one the codec makes."""
        key = (session, call_id)
        if key in self.plan.hosts:
            host = self.plan.hosts[key]
            if host is None:
                raise CannotExpress(
                    f"tool call {call_id!r} of session {session!r} completes with no message of "
                    f"its interaction to carry it; AG-UI puts every call on an assistant message, "
                    f"and the session layer shows such a call on none"
                )
            if (session, host) not in self.plan.thoughts:
                return host
            made = f"{host}.calls"
            self.synthetic[made] = (session, host)
            return made
        made = f"{call_id}.call"
        self.synthetic[made] = (session, None)
        return made

    def _start(self, session: str, call: ev.ToolCall, out: list[dict[str, Any]]) -> _Call | None:
        """The call started in the open run, if it can be (None: it is finished)."""
        key = (session, call.id)
        state = self.calls.get(key)
        if state is not None and state.done:
            return None  # a completion is final: no producer restarts a finished call
        run = self._enter(session, out)
        owner = run.calls.setdefault(call.id, session)
        if owner != session:
            raise CannotExpress(
                f"tool call id {call.id!r} is used by sessions {owner!r} and {session!r} in one "
                f"run; AG-UI's verifyEvents refuses an id another agent owns in the run"
            )
        if state is None:
            state = self.calls[key] = _Call(session, call.name, self._parent_of(session, call.id))
            start = {
                "type": "TOOL_CALL_START",
                "toolCallId": call.id,
                "toolCallName": call.name,
                "parentMessageId": state.parent,
            }
            out.append(self._attributed(session, start))
            run.open_calls.append(_key(key))
        return state

    def _args(self, state: _Call, call: ev.ToolCall, out: list[dict[str, Any]]) -> None:
        if state.ended:
            if not state.args:
                raise CannotExpress(
                    f"the arguments of tool call {call.id!r} come after the run that started it "
                    f"ended; AG-UI arguments belong to a call open in the run"
                )
            return
        if not state.args:
            state.args = self.plan.arguments.get((state.session, call.id)) or call.arguments or "{}"
            args = {"type": "TOOL_CALL_ARGS", "toolCallId": call.id, "delta": state.args}
            out.append(self._attributed(state.session, args))
        state.ended = True
        out.append(
            self._attributed(state.session, {"type": "TOOL_CALL_END", "toolCallId": call.id})
        )
        run = self.run
        if run is not None and _key((state.session, call.id)) in run.open_calls:
            run.open_calls.remove(_key((state.session, call.id)))

    def on_tool_select(self, event: ev.ToolSelect) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for call in event.calls:
            self._start(event.session_id, call, out)
        return out

    def on_tool_executing(self, event: ev.ToolExecuting) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for call in event.calls:
            state = self._start(event.session_id, call, out)
            if state is not None:
                self._args(state, call, out)
        return out

    def on_tool_completed(self, event: ev.ToolCompleted) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        session = event.session_id
        for call in event.calls:
            state = self.calls.get((session, call.id))
            if state is None or not state.done:
                state = self._start(session, call, out)
                assert state is not None
                self._args(state, call, out)
            else:
                self._enter(session, out)  # a completion delivered again: the same result again
            state.done = True
            result = event.result_for(call.id)
            data = {
                "type": "TOOL_CALL_RESULT",
                "messageId": f"{session}.{call.id}.result",
                "toolCallId": call.id,
                "content": result.content if result else "",
                "role": "tool",
            }
            out.append(self._attributed(session, data))
        return out

    def on_subsession_start(self, event: ev.SubsessionStart) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        self._enter(event.session_id, out)
        return out

    def on_subsession_end(self, event: ev.SubsessionEnd) -> list[dict[str, Any]]:
        run = self.run
        if run is None or event.session_id not in run.subagents:
            return []
        run.subagents.remove(event.session_id)
        return [{"type": "SUBAGENT_FINISHED", "subagentRunId": event.session_id}]

    def on_tool_stream(self, event: ev.ToolStreamPart) -> list[dict[str, Any]]:
        raise CannotExpress(
            "AG-UI streams no tool output: TOOL_CALL_RESULT carries a result whole, and this "
            "trace streams a tool's output in parts"
        )

    def on_custom(self, event: ev.SystemMessage | ev.Media) -> list[dict[str, Any]]:
        if self.run is None:
            return []
        value = (
            {"severity": event.severity, "text": event.text}
            if isinstance(event, ev.SystemMessage)
            else {"contentType": event.content_type, "content": event.content}
        )
        return [
            self._attributed(
                event.session_id, {"type": "CUSTOM", "name": event.kind, "value": value}
            )
        ]

    def on_resume(self, event: ev.Resume) -> list[dict[str, Any]]:
        session = event.session_id
        if self.parent.get(session) is not None:
            raise CannotExpress(
                f"sub-session {session!r} is resumed alone; an AG-UI MESSAGES_SNAPSHOT replaces "
                f"the whole thread's messages"
            )
        if self.subagents_seen:
            raise CannotExpress(
                "a MESSAGES_SNAPSHOT replaces the whole thread's messages, sub-agents' too, and "
                "the session layer resumes a session alone"
            )
        if self.run is not None and self.run.texts:
            raise CannotExpress("the session is resumed while a message streams")
        out: list[dict[str, Any]] = []
        self._open(out)
        for block in (b for m in event.history for b in m.blocks):
            if isinstance(block, ToolResultBlock):
                state = self.calls.get((session, block.tool_use_id))
                if state is not None:
                    state.done = True
        self.owners = {m: s for m, s in self.owners.items() if s != session}
        messages = _snapshot(session, event.history, self.synthetic)
        for message in messages:
            if message["role"] != "tool":
                self.owners[message["id"]] = session
                self.started.add(message["id"])
        for (owner, call_id), state in self.calls.items():
            if owner == session and not state.done:  # still running: not in the history
                made = f"{call_id}.call"
                self.synthetic[made] = (session, None)
                call = {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": state.name, "arguments": state.args},
                }
                messages.append({"id": made, "role": "assistant", "toolCalls": [call]})
                state.parent = made
        return [*out, {"type": "MESSAGES_SNAPSHOT", "messages": messages}]

    # -- decoding ------------------------------------------------------------------------------

    def decode(self, view: Any) -> tuple[tuple[Notification, ...], Transcript]:
        if not isinstance(view, Mapping):
            raise MalformedObservation(
                f"an AG-UI view should be an object of thread id -> messages, got {type(view).__name__}"
            )
        notes: list[Notification] = []
        sessions: dict[str, list[Message]] = {}
        updates: list[MessageUpdate] = []
        for thread, messages in view.items():
            if not isinstance(messages, list):
                raise MalformedObservation(f"view[{thread!r}] should be a list of messages")
            self._decode_thread(str(thread), messages, notes, sessions, updates)
        transcript = Transcript(
            sessions={s: SessionView(messages=tuple(m)) for s, m in sessions.items()},
            updates=tuple(updates),
        )
        return tuple(notes), transcript

    def _decode_thread(
        self,
        thread: str,
        messages: list[Any],
        notes: list[Notification],
        sessions: dict[str, list[Message]],
        updates: list[MessageUpdate],
    ) -> None:
        shown: list[tuple[str, str | None, Mapping[str, Any]]] = []  # (session, host, message)
        results: dict[int, list[tuple[str, Mapping[str, Any]]]] = {}
        for i, raw in enumerate(messages):
            path = f"view[{thread!r}][{i}]"
            message = _mapping(raw, path)
            role = message.get("role")
            session = message.get("subagentRunId") or thread
            message_id = message.get("id")
            if not isinstance(session, str) or not isinstance(message_id, str):
                raise MalformedObservation(f"{path} should have a string id and subagentRunId")
            if role == "tool":
                call_id = message.get("toolCallId")
                for j in range(len(shown) - 1, -1, -1):  # the nearest message holding the call
                    if any(c.get("id") == call_id for c in _calls(shown[j][2], path)):
                        results.setdefault(j, []).append((str(call_id), message))
                        break
                continue
            host: str | None = message_id
            if role == "assistant" and message_id in self.synthetic:
                session, host = self.synthetic[message_id]
            elif message_id in self.future_hosts and message_id not in self.started:
                pass  # named by a call, not started yet: no role or text to show
            elif role in ("user", "assistant", "reasoning"):
                text = _text(message.get("content"))
                kind = {"user": "user", "assistant": "assistant", "reasoning": "thought"}[role]
                sessions.setdefault(session, []).append(Message(message_id, kind, text))  # type: ignore[arg-type]
            shown.append((session, host, message))
        for j, (session, host, message) in enumerate(shown):
            got = results.get(j, [])
            for call in _calls(message, f"view[{thread!r}]"):
                call_id, function = (
                    call.get("id"),
                    _mapping(call.get("function"), "toolCalls[].function"),
                )
                name, arguments = function.get("name", ""), function.get("arguments", "")
                mine = [r for cid, r in got if cid == call_id]
                if not mine:
                    notes.append(
                        Notification(
                            session, str(call_id), str(name), "using" if arguments else "preparing"
                        )
                    )
                    continue
                if host is not None and host in self.future_hosts and host not in self.started:
                    continue  # held for a message not started yet, as the session layer holds it
                for result in mine:
                    attached = AttachedCall(
                        str(call_id),
                        str(name),
                        normalize_input(arguments),
                        _text(result.get("content")),
                        bool(result.get("error")),
                    )
                    where = host if host is not None else str(call_id)
                    _attach(sessions.setdefault(session, []), where, attached, updates, session)


class _Producer:
    """The events of the codec's own shape, rewritten as a producer variant sends them
    (``VARIANTS``); one per replay, as what it rewrites depends on what came before."""

    def __init__(self, variant: str) -> None:
        self.variant = variant
        #: chunk-events: (agent, id) -> the fields every chunk of that message or call names
        self.named: dict[tuple[Any, str], dict[str, Any]] = {}
        #: steps: the parent agent's open step (None outside a run)
        self.step: str | None = None
        #: raw-events: a run is open
        self.in_run = False

    def rewrite(self, out: list[dict[str, Any]]) -> list[dict[str, Any]]:
        rewritten: list[dict[str, Any]] = []
        step = getattr(self, "_" + self.variant.replace("-", "_"))
        for event in out:
            rewritten.extend(step(event))
        return rewritten

    def _chunk_events(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        kind = event["type"]
        agent = event.get("subagentRunId")
        if kind in ("TEXT_MESSAGE_END", "TOOL_CALL_END"):
            # the client's transform closes the chunk stream at the next event; the names of
            # what ended are not needed again
            ended = event["messageId"] if kind == "TEXT_MESSAGE_END" else event["toolCallId"]
            self.named.pop((agent, ended), None)
            return []
        if kind == "TEXT_MESSAGE_START":
            named = {"messageId": event["messageId"], "role": event.get("role", "assistant")}
            self.named[(agent, event["messageId"])] = named
            chunk = {"type": "TEXT_MESSAGE_CHUNK", **named}
        elif kind == "TEXT_MESSAGE_CONTENT":
            named = self.named.get((agent, event["messageId"]), {"messageId": event["messageId"]})
            chunk = {"type": "TEXT_MESSAGE_CHUNK", **named, "delta": event["delta"]}
        elif kind == "TOOL_CALL_START":
            named = {"toolCallId": event["toolCallId"], "toolCallName": event["toolCallName"]}
            if "parentMessageId" in event:
                named["parentMessageId"] = event["parentMessageId"]
            self.named[(agent, event["toolCallId"])] = named
            chunk = {"type": "TOOL_CALL_CHUNK", **named}
        elif kind == "TOOL_CALL_ARGS":
            named = self.named.get(
                (agent, event["toolCallId"]), {"toolCallId": event["toolCallId"]}
            )
            chunk = {"type": "TOOL_CALL_CHUNK", **named, "delta": event["delta"]}
        else:
            return [event]
        if agent is not None:
            chunk["subagentRunId"] = agent
        return [chunk]

    def _no_role(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        if event["type"] == "TEXT_MESSAGE_START" and event.get("role") == "assistant":
            return [{k: v for k, v in event.items() if k != "role"}]
        return [event]

    def _steps(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        kind = event["type"]
        parent = event.get("subagentRunId") is None
        if kind == "RUN_STARTED":
            self.step = "agent"
            return [event, {"type": "STEP_STARTED", "stepName": "agent"}]
        if kind == "RUN_FINISHED":
            finished, self.step = self.step, None
            if finished is None:
                return [event]
            return [{"type": "STEP_FINISHED", "stepName": finished}, event]
        if kind == "RUN_ERROR":
            self.step = None
            return [event]
        if self.step is None or not parent:
            return [event]
        if kind == "TOOL_CALL_RESULT":
            wanted = "tools"
        elif kind in ("TOOL_CALL_START", "REASONING_START") or (
            kind == "TEXT_MESSAGE_START" and event.get("role") != "user"
        ):
            wanted = "agent"
        else:
            return [event]
        if wanted == self.step:
            return [event]
        finished, self.step = self.step, wanted
        return [
            {"type": "STEP_FINISHED", "stepName": finished},
            {"type": "STEP_STARTED", "stepName": wanted},
            event,
        ]

    def _raw_events(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        kind = event["type"]
        if kind == "RUN_STARTED":
            self.in_run = True
            return [event]
        if not self.in_run:
            return [event]
        if kind in ("RUN_FINISHED", "RUN_ERROR"):
            self.in_run = False
        raw = {"type": "RAW", "event": {"event": "on_" + kind.lower()}, "source": "producer"}
        return [raw, event]


def _attach(
    messages: list[Message],
    host: str,
    call: AttachedCall,
    updates: list[MessageUpdate],
    session: str,
) -> None:
    for i, message in enumerate(messages):
        if message.message_id == host:
            messages[i] = replace(message, tool_calls=(*message.tool_calls, call))
            updates.append(MessageUpdate(session, message.message_id))
            return
    # the host the call stands for is not shown: the call shows on a message of its own
    messages.append(Message(host, "assistant", "", (call,)))


def _mapping(value: Any, path: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise MalformedObservation(f"{path} should be an object, got {type(value).__name__}")
    return value


def _calls(message: Mapping[str, Any], path: str) -> list[Mapping[str, Any]]:
    calls = message.get("toolCalls") or []
    if not isinstance(calls, list):
        raise MalformedObservation(f"{path}.toolCalls should be a list")
    return [_mapping(c, f"{path}.toolCalls[]") for c in calls]


def _text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            p.get("text", "") for p in content if isinstance(p, Mapping) and p.get("type") == "text"
        )
    return json.dumps(content)


def _key(key: tuple[str, str]) -> str:
    return f"{key[0]}\x00{key[1]}"


def _split(key: str) -> tuple[str, str]:
    session, _, call_id = key.partition("\x00")
    return session, call_id


def _snapshot(
    session: str, history: Sequence[Any], synthetic: dict[str, tuple[str, str | None]]
) -> list[dict[str, Any]]:
    """The thread's messages a MESSAGES_SNAPSHOT carries for a session rebuilt from history, as
    the resume spec (``project_history``) rebuilds it."""
    out: list[dict[str, Any]] = []
    for message in project_history(session, history):
        message_id = message.message_id or ""
        if message.role == "user":
            out.append({"id": message_id, "role": "user", "content": message.text})
            continue
        calls = [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.name, "arguments": json.dumps(c.input)},
            }
            for c in message.tool_calls
        ]
        if message.role == "thought":
            out.append({"id": message_id, "role": "reasoning", "content": message.text})
            if calls:
                made = f"{message_id}.calls"
                synthetic[made] = (session, message_id)
                out.append({"id": made, "role": "assistant", "toolCalls": calls})
        else:
            data: dict[str, Any] = {"id": message_id, "role": "assistant", "content": message.text}
            if calls:
                data["toolCalls"] = calls
            out.append(data)
        for c in message.tool_calls:
            tool: dict[str, Any] = {
                "id": f"{session}.{c.id}.result",
                "role": "tool",
                "toolCallId": c.id,
                "content": c.result or "",
            }
            if c.is_error:
                tool["error"] = c.result or "error"
            out.append(tool)
    return out


_HANDLERS: dict[type[ev.SessionEvent], Any] = {
    ev.UserMessage: AGUIEncoder.on_user_message,
    ev.InteractionStart: AGUIEncoder.on_interaction_start,
    ev.InteractionEnd: AGUIEncoder.on_interaction_end,
    ev.UserTurnStart: AGUIEncoder.on_user_turn_start,
    ev.MessageStart: AGUIEncoder.on_message_start,
    ev.MessageDelta: AGUIEncoder.on_message_delta,
    ev.MessageEnd: AGUIEncoder.on_message_end,
    ev.ToolSelect: AGUIEncoder.on_tool_select,
    ev.ToolExecuting: AGUIEncoder.on_tool_executing,
    ev.ToolCompleted: AGUIEncoder.on_tool_completed,
    ev.SubsessionStart: AGUIEncoder.on_subsession_start,
    ev.SubsessionEnd: AGUIEncoder.on_subsession_end,
    ev.ToolStreamPart: AGUIEncoder.on_tool_stream,
    ev.SystemMessage: AGUIEncoder.on_custom,
    ev.Media: AGUIEncoder.on_custom,
    ev.Resume: AGUIEncoder.on_resume,
}
