"""The reference drivers with one known bug put back, one class per bug: the bugs the driver
rules' sources cite (`harness rules`), and the quirks of the Gemini, OpenAI Responses and AG-UI
dialects."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from harness.adapters.driver.ag_ui import AGUIDriver
from harness.adapters.driver.gemini import GeminiDriver, GeminiJSONArrayDriver
from harness.adapters.driver.openai_responses import OpenAIResponsesDriver
from harness.adapters.driver.reference import (
    AnthropicAgentDriver,
    OpenAIChatDriver,
    events,
    strict_json,
)
from harness.adapters.registry import mutant_registrar
from harness.model.driver import DriverOutput, TextOut, ToolCallOut, TurnEnd

mutant = mutant_registrar("driver")


@mutant(
    "anthropic-ends-at-first-message-stop",
    "The iterator ends at the first message_stop, even after stop_reason tool_use.",
)
class EndsAtFirstMessageStop(AnthropicAgentDriver):
    def turn(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        yield from super().turn(_until_first_stop(chunks))
        yield TurnEnd("end_turn")


def _until_first_stop(chunks: Iterator[str]) -> Iterator[str]:
    for chunk in chunks:
        yield chunk
        if "message_stop" in chunk:
            return


@mutant(
    "anthropic-processes-assembled-message",
    "Both the raw stream events and the SDK's assembled message are processed, so tool calls come out twice.",
)
class ProcessesAssembledMessage(AnthropicAgentDriver):
    def turn(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        queued: list[DriverOutput] = []
        for output in super().turn(_with_assembled(chunks, queued)):
            yield from queued
            queued.clear()
            yield output


def _with_assembled(chunks: Iterator[str], queued: list[DriverOutput]) -> Iterator[str]:
    """The bug: the assembled copy is turned into outputs too."""
    for chunk in chunks:
        if chunk.startswith("event: assistant"):
            data = json.loads(chunk.split("data:", 1)[1])
            for block in data["message"]["content"]:
                if block.get("type") == "tool_use":
                    arguments = json.dumps(block["input"]) if block["input"] else ""
                    queued.append(ToolCallOut(block["id"], block["name"], arguments, True))
                elif block.get("type") == "text":
                    queued.append(TextOut(block["text"]))
        yield chunk


@mutant(
    "anthropic-forwards-fragments",
    "Each argument fragment is forwarded as a tool call of its own, as if complete.",
)
class ForwardsFragments(AnthropicAgentDriver):
    def delta(self, block: dict[str, Any] | None, delta: dict[str, Any]) -> Iterator[DriverOutput]:
        yield from super().delta(block, delta)
        if block is not None and delta.get("type") == "input_json_delta":
            arguments = "".join(block["parts"])
            yield ToolCallOut(block["id"], block["name"], arguments, True)

    def finish(self, block: dict[str, Any] | None) -> Iterator[DriverOutput]:
        if block is not None:
            block["done"] = True
        return iter(())


@mutant(
    "anthropic-batches-calls",
    "Tool calls are held back and emitted together at the end of the message.",
)
class BatchesCalls(AnthropicAgentDriver):
    def turn(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        yield from _held_to_the_end(super().turn(chunks), ToolCallOut)


def _held_to_the_end(
    outputs: Iterator[DriverOutput], held_kind: type[DriverOutput]
) -> Iterator[DriverOutput]:
    """The outputs, with those of ``held_kind`` held back until just before the turn ends."""
    held: list[DriverOutput] = []
    for output in outputs:
        if isinstance(output, held_kind):
            held.append(output)
            continue
        if isinstance(output, TurnEnd):
            yield from held
        yield output


@mutant(
    "anthropic-ignores-cancellation",
    "A cancellation is swallowed: the driver emits what it has, as if the stream had ended, and never closes the stream.",
)
class IgnoresCancellation(AnthropicAgentDriver):
    def drive(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        blocks: list[dict[str, Any]] = []
        try:
            yield from self.turn(_watch_blocks(chunks, blocks))
        except BaseException:
            for block in blocks:
                if block.get("type") == "tool_use" and not block["done"]:
                    arguments = "".join(block["parts"])
                    yield ToolCallOut(block["id"], block["name"], arguments, True)


def _watch_blocks(chunks: Iterator[str], blocks: list[dict[str, Any]]) -> Iterator[str]:
    for chunk in chunks:
        if "content_block_start" in chunk and "tool_use" in chunk:
            data = json.loads(chunk.split("data:", 1)[1])
            block = data["content_block"]
            blocks.append(
                {
                    "type": "tool_use",
                    "id": block["id"],
                    "name": block["name"],
                    "parts": [],
                    "done": False,
                }
            )
        elif "input_json_delta" in chunk and blocks:
            blocks[-1]["parts"].append(
                json.loads(chunk.split("data:", 1)[1])["delta"]["partial_json"]
            )
        elif "content_block_stop" in chunk and blocks:
            blocks[-1]["done"] = True
        yield chunk


@mutant(
    "anthropic-lenient-json",
    "Corrupt or truncated arguments are repaired leniently (missing braces added) and reported valid.",
)
class LenientJson(AnthropicAgentDriver):
    def finish(self, block: dict[str, Any] | None) -> Iterator[DriverOutput]:
        if block is None or block["done"]:
            return
        block["done"] = True
        if block["type"] == "tool_use":
            arguments = "".join(block["parts"])
            if not strict_json(arguments):
                arguments = _repair(arguments)
            yield ToolCallOut(block["id"], block["name"], arguments, True)


def _repair(text: str) -> str:
    depth = text.count("{") - text.count("}")
    if text.count('"') % 2:
        text += '"'
    return text + "}" * max(depth, 0)


@mutant(
    "anthropic-duplicate-block-stop", "A repeated content_block_stop emits the tool call again."
)
class DuplicateBlockStop(AnthropicAgentDriver):
    def finish(self, block: dict[str, Any] | None) -> Iterator[DriverOutput]:
        if block is not None:
            block["done"] = False
        yield from super().finish(block)


@mutant(
    "openai-merges-same-index",
    "Calls are keyed by index only, so parallel calls sent at one index are glued into one.",
)
class MergesSameIndex(OpenAIChatDriver):
    def call_delta(self, call: dict[str, Any]) -> Iterator[DriverOutput]:
        function = call.get("function") or {}
        key = call.get("index", 0)
        known = self.by_index.get(key)
        if known is None:
            yield from self.complete()
            known = self.by_index[key] = {"id": call.get("id") or "", "name": "", "parts": []}
            self.current = known
        known["name"] += function.get("name") or ""
        if function.get("arguments"):
            known["parts"].append(function["arguments"])


@mutant(
    "openai-crashes-on-usage-chunk",
    "The first choice is read without checking, so a usage chunk with empty choices crashes the driver.",
)
class CrashesOnUsageChunk(OpenAIChatDriver):
    def response(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        yield from super().response(_first_choice_required(chunks))


def _first_choice_required(chunks: Iterator[str]) -> Iterator[str]:
    for chunk in chunks:
        for _, data in events(iter([chunk])):
            if isinstance(data, dict):
                data["choices"][0]  # the bug: IndexError on a usage chunk
        yield chunk


@mutant(
    "openai-finish-stop-drops-calls", "Tool calls are thrown away when finish_reason is 'stop'."
)
class FinishStopDropsCalls(OpenAIChatDriver):
    def response(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        self.finished_with_stop = False

        def watched() -> Iterator[str]:
            for chunk in chunks:
                if '"finish_reason":"stop"' in chunk:
                    self.finished_with_stop = True
                yield chunk

        yield from super().response(watched())

    def complete(self) -> Iterator[DriverOutput]:
        if self.finished_with_stop:
            self.current = None  # the bug: a 'stop' turn cannot have calls, so they are dropped
            return iter(())
        return super().complete()


@mutant(
    "openai-empty-arguments-crash",
    "Arguments are parsed with json.loads, so a call with an empty arguments string crashes.",
)
class EmptyArgumentsCrash(OpenAIChatDriver):
    def complete(self) -> Iterator[DriverOutput]:
        for output in super().complete():
            if isinstance(output, ToolCallOut):
                json.loads(output.arguments)  # the bug: "" is not JSON
            yield output


@mutant(
    "openai-keys-by-id",
    "Calls are keyed by id, so a continuation chunk with a new id or no id starts a new call.",
)
class KeysById(OpenAIChatDriver):
    # Like MergesSameIndex, written out whole: each keys calls wrongly in its own way, and a
    # mutant's bug should read in one place.
    def call_delta(self, call: dict[str, Any]) -> Iterator[DriverOutput]:
        function = call.get("function") or {}
        key = call.get("id") or f"anonymous-{len(self.by_index)}"
        known = self.by_index.get(key)
        if known is None:
            yield from self.complete()
            known = self.by_index[key] = {
                "id": call.get("id") or "",
                "name": function.get("name") or "",
                "parts": [],
            }
            self.current = known
        if function.get("arguments"):
            known["parts"].append(function["arguments"])


@mutant(
    "anthropic-text-after-calls",
    "Text is collected and emitted at the end of the turn, after the tool calls it preceded.",
)
class TextAfterCalls(AnthropicAgentDriver):
    def turn(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        yield from _held_to_the_end(super().turn(chunks), TextOut)


@mutant(
    "gemini-first-call-per-response",
    "Only the first functionCall part of each response is read, so parallel calls that arrive "
    "together in one response lose all but the first.",
)
class FirstCallPerResponse(GeminiDriver):
    def response(self, responses: Iterator[Any]) -> Iterator[DriverOutput]:
        yield from super().response(_first_call_only(responses))


def _first_call_only(responses: Iterator[Any]) -> Iterator[Any]:
    for data in responses:
        for candidate in data.get("candidates") or () if isinstance(data, dict) else ():
            content = candidate.get("content") or {}
            parts = content.get("parts") or []
            calls = [n for n, part in enumerate(parts) if "functionCall" in part]
            # the bug: one call per response is read, the first, as parts[0]-style code does
            content["parts"] = [part for n, part in enumerate(parts) if n not in calls[1:]]
        yield data


@mutant(
    "gemini-array-element-per-read",
    "Each read of the JSON-array body is parsed as one whole element (the '[', ',' and ']' "
    "around it stripped), so an element that arrives in two reads cannot be parsed.",
)
class ArrayElementPerRead(GeminiJSONArrayDriver):
    def responses(self, chunks: Iterator[str]) -> Iterator[Any]:
        for chunk in chunks:
            text = chunk.strip().lstrip("[,").rstrip("]").strip()
            if text:
                yield json.loads(text)


@mutant(
    "responses-next-item-ends-call",
    "A function call is taken as complete when the next output item is added (as a Chat "
    "Completions call ends when the next index starts), so calls whose argument deltas "
    "interleave are emitted before their arguments arrive.",
)
class NextItemEndsCall(OpenAIResponsesDriver):
    def event(self, kind: str, data: dict[str, Any]) -> Iterator[DriverOutput]:
        if kind == "response.output_item.added":
            for call in list(self.calls.values()):
                yield from self.complete(call)
        yield from super().event(kind, data)


#: the fields the mutant expects on a delta event: every one but the 'obfuscation' padding
_DELTA_FIELDS = frozenset(
    {
        "type",
        "sequence_number",
        "item_id",
        "output_index",
        "content_index",
        "summary_index",
        "delta",
        "logprobs",
    }
)


@mutant(
    "responses-rejects-unknown-fields",
    "Delta events are validated against a fixed list of fields and refused if they carry any "
    "other, so the 'obfuscation' padding that real servers add to every delta event makes it fail.",
)
class RejectsUnknownFields(OpenAIResponsesDriver):
    def event(self, kind: str, data: dict[str, Any]) -> Iterator[DriverOutput]:
        unknown = set(data) - _DELTA_FIELDS
        if kind.endswith(".delta") and unknown:
            raise ValueError(f"unexpected fields {sorted(unknown)} in a {kind} event")
        yield from super().event(kind, data)


@mutant(
    "ag-ui-end-closes-latest-call",
    "TOOL_CALL_END closes the call started last, whatever its toolCallId, so when parallel "
    "calls all start before either ends, each end emits another call than the one it names "
    "and the calls come out in reverse order.",
)
class EndClosesLatestCall(AGUIDriver):
    def run(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        yield from super().run(self._latest_ended(chunks))

    def _latest_ended(self, chunks: Iterator[str]) -> Iterator[str]:
        for chunk in chunks:
            for _, data in events(iter([chunk])):
                if isinstance(data, dict) and data.get("type") == "TOOL_CALL_END" and self.open:
                    latest = next(reversed(self.open))
                    chunk = f"data: {json.dumps({**data, 'toolCallId': latest})}\n\n"
            yield chunk


@mutant(
    "ag-ui-step-end-discards-open-calls",
    "A step's end resets the step's state: calls still open when the step finishes (no "
    "TOOL_CALL_END yet) are discarded instead of emitted.",
)
class StepEndDiscardsOpenCalls(AGUIDriver):
    def run(self, chunks: Iterator[str]) -> Iterator[DriverOutput]:
        yield from super().run(self._open_calls_dropped(chunks))

    def _open_calls_dropped(self, chunks: Iterator[str]) -> Iterator[str]:
        for chunk in chunks:
            for _, data in events(iter([chunk])):
                if isinstance(data, dict) and data.get("type") == "STEP_FINISHED":
                    self.open.clear()  # the bug: before the reference emits them there
            yield chunk
