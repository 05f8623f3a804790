"""Replay a history-layer scenario: the adapter persists the session events it is fed.

At every checkpoint the replayer reads, for each top-level session seen so far, the history the
adapter stored and the request its converter would send to a provider; at the end, also the
transcript it rebuilds from what it stored (resume). A session is *at rest* when none of its
interactions is open (and always once the user's turn starts): only then must its stored history
and its request satisfy both pairings, since a tool call in flight legitimately has no result yet
and is in no request.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

from harness._errors import AdapterError
from harness.history import HistoryFormatError, detect_shape, from_anthropic, from_openai
from harness.model import session as ev
from harness.model.history import HistoryMessage
from harness.model.observation import MalformedObservation, Message, coerce_transcript
from harness.replay.session import SessionReplay
from harness.rules.history import HistoryFacts, StoredSession
from harness.rules.registry import Rule
from harness.rules.session import ObservationPoint
from harness.scenario import SessionScenario

#: checkpoint index -> the top-level sessions then, and those at rest; per scenario, as
#: ``prepare`` keeps the plan (a pass over the trace, which a long one makes again)
_Sessions = tuple[dict[int, tuple[str, ...]], dict[int, frozenset[str]]]
_SESSIONS: weakref.WeakKeyDictionary[SessionScenario, _Sessions] = weakref.WeakKeyDictionary()


class HistoryReplay(SessionReplay):
    def __init__(self, scenario: SessionScenario, rules: Sequence[Rule[HistoryFacts]]) -> None:
        super().__init__(scenario, rules)
        #: each top-level session as the adapter showed it at the final checkpoint
        self.histories: dict[str, StoredSession] | None = None
        sessions = _SESSIONS.get(scenario)
        if sessions is None:
            sessions = _SESSIONS[scenario] = self._scan_sessions()
        self.roots_at, self.at_rest = sessions

    def _scan_sessions(self) -> _Sessions:
        """Which top-level sessions exist, and which are at rest, at each checkpoint."""
        wanted = {c.index for c in self.plan}
        roots: dict[str, None] = {}
        open_interactions: dict[str, int] = {}
        roots_at: dict[int, tuple[str, ...]] = {}
        at_rest: dict[int, frozenset[str]] = {}
        for i, event in enumerate(self.trace):
            if event.parent_session_id is None and not isinstance(event, ev.Checkpoint):
                roots.setdefault(event.session_id, None)
            if isinstance(event, ev.InteractionStart):
                open_interactions[event.session_id] = open_interactions.get(event.session_id, 0) + 1
            elif isinstance(event, ev.InteractionEnd):
                open_interactions[event.session_id] = max(
                    0, open_interactions.get(event.session_id, 0) - 1
                )
            elif isinstance(event, ev.UserTurnStart):
                open_interactions.clear()  # the user's turn: no interaction runs anywhere
            if i in wanted:
                roots_at[i] = tuple(roots)
                at_rest[i] = frozenset(s for s in roots if not open_interactions.get(s))
        return roots_at, at_rest

    def queries(self, checkpoint: ObservationPoint) -> list[tuple[str, tuple[Any, ...]]]:
        asked: list[tuple[str, tuple[Any, ...]]] = []
        for session_id in self.roots_at[checkpoint.index]:
            asked += [("history", (session_id,)), ("request", (session_id,))]
            if checkpoint.final:
                asked.append(("rebuild", (session_id,)))
        return asked

    def check_answers(self, checkpoint: ObservationPoint, answers: list[Any]) -> None:
        sessions: dict[str, StoredSession] = {}
        per = 3 if checkpoint.final else 2
        for n, session_id in enumerate(self.roots_at[checkpoint.index]):
            got = answers[n * per : (n + 1) * per]
            stored = self._history(got[0], f"history({session_id!r})", checkpoint)
            shape, request = self._request(got[1], f"request({session_id!r})", checkpoint)
            rebuilt = self._rebuilt(got[2], session_id, checkpoint) if checkpoint.final else None
            sessions[session_id] = StoredSession(
                session_id,
                stored,
                got[0],
                got[1],
                shape,
                request,
                rebuilt,
                at_rest=session_id in self.at_rest[checkpoint.index],
            )
        if checkpoint.final:
            self.histories = sessions
        if self.oracle is not None and not self.found:
            self.oracle.history(checkpoint, sessions)
        context = HistoryFacts(self.ledger, self.trace, checkpoint, sessions)
        try:
            for rule in self.rules:
                for violation in rule.check(context):
                    self.found.setdefault(
                        (violation.rule, violation.event_index, violation.message), violation
                    )
        except HistoryFormatError as exc:  # read lazily by the rules: e.g. two calls, one id
            raise self._malformed(checkpoint, "history() or request()", str(exc)) from None

    def _malformed(self, checkpoint: ObservationPoint, what: str, problem: str) -> AdapterError:
        return AdapterError(
            f"the adapter returned a malformed observation from {what} at the checkpoint after "
            f"event {checkpoint.index} ({checkpoint.reason}): {problem}",
            index=checkpoint.index,
        )

    def _history(
        self, value: Any, what: str, checkpoint: ObservationPoint
    ) -> tuple[HistoryMessage, ...]:
        return self._request(value, what, checkpoint)[1]

    def _request(
        self, value: Any, what: str, checkpoint: ObservationPoint
    ) -> tuple[str, tuple[HistoryMessage, ...]]:
        if isinstance(value, tuple) and all(isinstance(m, HistoryMessage) for m in value):
            return "neutral", value
        if not isinstance(value, list):
            raise self._malformed(
                checkpoint, what, f"expected a list of messages, got {type(value).__name__}"
            )
        try:
            shape = detect_shape(value)
            return shape, from_openai(value) if shape == "openai" else from_anthropic(value)
        except HistoryFormatError as exc:
            raise self._malformed(checkpoint, what, str(exc)) from None

    def _rebuilt(
        self, value: Any, session_id: str, checkpoint: ObservationPoint
    ) -> tuple[Message, ...]:
        try:
            transcript = coerce_transcript({"sessions": {session_id: {"messages": value}}})
        except MalformedObservation as exc:
            raise self._malformed(checkpoint, f"rebuild({session_id!r})", str(exc)) from None
        return transcript.sessions[session_id].messages
