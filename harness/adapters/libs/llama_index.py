"""LlamaIndex's ``llm.stream_chat_with_tools(tools, ...)`` from ``llama_index.llms.openai.OpenAI``
(``make_openai_adapter``) and ``llama_index.llms.anthropic.Anthropic``
(``make_anthropic_adapter``), whose SDK clients read the body through an offline transport, cut
anywhere. LlamaIndex assembles the calls itself from the SDK's raw chunks or events (its own
``update_tool_calls`` and partial-JSON parsing), not with the SDKs' accumulators.

Each streamed ``ChatResponse`` holds the message so far. Its ``delta`` is the text that came with
it, reported as it comes. The calls are what ``llm.get_tool_calls_from_response(response,
error_on_no_tool_call=False)`` extracts from the last response, once the stream ends: that is
what ``FunctionAgent`` runs. While streaming, the agent also runs it on every response for its
``AgentStream`` events, but those only preview the calls, each repeated on every chunk with its
arguments parsed as far as they have come; the calls it acts on are the last response's
(``AgentOutput.tool_calls``). The library hands the arguments over parsed into a dict: reported
as JSON text, and as valid.

The turn's end is the stop reason each response exposes: the raw chunk's ``finish_reason``
(OpenAI: the chunk that carries it, often not the last one) or the message's
``additional_kwargs["stop_reason"]`` (Anthropic, from ``message_delta`` on); none, if the stream
ended before one came. An error object mid-stream raises out of the SDK. A cancelled read raises
out of the stream, which the adapter then closes, and the SDK closes its response.

The ``OpenAI`` class takes the SDK's ``http_client`` as an argument; the ``Anthropic`` class
builds its ``anthropic.Anthropic`` client itself with no way to pass one, so the adapter sets its
private ``_client`` to a client over the offline transport.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from harness.adapters.driver.reference import FINISH_REASONS
from harness.adapters.libs import require
from harness.adapters.libs._offline import sync_client
from harness.adapters.libs._reasons import turn_end
from harness.adapters.libs.anthropic_sdk import arguments_text
from harness.model.driver import DriverOutput, TextOut, ToolCallOut


def read_file(path: str) -> str:
    """Read a file (the one tool offered: the response is not checked against the tools)."""
    return path


def openai_llm(chunks: Iterator[bytes]) -> Any:
    import openai
    from llama_index.llms.openai import OpenAI

    http = sync_client(openai.DefaultHttpxClient, chunks)
    return OpenAI(model="gpt-4o", api_key="offline", max_retries=0, http_client=http)


def anthropic_llm(chunks: Iterator[bytes]) -> Any:
    import anthropic
    from llama_index.llms.anthropic import Anthropic

    llm = Anthropic(model="claude-sonnet-4-5", api_key="offline", max_retries=0)
    http = sync_client(anthropic.DefaultHttpxClient, chunks)
    llm._client = anthropic.Anthropic(api_key="offline", max_retries=0, http_client=http)
    return llm


def finish_reason(response: Any) -> str | None:
    """The OpenAI chunk's ``finish_reason``, if this chunk carries one."""
    choices = getattr(response.raw, "choices", None)
    return choices[0].finish_reason if choices else None


def stop_reason(response: Any) -> str | None:
    reason: str | None = response.message.additional_kwargs.get("stop_reason")
    return reason


class LlamaIndexToolStream:
    layers = ("driver",)
    #: the SDK reads the HTTP body itself: it gets it cut anywhere
    reads = "bytes"
    #: the agent runs the calls of the stream's last response
    emits_calls = "per-message"

    def __init__(
        self,
        dialect: str,
        llm: Callable[[Iterator[bytes]], Any],
        reason: Callable[[Any], str | None],
    ) -> None:
        self.dialect = dialect
        self.llm = llm
        self.reason = reason

    def drive(self, chunks: Iterator[bytes]) -> Iterator[DriverOutput]:
        from llama_index.core.tools import FunctionTool

        llm = self.llm(chunks)
        tools = [FunctionTool.from_defaults(read_file)]
        stream = llm.stream_chat_with_tools(tools, user_msg="go", allow_parallel_tool_calls=True)
        last, reason = None, None
        try:
            for last in stream:
                if last.delta:
                    yield TextOut(last.delta)
                reason = self.reason(last) or reason
        finally:
            stream.close()
        if last is not None:
            for call in llm.get_tool_calls_from_response(last, error_on_no_tool_call=False):
                arguments = arguments_text(call.tool_kwargs)
                yield ToolCallOut(call.tool_id, call.tool_name, arguments, True)
        if reason is not None:
            yield turn_end(reason, FINISH_REASONS)


def make_openai_adapter() -> LlamaIndexToolStream:
    require("llama_index.llms.openai", extra="llama-index")
    return LlamaIndexToolStream("openai-chat", openai_llm, finish_reason)


def make_anthropic_adapter() -> LlamaIndexToolStream:
    require("llama_index.llms.anthropic", extra="llama-index")
    return LlamaIndexToolStream("anthropic", anthropic_llm, stop_reason)
