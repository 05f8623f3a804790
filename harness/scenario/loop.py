"""Reading a loop scenario: the responses a program gets, one canonical turn per request.

Each response is written as a driver scenario's ``trace:`` (the same steps, read by the same
step table), with its own ``quirks:``, ``transport:`` faults and ``faults:``, and an ``agent``
naming its conversation (``main`` unless a sub-agent's). What the requests must show is derived
from the turns when they are judged (``harness.rules.loop``); here the file is checked for
what a run needs: each response is one message, a completed call's arguments are JSON, call ids
are unique, a turn that ends with calls is followed by its conversation's next response, a
conversation that ended gets no more, and the dialects can carry every response.
"""

from __future__ import annotations

import json

from harness.codecs import dialects
from harness.history.requests import SHAPES
from harness.model import driver as dv
from harness.model.loop import streamed_turn
from harness.scenario._fields import Fields, Invalid
from harness.scenario.driver import _transport
from harness.scenario.faults import apply_faults
from harness.scenario.reader import StepReader
from harness.scenario.types import LoopResponse, LoopScenario, ScenarioHeader, fields_of

#: the top-level fields only loop scenarios have
LOOP_KEYS = ("dialects", "responses")
_RESPONSE_KEYS = ("trace", "quirks", "transport", "faults", "agent")

#: the dialects a loop is served in: one response per request, a history the stand-in can read
LOOP_DIALECTS: tuple[str, ...] = tuple(SHAPES)


def read_loop_scenario(r: StepReader, top: Fields, header: ScenarioHeader) -> LoopScenario:
    items = top.list("responses", required=True)
    if not items:
        top.fail(top.line_of("responses"), "'responses' is empty: a loop needs one at least")
    codecs = dialects()
    loop_codecs = [codecs[n] for n in LOOP_DIALECTS if n in codecs]
    responses: list[LoopResponse] = []
    for i, item in enumerate(items):
        try:
            responses.append(_response(r, r.fields(item, f"response {i + 1}", items.line_of(i))))
        except Invalid:
            continue
    if len(responses) < len(items):
        raise Invalid
    for response in responses:
        for q in response.quirks:
            if not any(q in c.quirks for c in loop_codecs):
                known = ", ".join(sorted({k for c in loop_codecs for k in c.quirks}))
                r.note(response.line, f"no loop dialect knows the quirk {q!r} (known: {known})")
    _check_conversations(r, responses)
    named = top.str_list("dialects")
    for i, name in enumerate(named):
        if name not in LOOP_DIALECTS:
            r.note(
                top.list("dialects").line_of(i),
                f"{name!r} is not a dialect loops are served in ({', '.join(LOOP_DIALECTS)})",
            )
    chosen: list[str] = []
    reasons: list[str] = []
    for name in named or LOOP_DIALECTS:
        codec = codecs.get(name)
        if codec is None:
            continue
        why = next(
            (
                f"response {n + 1}: {reason}"
                for n, response in enumerate(responses)
                if (reason := codec.can_express(response.turn, response.quirks))
            ),
            None,
        )
        if why is None:
            chosen.append(name)
        elif named:
            r.note(top.line_of("dialects"), f"{name}: {why}")
        else:
            reasons.append(f"{name}: {why}")
    if not named and not chosen:
        r.note(top.line_of("responses"), "no loop dialect can carry it: " + "; ".join(reasons))
    return LoopScenario(
        **fields_of(header),
        responses=tuple(responses),
        dialects=tuple(chosen),
        dialects_named=bool(named),
    )


def _response(r: StepReader, f: Fields) -> LoopResponse:
    f.check_keys(_RESPONSE_KEYS)
    steps = f.list("trace", required=True)
    if not steps:
        f.fail(f.line_of("trace"), "the response's trace is empty")
    problems = len(r.problems)
    turn = apply_faults(r, f.list("faults"), r.steps(steps, "trace"))
    if len(r.problems) > problems:
        raise Invalid
    cycles = sum(isinstance(e, dv.CycleStart) for e in turn)
    if cycles != 1:
        f.fail(
            f.line_of("trace"),
            f"a response holds one message (one cycle), as a provider's response does; this one "
            f"has {cycles}",
        )
    for event in turn[:-1]:
        if isinstance(event, dv.StreamError):
            f.fail(event.line, "nothing follows a server's error: the stream ends with it")
    told = streamed_turn(turn)
    for call in told.completed:
        try:
            json.loads(call.arguments)
        except ValueError:
            f.fail(
                f.line_of("trace"),
                f"the call {call.id!r} completes with arguments that are not JSON "
                f"({call.arguments!r}); a loop runs only calls it can read, so give a cut call "
                "'stopped: false'",
            )
    if told.stop_reason == "max_tokens" and not told.failed:
        blocks = [e for e in turn if isinstance(e, dv.BlockStart)]
        if blocks and blocks[-1].block == "tool_use" and told.calls[-1].complete:
            f.fail(
                blocks[-1].line,
                "a turn cut by max_tokens ends in the block it cut: give its last call "
                "'stopped: false' (Chat Completions cannot tell a client which call was cut)",
            )
    agent = f.str("agent", "main")
    if not agent:
        f.fail(f.line_of("agent"), "'agent' names a conversation: give it a name")
    return LoopResponse(
        turn=tuple(turn),
        line=f.line,
        quirks=f.str_list("quirks"),
        transport=_transport(f),
        agent=agent,
    )


def _failed(response: LoopResponse) -> bool:
    """A response whose stream does not end: the server's error, or a body cut short."""
    return response.body_cut is not None or streamed_turn(response.turn).failed


def _check_conversations(r: StepReader, responses: list[LoopResponse]) -> None:
    """Call ids are unique; a turn with calls is followed by its conversation's next response;
    a conversation that ended (a turn without calls) gets no more."""
    seen: dict[str, int] = {}
    ended: dict[str, int] = {}
    waiting: dict[str, int] = {}  # agent -> the response whose results it owes
    for n, response in enumerate(responses):
        agent = response.agent
        if agent in ended:
            r.note(
                response.line,
                f"the conversation {agent!r} ended at response {ended[agent] + 1} (a turn without "
                "calls: no client sends another request for it); give this response another "
                "'agent'",
            )
        waiting.pop(agent, None)
        told = streamed_turn(response.turn)
        for call in told.calls:
            if call.id in seen:
                r.note(
                    response.line,
                    f"the call id {call.id!r} is also used by response {seen[call.id] + 1}; each "
                    "call of a loop needs its own id",
                )
            seen.setdefault(call.id, n)
        if _failed(response):
            continue
        if told.expects_next:
            waiting[agent] = n
        else:
            ended[agent] = n
    for agent, n in waiting.items():
        r.note(
            responses[n].line,
            f"response {n + 1} ends with calls, so the client sends their results in another "
            f"request of the conversation {agent!r}: add the response it gets",
        )


__all__ = ["LOOP_DIALECTS", "LOOP_KEYS", "read_loop_scenario"]
