"""The request a converter would send, judged at every observation point.

The pairing rules of ``harness.rules.history`` judge a session's request once the session is at
rest, when the store has closed its calls. A converter builds requests at other moments too: after
each tool result of a turn (the request that carries the results back), and from whatever a
crash or a reconnect leaves in the store. These rules judge the request at every observation
point, also while the session's interaction is open.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from harness.model.history import HistoryMessage, ThinkingBlock, ToolUseBlock
from harness.rules.error_flags import restored_at
from harness.rules.history import DOCKER_AGENT, HistoryFacts, _call_subject, _results_only
from harness.rules.registry import Finding, rule

#: the pairing problems a request must not have (the order of blocks is ``results-first``'s)
_PAIRING = ("missing_result", "orphan_result", "duplicate_result")


@rule(
    "request-while-open",
    layer="history",
    source=(
        f"{DOCKER_AGENT}: its repair put the placeholder results for unanswered calls into a "
        "separate user message before the one holding the other calls' results"
    ),
    statement=(
        "While a session's interaction is open (a call may still be running, or answered only "
        "in part), the request its converter would send pairs every call as at rest: each "
        "tool_use, a running one's too, has exactly one tool_result in the next user message "
        "(a placeholder for a call without its result, next to the real results of the others, "
        "in that same message), and every tool_result follows its tool_use. At rest the "
        "pairing rules judge the request."
    ),
)
def request_while_open(c: HistoryFacts) -> Iterator[Finding]:
    for session in c.sessions.values():
        if session.at_rest:
            continue
        for problem in c.problems(session, "request"):
            if problem.kind not in _PAIRING:
                continue
            record = c.live_call(session.session_id, problem.tool_id)
            state = (
                "restored from history"
                if record is None
                else "completed"
                if record.completed_by(c.c)
                else "still running"
            )
            yield Finding(
                c.index_of(session.session_id, problem.tool_id),
                f"in the request its converter would send of session {session.session_id!r}, "
                f"while its interaction is open ({c.checkpoint.reason}): {problem.message}; "
                f"that call is {state} by then, and the request should pair it as at rest",
                _call_subject(session.session_id, problem.tool_id),
            )


def _thinking(message: HistoryMessage) -> list[tuple[str, str]]:
    return [(b.text, b.signature) for b in message.blocks if isinstance(b, ThinkingBlock)]


def _first_use(message: HistoryMessage) -> str | None:
    return next((b.id for b in message.blocks if isinstance(b, ToolUseBlock)), None)


def _continued_turn(request: Sequence[HistoryMessage]) -> list[int]:
    """The assistant messages holding a tool_use of the turn a request continues: when it ends
    with a user message of tool results only, those after the last user message holding
    anything else (the user's prompt)."""
    if not request or not _results_only(request[-1]) or not request[-1].blocks:
        return []
    out = []
    for i in range(len(request) - 1, -1, -1):
        message = request[i]
        if message.role == "user" and not _results_only(message):
            break
        if message.role == "assistant" and _first_use(message) is not None:
            out.append(i)
    return out


def _shown(blocks: list[tuple[str, str]]) -> str:
    if not blocks:
        return "no thinking block"
    shown = []
    for text, signature in blocks:
        cut = text if len(text) <= 40 else text[:37] + "..."
        signed = f"signature {signature[:12]!r}" + ("..." if len(signature) > 12 else "")
        shown.append(f"{cut!r} ({signed if signature else 'no signature'})")
    return f"{len(blocks)} thinking block(s): " + ", ".join(shown)


def _restored_message(c: HistoryFacts, session_id: str, tool_id: str) -> HistoryMessage | None:
    """The assistant message holding the call in the session's latest restored history (None:
    a live call, or none restored)."""
    if c.live_call(session_id, tool_id) is not None:
        return None
    found = restored_at(c, session_id)
    if found is None:
        return None
    for message in found[1].history:
        if message.role == "assistant" and any(
            isinstance(b, ToolUseBlock) and b.id == tool_id for b in message.blocks
        ):
            return message
    return None


@rule(
    "thinking-in-request",
    layer="history",
    source=(
        "Anthropic's extended thinking documentation (with tool use, the thinking blocks of the "
        "last assistant turn must be passed back unmodified, signature included)"
    ),
    statement=(
        "When the request continues a tool-use turn (it ends with a user message of tool "
        "results only), each assistant message of that turn holding a tool_use keeps its "
        "thinking blocks: the same texts and signatures, in the same order, as the restored history had them (a call restored from history) or as the "
        "store holds them (a live call). Thinking of earlier turns may be left out, as the "
        "Messages API allows; shapes without thinking (OpenAI's Chat Completions) are exempt."
    ),
)
def thinking_in_request(c: HistoryFacts) -> Iterator[Finding]:
    for session in c.sessions.values():
        if session.shape == "openai":
            continue
        request = session.request
        turn = _continued_turn(request)
        if not turn:
            continue
        stored_by_use = {
            b.id: m
            for m in session.stored
            if m.role == "assistant"
            for b in m.blocks
            if isinstance(b, ToolUseBlock)
        }
        for i in turn:
            tool_id = _first_use(request[i])
            assert tool_id is not None
            source = _restored_message(c, session.session_id, tool_id)
            held = "the restored history holds"
            if source is None:
                source, held = stored_by_use.get(tool_id), "the store holds"
            if source is None:
                continue
            want, sent = _thinking(source), _thinking(request[i])
            if want != sent:
                yield Finding(
                    c.index_of(session.session_id, tool_id),
                    f"the request ({session.shape} shape) of session {session.session_id!r} "
                    f"continues a tool-use turn, and its {c.names(session, 'request').of(i)}, "
                    f"with tool_use {tool_id!r}, holds {_shown(sent)}; expected "
                    f"{_shown(want)}, as {held.removesuffix(' holds')} has",
                    _call_subject(session.session_id, tool_id),
                )
