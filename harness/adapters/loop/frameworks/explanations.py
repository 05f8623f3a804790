"""What each framework's loop gets wrong on the loop scenarios, in plain words: one explanation
per behaviour, covering the failed runs it makes.

A run is one loop scenario in one dialect; an explanation covers a failed run of its loop when
the run's scenario (and dialect, where it names some) is among its own and the run broke exactly
its ``rules``: a run that breaks one rule more is not explained until someone says why. The
evidence is the run itself: the matrix shows its violations and the ``harness loop`` command
that runs it again.

``verdict`` says whose the failure is: ``framework`` (the framework does what the rule forbids,
and its user pays for it) or ``harness`` (the framework's choice is a reasonable one the rule
does not allow, or the stand-in serves something other than the scenario says: the rule or the
stand-in is in question, not the framework).

>>> e = LoopExplanation("x", "stops-early", "It stops.", frozenset({"s"}), None, frozenset({"r"}))
>>> e.covers("s", "openai-chat", ("r",)), e.covers("s", "openai-chat", ("r", "q"))
(True, False)
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Literal

Verdict = Literal["framework", "harness"]
VERDICTS: tuple[Verdict, ...] = ("framework", "harness")

_ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


@dataclass(frozen=True)
class LoopExplanation:
    loop: str
    id: str
    #: what the framework did, what its user sees, the upstream report where one exists
    text: str
    scenarios: frozenset[str]
    #: None: every dialect
    dialects: frozenset[str] | None
    #: the rules a covered run breaks, all of them
    rules: frozenset[str]
    verdict: Verdict = "framework"

    def covers(self, scenario: str, dialect: str, rules: Collection[str]) -> bool:
        return (
            scenario in self.scenarios
            and (self.dialects is None or dialect in self.dialects)
            and frozenset(rules) == self.rules
        )


_REGISTERED: dict[str, list[LoopExplanation]] = {}


def explain_loop(
    loops: str | Iterable[str],
    id: str,
    text: str,
    *,
    scenarios: Collection[str],
    rules: Collection[str],
    dialects: Collection[str] | None = None,
    verdict: Verdict = "framework",
) -> None:
    """Register one behaviour of each of ``loops`` (several when they share the code that has
    it). ``text`` is written as a paragraph; its line breaks and indentation fold into spaces."""
    if not _ID.match(id):
        raise ValueError(f"explanation id {id!r}: lowercase words joined by hyphens")
    if verdict not in VERDICTS:
        raise ValueError(f"verdict {verdict!r}: one of {', '.join(VERDICTS)}")
    for loop in [loops] if isinstance(loops, str) else loops:
        known = _REGISTERED.setdefault(loop, [])
        if any(e.id == id for e in known):
            raise ValueError(f"{loop}: two explanations are named {id!r}")
        known.append(
            LoopExplanation(
                loop,
                id,
                " ".join(text.split()),
                frozenset(scenarios),
                None if dialects is None else frozenset(dialects),
                frozenset(rules),
                verdict,
            )
        )


def loop_explanations(loop: str) -> tuple[LoopExplanation, ...]:
    """The loop's explanations, in the order they were registered."""
    return tuple(_REGISTERED.get(loop, ()))


def all_loop_explanations() -> tuple[LoopExplanation, ...]:
    return tuple(e for known in _REGISTERED.values() for e in known)


def explanation_of_run(
    loop: str, scenario: str, dialect: str, rules: Collection[str]
) -> LoopExplanation | None:
    """The first of the loop's explanations that covers the failed run, or None."""
    return next((e for e in loop_explanations(loop) if e.covers(scenario, dialect, rules)), None)


# -- the explanations ----------------------------------------------------------------------------

#: the loop scenarios the explanations name
_CYCLES = "loop-two-tool-cycles"
_PARALLEL = "loop-parallel-calls"
_DELEGATION = "loop-subagent-delegation"
_MAX_TOKENS = "loop-max-tokens-cut-call"
_BODY_ENDS_EARLY = "loop-body-ends-mid-call"

#: what every explanation of loop-body-ends-mid-call says of the body
_BODY_ENDS = """The body ends properly as HTTP goes (its terminating chunk is sent), as a
    gateway or proxy that lost its upstream may end it, so the SDK raises nothing; only the
    missing end event tells that the turn never ended. With the connection dropped instead
    (loop-body-cut-mid-call) the SDK raises and the run passes."""

explain_loop(
    "pydantic-ai-run-stream",
    "text-ends-the-run",
    """Agent.run_stream takes the first text part the model streams for the run's final output.
    A turn that says a sentence before its calls ("Let me read the file first.") ends the run
    there: the calls are run (the default end_strategy 'graceful' still runs function tools,
    and delegate's sub-agent sends its request), but their results never go back to the model.
    The user gets the model's preamble as the answer, and whatever the model meant to do with
    the results never happens. pydantic-ai documents that run_stream stops at the first output
    matching output_type and points to run_stream_events or iter for a run to completion;
    reported as pydantic/pydantic-ai#2308 (open), #3574 and #7688.""",
    scenarios=[_CYCLES, _PARALLEL, _DELEGATION, _MAX_TOKENS],
    rules=["loop-request-count"],
)
explain_loop(
    "pydantic-ai-run-stream",
    "ended-body-taken-for-the-answer",
    f"""Agent.run_stream takes the text that came first, "Writing both files.", for the final
    output, and the body then ends before its finish_reason (Responses: before
    response.completed; Anthropic: before message_stop): the program gets that half sentence
    as the answer and exits 0, the calls never run, and nothing tells the user the response
    broke off. {_BODY_ENDS}""",
    scenarios=[_BODY_ENDS_EARLY],
    rules=["loop-program-exit"],
)
explain_loop(
    "pydantic-ai-run-stream-events",
    "cut-call-sent-back-for-a-retry",
    """pydantic-ai does not look at why the response stopped (finish_reason 'length',
    stop_reason 'max_tokens', status 'incomplete'): it keeps the call the limit cut off as a
    call of the turn. It does not run it, as its arguments do not parse, but sends it back, its
    arguments wrapped as {"INVALID_JSON": "..."}, with its retry prompt for the result (the
    JSON error, "Invalid JSON: EOF while parsing a string"; is_error in Anthropic's shape), so
    the model is asked to mend JSON it never finished rather than told it ran out of tokens;
    the complete call before it runs and its result goes back as it should. Other loops answer
    a cut call with an error on purpose too (earendil-works/pi#6285); the rule does not allow
    it, and says why: the arguments are the limit's, not the model's, and the documented
    answers to a cut are a larger limit or a continued response.""",
    scenarios=[_MAX_TOKENS],
    rules=["loop-no-incomplete-call"],
)
explain_loop(
    "pydantic-ai-run-stream-events",
    "ended-body-acted-on",
    f"""A body that ends before its finish_reason (Responses: before response.completed;
    Anthropic: before message_stop) is a whole turn to pydantic-ai: it acts on the calls it
    holds, the last of them cut. The Anthropic call cut before any of its input came is run
    with {{}} for its arguments and its result sent back; a cut whose JSON does not parse is
    sent back with a retry prompt. The user is never told the response broke off.
    {_BODY_ENDS}""",
    scenarios=[_BODY_ENDS_EARLY],
    rules=["loop-no-incomplete-call"],
)
explain_loop(
    "openai-agents",
    "length-cut-call-run",
    """With Chat Completions the SDK raises on finish_reason 'length' only when the message has
    no visible output (raise_on_length_truncation); this turn has text, so the Runner hands both
    calls to their tools, the cut one with its cut arguments ('{"path": "b.txt", "text": "sec'),
    and sends both back with their results. A tool that parses its arguments fails or, worse,
    acts on half of them, and the model gets back a call it never finished. A fix
    (openai/openai-agents-python#4247, rejecting calls of a length-cut stream) was closed
    unmerged.""",
    scenarios=[_MAX_TOKENS],
    dialects=["openai-chat"],
    rules=["loop-no-incomplete-call"],
)
explain_loop(
    "openai-agents",
    "ended-body-completes-behind-a-gateway",
    f"""The SDK requires a finish_reason only from OpenAI's own endpoint
    (require_finish_reason=ChatCmplHelpers.is_openai(client)); with any other base URL (a
    gateway, a proxy, this stand-in) a Chat Completions body that ends before its finish_reason
    completes the response, and the Runner runs the cut call with its cut arguments and sends
    it back. {_BODY_ENDS}""",
    scenarios=[_BODY_ENDS_EARLY],
    dialects=["openai-chat"],
    rules=["loop-no-incomplete-call"],
)
explain_loop(
    "strands",
    "ended-body-acted-on",
    f"""Strands' OpenAI model parses the cut call's arguments, fails, and uses {{}} instead
    with only a logged warning ("failed to parse tool input json, defaulting to empty dict");
    the stream's missing finish_reason becomes end_turn, overridden to tool_use as the message
    holds calls, so write_file runs with no arguments and its result goes back.
    {_BODY_ENDS}""",
    scenarios=[_BODY_ENDS_EARLY],
    dialects=["openai-chat"],
    rules=["loop-no-incomplete-call"],
)
explain_loop(
    "strands",
    "ended-body-taken-for-the-answer",
    f"""An Anthropic stream that ends before its message_stop is a message that ended with
    end_turn to Strands: the text so far, "Writing both files.", is the answer, the program
    exits 0, and the calls are never run; nothing tells the user the response broke off.
    {_BODY_ENDS}""",
    scenarios=[_BODY_ENDS_EARLY],
    dialects=["anthropic"],
    rules=["loop-program-exit"],
)
