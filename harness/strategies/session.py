"""Strategies for session- and history-layer scenarios: an agent framework's event stream.

Each document is a trace a real framework could emit: user turns whose interactions alternate
messages, thoughts and tool calls; parallel calls completing in any order; delegations whose
sub-sessions interleave with their parent event by event; streamed tool results; resumes. Faults
are the ones real streams have: a completion repeated or lost, a turn cut short with tools still
running, a restored history a store had corrupted. Every size shrinks towards nothing, so a
failure shrinks to the few events that show it::

    from hypothesis import given
    from harness import replay
    from harness.strategies import session_scenarios

    @given(session_scenarios(max_turns=2))
    def test_my_consumer(scenario):
        assert replay(scenario, "my_project.testing:make_consumer").status == "pass"
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from harness.scenario import Scenario
from harness.strategies.documents import header, scenario_from_document

LAYERS = ("session", "history")
MAIN = "main"
#: a delegated agent may delegate once more; deeper nesting adds size, not new shapes
MAX_DEPTH = 2

TOOL_NAMES = ("bash_command", "workspace_read", "web_search")
DELEGATION_TOOLS = ("act_oneshot", "transfer_task", "delegate_to_agent")
INPUTS: tuple[dict[str, Any], ...] = ({}, {"path": "README.md"}, {"command": "make test"})
WORDS = ("Checking", "Reading", "Comparing", "Summing up", "Planning", "Noting")

Step = dict[str, Any]


def session_documents(
    *,
    layer: str = "session",
    max_turns: int = 3,
    subsessions: bool = True,
    resumes: bool = True,
    faults: bool = True,
) -> st.SearchStrategy[dict[str, Any]]:
    """Scenario documents of the session or history layer (``layer``): up to ``max_turns`` user
    turns; ``subsessions`` adds delegations (nested too), ``resumes`` reconnects with the live
    history or starts from a restored one, ``faults`` repeats and loses completions, cuts turns
    short and corrupts restored histories. Observed after every event."""
    if layer not in LAYERS:
        raise InvalidArgument(f"{layer=} must be one of {', '.join(map(repr, LAYERS))}")
    if not isinstance(max_turns, int) or isinstance(max_turns, bool) or max_turns < 1:
        raise InvalidArgument(f"{max_turns=} must be an integer of at least 1")
    for name, value in (("subsessions", subsessions), ("resumes", resumes), ("faults", faults)):
        if not isinstance(value, bool):
            raise InvalidArgument(f"{name}={value!r} must be True or False")
    return _documents(layer, max_turns, subsessions, resumes, faults)


def session_scenarios(
    *,
    layer: str = "session",
    max_turns: int = 3,
    subsessions: bool = True,
    resumes: bool = True,
    faults: bool = True,
) -> st.SearchStrategy[Scenario]:
    """The scenarios of ``session_documents`` (same arguments), read by the scenario loader."""
    documents = session_documents(
        layer=layer,
        max_turns=max_turns,
        subsessions=subsessions,
        resumes=resumes,
        faults=faults,
    )
    return documents.map(scenario_from_document)


@st.composite
def _documents(
    draw: st.DrawFn, layer: str, max_turns: int, subsessions: bool, resumes: bool, faults: bool
) -> dict[str, Any]:
    draft = _Draft(draw, subsessions=subsessions, resumes=resumes, faults=faults)
    # Some frameworks let the parent speak while a sub-agent works (docker-agent's
    # transfer_task); a stored history cannot say which message such a call belongs to, so the
    # history layer's traces keep the parent quiet until its delegations return.
    draft.parent_speaks = layer == "session"
    trace: list[Step] = []
    if resumes and _rarely(draw):
        trace.append(draft.restored())
    turns = draw(st.lists(draft.spanned(draft.turn), min_size=1, max_size=max_turns))
    for steps in turns:
        trace += steps
    document = header(
        layer,
        f"explored-{layer}",
        f"A generated {layer} trace",
        "An agent framework's event stream drawn by harness.strategies.session_documents.",
    )
    document["observe"] = "every_event"
    document["trace"] = trace
    return document


def _rarely(draw: st.DrawFn) -> bool:
    """True about one time in four; shrinks to False."""
    return draw(st.integers(0, 3)) == 3


def _step(kind: str, session: str, **fields: Any) -> Step:
    if session != MAIN:
        fields = {"session": session, **fields}
    return {kind: fields or None}


class _Call:
    """A tool call of a drawn group, with the result its completion carries."""

    def __init__(self, call_id: str, name: str, arguments: dict[str, Any], result: str) -> None:
        self.id, self.name, self.input, self.result = call_id, name, arguments, result
        self.is_error = False

    def named(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name}

    def running(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "input": dict(self.input)}  # no YAML aliases

    def done(self) -> dict[str, Any]:
        out = {**self.running(), "result": self.result}
        if self.is_error:
            out["is_error"] = True
        return out


#: a tool group's events before they become steps: (kind, calls) or ("step", step)
_Entry = tuple[str, Any]


class _Draft:
    """The state of one drawn document: id counters per session, so ids stay unique in their
    session (and repeat across sessions only where a sub-session reuses its parent's)."""

    def __init__(self, draw: st.DrawFn, *, subsessions: bool, resumes: bool, faults: bool) -> None:
        self.draw = draw
        self.subsessions = subsessions
        self.resumes = resumes
        self.parent_speaks = False
        self.faults = faults
        self.counters: dict[tuple[str, str], Iterator[int]] = {}
        #: every text is new, so no store can mistake one session's message for another's
        self.texts = itertools.count(1)
        self.agents = itertools.count(1)
        self.turns = itertools.count(1)
        #: session -> (its parent, whether it reuses the parent's ids)
        self.parents: dict[str, tuple[str, bool]] = {}
        #: session -> the call and message ids it used
        self.used: dict[tuple[str, str], list[str]] = {}

    # -- ids and texts -----------------------------------------------------------------------

    def fresh(self, session: str, kind: str) -> str:
        counter = self.counters.setdefault((session, kind), itertools.count(1))
        tag = "" if session == MAIN else session.rsplit("-", 1)[-1] + "_"
        n = next(counter)
        return {"call": f"toolu_{tag}{n:02d}", "message": f"m{tag}{n}", "stream": f"call_{tag}{n}"}[
            kind
        ]

    def new_id(self, session: str, kind: str) -> str:
        """A new id in the session; a reusing sub-session may take one its parent used."""
        used = self.used.setdefault((session, kind), [])
        parent, reuse = self.parents.get(session, (MAIN, False))
        new = self.fresh(session, kind)
        theirs = [i for i in self.used.get((parent, kind), ()) if i not in used]
        if reuse and theirs and self.draw(st.booleans()):
            new = self.draw(st.sampled_from(theirs[::-1]))  # the latest first: still running
        used.append(new)
        return new

    def text(self) -> str:
        n = next(self.texts)
        return f"{WORDS[n % len(WORDS)]} step {n}."

    def spanned(self, build: Callable[[], list[Step]]) -> st.SearchStrategy[list[Step]]:
        """``build``'s draws as one strategy, so that the shrinker removes a whole turn or item
        at once (each run of the test builds a new draft, so the ids it takes stay in order)."""

        @st.composite
        def strategy(draw: st.DrawFn) -> list[Step]:
            outer, self.draw = self.draw, draw
            try:
                return build()
            finally:
                self.draw = outer

        return strategy()

    # -- a user turn -------------------------------------------------------------------------

    def turn(self) -> list[Step]:
        n = next(self.turns)
        body = self.interaction(MAIN, 0, 3)
        steps = [
            _step("user_message", MAIN, id=f"u{n}", text=f"Request {n}: {self.text()}"),
            _step("interaction_start", MAIN, id=f"i{n}"),
        ]
        if self.faults and _rarely(self.draw):
            # cut short: the user takes the turn back, the interaction's end never comes
            steps += [*body[: self.draw(st.integers(0, len(body)))], _step("user_turn_start", MAIN)]
        else:
            steps += [
                *body,
                _step("interaction_end", MAIN, id=f"i{n}"),
                _step("user_turn_start", MAIN),
            ]
        if self.resumes and _rarely(self.draw):
            steps.append({"resume": {"history": "live"}})
        return steps

    def interaction(self, session: str, depth: int, most: int) -> list[Step]:
        kinds = ["message", "tools", "aside", "streams"]
        if self.subsessions and depth < MAX_DEPTH:
            kinds.append("delegation")

        def item() -> list[Step]:
            kind = self.draw(st.sampled_from(kinds))
            if kind == "message":
                return self.message(session)
            if kind == "tools":
                return self.tools(session, depth, delegations=0)
            if kind == "aside":
                return [self.aside(session)]
            if kind == "streams":
                return self.streams(session)
            return self.tools(session, depth, self.draw(st.integers(1, 2)))

        items = self.draw(st.lists(self.spanned(item), max_size=most))
        return [step for steps in items for step in steps]

    def message(self, session: str) -> list[Step]:
        role = self.draw(st.sampled_from(("assistant", "thought")))
        message_id = self.new_id(session, "message")
        words = self.text().split(" ")
        cut = self.draw(st.integers(0, len(words) - 1))
        pieces = [" ".join(words[:cut]) + " ", " ".join(words[cut:])] if cut else [" ".join(words)]
        return [
            _step("message_start", session, id=message_id, role=role),
            *(_step("message_delta", session, id=message_id, text=p) for p in pieces),
            _step("message_end", session, id=message_id),
        ]

    def aside(self, session: str) -> Step:
        """What tools show between events: a system message or rendered media."""
        if self.draw(st.booleans()):
            return _step(
                "media", session, content_type="text/html", content=f"<p>{self.text()}</p>"
            )
        severity = self.draw(st.sampled_from(("info", "warning", "error")))
        return _step("system_message", session, severity=severity, text=self.text())

    # -- tool calls --------------------------------------------------------------------------

    def tools(self, session: str, depth: int, delegations: int) -> list[Step]:
        """One model message's tool calls: 1-3 in parallel, each selected (maybe), executing
        and completed in any interleaving, batched or not; the first ``delegations`` of them
        open sub-sessions."""
        draw = self.draw
        calls = []
        for k in range(draw(st.integers(max(1, delegations), 3))):
            names = DELEGATION_TOOLS if k < delegations else TOOL_NAMES
            call = _Call(
                self.new_id(session, "call"),
                draw(st.sampled_from(names)),
                draw(st.sampled_from(INPUTS)),
                f"Result: {self.text()}",
            )
            call.is_error = draw(st.booleans())
            calls.append(call)
        lives: list[list[_Entry]] = []
        for call in calls:
            life: list[_Entry] = [("select", [call])] if draw(st.booleans()) else []
            life.append(("executing", [call]))
            if not (self.faults and _rarely(draw)):  # else lost
                life.append(("completed", [call]))
                if self.faults and _rarely(draw):  # the same event delivered twice
                    life.append(("repeated", [call]))
            lives.append(life)
        entries = self.batched(self.interleave(lives))
        for _ in range(draw(st.integers(0, 2))):
            entries.insert(draw(st.integers(0, len(entries))), ("step", self.aside(session)))
        for call in calls[:delegations]:
            entries = self.delegate(session, depth, call, entries)
        return [self.tool_step(session, entry) for entry in entries]

    def batched(self, entries: list[_Entry]) -> list[_Entry]:
        """Neighbouring events of the same kind for different calls, merged into one or not."""
        out: list[_Entry] = []
        for kind, calls in entries:
            if (
                out
                and out[-1][0] == kind != "repeated"
                and all(c not in out[-1][1] for c in calls)
                and self.draw(st.booleans())
            ):
                out[-1] = (kind, [*out[-1][1], *calls])
            else:
                out.append((kind, calls))
        return out

    def delegate(
        self, session: str, depth: int, call: _Call, entries: list[_Entry]
    ) -> list[_Entry]:
        """The call's sub-session, interleaved with whatever else comes while it runs."""
        start = next(i for i, (k, c) in enumerate(entries) if k == "executing" and call in c)
        stop = next(
            (i for i, (k, c) in enumerate(entries) if k == "completed" and call in c), len(entries)
        )
        window = entries[start + 1 : stop]
        if self.parent_speaks and self.draw(st.booleans()):
            at = self.draw(st.integers(0, len(window)))
            window[at:at] = [("step", s) for s in self.message(session)]
        child = [("step", s) for s in self.subsession(session, depth + 1)]
        return [*entries[: start + 1], *self.interleave([child, window]), *entries[stop:]]

    def subsession(self, parent: str, depth: int) -> list[Step]:
        session = f"agent-{next(self.agents)}"
        self.parents[session] = (parent, self.draw(st.booleans()))
        # a delegated agent mostly opens with a message: parallel ones stream theirs at once
        opening = self.message(session) if self.draw(st.booleans()) else []
        body = opening + self.interaction(session, depth, 2)
        return [
            {"subsession_start": {"session": session, "parent": parent}},
            _step("interaction_start", session, id=f"{session}-i1"),
            *body,
            _step("interaction_end", session, id=f"{session}-i1"),
            _step("subsession_end", session),
        ]

    def tool_step(self, session: str, entry: _Entry) -> Step:
        kind, what = entry
        if kind == "step":
            step: Step = what
            return step
        if kind == "select":
            return _step("tool_select", session, calls=[c.named() for c in what])
        if kind == "executing":
            return _step("tool_executing", session, calls=[c.running() for c in what])
        return _step("tool_completed", session, calls=[c.done() for c in what])  # or repeated

    # -- streamed tool results ---------------------------------------------------------------

    def streams(self, session: str) -> list[Step]:
        """One or two streamed calls (regular or delegations), their parts interleaved."""
        lives = []
        for _ in range(self.draw(st.integers(1, 2))):
            delegation = self.draw(st.booleans())
            call_id = self.new_id(session, "stream")
            name = self.draw(st.sampled_from(DELEGATION_TOOLS if delegation else TOOL_NAMES))
            call_type, result_type = (
                ("delegation_call", "delegation_result") if delegation else ("call", "result")
            )
            common = {"call_id": call_id, "tool_name": name}
            life = [
                _step(
                    "tool_stream",
                    session,
                    **common,
                    event_type=call_type,
                    tool_response=f"Running {name}",
                    summary=f"-> {self.text()}",
                )
            ]
            parts = self.draw(st.integers(1, 3))
            for n in range(parts):
                last = n == parts - 1
                fields: dict[str, Any] = {"event_type": result_type, "stream_part": self.text()}
                if self.draw(st.booleans()):
                    fields["summary"] = f"-> {self.text()}"
                if last:
                    fields["tool_response"] = f"{name} finished"
                fields["is_complete"] = last
                life.append(_step("tool_stream", session, **common, **fields))
            lives.append(life)
        return self.interleave(lives)

    # -- a history restored from a store (docker/docker-agent#2053) --------------------------

    def restored(self) -> Step:
        """A resume with a stored history: clean, or (with faults) as corrupt stores leave it."""
        draw = self.draw
        shapes = ["paired"]
        if self.faults:
            shapes += ["split", "duplicate", "orphan", "missing", "missing then asked"]
        uses = itertools.count(1)
        history: list[dict[str, Any]] = []
        if self.faults and _rarely(draw):  # a result whose call was trimmed away
            history.append(
                {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": "toolu_gone", "content": "done"},
                        {"type": "text", "text": f"Then: {self.text()}"},
                    ],
                }
            )
        else:
            history.append({"role": "user", "content": f"Earlier: {self.text()}"})
        for _ in range(draw(st.integers(1, 2))):
            ids = [f"toolu_r{next(uses)}" for _ in range(draw(st.integers(1, 2)))]
            blocks: list[dict[str, Any]] = []
            if draw(st.booleans()):
                blocks.append({"type": "thinking", "thinking": self.text()})
            blocks.append({"type": "text", "text": self.text()})
            blocks += [
                {
                    "type": "tool_use",
                    "id": i,
                    "name": draw(st.sampled_from(TOOL_NAMES)),
                    "input": {},
                }
                for i in ids
            ]
            history.append({"role": "assistant", "content": blocks})
            results = [
                {"type": "tool_result", "tool_use_id": i, "content": f"Result: {self.text()}"}
                for i in ids
            ]
            shape = draw(st.sampled_from(shapes))
            if shape == "split":
                history += [{"role": "user", "content": [r]} for r in results]
            elif shape == "duplicate":
                again = {**results[0], "content": "failed", "is_error": True}
                history.append({"role": "user", "content": [*results, again]})
            elif shape == "orphan":
                ghost = {"type": "tool_result", "tool_use_id": "toolu_ghost", "content": "stray"}
                history.append({"role": "user", "content": [*results, ghost]})
            elif shape == "missing then asked":
                history.append({"role": "user", "content": f"Also: {self.text()}"})
            elif shape == "paired":
                history.append({"role": "user", "content": results})
            if draw(st.booleans()):
                history.append({"role": "assistant", "content": self.text()})
        return {"resume": {"history": history}}

    # -- interleaving ------------------------------------------------------------------------

    def interleave(self, lists: list[list[Any]]) -> list[Any]:
        """The lists merged, each kept in its order; shrinks towards the first list first."""
        pending = [list(x) for x in lists if x]
        out = []
        while pending:
            i = self.draw(st.integers(0, len(pending) - 1)) if len(pending) > 1 else 0
            out.append(pending[i].pop(0))
            if not pending[i]:
                del pending[i]
        return out
