"""The reference comparison: behind the specific rules, what a consumer shows at each observation
point is compared with what the bundled reference consumer shows there for the same trace.

Each specific rule explains one kind of failure well; this one catches what none of them names.
Both observations are first normalised (``session_data``, ``history_data``), so that what the
contract leaves to the consumer does not count: made-up message ids, the order of what rules
match by id, a call without a result yet and whatever the consumer wrote for it, empty blocks,
what a request's shape cannot carry. docs/ADAPTERS.md ("What the reference comparison leaves
free") lists each freedom with its reason; the two change together.

The comparison speaks only where no specific rule found anything in the replay, once, at the
first point that differs (``ReferenceComparison``). A replay keeps one hash of the reference's
normalised observation per observation point (``ReferencePoints``, made once per scenario by
``harness.replay.reference``); the reference's full observation is made again, by one more
replay of it, only for the point where the consumer's differs, to say how.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from harness.history import detect_shape
from harness.model import session as ev
from harness.model.history import (
    HistoryMessage,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from harness.model.observation import Message, Notification, Transcript, normalize_input
from harness.rules.registry import Finding, Violation, rule
from harness.rules.session import ObservationPoint

if TYPE_CHECKING:
    from harness.rules.history import StoredSession

SESSION_RULE = "reference-comparison"
HISTORY_RULE = "history-reference-comparison"
REFERENCE_RULES = frozenset({SESSION_RULE, HISTORY_RULE})

#: the projections a history observation is compared in: all of it, or what the OpenAI Chat
#: shape carries (no is_error, no thinking); the stored history and the request each have
#: their own, as each may be kept in either shape
PROJECTIONS = ("anthropic", "openai")
#: differing fields named in one message
MAX_FIELDS = 3


# -- what the normalisation reads of the trace ----------------------------------------------------


@dataclass(frozen=True)
class TraceMarks:
    """What the normalisation needs to know of the trace, from one pass over it."""

    #: the ids the trace gives messages (any other id is one the consumer made up) -> the event
    #: that starts the message
    message_ids: Mapping[str, int]
    #: (session id, tool call id) -> the first event that carries a result for it (a
    #: completion, or a resume whose history holds one)
    first_result: Mapping[tuple[str, str], int]
    #: session id -> the events that resume it
    resumes: Mapping[str, tuple[int, ...]]
    #: (session id, call id) -> the first ``tool_stream`` event of that call
    stream_start: Mapping[tuple[str, str], int]


def trace_marks(trace: Iterable[ev.SessionEvent]) -> TraceMarks:
    ids: dict[str, int] = {}
    first_result: dict[tuple[str, str], int] = {}
    resumes: dict[str, list[int]] = {}
    stream_start: dict[tuple[str, str], int] = {}
    for i, event in enumerate(trace):
        kind = type(event)
        if kind is ev.MessageStart or kind is ev.UserMessage:
            ids.setdefault(event.message_id, i)  # type: ignore[attr-defined]
        elif kind is ev.ToolCompleted:
            for result in event.results:  # type: ignore[attr-defined]
                first_result.setdefault((event.session_id, result.tool_call_id), i)
        elif kind is ev.ToolStreamPart:
            stream_start.setdefault((event.session_id, event.call_id), i)  # type: ignore[attr-defined]
        elif kind is ev.Resume:
            resumes.setdefault(event.session_id, []).append(i)
            for message in event.history:  # type: ignore[attr-defined]
                for block in message.blocks:
                    if isinstance(block, ToolResultBlock):
                        first_result.setdefault((event.session_id, block.tool_use_id), i)
    return TraceMarks(
        ids,
        first_result,
        {s: tuple(at) for s, at in resumes.items()},
        stream_start,
    )


# -- normalising ----------------------------------------------------------------------------------


def _value(value: Any) -> Any:
    """A tool input as the JSON value it is (text that parses counts as the parsed value)."""
    return normalize_input(value)


def _message(
    message: Message, marks: TraceMarks, since: int, answered: Callable[[str], bool] | None = None
) -> dict[str, Any]:
    """A message; its id only if the trace gave it after ``since`` (a later resume rebuilt it
    otherwise), and of its calls, only those ``answered`` (all, if None)."""
    data: dict[str, Any] = {"role": message.role, "text": message.text}
    if since != _NO_ID:
        start = marks.message_ids.get(message.message_id or "", -1)
        data["id"] = message.message_id if start > since else None
    data["tool_calls"] = sorted(
        (
            {
                "id": call.id,
                "name": call.name,
                "input": _value(call.input),
                "result": call.result,
                "is_error": call.is_error,
            }
            for call in message.tool_calls
            if answered is None or answered(call.id)
        ),
        key=_by_id,
    )
    return data


def _by_id(call: dict[str, Any]) -> str:
    return str(call["id"])


#: ``since`` for a message whose id is not compared (a rebuilt transcript has none)
_NO_ID = -2


def _last_resume(marks: TraceMarks, session_id: str, c: int) -> int:
    return max((i for i in marks.resumes.get(session_id, ()) if i <= c), default=-1)


def session_data(
    marks: TraceMarks,
    c: int,
    notes: tuple[Notification, ...],
    transcript: Transcript | None,
) -> dict[str, Any]:
    """What a session consumer showed after event ``c``, normalised."""
    data: dict[str, Any] = {
        "notifications": sorted(
            [n.session_id, n.tool_call_id, n.tool_name, n.status] for n in notes
        )
    }
    if transcript is None:
        return data
    sessions: dict[str, Any] = {}
    for session_id, view in transcript.sessions.items():
        resumed = _last_resume(marks, session_id, c)
        streams = {
            s.call_id: {
                "event_type": s.event_type,
                "tool_name": s.tool_name,
                "tool_response": s.tool_response,
                "summary": s.summary,
                "content": s.content,
                "is_complete": s.is_complete,
            }
            for s in view.tool_streams
            if marks.stream_start.get((session_id, s.call_id), c + 1) > resumed
        }
        messages = [_message(m, marks, resumed) for m in view.messages]
        if messages or streams:
            sessions[session_id] = {"messages": messages, "tool_streams": streams}
    data["sessions"] = sessions
    data["updates"] = sorted(
        {
            f"{u.session_id}/{u.message_id}"
            for u in transcript.updates
            if marks.message_ids.get(u.message_id, -1) > _last_resume(marks, u.session_id, c)
        }
    )
    return data


def _answered(marks: TraceMarks, session_id: str, call_id: str, c: int) -> bool:
    """Whether the trace gave the session's call a result by event ``c``."""
    return marks.first_result.get((session_id, call_id), c + 1) <= c


def _blocks(
    message: HistoryMessage, marks: TraceMarks, session_id: str, c: int, projection: str
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A message's results (sorted) and its other blocks, in order but for the calls next to
    each other (sorted); a call without a result yet, and the result written for it, left out."""
    results: list[dict[str, Any]] = []
    others: list[dict[str, Any]] = []
    uses: list[dict[str, Any]] = []
    for block in message.blocks:
        if isinstance(block, ToolUseBlock):
            if _answered(marks, session_id, block.id, c):
                arguments = _value(block.arguments)
                uses.append({"tool_use": block.id, "name": block.name, "input": arguments})
            continue
        if isinstance(block, ToolResultBlock):
            if _answered(marks, session_id, block.tool_use_id, c):
                error = block.is_error and projection != "openai"
                results.append(
                    {"tool_result": block.tool_use_id, "content": block.content, "is_error": error}
                )
            continue
        if isinstance(block, ThinkingBlock) and projection == "openai":
            continue
        if block.text:
            others += sorted(uses, key=_use_id)
            uses = []
            kind = "thinking" if isinstance(block, ThinkingBlock) else "text"
            others.append({kind: block.text})
    return sorted(results, key=_result_id), others + sorted(uses, key=_use_id)


def _use_id(block: dict[str, Any]) -> str:
    return str(block["tool_use"])


def _result_id(block: dict[str, Any]) -> str:
    return str(block["tool_result"])


def _history(
    history: tuple[HistoryMessage, ...],
    marks: TraceMarks,
    session_id: str,
    c: int,
    projection: str,
) -> list[Any]:
    """Messages of one role next to each other count as one (the Messages API merges them)."""
    out: list[dict[str, Any]] = []
    for message in history:
        results, others = _blocks(message, marks, session_id, c, projection)
        if not results and not others:
            continue
        if out and out[-1]["role"] == message.role:
            last = out[-1]
            last["results"] = sorted(last["results"] + results, key=_result_id)
            last["blocks"] += others
        else:
            out.append({"role": message.role, "results": results, "blocks": others})
    return out


def history_data(
    marks: TraceMarks,
    c: int,
    sessions: Mapping[str, StoredSession],
    projection: str,
    stored_projection: str = "anthropic",
) -> dict[str, Any]:
    """What a history consumer showed after event ``c`` for each top-level session, normalised,
    its request in ``projection`` and its stored history in ``stored_projection``."""
    data: dict[str, Any] = {}
    for session_id, stored in sessions.items():
        entry: dict[str, Any] = {
            "history": _history(stored.stored, marks, session_id, c, stored_projection),
            "request": _history(stored.request, marks, session_id, c, projection),
        }
        if stored.rebuilt is not None:

            def answered(call_id: str, session_id: str = session_id) -> bool:
                return _answered(marks, session_id, call_id, c)

            entry["rebuilt"] = [_message(m, marks, _NO_ID, answered) for m in stored.rebuilt]
        data[session_id] = entry
    return data


#: block types only the Anthropic shape has: a request holding one can carry thinking and
#: error flags
_ANTHROPIC_BLOCKS = frozenset({"thinking", "redacted_thinking", "tool_use", "tool_result"})


def _anthropic(session: StoredSession) -> bool:
    """Whether the session's request is in a shape that carries thinking and error flags: the
    neutral one, or one holding a block only the Anthropic shape has (plain text reads the same
    in both shapes)."""
    if session.shape == "neutral":
        return True
    if session.shape != "anthropic" or not isinstance(session.raw_request, list):
        return False
    for message in session.raw_request:
        content = message.get("content") if isinstance(message, Mapping) else None
        if isinstance(content, list) and any(
            isinstance(part, Mapping) and part.get("type") in _ANTHROPIC_BLOCKS for part in content
        ):
            return True
    return False


def projection_of(sessions: Mapping[str, StoredSession]) -> str:
    """The projection a consumer's requests are compared in: all of them, unless none of its
    requests shows the Anthropic shape (OpenAI's Chat shape, or plain text that reads the same
    in both), then what OpenAI's carries."""
    return "anthropic" if any(_anthropic(s) for s in sessions.values()) else "openai"


def _stored_anthropic(session: StoredSession) -> bool:
    """Whether the session's stored history is in a shape that carries thinking and error
    flags: anything but OpenAI's Chat shape (docs/SCENARIOS.md, "A failed tool stays failed
    everywhere": that shape is exempt for the stored history as for the request)."""
    raw = session.raw_stored
    return isinstance(raw, tuple) or detect_shape(raw) != "openai"


def stored_projection_of(sessions: Mapping[str, StoredSession]) -> str:
    """The projection a consumer's stored histories are compared in, as ``projection_of``."""
    return "anthropic" if any(_stored_anthropic(s) for s in sessions.values()) else "openai"


def _key(stored: str, request: str) -> str:
    return request if stored == "anthropic" else f"{request}/stored-{stored}"


def fingerprint(data: Any) -> int:
    return hash(json.dumps(data, sort_keys=True, ensure_ascii=False))


# -- the difference, as a reader sees it ----------------------------------------------------------


def _short(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def differences(expected: Any, observed: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """(path, what differs) for each differing field, the first of a list's differing items
    only (the rest of a list usually follows from it)."""
    if isinstance(expected, dict) and isinstance(observed, dict):
        for key in sorted(expected.keys() | observed.keys(), key=str):
            here = f"{path}.{key}" if path else str(key)
            if key not in observed:
                yield here, f"expected {_short(expected[key])}, missing"
            elif key not in expected:
                yield here, f"not expected, observed {_short(observed[key])}"
            else:
                yield from differences(expected[key], observed[key], here)
        return
    if isinstance(expected, list) and isinstance(observed, list):
        for n, (want, got) in enumerate(zip(expected, observed, strict=False)):
            if want != got:
                yield from differences(want, got, f"{path}[{n}]")
                return
        if len(expected) > len(observed):
            yield f"{path}[{len(observed)}]", f"expected {_short(expected[len(observed)])}, missing"
        elif len(observed) > len(expected):
            yield (
                f"{path}[{len(expected)}]",
                f"not expected, observed {_short(observed[len(expected)])}",
            )
        return
    if expected != observed:
        yield path, f"expected {_short(expected)}, observed {_short(observed)}"


@dataclass(frozen=True)
class ReferenceFacts:
    """One observation point where the consumer's normalised observation differs from the
    reference's: both, and where."""

    checkpoint: ObservationPoint
    expected: Any
    observed: Any


def _findings(facts: ReferenceFacts) -> Iterator[Finding]:
    found = list(differences(facts.expected, facts.observed))
    if not found:
        return
    shown = "; ".join(f"{path}: {what}" for path, what in found[:MAX_FIELDS])
    more = f" (and {len(found) - MAX_FIELDS} more)" if len(found) > MAX_FIELDS else ""
    reason = facts.checkpoint.reason
    where = reason if reason.startswith("after event") else f"at the {reason}"
    yield Finding(facts.checkpoint.index, f"{where}, unlike the reference consumer: {shown}{more}")


_NORMALISED = (
    'after normalising what the contract leaves free (docs/ADAPTERS.md, "What the reference '
    'comparison leaves free"); checked only where no specific rule finds anything in the replay, '
    "and reported once, at the first point that differs"
)


#: the comparison reads its own facts (``ReferenceFacts``), not its layer's: its layers are
#: named as plain strings, which the typed overloads of ``rule`` leave to the general one
_SESSION: str = "session"
_HISTORY: str = "history"


@rule(
    SESSION_RULE,
    layer=_SESSION,
    statement=(
        "At every observation point, the notifications and the whole transcript (every session's "
        "messages with their ids, roles and text, their attached calls with name, input, result "
        "and error flag, the tool_streams entries, the message-updated notices) equal what the "
        f"bundled session reference shows for the same trace, {_NORMALISED}."
    ),
    source="the observation contract (docs/ADAPTERS.md); harness/adapters/session/reference.py",
    precedence=90,
)
def reference_comparison(facts: ReferenceFacts) -> Iterator[Finding]:
    return _findings(facts)


@rule(
    HISTORY_RULE,
    layer=_HISTORY,
    statement=(
        "At every observation point, each top-level session's stored history and request (every "
        "message's role and blocks: text, thinking, tool_use with name and arguments, tool_result "
        "with content and error flag) and, at the end, its rebuilt transcript equal what the "
        "bundled history reference shows for the same trace, the request compared in its own "
        f"shape, {_NORMALISED}."
    ),
    source="the history contract (docs/ADAPTERS.md); harness/adapters/history/reference.py",
    precedence=90,
)
def history_reference_comparison(facts: ReferenceFacts) -> Iterator[Finding]:
    return _findings(facts)


# -- during a replay -------------------------------------------------------------------------------


class ReferencePoints:
    """The reference's normalised observations, kept as one hash per observation point (and
    per projection, for a history), and in full only at the points asked for (``keep``)."""

    def __init__(self, marks: TraceMarks, keep: frozenset[int] = frozenset()) -> None:
        self.marks = marks
        self.keep = keep
        self.hashes: dict[tuple[int, str], int] = {}
        self.data: dict[tuple[int, str], Any] = {}

    def _put(self, index: int, projection: str, data: Any) -> None:
        self.hashes[index, projection] = fingerprint(data)
        if index in self.keep:
            self.data[index, projection] = data

    def session(
        self,
        checkpoint: ObservationPoint,
        notes: tuple[Notification, ...],
        transcript: Transcript | None,
    ) -> None:
        c = checkpoint.index
        self._put(c, "", session_data(self.marks, c, notes, transcript))

    def history(self, checkpoint: ObservationPoint, sessions: Mapping[str, StoredSession]) -> None:
        c = checkpoint.index
        for stored in PROJECTIONS:
            for projection in PROJECTIONS:
                data = history_data(self.marks, c, sessions, projection, stored)
                self._put(c, _key(stored, projection), data)

    def finish(self) -> Iterator[Violation]:
        return iter(())


class ReferenceComparison(ReferencePoints):
    """A consumer's observations against the reference's, up to the first point where they
    differ; at the end that point is explained with the reference's observation there, made
    again by ``again(index)``. One violation: what differs later most often follows from the
    first difference, and a reader mends that one first.

    The reference's observations are asked of ``expected`` when first needed (a replay whose
    specific rules fail before its first observation point never needs them); None from it
    means there is nothing to compare with."""

    def __init__(
        self,
        expected: Callable[[], ReferencePoints | None],
        check: Callable[[ReferenceFacts], Iterator[Violation]],
        again: Callable[[frozenset[int]], ReferencePoints | None],
    ) -> None:
        self.load: Callable[[], ReferencePoints | None] | None = expected
        self.expected: dict[tuple[int, str], int] = {}
        self.check = check
        self.again = again
        #: the first point that differs: (its projection, the point, the consumer's observation)
        self.differing: tuple[str, ObservationPoint, Any] | None = None
        self.off = False

    def _ready(self) -> bool:
        if self.load is not None:
            points, self.load = self.load(), None
            if points is None:
                self.off = True
            else:
                self.marks, self.expected = points.marks, points.hashes
        return not self.off and self.differing is None

    def _differs(self, checkpoint: ObservationPoint, projection: str, data: Any) -> None:
        if self.expected.get((checkpoint.index, projection)) != fingerprint(data):
            self.differing = (projection, checkpoint, data)

    def session(
        self,
        checkpoint: ObservationPoint,
        notes: tuple[Notification, ...],
        transcript: Transcript | None,
    ) -> None:
        if self._ready():
            c = checkpoint.index
            self._differs(checkpoint, "", session_data(self.marks, c, notes, transcript))

    def history(self, checkpoint: ObservationPoint, sessions: Mapping[str, StoredSession]) -> None:
        if self._ready():
            c = checkpoint.index
            projection, stored = projection_of(sessions), stored_projection_of(sessions)
            data = history_data(self.marks, c, sessions, projection, stored)
            self._differs(checkpoint, _key(stored, projection), data)

    def finish(self) -> Iterator[Violation]:
        if self.differing is None:
            return
        projection, checkpoint, observed = self.differing
        reference = self.again(frozenset({checkpoint.index}))
        expected = None if reference is None else reference.data.get((checkpoint.index, projection))
        if expected is not None:
            yield from self.check(ReferenceFacts(checkpoint, expected, observed))
