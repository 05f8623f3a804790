"""A provider request's body read as a history: the messages a client sends back to a model.

Three request shapes are read, one per dialect a loop scenario is served in:

- ``anthropic`` (``POST /v1/messages``): ``messages``, read by ``from_anthropic``;
- ``openai`` (``POST /v1/chat/completions``): ``messages``, read by ``from_openai``;
- ``responses`` (``POST /v1/responses``): ``input``, a string or a list of items. ``message``
  items (and items with a ``role`` and no ``type``) give text; consecutive ``function_call`` and
  ``reasoning`` items and assistant messages make one assistant message (a ``reasoning`` item is
  a thinking block whose signature is its ``id``); consecutive ``function_call_output`` items
  make one user message of results, which the user message right after them joins, as OpenAI's
  Chat Completions shape reads. System and developer messages, and items with no neutral form,
  are left out.

``read_request`` gives the neutral history, each of its messages named as the body holds it, and
the pairing problems of the messages as sent (``harness.history.validate``). A tool call whose
arguments are not JSON text (a call sent back cut short) is read all the same, its text kept in
``unparsed``: what is wrong with it is the rules' to say. A body that is not such a request
raises ``HistoryFormatError`` saying what is wrong.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from harness._errors import excerpt
from harness.history.convert import (
    HistoryFormatError,
    _kind,
    _marker,
    detect_shape,
    from_anthropic,
    from_openai,
)
from harness.history.validate import MessageNames, PairingProblem, validate_history
from harness.model.history import (
    Block,
    HistoryMessage,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)

RequestShape = Literal["anthropic", "openai", "responses"]

#: the request shape of each dialect a loop is served in
SHAPES: dict[str, RequestShape] = {
    "anthropic": "anthropic",
    "openai-chat": "openai",
    "openai-responses": "responses",
}
#: where each shape keeps the history in the body
_FIELD = {"anthropic": "messages", "openai": "messages", "responses": "input"}


@dataclass(frozen=True, slots=True)
class RequestHistory:
    """A request's history: ``history`` the neutral messages, ``names[k]`` how the body holds
    neutral message k (``message 3 (assistant)``, ``input items 4-5``), ``problems`` its
    pairing problems, each sentence naming the messages as the body holds them, ``stream``
    the body's ``stream`` field (None when absent), and ``unparsed`` the arguments of each call
    whose arguments are not JSON text, as sent (``history`` holds them as a JSON string)."""

    shape: RequestShape
    history: tuple[HistoryMessage, ...]
    names: tuple[str, ...]
    problems: tuple[PairingProblem, ...]
    stream: object
    unparsed: Mapping[str, str] = field(default_factory=dict)

    def arguments(self, call: ToolUseBlock) -> str:
        """A call's arguments as the request sent them."""
        return self.unparsed.get(call.id, call.arguments)


def read_request(body: bytes, dialect: str) -> RequestHistory:
    """The history of a request body sent in ``dialect``'s shape.

    >>> read_request(b'{"stream": true, "messages": [{"role": "user", "content": "hi"}]}',
    ...     "anthropic").history
    (HistoryMessage(role='user', blocks=(TextBlock(text='hi'),)),)
    """
    shape = SHAPES.get(dialect)
    if shape is None:
        raise HistoryFormatError(f"no request shape is known for the dialect {dialect!r}")
    try:
        value = json.loads(body)
    except UnicodeDecodeError:
        raise HistoryFormatError("the body is not UTF-8 text") from None
    except ValueError as exc:
        raise HistoryFormatError(f"the body is not JSON ({exc})") from None
    if not isinstance(value, dict):
        raise HistoryFormatError(f"the body is {_kind(value)}, not a JSON object")
    field = _FIELD[shape]
    if field not in value:
        raise HistoryFormatError(f"the body has no {field!r} field: it sends no history")
    messages = value[field]
    stream = value.get("stream")
    if shape == "responses" and value.get("previous_response_id"):
        raise HistoryFormatError(
            f"it continues the stored response {excerpt(value['previous_response_id'])} "
            "(previous_response_id); the stand-in keeps no conversation, so send the whole "
            "history in 'input'"
        )
    if shape == "responses":
        history, names = _responses(messages)
        problems = tuple(_renamed(p, names) for p in validate_history(history))
        return RequestHistory(shape, history, names, problems, stream)
    if not isinstance(messages, list):
        raise HistoryFormatError(f"{field!r} is {_kind(messages)}, not a list of messages")
    detect_shape(messages)  # a list of objects, in one shape
    other = "anthropic" if shape == "openai" else "openai"
    marked = next((i for i, m in enumerate(messages) if _marker(m) == other), None)
    if marked is not None:
        raise HistoryFormatError(
            f"message {marked + 1} is in {'OpenAI Chat Completions' if other == 'openai' else 'Anthropic'}'s "
            f"shape, not in the shape of the {dialect} dialect"
        )
    unparsed: dict[str, str] = {}
    if shape == "openai":
        messages = _arguments_read(messages, unparsed)
    history = from_anthropic(messages) if shape == "anthropic" else from_openai(messages)
    named = MessageNames(messages)
    names = tuple(named.of(k) for k in range(len(history)))
    problems = tuple(validate_history(messages))
    return RequestHistory(shape, history, names, problems, stream, unparsed)


def _arguments_read(messages: list[Any], unparsed: dict[str, str]) -> list[Any]:
    """The messages with each call's arguments that are not JSON text made a JSON string (so
    the reader takes them), their text kept in ``unparsed`` by call id."""
    out = []
    for message in messages:
        calls = message.get("tool_calls") if isinstance(message, Mapping) else None
        if not isinstance(calls, list):
            out.append(message)
            continue
        fixed = []
        for call in calls:
            function = call.get("function") if isinstance(call, Mapping) else None
            if isinstance(function, Mapping) and isinstance(call.get("id"), str):
                text = function.get("arguments")
                try:
                    json.loads(text) if isinstance(text, str) else None
                except ValueError:
                    assert isinstance(text, str)
                    unparsed[call["id"]] = text
                    call = {**call, "function": {**function, "arguments": json.dumps(text)}}
            fixed.append(call)
        out.append({**message, "tool_calls": fixed})
    return out


# -- the Responses API's input items -----------------------------------------------------------


def _responses(items: Any) -> tuple[tuple[HistoryMessage, ...], tuple[str, ...]]:
    if isinstance(items, str):
        return (HistoryMessage("user", (TextBlock(items),)),), ("input (text)",)
    if not isinstance(items, list):
        raise HistoryFormatError(f"'input' is {_kind(items)}, not text or a list of items")
    turns: list[tuple[str, list[Block], list[int]]] = []  # role, blocks, the items' positions
    results_only = False  # the last turn holds results only: a user message joins it
    for n, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise HistoryFormatError(f"input item {n + 1} is {_kind(item)}, not an object")
        kind = item.get("type", "message" if "role" in item else None)
        if kind == "message":
            role = item.get("role")
            if role in ("system", "developer"):
                continue
            if role not in ("user", "assistant"):
                raise HistoryFormatError(
                    f"input item {n + 1} has the role {excerpt(role)}; a message is 'user', "
                    "'assistant', 'system' or 'developer'"
                )
            blocks: list[Block] = [TextBlock(t) for t in _texts(item.get("content"), n)]
            if role == "user" and results_only:
                turns[-1][1].extend(blocks)
                turns[-1][2].append(n)
                results_only = False
                continue
            _add(turns, role, blocks, n)
            results_only = False
        elif kind == "function_call":
            call = ToolUseBlock(
                _text_field(item, "call_id", n),
                _text_field(item, "name", n),
                _text_field(item, "arguments", n),
            )
            _add(turns, "assistant", [call], n)
            results_only = False
        elif kind == "reasoning":
            summary = item.get("summary") or []
            texts = [
                p.get("text", "")
                for p in (summary if isinstance(summary, list) else [])
                if isinstance(p, Mapping) and isinstance(p.get("text"), str)
            ]
            signature = item.get("id") or item.get("encrypted_content") or ""
            thought = ThinkingBlock("".join(texts), str(signature))
            _add(turns, "assistant", [thought], n)
            results_only = False
        elif kind == "function_call_output":
            output = item.get("output", "")
            content = (
                output if isinstance(output, str) else "\n".join(_texts(output, n, "'output'"))
            )
            result = ToolResultBlock(_text_field(item, "call_id", n), content)
            if turns and turns[-1][0] == "user" and results_only:
                turns[-1][1].append(result)
                turns[-1][2].append(n)
            else:
                turns.append(("user", [result], [n]))
            results_only = True
        elif kind is None:
            raise HistoryFormatError(f"input item {n + 1} has no 'type'")
        # other items (item_reference, web_search_call, ...) have no neutral form
    history = tuple(HistoryMessage(role, tuple(blocks)) for role, blocks, _ in turns)  # type: ignore[arg-type]
    names = tuple(_items_named(positions) for _, _, positions in turns)
    return history, names


def _add(
    turns: list[tuple[str, list[Block], list[int]]], role: str, blocks: list[Block], n: int
) -> None:
    if turns and turns[-1][0] == role and role == "assistant":
        turns[-1][1].extend(blocks)
        turns[-1][2].append(n)
    else:
        turns.append((role, blocks, [n]))


def _texts(content: Any, n: int, what: str = "'content'") -> list[str]:
    if isinstance(content, str):
        return [content]
    if content is None:
        return []
    if not isinstance(content, list):
        raise HistoryFormatError(f"input item {n + 1}: {what} is {_kind(content)}")
    return [
        part["text"]
        for part in content
        if isinstance(part, Mapping)
        and part.get("type") in ("input_text", "output_text", "text")
        and isinstance(part.get("text"), str)
    ]


def _text_field(item: Mapping[str, Any], key: str, n: int) -> str:
    value = item.get(key)
    if not isinstance(value, str):
        got = "nothing" if key not in item else _kind(value)
        raise HistoryFormatError(
            f"input item {n + 1} ({item.get('type')}): {key!r} should be a string, got {got}"
        )
    return value


def _items_named(positions: Sequence[int]) -> str:
    first, last = positions[0] + 1, positions[-1] + 1
    return f"input item {first}" if first == last else f"input items {first}-{last}"


def _renamed(problem: PairingProblem, names: Sequence[str]) -> PairingProblem:
    """A problem found in the neutral history, its sentence naming the input items."""
    where = names[problem.message_index] if problem.message_index < len(names) else "?"
    words = {
        "missing_result": f"function_call {problem.tool_id!r} in {where} has no "
        "function_call_output in the items right after it",
        "orphan_result": f"the function_call_output for {problem.tool_id!r} in {where} does "
        "not follow a function_call with that call_id",
        "duplicate_result": f"{where} answers function_call {problem.tool_id!r} a second time",
        "result_after_content": f"the function_call_output for {problem.tool_id!r} in {where} "
        "comes after a message",
    }
    return PairingProblem(
        problem.kind, problem.message_index, problem.tool_id, words[problem.kind], where
    )
