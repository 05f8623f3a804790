"""Error flags: a failed tool shows, is stored, is sent and is rebuilt as failed.

A tool result's ``is_error`` is the one field that tells the user, the store and the provider that
a tool failed; the result text alone does not (a failing tool's output often reads like a
success). The session rule compares what the consumer shows, live and after a resume, with the
trace; the history rule compares what the store holds, the request it would send and the
transcript it rebuilds. A flag is compared where the result text matches the trace's: a result
the consumer changed or replaced is another rule's finding.
"""

from __future__ import annotations

import bisect
import weakref
from collections.abc import Iterator

from harness.history import detect_shape
from harness.model import session as ev
from harness.model.history import ToolResultBlock
from harness.rules.history import HistoryFacts, StoredSession, _call_subject
from harness.rules.registry import Finding, rule
from harness.rules.session import SessionFacts
from harness.rules.session_ledger import SessionLedger

_SOURCE = (
    "Anthropic's tool use documentation (is_error on a tool_result tells the model the tool "
    "failed); a consumer showing a failed tool as succeeded: scenarios/session/"
    "error-flag-live-and-resumed.yaml, scenarios/history/error-flag-persisted-and-sent.yaml"
)


def _flag(is_error: bool) -> str:
    return "is_error true (failed)" if is_error else "is_error false (succeeded)"


@rule(
    "result-error-flag",
    layer="session",
    source=_SOURCE,
    statement=(
        "A completed tool call shown with the result text its completion carried also shows "
        "that result's error flag: a failed tool is shown as failed, and one that succeeded as "
        "succeeded. (After a resume, resume-equivalence compares the rebuilt calls' flags with the "
        "restored history's.)"
    ),
)
def result_error_flag(c: SessionFacts) -> Iterator[Finding]:
    if not c.attachments_as_expected:  # the fast path compares the flags too
        for record in c.completed_calls():
            result = record.result
            if result is None:
                continue
            for host, call in c.attached.get((record.session_id, record.call_id), ()):
                if call.result == result.content and call.is_error != result.is_error:
                    yield Finding(
                        record.completed_index,
                        f"{record.label} on message {host!r} shows {_flag(call.is_error)}; its "
                        f"completion at {c.where(record.completed_index)} of the trace carried "
                        f"{_flag(result.is_error)}",
                        record.call_id,
                    )


#: per ledger, per resume event index: the restored history's results by tool id
_RESTORED: weakref.WeakKeyDictionary[SessionLedger, dict[int, dict[str, ToolResultBlock]]] = (
    weakref.WeakKeyDictionary()
)


def restored_at(c: HistoryFacts, session_id: str) -> tuple[int, ev.Resume] | None:
    """The session's latest resume up to the checkpoint: its index and event."""
    resumes = c.ledger.resumes.get(session_id, ())
    latest = bisect.bisect_right(resumes, c.c)
    if not latest:
        return None
    at = resumes[latest - 1]
    event = c.trace[at]
    assert isinstance(event, ev.Resume)
    return at, event


def _restored_results(c: HistoryFacts, session_id: str) -> tuple[int, dict[str, ToolResultBlock]]:
    found = restored_at(c, session_id)
    if found is None:
        return -1, {}
    at, event = found
    per_ledger = _RESTORED.setdefault(c.ledger, {})
    results = per_ledger.get(at)
    if results is None:
        results = per_ledger[at] = {}
        for message in event.history:
            for block in message.blocks:
                if isinstance(block, ToolResultBlock):
                    results.setdefault(block.tool_use_id, block)
    return at, results


def _expected_result(
    c: HistoryFacts, session_id: str, tool_id: str
) -> tuple[str, bool, str] | None:
    """(content, is_error, where it comes from) of the call's result as the trace has it by the
    checkpoint: its live completion, or else the latest restored history of the session."""
    record = c.live_call(session_id, tool_id)
    if record is not None:
        if record.completed_by(c.c) and record.result is not None:
            where = f"its completion at event {record.completed_index}"
            return record.result.content, record.result.is_error, where
        return None
    at, results = _restored_results(c, session_id)
    block = results.get(tool_id)
    if block is None:
        return None
    return block.content, block.is_error, f"the history restored at event {at}"


def _stored_flags(c: HistoryFacts, session: StoredSession, which: str) -> Iterator[Finding]:
    history = session.stored if which == "stored" else session.request
    what = "stored history" if which == "stored" else f"request ({session.shape} shape)"
    names = None
    for i, message in enumerate(history):
        for b, block in enumerate(message.blocks):
            if not isinstance(block, ToolResultBlock):
                continue
            expected = _expected_result(c, session.session_id, block.tool_use_id)
            if expected is None or expected[0] != block.content or expected[1] == block.is_error:
                continue
            names = c.names(session, which) if names is None else names
            yield Finding(
                c.last_change(session.session_id, block.tool_use_id),
                f"the {what} of session {session.session_id!r} has the result of tool "
                f"{block.tool_use_id!r} in {names.of_block(i, b)} with {_flag(block.is_error)}; "
                f"expected {_flag(expected[1])}, as {expected[2]} has",
                _call_subject(session.session_id, block.tool_use_id),
            )


def _stored_shape(session: StoredSession) -> str:
    raw = session.raw_stored
    return "neutral" if isinstance(raw, tuple) else detect_shape(raw)


#: request shapes that carry a result's error flag (OpenAI's Chat Completions shape has none)
_FLAGGED_SHAPES = ("anthropic", "neutral")


@rule(
    "history-error-flags",
    layer="history",
    source=_SOURCE,
    statement=(
        "A tool result keeps its error flag wherever the result text is the trace's: in the "
        "stored history, in the request (in shapes that carry is_error; OpenAI's Chat "
        "Completions shape has none) and in the transcript rebuilt from storage. The flag "
        "expected is the live completion's, or, for a call of a restored history, that "
        "history's."
    ),
)
def history_error_flags(c: HistoryFacts) -> Iterator[Finding]:
    for session in c.sessions.values():
        if _stored_shape(session) in _FLAGGED_SHAPES:
            yield from _stored_flags(c, session, "stored")
        if session.shape in _FLAGGED_SHAPES:
            yield from _stored_flags(c, session, "request")
        for message in session.rebuilt or ():
            for call in message.tool_calls:
                expected = _expected_result(c, session.session_id, call.id)
                if expected is None or expected[0] != call.result or expected[1] == call.is_error:
                    continue
                yield Finding(
                    c.last_change(session.session_id, call.id),
                    f"rebuilding session {session.session_id!r} from its stored history, the "
                    f"adapter shows tool call {call.id!r} with {_flag(call.is_error)}; "
                    f"expected {_flag(expected[1])}, as {expected[2]} has",
                    _call_subject(session.session_id, call.id),
                )
