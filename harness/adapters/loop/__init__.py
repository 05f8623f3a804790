"""Bundled agent loops: small programs that run a whole tool loop through a provider's real SDK,
for ``harness loop`` and its tests. Each is a reference (it passes every loop scenario of its
dialect) or a mutant with one known bug put back in (a ``--bug`` flag of the same program).

Each program streams a response with its SDK's stream helper, assembles the calls the stream
completed, runs a fake tool that echoes its arguments (and a ``delegate`` tool that runs a
sub-agent on the task it is given, in a conversation of its own), sends the history back, and
goes on until a turn ends without calls. Its SDK finds the stand-in through ``OPENAI_BASE_URL``
or ``ANTHROPIC_BASE_URL``, which ``harness loop`` sets::

    python -m harness loop scenarios/loop -- python -m harness.adapters.loop.anthropic_agent

``LOOPS`` names them all; ``LOOPS[name].command()`` is the command line of one.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class LoopProgram:
    """A bundled loop: the module run with ``python -m``, its arguments, the dialect its SDK
    speaks, and for a mutant its bug in one sentence."""

    name: str
    module: str
    arguments: tuple[str, ...]
    dialect: str
    bug: str | None = None

    def command(self) -> list[str]:
        """Its command line, run by this Python."""
        return [sys.executable, "-m", self.module, *self.arguments]


#: the bugs a loop can be given (``--bug NAME``), in one sentence each
BUGS = {
    "pair-by-position": (
        "results are given the ids of the conversation's calls by position (the n-th result of "
        "a turn takes the id of the n-th call ever made), not the ids of the calls they answer"
    ),
    "run-cut-call": (
        "a call the stream cut off (max_tokens) is run and sent back like a complete one, with "
        "the arguments the SDK parsed from its fragments"
    ),
    "drop-thinking": "the assistant turn is sent back without its thinking blocks",
    "text-before-results": (
        "the user message that carries the results opens with a line of text, before the "
        "tool_result blocks"
    ),
    "cut-body-ends-turn": (
        "a body cut short is taken for the turn's end: the loop acts on the calls it holds (the "
        "last of them perhaps cut) or on the text so far as the answer"
    ),
    "drop-text": "the assistant turn is sent back without its text when it holds calls",
    "text-ends-loop": (
        "a turn with text is taken for the answer: the loop ends there, even when the turn also "
        "made calls"
    ),
    "early-request": (
        "the stream is read only up to the event that says why the message stopped: the next "
        "request goes out while the response is still streaming"
    ),
    "subagent-in-parent": (
        "the sub-agent a delegate call runs works in the parent's message list: its prompt and "
        "its turns go into the parent's next request"
    ),
}

_MODULES = {
    "anthropic": ("harness.adapters.loop.anthropic_agent", ()),
    "openai-chat": ("harness.adapters.loop.openai_agent", ("--api", "chat")),
    "openai-responses": ("harness.adapters.loop.openai_agent", ("--api", "responses")),
}

#: which bugs each dialect's loop is bundled with as a mutant
_MUTANTS = {
    "anthropic": (
        "pair-by-position",
        "run-cut-call",
        "drop-thinking",
        "text-before-results",
        "early-request",
        "subagent-in-parent",
    ),
    "openai-chat": (
        "pair-by-position",
        "run-cut-call",
        "drop-text",
        "text-ends-loop",
        "cut-body-ends-turn",
        "early-request",
        "subagent-in-parent",
    ),
    "openai-responses": ("run-cut-call", "cut-body-ends-turn"),
}


def _loops() -> dict[str, LoopProgram]:
    out: dict[str, LoopProgram] = {}
    for dialect, (module, arguments) in _MODULES.items():
        name = f"loop-{dialect}-reference"
        out[name] = LoopProgram(name, module, arguments, dialect)
    for dialect, bugs in _MUTANTS.items():
        module, arguments = _MODULES[dialect]
        for bug in bugs:
            name = f"loop-{dialect}-mutant-{bug}"
            out[name] = LoopProgram(name, module, (*arguments, "--bug", bug), dialect, BUGS[bug])
    return out


LOOPS: dict[str, LoopProgram] = _loops()
