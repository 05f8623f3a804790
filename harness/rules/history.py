"""History-layer rules: what a consumer stores and sends."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from harness.history import MessageNames, PairingProblem, validate_history
from harness.model import session as ev
from harness.model.history import (
    HistoryMessage,
    ToolResultBlock,
    ToolUseBlock,
)
from harness.model.observation import Message
from harness.model.projection import history_from_events
from harness.rules.registry import Finding, rule
from harness.rules.session import ObservationPoint
from harness.rules.session_ledger import CallRecord, SessionLedger, project_history

#: a restored session whose history a sub-agent had corrupted, and its fix
DOCKER_AGENT = (
    "docker/docker-agent#2053 (a history a sub-agent corrupted), fixed by docker/docker-agent#2058"
)


@dataclass(frozen=True)
class StoredSession:
    """What the adapter showed for one top-level session at a checkpoint: its stored history and
    its request as the adapter returned them (``raw_stored``, ``raw_request``: the lists that
    messages about them count in), and read as neutral histories (``stored``, ``request``)."""

    session_id: str
    stored: tuple[HistoryMessage, ...]
    raw_stored: Any
    raw_request: Any
    shape: str
    request: tuple[HistoryMessage, ...]
    rebuilt: tuple[Message, ...] | None
    at_rest: bool


class HistoryFacts:
    """The facts about one checkpoint (after event ``c``) that the history rules read: the
    ledger's expectations as of ``c``, and for each top-level session what the adapter stored,
    the request it would send, and the transcript it rebuilt (``sessions``)."""

    def __init__(
        self,
        ledger: SessionLedger,
        trace: Sequence[ev.SessionEvent],
        checkpoint: ObservationPoint,
        sessions: dict[str, StoredSession],
    ) -> None:
        self.ledger = ledger
        self.trace = trace
        self.checkpoint = checkpoint
        self.c = checkpoint.index
        self.sessions = sessions
        self._problems: dict[tuple[str, str], list[PairingProblem]] = {}
        self._names: dict[tuple[str, str], MessageNames] = {}
        self._texts: dict[str, dict[str, int]] = {}

    def problems(self, session: StoredSession, which: str) -> list[PairingProblem]:
        """Pairing problems of the stored history or of the request (computed once), with their
        messages counted in the list the adapter returned, in that list's shape."""
        key = (session.session_id, which)
        if key not in self._problems:
            self._problems[key] = validate_history(_raw(session, which))
        return self._problems[key]

    def names(self, session: StoredSession, which: str) -> MessageNames:
        """How to name the messages of the stored history or of the request (``stored`` and
        ``request`` index them) as the list the adapter returned holds them."""
        key = (session.session_id, which)
        if key not in self._names:
            self._names[key] = MessageNames(_raw(session, which))
        return self._names[key]

    def subsession_texts(self, session_id: str) -> dict[str, int]:
        """The whole text, so far, of every begun message of the session's sub-sessions (nested
        too), each with the event that started that message (the earliest, if two messages read
        the same): one place for the leak whichever point sees it, so that seeing the message
        part-streamed and whole is one root cause, not one per delta."""
        if session_id not in self._texts:
            ledger = self.ledger
            descendants = {s for s in ledger.parent if ledger.is_descendant(s, session_id)}
            texts: dict[str, int] = {}
            for message, pieces in ledger.text.items():
                if message[0] not in descendants:
                    continue
                if any(index <= self.c for index, _ in pieces):
                    text = ledger.text_at(message, self.c) or ""
                    start = ledger.messages[message].index
                    texts[text] = min(start, texts.get(text, start))
            self._texts[session_id] = texts
        return self._texts[session_id]

    def live_call(self, session_id: str, tool_id: str) -> CallRecord | None:
        """The session's call with that id in the trace (None: it came from restored history)."""
        return self.ledger.live_call((session_id, tool_id), self.c)

    def index_of(self, session_id: str, tool_id: str) -> int:
        record = self.live_call(session_id, tool_id)
        if record is None:
            return self.c
        return record.completed_index if record.completed_by(self.c) else record.timeline[-1][0]

    def last_change(self, session_id: str, tool_id: str) -> int:
        """The latest event up to the checkpoint that changed the call (its completion, once
        complete): what a store writing that call's blocks wrote them at."""
        record = self.live_call(session_id, tool_id)
        index = -1 if record is None else record.status_at(self.c)[2]
        return index if index >= 0 else self.c


def _raw(session: StoredSession, which: str) -> Any:
    return session.raw_stored if which == "stored" else session.raw_request


#: where a session's history is read: what the adapter stored, and what it would send
_PLACES = (("stored", "the stored history"), ("request", "the request its converter would send"))


def _pairing(c: HistoryFacts, kinds: tuple[str, ...], *, interrupted: bool) -> Iterator[Finding]:
    """Problems of these kinds, in the stored history and in the request of a session at rest, for
    calls that did (or, with ``interrupted``, did not) complete in the trace."""
    for session in c.sessions.values():
        if not session.at_rest:
            continue  # a call in flight has no result yet, and no request is sent mid-call
        for which, what in _PLACES:
            for problem in c.problems(session, which):
                if problem.kind not in kinds:
                    continue
                record = c.live_call(session.session_id, problem.tool_id)
                if which == "stored" and record is None:
                    continue  # restored as it was: only the request must be repaired
                never_completed = record is not None and not record.completed_by(c.c)
                if never_completed != interrupted:
                    continue
                yield Finding(
                    c.index_of(session.session_id, problem.tool_id),
                    f"in {what} of session {session.session_id!r}: {problem.message}; "
                    f"{_in_trace(record)}",
                    # about this call of this session: the request's problem with the call
                    # follows from the stored history's, and one call's problems from one root
                    _call_subject(session.session_id, problem.tool_id),
                )


def _call_subject(session_id: str, tool_id: str) -> str:
    """The subject of a finding about one call of one session (``attribute_causes`` groups the
    findings about one subject under the most fundamental)."""
    return f"{session_id}:{tool_id}".replace(" ", "_")


def _in_trace(record: CallRecord | None) -> str:
    """What the trace says of a call: where its result came from, or that it has none."""
    if record is None:
        return "the trace has that call only from a restored history"
    if record.completed_index < 0:
        return "the trace never completed that call (its turn was interrupted)"
    result = f" with the result {_shown(record.result.content)}" if record.result else ""
    return f"the trace completed that call at event {record.completed_index}{result}"


@rule(
    "forward-pairing",
    layer="history",
    source=DOCKER_AGENT,
    statement="Every assistant tool_use has its tool_result in the next user message.",
)
def forward_pairing(c: HistoryFacts) -> Iterator[Finding]:
    return _pairing(c, ("missing_result",), interrupted=False)


@rule(
    "reverse-pairing",
    layer="history",
    source=(
        f"{DOCKER_AGENT}; BerriAI/litellm#37273 (a tool_result twice), decocms/studio#1803, "
        "earendil-works/pi#8502, docker/docker-agent#596"
    ),
    statement="Every tool_result refers to a tool_use in the immediately preceding assistant message, once.",
)
def reverse_pairing(c: HistoryFacts) -> Iterator[Finding]:
    yield from _pairing(c, ("orphan_result", "duplicate_result"), interrupted=False)
    yield from _pairing(c, ("orphan_result", "duplicate_result"), interrupted=True)


@rule(
    "results-first",
    layer="history",
    source="Anthropic's tool use documentation (tool_result blocks must come first in the user message)",
    statement="In a user message, the tool_result blocks come before any text.",
)
def results_first(c: HistoryFacts) -> Iterator[Finding]:
    for session in c.sessions.values():
        for which, what in _PLACES:
            for problem in c.problems(session, which):
                if problem.kind == "result_after_content":
                    yield Finding(
                        c.last_change(session.session_id, problem.tool_id),
                        f"in {what} of session {session.session_id!r}: {problem.message}",
                    )


@rule(
    "interrupted-turns",
    layer="history",
    source=(
        "anthropics/claude-quickstarts#155 (an orphaned tool_use after a Stop button), "
        "letta-ai/letta#3273, anthropics/claude-code#1237"
    ),
    statement="A turn cancelled mid tool call leaves a history the provider will accept.",
)
def interrupted_turns(c: HistoryFacts) -> Iterator[Finding]:
    return _pairing(c, ("missing_result",), interrupted=True)


def _results_only(message: HistoryMessage) -> bool:
    return message.role == "user" and all(isinstance(b, ToolResultBlock) for b in message.blocks)


def _pairs(history: Sequence[HistoryMessage]) -> dict[str, tuple[ToolUseBlock, ToolResultBlock]]:
    """Valid (tool_use, tool_result) pairs: the result in the message right after the use."""
    pairs: dict[str, tuple[ToolUseBlock, ToolResultBlock]] = {}
    for before, after in itertools.pairwise(history):
        if before.role != "assistant" or after.role != "user":
            continue
        uses = {b.id: b for b in before.blocks if isinstance(b, ToolUseBlock)}
        for block in after.blocks:
            if isinstance(block, ToolResultBlock) and block.tool_use_id in uses:
                pairs.setdefault(block.tool_use_id, (uses[block.tool_use_id], block))
    return pairs


def _json_value(arguments: str) -> str:
    """Arguments as the JSON value they encode (canonical text, so that 1 and true differ);
    text that is not JSON stays as it is."""
    try:
        return json.dumps(json.loads(arguments), sort_keys=True, ensure_ascii=False)
    except ValueError:
        return arguments


_Pair = tuple[ToolUseBlock, ToolResultBlock]
#: per request shape, the fields of a pair it carries: (name in that shape, the value compared,
#: the value shown). OpenAI's Chat Completions shape has no is_error; arguments are compared
#: as JSON values in every shape (the Anthropic shape holds a value, OpenAI's holds text).
_FIELDS: dict[str, tuple[tuple[str, Callable[[_Pair], object], Callable[[_Pair], str]], ...]] = {
    "anthropic": (
        ("tool_use name", lambda p: p[0].name, lambda p: p[0].name),
        ("tool_use input", lambda p: _json_value(p[0].arguments), lambda p: p[0].arguments),
        ("tool_result content", lambda p: p[1].content, lambda p: p[1].content),
        ("tool_result is_error", lambda p: p[1].is_error, lambda p: str(p[1].is_error).lower()),
    ),
    "openai": (
        ("function.name", lambda p: p[0].name, lambda p: p[0].name),
        ("function.arguments", lambda p: _json_value(p[0].arguments), lambda p: p[0].arguments),
        ("tool message content", lambda p: p[1].content, lambda p: p[1].content),
    ),
}
_FIELDS["neutral"] = _FIELDS["anthropic"]


def _changes(shape: str, stored: _Pair, sent: _Pair) -> list[str]:
    """The fields the request's shape carries that differ, each from what to what."""
    return [
        f"{field} from {_shown(show(stored))} to {_shown(show(sent))}"
        for field, value, show in _FIELDS.get(shape, _FIELDS["neutral"])
        if value(stored) != value(sent)
    ]


def _shown(text: str) -> str:
    return repr(text if len(text) <= 60 else text[:57] + "...")


def _first_places(
    request: Sequence[HistoryMessage], names: MessageNames
) -> tuple[dict[str, str], dict[str, str]]:
    """The first message holding each tool_use, and the first holding a result for each id,
    named as the request holds them."""
    uses: dict[str, str] = {}
    results: dict[str, str] = {}
    for i, message in enumerate(request):
        for b, block in enumerate(message.blocks):
            if isinstance(block, ToolUseBlock) and block.id not in uses:
                uses[block.id] = names.of_block(i, b)
            elif isinstance(block, ToolResultBlock) and block.tool_use_id not in results:
                results[block.tool_use_id] = names.of_block(i, b)
    return uses, results


def _lost(places: tuple[dict[str, str], dict[str, str]], names: MessageNames, tool_id: str) -> str:
    """Where the request has the call and its result instead of a valid pair."""
    uses, results = places
    if tool_id not in uses:
        return f"has no {names.use} for it"
    if tool_id not in results:
        return f"has its {names.use} in {uses[tool_id]} but no {names.result} for it"
    return (
        f"has its {names.use} in {uses[tool_id]} and its {names.result} in {results[tool_id]}, "
        "not in the message right after it"
    )


@rule(
    "repair-merges",
    layer="history",
    source="docker/docker-agent#2058 (the merge-based repair of docker/docker-agent#2053)",
    statement=(
        "A repair adds missing results into the existing next user message rather than "
        "inserting a separate one, drops orphans, and keeps every valid pair. A kept pair is "
        "compared in the request's own shape: only the fields that shape carries count "
        "(OpenAI's Chat Completions shape has no is_error), and arguments count as the JSON "
        "value they encode, not as text."
    ),
)
def repair_merges(c: HistoryFacts) -> Iterator[Finding]:
    for session in c.sessions.values():
        request = session.request
        for i in range(len(request) - 1):
            if _results_only(request[i]) and request[i + 1].role == "user" and request[i].blocks:
                ids = ", ".join(
                    repr(b.tool_use_id) for b in request[i].blocks if isinstance(b, ToolResultBlock)
                )
                names = c.names(session, "request")
                yield Finding(
                    c.c,
                    f"the request of session {session.session_id!r} has {names.of(i)} holding only "
                    f"the results {ids} right before another user message, {names.of(i + 1)}; "
                    f"expected: those results merged into that one user message after their "
                    f"tool_use",
                )
        kept = _pairs(request)
        places = None  # read once, when a pair is lost
        for tool_id, pair in _pairs(session.stored).items():
            sent = kept.get(tool_id)
            if sent is None:
                names = c.names(session, "request")
                places = _first_places(request, names) if places is None else places
                problem = "lost that pair: it " + _lost(places, names, tool_id)
            else:
                changes = _changes(session.shape, pair, sent)
                if not changes:
                    continue
                problem = "changed " + "; ".join(changes)
            yield Finding(
                c.index_of(session.session_id, tool_id),
                f"the stored history of session {session.session_id!r} pairs tool {tool_id!r} "
                f"with its result validly, and the request should keep that pair, but the "
                f"request ({session.shape} shape) {problem}",
            )


@rule(
    "parent-isolation",
    layer="history",
    source="docker/docker-agent#1738, docker/docker-agent#2053",
    statement="Sub-agent messages are not persisted into the parent session.",
)
def parent_isolation(c: HistoryFacts) -> Iterator[Finding]:
    for session in c.sessions.values():
        foreign_texts = c.subsession_texts(session.session_id)
        restored = _restored_ids(c, session.session_id)
        for i, message in enumerate(session.stored):
            for b, block in enumerate(message.blocks):
                tool_id = (
                    block.id
                    if isinstance(block, ToolUseBlock)
                    else block.tool_use_id
                    if isinstance(block, ToolResultBlock)
                    else None
                )
                if tool_id is not None:
                    owners = c.ledger.sessions_using(tool_id, c.c)
                    # ids are unique per session only: one the session's own restored
                    # history holds is its own, whoever else uses it
                    if owners and session.session_id not in owners and tool_id not in restored:
                        owner = sorted(owners)[0]
                        yield Finding(
                            c.last_change(owner, tool_id),
                            f"the stored history of session {session.session_id!r} holds tool "
                            f"{tool_id!r} in {c.names(session, 'stored').of_block(i, b)}; in the "
                            f"trace it is a call of session {owner!r}",
                        )
                elif _text(block) and _text(block) in foreign_texts:
                    at = foreign_texts[_text(block)]
                    yield Finding(
                        at,
                        f"the stored history of session {session.session_id!r} holds the text "
                        f"{_shown(_text(block))} in {c.names(session, 'stored').of_block(i, b)}; "
                        f"in the trace that text is a message of its sub-session "
                        f"{getattr(c.trace[at], 'session_id', '?')!r} (event {at})",
                    )


def _restored_ids(c: HistoryFacts, session_id: str) -> set[str]:
    """The tool ids the histories the session was resumed from (by event ``c``) hold."""
    ids: set[str] = set()
    for at in c.ledger.resumes.get(session_id, ()):
        if at <= c.c:
            for message in getattr(c.trace[at], "history", ()):
                for block in message.blocks:
                    if isinstance(block, ToolUseBlock):
                        ids.add(block.id)
                    elif isinstance(block, ToolResultBlock):
                        ids.add(block.tool_use_id)
    return ids


def _text(block: object) -> str:
    return getattr(block, "text", "")


@rule(
    "history-resume-equivalence",
    layer="history",
    source=(
        "a client rebuilding a session from its stored history skipped its tool calls: "
        "scenarios/history/resume-rebuilds-tool-calls.yaml"
    ),
    statement=(
        "The transcript rebuilt from what the adapter stored has the messages and attachments "
        "the live session had, tool calls and results matched by id."
    ),
)
def history_resume_equivalence(c: HistoryFacts) -> Iterator[Finding]:
    for session in c.sessions.values():
        if session.rebuilt is None:
            continue
        live = project_history(
            session.session_id, history_from_events(c.trace[: c.c + 1], session.session_id)
        )
        # A call that never completed (live, or in a restored history) may come back closed by
        # an error result; any other difference counts.
        shown_live = {t.id for m in live for t in m.tool_calls}
        closed = {
            t.id
            for m in session.rebuilt
            for t in m.tool_calls
            if t.is_error and t.id not in shown_live
        }
        rebuilt = [_view(m, closed) for m in session.rebuilt]
        wanted = [_view(m, closed) for m in live]
        for i, (want, got) in enumerate(zip(wanted, rebuilt, strict=False)):
            if want != got:
                shown, had = _describe(got), _describe(want)
                if shown == had:  # they differ past the shortened text: show them whole
                    shown, had = repr(got), repr(want)
                yield Finding(
                    c.c,
                    f"rebuilding session {session.session_id!r} from its stored history, the "
                    f"adapter shows as message {i} {shown}; the live session had {had}",
                )
                break
        else:
            if len(wanted) != len(rebuilt):
                yield Finding(
                    c.c,
                    f"rebuilding session {session.session_id!r} from its stored history, the "
                    f"adapter shows {len(rebuilt)} messages; the live session had {len(wanted)}",
                )


def _describe(view: tuple[object, ...]) -> str:
    """A compared message in plain words: role, text (shortened), tool calls with results."""
    role, text, calls = view
    assert isinstance(text, str) and isinstance(calls, tuple)
    shown = ", ".join(f"{name} {i!r}={_shown(r or '')}" for i, name, r in calls)
    return f"{role} {_shown(text)}" + (f" with tool calls [{shown}]" if shown else "")


def _view(message: Message, ignore: set[str]) -> tuple[object, ...]:
    calls = tuple(
        sorted((t.id, t.name, t.result) for t in message.tool_calls if t.id not in ignore)
    )
    return (message.role, message.text, calls)
