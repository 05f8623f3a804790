"""Loop-layer rules: the requests a whole program sends while the stand-in serves it a loop
scenario's responses, one per request.

What each request must show is derived from the turns the responses streamed
(``harness.model.loop.streamed_turn``), never written by hand: after a response that ended with
calls, the next request of that conversation sends the assistant turn back as it streamed (its
text, its calls with their ids, names and arguments, its thinking where the dialect carries
it), then one result per call the stream completed, paired by id, in a history the provider
accepts; a call the stream did not complete is neither sent back nor answered; and the request
comes only once the response has sent its last event.

Requests are matched to responses by order: request k gets response k. A response belongs to a
conversation (its ``agent``, ``main`` unless the scenario names a sub-agent's); a request
continues the previous response of the conversation of the response it gets.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from harness.history import HistoryFormatError
from harness.history.requests import RequestHistory, read_request
from harness.model.history import (
    HistoryMessage,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from harness.model.loop import LoopRequest, ProgramOutcome, StreamedCall, StreamedTurn
from harness.rules.registry import Finding, rule

#: Anthropic's documented pairing rule, which the history rules of the history layer also apply
PAIRING_SOURCE = (
    "Anthropic's tool use documentation (each tool_use answered by a tool_result in the next "
    "user message, results first); OpenAI's function calling guide (each tool call answered by "
    "a tool message); docker/docker-agent#2053, BerriAI/litellm#37273"
)


@dataclass
class LoopFacts:
    """What one run of a loop scenario showed, for the loop rules.

    ``turns[k]`` is what response k's stream told the program (None: it was never served),
    ``agents[k]`` the conversation response k belongs to, ``requests`` every model request the
    stand-in received, in order, and ``outcome`` how the program ended (None where there is no
    program to end: the pytest fixture, whose test is the client). ``settle`` is how long the
    stand-in held back each response's final events.
    """

    dialect: str
    turns: tuple[StreamedTurn | None, ...]
    agents: tuple[str, ...]
    requests: tuple[LoopRequest, ...]
    outcome: ProgramOutcome | None = None
    settle: float = 0.0
    _read: dict[int, RequestHistory | str] = field(default_factory=dict, repr=False)

    def read(self, request: LoopRequest) -> RequestHistory | str:
        """The request's history, or why it cannot be read (once per request)."""
        if request.number not in self._read:
            try:
                self._read[request.number] = read_request(request.body, self.dialect)
            except HistoryFormatError as exc:
                self._read[request.number] = str(exc)
        return self._read[request.number]

    def histories(self) -> Iterator[tuple[LoopRequest, RequestHistory]]:
        """Every request whose history could be read, with it."""
        for request in self.requests:
            found = self.read(request)
            if isinstance(found, RequestHistory):
                yield request, found

    def at(self, request: LoopRequest) -> int:
        """The response a finding about ``request`` points at: the one it was served, or the
        last one for a request past them."""
        if request.response is not None:
            return request.response
        return max(len(self.turns) - 1, 0)

    def continues(self, request: LoopRequest) -> int | None:
        """The response whose turn ``request`` continues: the previous response of the
        conversation of the response it got (None: it starts its conversation, or got none)."""
        k = request.response
        if k is None:
            return None
        agent = self.agents[k]
        return next((j for j in range(k - 1, -1, -1) if self.agents[j] == agent), None)

    def calls_of(self, agent: str) -> dict[str, tuple[int, StreamedCall]]:
        """Every call the conversation's served responses streamed, by id, with its response."""
        return {
            call.id: (k, call)
            for k, turn in enumerate(self.turns)
            if turn is not None and self.agents[k] == agent
            for call in turn.calls
        }


def _call_subject(call_id: str) -> str:
    return f"call:{call_id}".replace(" ", "_")


def _shown(text: str, limit: int = 60) -> str:
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


def _json_equal(a: str, b: str) -> bool:
    """The same JSON value (canonical text, so that 1 and true differ); text that does not parse
    compares as text."""
    try:
        return _canonical(a) == _canonical(b)
    except ValueError:
        return a == b


def _canonical(text: str) -> str:
    return json.dumps(json.loads(text), sort_keys=True, ensure_ascii=False)


def _sent_turn(history: Sequence[HistoryMessage]) -> tuple[int, int]:
    """Where the request sends back the turn it continues: the run of assistant messages before
    the last user messages, as (first, end) positions in the history (first == end: none)."""
    end = len(history)
    while end and history[end - 1].role == "user":
        end -= 1
    first = end
    while first and history[first - 1].role == "assistant":
        first -= 1
    return first, end


def _blocks(history: Sequence[HistoryMessage], first: int, end: int) -> list[object]:
    return [b for m in history[first:end] for b in m.blocks]


def _response_named(k: int) -> str:
    return f"response {k + 1}"


# -- the request itself --------------------------------------------------------------------------


@rule(
    "loop-request-readable",
    layer="loop",
    source="the provider APIs' request formats (Anthropic Messages, OpenAI Chat Completions and Responses)",
    statement=(
        "Every model request is a POST to the dialect's endpoint, asks for a stream, and carries "
        "a history the dialect's shape reads (Anthropic's messages, Chat Completions' messages, "
        "the Responses API's input items): otherwise the finding says what was wrong."
    ),
    precedence=5,
)
def request_readable(c: LoopFacts) -> Iterator[Finding]:
    for request in c.requests:
        if request.refused and not request.extra:
            yield Finding(c.at(request), f"{request.label}: {request.refused}")
            continue
        found = c.read(request)
        if isinstance(found, str):
            yield Finding(
                c.at(request),
                f"{request.label}: the body is not a request of the {c.dialect} dialect: {found}",
            )
        elif found.stream is not True:
            yield Finding(
                c.at(request),
                f"{request.label} does not ask for a stream ('stream' is "
                f"{json.dumps(found.stream)}); the stand-in streams its answer as every "
                "response of a loop scenario is a stream",
            )


# -- the history pairing rules, on every request --------------------------------------------------


def _pairing(c: LoopFacts, kinds: tuple[str, ...]) -> Iterator[Finding]:
    for request, found in c.histories():
        for problem in found.problems:
            if problem.kind in kinds:
                yield Finding(
                    c.at(request),
                    f"{request.label} would be refused by the provider: {problem.message}",
                    _call_subject(problem.tool_id),
                )


@rule(
    "loop-forward-pairing",
    layer="loop",
    source=PAIRING_SOURCE,
    statement=(
        "In every request, every tool call of an assistant message has its result in the message "
        "right after it."
    ),
    precedence=40,
)
def forward_pairing(c: LoopFacts) -> Iterator[Finding]:
    return _pairing(c, ("missing_result",))


@rule(
    "loop-reverse-pairing",
    layer="loop",
    source=PAIRING_SOURCE,
    statement=(
        "In every request, every tool result answers a tool call of the assistant message right "
        "before it, once."
    ),
    precedence=40,
)
def reverse_pairing(c: LoopFacts) -> Iterator[Finding]:
    return _pairing(c, ("orphan_result", "duplicate_result"))


@rule(
    "loop-results-first",
    layer="loop",
    source="Anthropic's tool use documentation (tool_result blocks must come first in the user message)",
    statement="In every request, a user message's tool results come before any other content.",
    precedence=40,
)
def results_first(c: LoopFacts) -> Iterator[Finding]:
    return _pairing(c, ("result_after_content",))


# -- what the request after a turn sends back -------------------------------------------------------


def _continuations(
    c: LoopFacts,
) -> Iterator[tuple[LoopRequest, RequestHistory, int, StreamedTurn]]:
    """Every readable request that continues a turn which ended with calls, with that turn."""
    for request, found in c.histories():
        k = c.continues(request)
        turn = c.turns[k] if k is not None else None
        if k is not None and turn is not None and turn.expects_next:
            yield request, found, k, turn


@rule(
    "loop-turn-sent-back",
    layer="loop",
    source=(
        "the provider APIs' multi-turn tool use (the assistant message as the model produced it, "
        "then the results); scenarios/loop/two-tool-cycles.yaml"
    ),
    statement=(
        "The request after a turn that ended with calls sends that turn back as it streamed: an "
        "assistant message (or a run of them) just before the results, with the turn's text and "
        "every call the stream completed, each with its id, name and arguments (compared as JSON "
        "values)."
    ),
)
def turn_sent_back(c: LoopFacts) -> Iterator[Finding]:
    for request, found, k, turn in _continuations(c):
        first, end = _sent_turn(found.history)
        streamed = _response_named(k)
        if first == end:
            yield Finding(
                k,
                f"{request.label} sends back no assistant message before its last user message; "
                f"{streamed} streamed {_turn_words(turn)}",
            )
            continue
        where = (
            found.names[first]
            if end - first == 1
            else f"{found.names[first]} to {found.names[end - 1]}"
        )
        blocks = _blocks(found.history, first, end)
        sent = {b.id: b for b in blocks if isinstance(b, ToolUseBlock)}
        for call in turn.completed:
            got = sent.get(call.id)
            if got is None:
                yield Finding(
                    k,
                    f"{request.label} sends back {where} without the call {call.id!r} "
                    f"({call.name}) that {streamed} streamed and completed",
                    _call_subject(call.id),
                )
                continue
            changed = []
            if got.name != call.name:
                changed.append(f"name {got.name!r} instead of {call.name!r}")
            sent_arguments = found.arguments(got)
            if not _json_equal(sent_arguments, call.arguments):
                changed.append(
                    f"arguments {_shown(sent_arguments)} instead of {_shown(call.arguments)}"
                )
            if changed:
                yield Finding(
                    k,
                    f"{request.label} sends back the call {call.id!r} of {streamed} with "
                    + " and ".join(changed),
                    _call_subject(call.id),
                )
        known = {call.id for t in c.turns if t is not None for call in t.calls}
        for call_id, block in sent.items():
            if call_id not in known:
                yield Finding(
                    k,
                    f"{request.label} sends back in {where} a call {call_id!r} ({block.name}) "
                    f"that no response streamed",
                    _call_subject(call_id),
                )
        text = "".join(b.text for b in blocks if isinstance(b, TextBlock))
        if text.strip() != turn.text.strip():
            yield Finding(
                k,
                f"{request.label} sends back the text {_shown(text)} in {where}; {streamed} "
                f"streamed {_shown(turn.text)}",
            )


def _turn_words(turn: StreamedTurn) -> str:
    parts = []
    if turn.text:
        parts.append(f"the text {_shown(turn.text, 40)}")
    if turn.completed:
        parts.append("the calls " + ", ".join(repr(c.id) for c in turn.completed))
    return " and ".join(parts) or "an empty turn"


@rule(
    "loop-results-sent",
    layer="loop",
    source=(
        "the provider APIs' multi-turn tool use (a result for every call, matched by its id); "
        "docker/docker-agent#2053"
    ),
    statement=(
        "The request after a turn that ended with calls answers exactly the calls the stream "
        "completed: one result for each, under its id, in the message right after the turn sent "
        "back."
    ),
)
def results_sent(c: LoopFacts) -> Iterator[Finding]:
    for request, found, k, turn in _continuations(c):
        _, end = _sent_turn(found.history)
        after = found.history[end] if end < len(found.history) else None
        where = found.names[end] if after is not None else "its last message"
        counts: dict[str, int] = {}
        for block in after.blocks if after is not None else ():
            if isinstance(block, ToolResultBlock):
                counts[block.tool_use_id] = counts.get(block.tool_use_id, 0) + 1
        for call in turn.completed:
            n = counts.get(call.id, 0)
            if n == 0:
                yield Finding(
                    k,
                    f"{request.label} has no result for the call {call.id!r} ({call.name}) in "
                    f"{where}, after the turn it sends back; {_response_named(k)} completed "
                    "that call, so the loop owes its result",
                    _call_subject(call.id),
                )
            elif n > 1:
                yield Finding(
                    k,
                    f"{request.label} answers the call {call.id!r} {n} times in {where}",
                    _call_subject(call.id),
                )


@rule(
    "loop-no-incomplete-call",
    layer="loop",
    source=(
        "scenarios/driver/truncated-arguments-max-tokens.yaml (a call cut by max_tokens is not "
        "the model's call); "
        "anthropics/claude-quickstarts#155 (an interrupted turn's orphaned tool_use); "
        "Anthropic's stop-reason guidance (max_tokens: raise max_tokens or continue the response)"
    ),
    statement=(
        "A call whose block the stream did not complete (cut by max_tokens, or by a stream that "
        "failed) is never run nor sent back: no request holds that call or a result for it. "
        "Sending it back with an error for its result, so that the model mends it, is no "
        "exception: the arguments are the limit's, not the model's, and the documented answers "
        "to a cut are a larger limit or a continued response, not a retry prompt."
    ),
    precedence=30,
)
def no_incomplete_call(c: LoopFacts) -> Iterator[Finding]:
    cut: dict[str, tuple[int, StreamedCall]] = {
        call.id: (k, call)
        for k, turn in enumerate(c.turns)
        if turn is not None
        for call in turn.incomplete
    }
    if not cut:
        return
    for request, found in c.histories():
        for n, message in enumerate(found.history):
            for block in message.blocks:
                call_id = (
                    block.id
                    if isinstance(block, ToolUseBlock)
                    else block.tool_use_id
                    if isinstance(block, ToolResultBlock)
                    else None
                )
                if call_id not in cut:
                    continue
                k, call = cut[call_id]
                turn = c.turns[k]
                assert turn is not None
                why = (
                    "its stream failed before the call's block ended"
                    if turn.failed
                    else f"it stopped for {turn.stop_reason} before the call's block ended"
                )
                what = "the call" if isinstance(block, ToolUseBlock) else "a result for the call"
                yield Finding(
                    k,
                    f"{request.label} sends {what} {call_id!r} ({call.name}) in {found.names[n]}; "
                    f"{_response_named(k)} never completed it ({why}; its arguments stopped at "
                    f"{_shown(call.arguments)}), so it is not a call of the model's to run",
                    _call_subject(call_id),
                )


@rule(
    "loop-thinking-kept",
    layer="loop",
    source=(
        "Anthropic's extended thinking documentation (with tool use, the last assistant turn's "
        "thinking blocks go back unmodified, signature included); OpenAI's reasoning guide "
        "(reasoning items go back with the function calls they led to)"
    ),
    statement=(
        "The request after a turn with thinking that ended with calls sends its thinking back "
        "with it: in the Anthropic shape each thinking block with its text and signature, in "
        "order; in the Responses shape each reasoning item, by its id. Chat Completions has no "
        "thinking in a request and is exempt."
    ),
)
def thinking_kept(c: LoopFacts) -> Iterator[Finding]:
    for request, found, k, turn in _continuations(c):
        if found.shape == "openai" or not turn.thinking:
            continue
        first, end = _sent_turn(found.history)
        sent = [
            (b.text, b.signature)
            for b in _blocks(found.history, first, end)
            if isinstance(b, ThinkingBlock)
        ]
        want = list(turn.thinking)
        if found.shape == "responses":  # a reasoning item goes back by its id
            sent = [("", s) for _, s in sent]
            want = [("", s) for _, s in want]
        if sent != want:
            yield Finding(
                k,
                f"{request.label} sends back {_thoughts(sent)} with the turn of "
                f"{_response_named(k)}, which streamed {_thoughts(want)}",
            )


def _thoughts(blocks: Sequence[tuple[str, str]]) -> str:
    if not blocks:
        return "no thinking"
    shown = [
        (_shown(t, 30) + " " if t else "")
        + (f"(signature {s[:16]!r}...)" if s else "(no signature)")
        for t, s in blocks
    ]
    return f"{len(blocks)} thinking block(s): " + ", ".join(shown)


@rule(
    "loop-own-history",
    layer="loop",
    source="docker/docker-agent#2053 (a sub-agent's messages in the parent's history)",
    statement=(
        "A conversation's requests hold only its own turns: no call, result or assistant text "
        "that a response of another conversation (a sub-agent's, or its parent's) streamed."
    ),
)
def own_history(c: LoopFacts) -> Iterator[Finding]:
    if len(set(c.agents)) < 2:
        return
    for request, found in c.histories():
        if request.response is None:
            continue
        agent = c.agents[request.response]
        mine = c.calls_of(agent)
        texts = {
            t.text.strip() for k, t in enumerate(c.turns) if t is not None and c.agents[k] == agent
        }
        others = {
            call.id: (k, call)
            for k, t in enumerate(c.turns)
            if t is not None and c.agents[k] != agent
            for call in t.calls
        }
        theirs = {
            t.text.strip(): k
            for k, t in enumerate(c.turns)
            if t is not None and c.agents[k] != agent and t.text.strip()
        }
        for n, message in enumerate(found.history):
            for block in message.blocks:
                if isinstance(block, (ToolUseBlock, ToolResultBlock)):
                    call_id = block.id if isinstance(block, ToolUseBlock) else block.tool_use_id
                    if call_id in others and call_id not in mine:
                        k, call = others[call_id]
                        what = "call" if isinstance(block, ToolUseBlock) else "result for the call"
                        yield Finding(
                            c.at(request),
                            f"{request.label}, of the conversation {agent!r}, holds in "
                            f"{found.names[n]} the {what} {call_id!r} ({call.name}), which "
                            f"{_response_named(k)} streamed to the conversation {c.agents[k]!r}",
                            _call_subject(call_id),
                        )
                elif (
                    isinstance(block, TextBlock)
                    and message.role == "assistant"
                    and block.text.strip() in theirs
                    and block.text.strip() not in texts
                ):
                    k = theirs[block.text.strip()]
                    yield Finding(
                        c.at(request),
                        f"{request.label}, of the conversation {agent!r}, holds in "
                        f"{found.names[n]} the text {_shown(block.text)}, which "
                        f"{_response_named(k)} streamed to the conversation {c.agents[k]!r}",
                    )


# -- when the requests come, and how many ------------------------------------------------------------


@rule(
    "loop-request-after-turn",
    layer="loop",
    source=(
        "a loop whose stream reader stops at the first stop event sends its next request before "
        "the turn has ended: vercel/workflow#1387, mastra-ai/mastra#14187"
    ),
    statement=(
        "A request is sent only once the response before it has sent its last event: the "
        "stand-in holds each response's final events back a moment, and a request that arrives "
        "meanwhile was sent by a program acting on a turn that had not ended."
    ),
)
def request_after_turn(c: LoopFacts) -> Iterator[Finding]:
    for request in c.requests:
        if request.early and request.after is not None:
            before = request.after
            yield Finding(
                before,
                f"{request.label} arrived while {_response_named(before)} was still streaming "
                f"its last events (the stand-in held them back {c.settle:g} s): the program "
                "acted before the turn had ended",
            )


@rule(
    "loop-request-count",
    layer="loop",
    source="the loop's contract: a turn that ends with calls is followed by the results; no more",
    statement=(
        "After a turn that ended with calls the program sends the next request of its "
        "conversation (a turn without calls, or a stream that failed, owes none; a turn the "
        "token limit stopped owes none when the program ends there with a non-zero status, "
        "telling its user to raise the limit), and it sends no request past the scenario's "
        "responses."
    ),
)
def request_count(c: LoopFacts) -> Iterator[Finding]:
    for request in c.requests:
        if request.extra:
            yield Finding(c.at(request), f"{request.label}: {request.refused}")
    served = [k for k, t in enumerate(c.turns) if t is not None]
    if not c.requests:
        yield Finding(0, "the program sent no request to the stand-in" + _ending(c))
        return
    for k in served:
        turn = c.turns[k]
        assert turn is not None
        later = [j for j in served if j > k and c.agents[j] == c.agents[k]]
        stopped_there = turn.at_limit and _ended_with_error(c)
        if turn.expects_next and not later and not stopped_there:
            calls = ", ".join(repr(call.id) for call in turn.completed)
            yield Finding(
                k,
                f"{_response_named(k)} ended with the calls {calls}, and the program sent no "
                f"request with their results{_ending(c)}",
            )


def _ended_with_error(c: LoopFacts) -> bool:
    """The program ended on its own with a non-zero status."""
    return c.outcome is not None and not c.outcome.timed_out and c.outcome.status != 0


def _ending(c: LoopFacts) -> str:
    outcome = c.outcome
    if outcome is None:
        return ""
    if outcome.timed_out:
        return f" within {outcome.seconds:g} s (it was stopped then)"
    return f" (it exited with status {outcome.status} after {outcome.seconds:.1f} s)"


@rule(
    "loop-program-exit",
    layer="loop",
    source="the loop's contract: a program that handled every turn ends, and ends well",
    statement=(
        "The program ends on its own within the time limit, with exit status 0, unless a stream "
        "failed (the server's error, a body cut short): then it either tries again (it sends "
        "another request) or ends with a non-zero status. Ending with 0 after the last response "
        "failed takes half a turn for a whole one. A turn the token limit stopped (max_tokens) "
        "may end the program with a non-zero status too: stopping so that the user raises the "
        "limit is one of the two answers Anthropic's stop-reason guidance gives, and the Agents "
        "SDK (Responses) and Strands stop so by design."
    ),
)
def program_exit(c: LoopFacts) -> Iterator[Finding]:
    outcome = c.outcome
    if outcome is None:
        return
    last = max((k for k, t in enumerate(c.turns) if t is not None), default=0)
    sent = _requests_said(c.requests)
    if outcome.timed_out:
        yield Finding(
            last,
            f"the program did not end within the time limit ({outcome.seconds:g} s) and was "
            f"stopped; {sent}{_printed(outcome)}",
        )
        return
    failed = [k for k, t in enumerate(c.turns) if t is not None and t.failed]
    at_limit = [k for k, t in enumerate(c.turns) if t is not None and t.at_limit]
    if outcome.status != 0 and not failed and not at_limit:
        yield Finding(
            last,
            f"the program exited with status {outcome.status}; {sent}{_printed(outcome)}",
        )
    elif outcome.status == 0 and failed and failed[-1] == last:
        yield Finding(
            last,
            f"the program exited with status 0 after {_response_named(last)} failed (its stream "
            "ended before the turn did), without trying again: it took half a turn for a whole "
            f"one; {sent}{_printed(outcome)}",
        )


def _requests_said(requests: Sequence[LoopRequest]) -> str:
    if not requests:
        return "it sent no request"
    last = requests[-1]
    return (
        f"it sent {len(requests)} request{'s' if len(requests) > 1 else ''}, the last "
        f"{last.method} {last.path} ({len(last.body):,} bytes: {_shown(last.body.decode('utf-8', 'replace'), 80)})"
    )


def _printed(outcome: ProgramOutcome) -> str:
    text = outcome.output.strip()
    if not text:
        return ""
    return "; the end of its output:\n" + "\n".join(
        "      | " + line for line in text.splitlines()[-12:]
    )
