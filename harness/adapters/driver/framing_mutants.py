"""The bytes-reading reference drivers with one framing bug put back: what goes wrong when the
code that turns an HTTP body's reads into events assumes each read is whole."""

from __future__ import annotations

from harness.adapters.driver.framing import BytesReading, Framer, SSEFramer
from harness.adapters.driver.gemini import GeminiDriver
from harness.adapters.driver.reference import AnthropicAgentDriver, OpenAIChatDriver
from harness.adapters.registry import mutant_registrar

mutant = mutant_registrar("driver")


class _ReadDecodedAlone(SSEFramer):
    def feed(self, data: bytes) -> list[str]:
        return self._frame(data.decode("utf-8", errors="replace"))


@mutant(
    "gemini-decodes-each-read",
    "Each read is decoded as UTF-8 on its own (errors='replace'): a character split across "
    "reads becomes two replacement characters.",
)
class DecodesEachRead(BytesReading, GeminiDriver):
    def framer(self) -> Framer:
        return _ReadDecodedAlone()


class _LFBlankLineOnly(SSEFramer):
    """Events end at ``\\n\\n`` and nowhere else."""

    def __init__(self) -> None:
        super().__init__()
        self._pending = ""

    def feed(self, data: bytes) -> list[str]:
        self._pending += self._text.decode(data)
        *events, self._pending = self._pending.split("\n\n")
        return [event + "\n\n" for event in events]

    def close(self) -> list[str]:
        rest, self._pending = self._pending + self._text.decode(b"", final=True), ""
        return [rest] if rest.strip() else []


@mutant(
    "anthropic-frames-on-lf-only",
    "Events are framed on '\\n\\n' only: a body with CRLF line ends never frames, and its events "
    "all come out when it ends.",
)
class FramesOnLFOnly(BytesReading, AnthropicAgentDriver):
    def framer(self) -> Framer:
        return _LFBlankLineOnly()


class _ReadEndsALine(SSEFramer):
    def feed(self, data: bytes) -> list[str]:
        text = self._text.decode(data)
        return self._frame(text if text.endswith(("\n", "\r")) else text + "\n")


@mutant(
    "openai-chat-read-ends-line",
    "The end of each read is taken as the end of a line: a line split across reads becomes "
    "two lines, a data line cut short and a stray field.",
)
class ReadEndsALine(BytesReading, OpenAIChatDriver):
    def framer(self) -> Framer:
        return _ReadEndsALine()
