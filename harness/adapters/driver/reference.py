"""Correct pull-style drivers, one per dialect: read raw SSE chunks, assemble tool calls, emit each
once as soon as it is complete, and stop reading exactly at the end of the turn.

A driver adapter has ``layers = ("driver",)``, the ``dialect`` it reads, and
``drive(chunks)``: a generator (or async generator) over the chunks it is given that yields
``TextOut``, ``ToolCallOut`` and ``TurnEnd`` (or dicts of the same fields). A stream that fails
(the server's error, a body that ends before the turn) ends in ``ErrorReport``, not ``TurnEnd``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from harness.model.driver import DriverOutput, ErrorReport, TextOut, ToolCallOut, TurnEnd
from harness.wire import DONE, json_data, parse_sse


# Apart from ExpectedCall.valid on purpose: the rules' oracle and the reference do not share
# the code that could be wrong in both.
def strict_json(arguments: str) -> bool:
    """Complete arguments: a JSON object; an empty text is a call without arguments."""
    if arguments == "":
        return True
    try:
        return isinstance(json.loads(arguments), dict)
    except ValueError:
        return False


def events(chunks: Iterator[str]) -> Iterator[Any]:
    """The JSON payload of every SSE event in the chunks, ``DONE`` for ``[DONE]``."""
    for chunk in chunks:
        for event in parse_sse(chunk, source="stream"):
            yield event.event, json_data(event)


#: what a driver reports when the body ends before the turn does
CUT_SHORT = "the stream ended before the turn did"


def server_error(data: Any) -> str:
    """The message of an error object (``{"error": {"type", "message"}}``), in one line."""
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict):
        kind, message = error.get("type") or error.get("code") or "error", error.get("message", "")
        return f"{kind}: {message}"
    return f"error: {error if error is not None else data}"


def close_upstream(chunks: Any) -> None:
    close = getattr(chunks, "close", None)
    if callable(close):
        close()


def closing(chunks: Any, outputs: Iterator[DriverOutput]) -> Iterator[DriverOutput]:
    """The outputs read from ``chunks``; cancelled or done, the stream is not read any more."""
    try:
        yield from outputs
    finally:
        close_upstream(chunks)


class AnthropicDriver:
    """Anthropic Messages SSE, across message cycles until the turn's final stop."""

    layers = ("driver",)
    dialect = "anthropic"
    #: the body ends with the message, so a tool_use stop ends what this response says: the
    #: turn's end is reported there too (for tool_use); an agent's stream goes on instead
    one_message = True

    def drive(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        yield from closing(chunks, self.turn(chunks))

    def turn(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        blocks: dict[int, dict[str, Any]] = {}
        started: set[str] = set()
        stop_reason = "end_turn"
        paused = False  # the message stopped for tool_use and the body goes on to its end
        in_message = False
        for _name, data in events(chunks):
            kind = data.get("type") if isinstance(data, dict) else None
            if kind == "error":
                yield ErrorReport(server_error(data))  # the stream ends with it
                return
            if kind == "message_start":
                message_id = data["message"].get("id", "")
                if message_id in started:
                    continue  # a repeated message_start must not reset the message
                started.add(message_id)
                blocks = {}
                in_message = True
            elif kind == "content_block_start":
                block = data["content_block"]
                blocks[data["index"]] = {
                    "type": block.get("type"),
                    "id": block.get("id", ""),
                    "name": block.get("name", ""),
                    "parts": [],
                    "done": False,
                }
            elif kind == "content_block_delta":
                yield from self.delta(blocks.get(data["index"]), data["delta"])
            elif kind == "content_block_stop":
                yield from self.finish(blocks.get(data["index"]))
            elif kind == "message_delta":
                stop_reason = data.get("delta", {}).get("stop_reason") or "end_turn"
                in_message = False  # the message said why it stopped: a body ending now is whole
                for index in sorted(blocks):  # cut short (max_tokens): the calls end here
                    yield from self.finish(blocks[index])
            elif kind == "message_stop":
                in_message = False
                if stop_reason == "tool_use":
                    paused = self.one_message
                else:
                    called = any(b["type"] == "tool_use" for b in blocks.values())  # not server's
                    # 'end_turn' with tool calls in the message: the tools still have to run
                    yield TurnEnd(
                        "tool_use" if called and stop_reason != "max_tokens" else stop_reason
                    )
                    return
            # ping, an SDK's assembled 'assistant' copy, anything else: nothing to emit
        if in_message:  # the body ended inside a message: it was cut
            yield ErrorReport(CUT_SHORT)
        elif paused:
            yield TurnEnd("tool_use")

    def delta(self, block: dict[str, Any] | None, delta: dict[str, Any]) -> Iterator[DriverOutput]:
        if block is None:
            return
        if delta.get("type") == "text_delta":
            yield TextOut(delta["text"])
        elif delta.get("type") == "input_json_delta":
            block["parts"].append(delta["partial_json"])

    def finish(self, block: dict[str, Any] | None) -> Iterator[DriverOutput]:
        if block is None or block["done"]:
            return  # a repeated content_block_stop changes nothing
        block["done"] = True
        if block["type"] in ("tool_use", "server_tool_use"):
            arguments = "".join(block["parts"])
            yield ToolCallOut(block["id"], block["name"], arguments, strict_json(arguments))


#: a Chat Completions finish_reason in the canonical vocabulary
FINISH_REASONS = {
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "stop": "end_turn",
    "length": "max_tokens",
}


class AnthropicAgentDriver(AnthropicDriver):
    """The same events on an agent's stream, which goes on after the turn: the driver stops
    reading at the turn's final stop (it already does; the dialect says it must)."""

    dialect = "anthropic-agent"
    one_message = False


class OpenAIChatDriver:
    """OpenAI Chat Completions chunks: calls keyed by index, a new id at a used index starts a
    new call; a call is complete when the next one starts or the choice finishes."""

    layers = ("driver",)
    dialect = "openai-chat"

    def drive(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        yield from closing(chunks, self.response(chunks))

    def response(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        self.current: dict[str, Any] | None = None
        self.by_index: dict[Any, dict[str, Any]] = {}
        self.emitted = 0
        self.finish_reason: str | None = None
        done = False
        for _, data in events(chunks):
            if data is DONE:
                done = True
                break
            if isinstance(data, dict) and "error" in data:
                yield ErrorReport(server_error(data))  # the stream ends with it
                return
            for choice in data.get("choices") or ():  # a usage chunk has none
                if choice.get("index", 0) == 0:
                    yield from self.choice(choice)
        if self.finish_reason is None and not done:  # neither a finish_reason nor [DONE]: cut
            yield ErrorReport(CUT_SHORT)
            return
        yield from self.complete()
        reason = FINISH_REASONS.get(self.finish_reason or "stop", "end_turn")
        if reason == "end_turn" and self.emitted:
            reason = "tool_use"  # finish_reason 'stop' although the model called tools
        yield TurnEnd(reason)

    def choice(self, choice: dict[str, Any]) -> Iterator[DriverOutput]:
        """One chunk's choice, whole: its text, then its calls, then its finish (a server may
        send all three in one chunk)."""
        delta = choice.get("delta") or {}
        if delta.get("content"):
            yield from self.complete()  # the model moved on to text: the call is done
            yield TextOut(delta["content"])
        for call in delta.get("tool_calls") or ():
            yield from self.call_delta(call)
        if choice.get("finish_reason"):
            self.finish_reason = choice["finish_reason"]
            yield from self.complete()

    def call_delta(self, call: dict[str, Any]) -> Iterator[DriverOutput]:
        function = call.get("function") or {}
        key = call.get("index")
        known = self.by_index.get(key) if key is not None else self.current
        begins = call.get("type") == "function" and call.get("id") and function.get("name")
        if known is None or (begins and known.get("id") and known["id"] != call["id"]):
            yield from self.complete()
            known = {"id": call.get("id") or "", "name": function.get("name") or "", "parts": []}
            self.by_index[key] = known
            self.current = known
        elif call.get("id") and not known["id"]:
            known["id"] = call["id"]
        if function.get("arguments"):
            known["parts"].append(function["arguments"])

    def complete(self) -> Iterator[DriverOutput]:
        call, self.current = self.current, None
        if call is not None and not call.get("emitted"):
            call["emitted"] = True
            self.emitted += 1
            arguments = "".join(call["parts"])
            yield ToolCallOut(call["id"], call["name"], arguments, strict_json(arguments))


class OpenAIChatMessageDriver(OpenAIChatDriver):
    """OpenAI Chat Completions chunks, the message's calls passed on together when it finishes
    (``emits_calls = "per-message"``): calls keyed by index as the per-call driver keys them,
    none taken as complete when another starts, so fragments that interleave across indices
    each reach their own call."""

    emits_calls = "per-message"

    def response(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        self.calls: list[dict[str, Any]] = []  # in the order they started
        yield from super().response(chunks)

    def choice(self, choice: dict[str, Any]) -> Iterator[DriverOutput]:
        delta = choice.get("delta") or {}
        if delta.get("content"):
            yield TextOut(delta["content"])
        for call in delta.get("tool_calls") or ():
            self.gather(call)
        if choice.get("finish_reason"):
            self.finish_reason = choice["finish_reason"]
            yield from self.complete()

    def gather(self, call: dict[str, Any]) -> None:
        """One call delta into its call: by index, a new id at a used index starting a new
        call; without an index, the call started last unless the delta starts one."""
        function = call.get("function") or {}
        key = call.get("index")
        known = self.by_index.get(key) if key is not None else self.current
        begins = call.get("type") == "function" and call.get("id") and function.get("name")
        if known is None or (begins and known.get("id") and known["id"] != call["id"]):
            known = {"id": call.get("id") or "", "name": function.get("name") or "", "parts": []}
            self.by_index[key] = known
            self.calls.append(known)
            self.current = known
        elif call.get("id") and not known["id"]:
            known["id"] = call["id"]
        if function.get("arguments"):
            known["parts"].append(function["arguments"])

    def complete(self) -> Iterator[DriverOutput]:
        """Every call of the message not passed on yet (at the finish, or where the stream
        ends without one)."""
        for call in self.calls:
            if not call.get("emitted"):
                call["emitted"] = True
                self.emitted += 1
                arguments = "".join(call["parts"])
                yield ToolCallOut(call["id"], call["name"], arguments, strict_json(arguments))
