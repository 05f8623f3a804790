"""Reference drivers with one bug about the text of the wire: how a read's bytes become
characters, where a line ends, and which text is the answer. Each bug is written once and
registered for every dialect whose servers send the shape that shows it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from harness.adapters.driver.ag_ui import AGUIDriver
from harness.adapters.driver.framing import BytesReading, Framer, SSEFramer
from harness.adapters.driver.gemini import GeminiDriver, GeminiJSONArrayDriver
from harness.adapters.driver.openai_responses import OpenAIResponsesDriver
from harness.adapters.driver.reference import (
    AnthropicAgentDriver,
    AnthropicDriver,
    OpenAIChatDriver,
    closing,
)
from harness.adapters.registry import mutant_registrar
from harness.model.driver import DriverOutput

mutant = mutant_registrar("driver")

#: the events-reading reference of each SSE dialect that the framing mutants read bytes for
#: (gemini-sse has its own decoding mutant, gemini-decodes-each-read)
_SSE_DRIVERS: dict[str, type] = {
    "anthropic": AnthropicDriver,
    "anthropic-agent": AnthropicAgentDriver,
    "openai-chat": OpenAIChatDriver,
    "openai-responses": OpenAIResponsesDriver,
    "gemini-sse": GeminiDriver,
    "ag-ui": AGUIDriver,
}


def _bytes_mutant(dialect: str, name: str, bug: str, framer: type[Framer]) -> None:
    """Register ``DIALECT-NAME``: the dialect's reference reading bytes through ``framer``."""
    driver = _SSE_DRIVERS[dialect]
    title = "".join(p.title() for p in f"{dialect}-{name}".split("-"))
    cls = type(
        title,
        (BytesReading, driver),
        {"__module__": __name__, "__qualname__": title, "framer": lambda self: framer()},
    )
    mutant(f"{dialect}-{name}", bug)(cls)


# -- a read decoded on its own ---------------------------------------------------------------


class _EachReadDecoded(SSEFramer):
    def feed(self, data: bytes) -> list[str]:
        return self._frame(data.decode("utf-8", errors="replace"))


_DECODES = (
    "Each read is decoded as UTF-8 on its own (errors='replace'): a character split across "
    "reads becomes replacement characters."
)
for _dialect in ("anthropic", "anthropic-agent", "openai-chat", "openai-responses", "ag-ui"):
    _bytes_mutant(_dialect, "decodes-each-read", _DECODES, _EachReadDecoded)


# -- line ends -------------------------------------------------------------------------------


class _LFLines(SSEFramer):
    """Lines end at LF and nowhere else; what comes before it is the line, CR included, so a
    line that holds only a CR is not blank and does not end the event."""

    def __init__(self) -> None:
        super().__init__()
        self._pending = ""

    def feed(self, data: bytes) -> list[str]:
        return self._lines(self._text.decode(data))

    def close(self) -> list[str]:
        events = self._lines(self._text.decode(b"", final=True))
        rest, self._pending = self._pending, ""
        if rest:
            self._field(rest)
        if self._fields:
            events.append("\n".join(self._fields))
            self._fields = []
        return events

    def _lines(self, text: str) -> list[str]:
        *lines, self._pending = (self._pending + text).split("\n")
        events: list[str] = []
        for line in lines:
            line = self._trim(line)
            if line:
                self._field(line)
            elif self._fields:
                events.append("\n".join(self._fields) + "\n\n")
                self._fields = []
        return events

    def _trim(self, line: str) -> str:
        return line


class _CRLFLines(_LFLines):
    """Lines end at LF, a CR before it dropped: CRLF and LF are read, a lone CR is not."""

    def _trim(self, line: str) -> str:
        return line.removesuffix("\r")


_LF_ONLY = (
    "Lines are split at LF only: a CRLF line keeps its CR, so the CR-only line between events "
    "is not blank and no event ends until the body does."
)
for _dialect in ("openai-chat", "openai-responses", "ag-ui"):
    _bytes_mutant(_dialect, "lines-end-at-lf", _LF_ONLY, _LFLines)

_NO_LONE_CR = (
    "Lines are split at LF, a CR before it dropped: CRLF and LF line ends are read, but a body "
    "whose lines end with a lone CR is one long line until it ends."
)
for _dialect in ("anthropic", "openai-chat", "openai-responses", "gemini-sse", "ag-ui"):
    _bytes_mutant(_dialect, "no-lone-cr", _NO_LONE_CR, _CRLFLines)


# -- thinking read as the answer -------------------------------------------------------------


def _thought_as_text(driver: GeminiDriver, part: Any) -> Iterator[DriverOutput]:
    if isinstance(part, dict) and part.get("thought") is True and part.get("text"):
        part = {k: v for k, v in part.items() if k != "thought"}
    yield from GeminiDriver.part(driver, part)


@mutant(
    "gemini-thought-as-text",
    "Text parts are emitted whatever their 'thought' flag: the model's thinking comes out as "
    "answer text.",
)
class GeminiThoughtAsText(GeminiDriver):
    part = _thought_as_text


@mutant(
    "gemini-json-array-thought-as-text",
    "Text parts of the JSON-array body are emitted whatever their 'thought' flag: the model's "
    "thinking comes out as answer text.",
)
class GeminiArrayThoughtAsText(GeminiJSONArrayDriver):
    part = _thought_as_text


@mutant(
    "responses-reasoning-as-text",
    "Reasoning summary and reasoning text deltas are emitted as output text: the model's "
    "thinking comes out as answer text.",
)
class ResponsesReasoningAsText(OpenAIResponsesDriver):
    def event(self, kind: str, data: dict[str, Any]) -> Iterator[DriverOutput]:
        if kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            kind = "response.output_text.delta"
        yield from super().event(kind, data)


@mutant(
    "ag-ui-thinking-as-text",
    "THINKING_TEXT_MESSAGE_CONTENT and REASONING_MESSAGE_CONTENT are read as "
    "TEXT_MESSAGE_CONTENT: the model's thinking comes out as answer text.",
)
class AGUIThinkingAsText(AGUIDriver):
    def drive(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        yield from closing(chunks, self.run(_thinking_as_text(chunks)))


def _thinking_as_text(chunks: Iterator[str]) -> Iterator[str]:
    for chunk in chunks:
        for kind in ("THINKING_TEXT_MESSAGE_CONTENT", "REASONING_MESSAGE_CONTENT"):
            chunk = chunk.replace(f'"type":"{kind}"', '"type":"TEXT_MESSAGE_CONTENT"')
        yield chunk
