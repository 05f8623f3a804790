"""The reference drivers with a bug in how they report the turn's end: the end reported more
than once, with a reason the stream did not give."""

from __future__ import annotations

from collections.abc import Iterator

from harness.adapters.driver.reference import AnthropicDriver, OpenAIChatDriver
from harness.adapters.registry import mutant_registrar
from harness.model.driver import DriverOutput, TurnEnd

mutant = mutant_registrar("driver")

#: a reason that is not the one given: a tool-use end taken for a plain one and the other way
WRONG_REASON = {"tool_use": "end_turn", "end_turn": "tool_use"}


def ended_twice_wrongly(outputs: Iterator[DriverOutput]) -> Iterator[DriverOutput]:
    """The outputs, with each turn end reported twice, with a wrong reason."""
    for output in outputs:
        if isinstance(output, TurnEnd):
            wrong = TurnEnd(WRONG_REASON.get(output.stop_reason, "tool_use"))
            yield wrong
            yield wrong
        else:
            yield output


@mutant(
    "anthropic-ends-twice-wrong-reason",
    "The turn's end is reported twice, each time with a stop reason the stream did not give.",
)
class AnthropicEndsTwice(AnthropicDriver):
    def turn(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        yield from ended_twice_wrongly(super().turn(chunks))


@mutant(
    "openai-chat-ends-twice-wrong-reason",
    "The turn's end is reported twice, each time with a stop reason the stream did not give.",
)
class OpenAIChatEndsTwice(OpenAIChatDriver):
    def response(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        yield from ended_twice_wrongly(super().response(chunks))
