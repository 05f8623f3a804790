"""Provider message lists to and from the neutral history of ``harness.model.history``.

Two provider shapes are read and written:

- **anthropic** (Messages API): roles ``user`` and ``assistant``; ``content`` is a string or a
  list of blocks. ``tool_use`` blocks (assistant) and ``tool_result`` blocks (user) become
  ``ToolUseBlock`` and ``ToolResultBlock``; ``text`` and ``thinking`` their blocks. Other blocks
  (``image``, ``document``, ``redacted_thinking``, server tool blocks...) have no neutral form:
  ``from_anthropic`` leaves them out, and ``validate_history`` and ``repair_history`` keep them
  where they are. A ``tool_use`` input becomes ``json.dumps(input, ensure_ascii=False)``; a
  ``tool_result`` whose content is a list keeps its text blocks joined with newlines.
- **openai** (Chat Completions request): roles ``system``, ``developer``, ``user``,
  ``assistant`` and ``tool``. An assistant's ``tool_calls`` become ``ToolUseBlock``s after its
  text; consecutive ``tool`` messages become one neutral user message of ``ToolResultBlock``s,
  into which the user message right after them (if any) is merged as text. System and developer
  messages carry no tool pairing and have no neutral form: ``from_openai`` leaves them out,
  ``to_openai`` writes none, and ``validate_history`` and ``repair_history`` keep them in place
  (where one between a tool call and its results is itself the misplacement). OpenAI has no
  thinking blocks (``to_openai`` drops them) and no ``is_error`` (results read back as
  ``is_error=False``).

Round trips: ``from_anthropic(to_anthropic(h)) == h`` when every tool_use's arguments are
``json.dumps(value, ensure_ascii=False)`` text; ``from_openai(to_openai(h)) == h`` when the
arguments are JSON text, ``h`` has no thinking blocks and no ``is_error`` results, assistant text comes before the tool
calls, each user message holds tool results followed by text, or text only, and a user message
of tool results only is not directly followed by another user message (which ``from_openai``
would merge into it).

Input that is not a message list of either shape raises ``HistoryFormatError``.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from harness._errors import HarnessError, excerpt
from harness._yaml import MAX_DEPTH
from harness.model.history import (
    Block,
    HistoryMessage,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)

Shape = Literal["anthropic", "openai"]

_OPENAI_ROLES = ("system", "developer", "user", "assistant", "tool")
_OPENAI_ONLY_ROLES = ("system", "developer", "tool")
_OPENAI_PART_TYPES = ("image_url", "input_audio", "file", "refusal")


class HistoryFormatError(HarnessError, ValueError):
    """A message list that is neither shape, or a malformed message in it.

    ``index`` is the offending message's position in the list (None when the whole input is
    wrong); ``line`` is a line of the JSON text, when the error was found while parsing it.
    """

    def __init__(self, reason: str, *, index: int | None = None, line: int | None = None) -> None:
        self.reason = reason
        self.index = index
        self.line = line
        super().__init__(reason if index is None else f"message {index}: {reason}")


# -- internal form shared with validate.py: the input's messages with their positions and raw
# parts, so that a repair can hand back the input's own shape with everything else untouched.


@dataclass(frozen=True, slots=True)
class _Item:
    block: Block | None  # None: content without a neutral form, kept as it is and never paired
    index: int  # the input message this came from (-1: made by a repair)
    raw: Any = None  # the content block or tool message in the input's shape


@dataclass(frozen=True, slots=True)
class _Turn:
    role: Literal["user", "assistant", "other"]  # other: an OpenAI system or developer message
    label: str  # the role as the input spells it, for messages about it
    index: int  # position of its first input message
    items: tuple[_Item, ...]
    raw: tuple[Any, ...] = ()  # the input messages it was read from
    edited: bool = False

    def tool_uses(self) -> Iterator[ToolUseBlock]:
        return (i.block for i in self.items if isinstance(i.block, ToolUseBlock))

    def neutral(self) -> HistoryMessage:
        role: Literal["user", "assistant"] = "assistant" if self.role == "assistant" else "user"
        return HistoryMessage(role, tuple(i.block for i in self.items if i.block is not None))


# -- shape detection ---------------------------------------------------------------------------


def detect_shape(messages: Sequence[Mapping[str, Any]]) -> Shape:
    """Which provider's request shape a message list is in.

    >>> detect_shape([{"role": "tool", "tool_call_id": "call_1", "content": "ok"}])
    'openai'
    >>> detect_shape([{"role": "user", "content": "hi"}])  # plain text reads the same in both
    'anthropic'

    A list mixing both shapes, or holding something other than objects, raises
    ``HistoryFormatError``.
    """
    if isinstance(messages, (str, bytes, Mapping)) or not isinstance(messages, Sequence):
        raise HistoryFormatError(f"expected a list of messages, got {_kind(messages)}")
    first: dict[Shape, int] = {}
    for index, message in enumerate(messages):
        if not isinstance(message, Mapping):
            raise HistoryFormatError(f"is {_kind(message)}, not an object", index=index)
        shape = _marker(message)
        if shape is None:
            continue
        first.setdefault(shape, index)
        other: Shape = "anthropic" if shape == "openai" else "openai"
        if other in first:
            raise HistoryFormatError(
                f"is in the {shape} shape but message {first[other]} is in the {other} shape; "
                "a history is in one shape only",
                index=index,
            )
    return "openai" if "openai" in first else "anthropic"


def _marker(message: Mapping[str, Any]) -> Shape | None:
    if (
        message.get("role") in _OPENAI_ONLY_ROLES
        or "tool_calls" in message
        or "tool_call_id" in message
        or ("content" in message and message["content"] is None)
    ):
        return "openai"
    content = message.get("content")
    if isinstance(content, list):
        for part in content:
            kind = part.get("type") if isinstance(part, Mapping) else None
            if kind in _OPENAI_PART_TYPES:
                return "openai"
            if isinstance(kind, str) and kind != "text":
                return "anthropic"
    return None


# -- Anthropic ---------------------------------------------------------------------------------


def from_anthropic(messages: Sequence[Mapping[str, Any]]) -> tuple[HistoryMessage, ...]:
    """The neutral history of an Anthropic Messages list.

    >>> from_anthropic([{"role": "user", "content": "hi"}])
    (HistoryMessage(role='user', blocks=(TextBlock(text='hi'),)),)
    """
    return tuple(t.neutral() for t in _read_anthropic(messages))


def to_anthropic(history: Sequence[HistoryMessage]) -> list[dict[str, Any]]:
    """The Anthropic Messages list of a neutral history (``HistoryMessage.to_json`` of each).

    >>> to_anthropic([HistoryMessage("user", (TextBlock("hi"),))])
    [{'role': 'user', 'content': [{'type': 'text', 'text': 'hi'}]}]

    A tool_use whose arguments are not JSON text raises ``HistoryFormatError``.
    """
    out: list[dict[str, Any]] = []
    for index, message in enumerate(history):
        for block in message.blocks:
            if isinstance(block, ToolUseBlock):
                _json_arguments(block.arguments, f"tool_use {excerpt(block.id)}", index)
        out.append(message.to_json())
    return out


def _read_anthropic(messages: Sequence[Mapping[str, Any]]) -> tuple[_Turn, ...]:
    detect_shape(messages)  # only checks that it is a list of objects in one shape
    return tuple(_anthropic_turn(m, i) for i, m in enumerate(messages))


def _anthropic_turn(message: Mapping[str, Any], index: int) -> _Turn:
    role = message.get("role")
    if role not in ("user", "assistant"):
        raise HistoryFormatError(
            f"unknown role {excerpt(role)}; an Anthropic message is 'user' or 'assistant'",
            index=index,
        )
    content = message.get("content")
    if isinstance(content, str):
        text = {"type": "text", "text": content}
        return _Turn(role, role, index, (_Item(TextBlock(content), index, text),), (message,))
    if not isinstance(content, list):
        raise HistoryFormatError(
            f"'content' should be a string or a list of blocks, got {_kind(content)}", index=index
        )
    items = tuple(
        _Item(_anthropic_block(block, role, index, n), index, block)
        for n, block in enumerate(content)
    )
    return _Turn(role, role, index, items, (message,))


def _anthropic_block(block: Any, role: str, index: int, n: int) -> Block | None:
    where = f"content block {n}"
    if not isinstance(block, Mapping) or not isinstance(block.get("type"), str):
        raise HistoryFormatError(f"{where} should be an object with a 'type'", index=index)
    kind = block["type"]
    if kind == "text":
        return TextBlock(_string(block, "text", where, index))
    if kind == "thinking":
        signature = block.get("signature", "")
        if not isinstance(signature, str):
            raise HistoryFormatError(
                f"{where} (thinking): 'signature' should be a string, got {_kind(signature)}",
                index=index,
            )
        return ThinkingBlock(_string(block, "thinking", where, index), signature)
    if kind == "tool_use":
        if role != "assistant":
            raise HistoryFormatError(
                f"{where} is a tool_use in a user message; tool calls belong to assistant messages",
                index=index,
            )
        tool_id = _identifier(block, "id", f"{where} (tool_use)", index)
        if "input" not in block:
            raise HistoryFormatError(f"tool_use {excerpt(tool_id)} has no 'input'", index=index)
        arguments = json.dumps(block["input"], ensure_ascii=False)
        return ToolUseBlock(
            tool_id, _string(block, "name", f"tool_use {excerpt(tool_id)}", index), arguments
        )
    if kind == "tool_result":
        if role != "user":
            raise HistoryFormatError(
                f"{where} is a tool_result in an assistant message; results belong to the "
                "user message after the call",
                index=index,
            )
        tool_id = _identifier(block, "tool_use_id", f"{where} (tool_result)", index)
        is_error = block.get("is_error", False)
        if not isinstance(is_error, bool):
            raise HistoryFormatError(
                f"tool_result {excerpt(tool_id)}: 'is_error' should be true or false, got {_kind(is_error)}",
                index=index,
            )
        content = _result_text(block.get("content", ""), f"tool_result {excerpt(tool_id)}", index)
        return ToolResultBlock(tool_id, content, is_error)
    return None


# -- OpenAI ------------------------------------------------------------------------------------


def from_openai(messages: Sequence[Mapping[str, Any]]) -> tuple[HistoryMessage, ...]:
    """The neutral history of an OpenAI Chat Completions message list.

    >>> from_openai([
    ...     {"role": "assistant", "content": None, "tool_calls": [
    ...         {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}]},
    ...     {"role": "tool", "tool_call_id": "c1", "content": "a.txt"},
    ... ])[1]
    HistoryMessage(role='user', blocks=(ToolResultBlock(tool_use_id='c1', content='a.txt', is_error=False),))

    System and developer messages are left out (see the module docstring).
    """
    return tuple(t.neutral() for t in _read_openai(messages) if t.role != "other")


def to_openai(history: Sequence[HistoryMessage]) -> list[dict[str, Any]]:
    """The OpenAI Chat Completions message list of a neutral history.

    >>> to_openai([HistoryMessage("user", (ToolResultBlock("c1", "a.txt"), TextBlock("next?")))])
    [{'role': 'tool', 'tool_call_id': 'c1', 'content': 'a.txt'}, {'role': 'user', 'content': 'next?'}]

    Thinking blocks and ``is_error`` are dropped; a user message's results come first. A tool_use
    in a user message, a tool_result in an assistant message, or arguments that are not JSON
    text raise ``HistoryFormatError``.
    """
    out: list[dict[str, Any]] = []
    for index, message in enumerate(history):
        texts = [b.text for b in message.blocks if isinstance(b, TextBlock)]
        if message.role == "assistant":
            out.append(_openai_assistant(message, texts, index))
            continue
        results = []
        for block in message.blocks:
            if isinstance(block, ToolUseBlock):
                raise HistoryFormatError(
                    f"tool_use {excerpt(block.id)} is in a user message; OpenAI has no form for it",
                    index=index,
                )
            if isinstance(block, ToolResultBlock):
                results.append(_tool_message(block))
        out.extend(results)
        if texts or not results:
            out.append({"role": "user", "content": texts[0] if len(texts) == 1 else _parts(texts)})
    return out


def _openai_assistant(message: HistoryMessage, texts: list[str], index: int) -> dict[str, Any]:
    calls = []
    for block in message.blocks:
        if isinstance(block, ToolResultBlock):
            raise HistoryFormatError(
                f"tool_result {excerpt(block.tool_use_id)} is in an assistant message; OpenAI has no "
                "form for it",
                index=index,
            )
        if isinstance(block, ToolUseBlock):
            _json_arguments(block.arguments, f"tool_use {excerpt(block.id)}", index)
            calls.append(
                {
                    "id": block.id,
                    "type": "function",
                    "function": {"name": block.name, "arguments": block.arguments},
                }
            )
    content: str | list[dict[str, str]] | None = (
        (texts[0] if len(texts) == 1 else _parts(texts)) if texts else None
    )
    out: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        out["tool_calls"] = calls
    return out


def _tool_message(block: ToolResultBlock) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": block.tool_use_id, "content": block.content}


def _parts(texts: list[str]) -> list[dict[str, str]]:
    return [{"type": "text", "text": t} for t in texts]


def _read_openai(messages: Sequence[Mapping[str, Any]]) -> tuple[_Turn, ...]:
    detect_shape(messages)
    turns: list[_Turn] = []
    in_results = False  # the last turn is a run of tool messages that a user message may join
    for index, message in enumerate(messages):
        role = message.get("role")
        if role not in _OPENAI_ROLES:
            raise HistoryFormatError(
                f"unknown role {excerpt(role)}; an OpenAI message is 'system', 'developer', 'user', "
                "'assistant' or 'tool'",
                index=index,
            )
        if role == "tool" or (role == "user" and in_results):
            if role == "tool":
                items: tuple[_Item, ...] = (_openai_result(message, index),)
            else:
                items = _openai_user_parts(message, index)
            if in_results:
                last = turns.pop()
                turns.append(
                    _Turn("user", "tool", last.index, (*last.items, *items), (*last.raw, message))
                )
            else:
                turns.append(_Turn("user", "tool", index, items, (message,)))
            in_results = role == "tool"
            continue
        in_results = False
        if role == "user":
            turns.append(
                _Turn("user", "user", index, _openai_user_parts(message, index), (message,))
            )
        elif role == "assistant":
            items = _openai_assistant_items(message, index)
            turns.append(_Turn("assistant", "assistant", index, items, (message,)))
        else:
            turns.append(_Turn("other", role, index, (), (message,)))
    return tuple(turns)


def _openai_result(message: Mapping[str, Any], index: int) -> _Item:
    tool_id = _identifier(message, "tool_call_id", "a tool message", index)
    content = _result_text(
        message.get("content", ""), f"tool message for {excerpt(tool_id)}", index
    )
    return _Item(ToolResultBlock(tool_id, content), index, message)


def _openai_user_parts(message: Mapping[str, Any], index: int) -> tuple[_Item, ...]:
    content = message.get("content")
    if isinstance(content, str):
        return (_Item(TextBlock(content), index, content),)
    if not isinstance(content, list):
        raise HistoryFormatError(
            f"'content' should be a string or a list of parts, got {_kind(content)}", index=index
        )
    return tuple(_openai_part(part, n, index) for n, part in enumerate(content))


def _openai_part(part: Any, n: int, index: int) -> _Item:
    if not isinstance(part, Mapping) or not isinstance(part.get("type"), str):
        raise HistoryFormatError(f"content part {n} should be an object with a 'type'", index=index)
    if part["type"] == "text":
        return _Item(TextBlock(_string(part, "text", f"content part {n}", index)), index, part)
    return _Item(None, index, part)


def _openai_assistant_items(message: Mapping[str, Any], index: int) -> tuple[_Item, ...]:
    content = message.get("content")
    items = () if content is None else _openai_user_parts(message, index)
    calls = message.get("tool_calls") or []
    if not isinstance(calls, list):
        raise HistoryFormatError(f"'tool_calls' should be a list, got {_kind(calls)}", index=index)
    return (*items, *(_openai_call(call, n, index) for n, call in enumerate(calls)))


def _openai_call(call: Any, n: int, index: int) -> _Item:
    where = f"tool call {n}"
    if not isinstance(call, Mapping):
        raise HistoryFormatError(f"{where} should be an object, got {_kind(call)}", index=index)
    tool_id = _identifier(call, "id", where, index)
    if call.get("type", "function") != "function":
        raise HistoryFormatError(
            f"tool call {excerpt(tool_id)} has type {excerpt(call.get('type'))}; only 'function' calls are read",
            index=index,
        )
    function = call.get("function")
    if not isinstance(function, Mapping):
        raise HistoryFormatError(
            f"tool call {excerpt(tool_id)} has no 'function' object", index=index
        )
    name = _string(function, "name", f"tool call {excerpt(tool_id)}", index)
    arguments = _string(function, "arguments", f"tool call {excerpt(tool_id)}", index)
    _json_arguments(arguments, f"tool call {excerpt(tool_id)}", index)
    return _Item(ToolUseBlock(tool_id, name, arguments), index, call)


# -- neutral lists and the writers of repaired turns ---------------------------------------------


def _read_neutral(history: Sequence[HistoryMessage]) -> tuple[_Turn, ...]:
    turns = []
    for index, message in enumerate(history):
        if not isinstance(message, HistoryMessage):
            raise HistoryFormatError(
                f"is {_kind(message)}, not a HistoryMessage like the messages before it",
                index=index,
            )
        if message.role not in ("user", "assistant"):
            raise HistoryFormatError(
                f"unknown role {excerpt(message.role)}; a HistoryMessage is 'user' or 'assistant'",
                index=index,
            )
        for block in message.blocks:
            if isinstance(block, ToolUseBlock) and message.role != "assistant":
                raise HistoryFormatError(
                    f"tool_use {excerpt(block.id)} is in a user message; tool calls belong to "
                    "assistant messages",
                    index=index,
                )
            if isinstance(block, ToolResultBlock) and message.role != "user":
                raise HistoryFormatError(
                    f"tool_result {excerpt(block.tool_use_id)} is in an assistant message; results "
                    "belong to the user message after the call",
                    index=index,
                )
        items = tuple(_Item(block, index) for block in message.blocks)
        turns.append(_Turn(message.role, message.role, index, items))
    return tuple(turns)


def _write_anthropic(turns: Sequence[_Turn]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for turn in turns:
        if not turn.edited:
            out.append(turn.raw[0])
            continue
        message = dict(turn.raw[0]) if turn.raw else {"role": turn.role}
        message["content"] = [
            item.raw if item.raw is not None else _anthropic_json(item.block) for item in turn.items
        ]
        out.append(message)
    return copy.deepcopy(out)


def _anthropic_json(block: Block | None) -> dict[str, Any]:
    assert isinstance(block, ToolResultBlock)  # a repair only makes tool results
    content = HistoryMessage("user", (block,)).to_json()["content"]
    assert isinstance(content, list)
    return dict(content[0])


def _write_openai(turns: Sequence[_Turn]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for turn in turns:
        if not turn.edited:
            out.extend(turn.raw)
            continue
        for item in turn.items:  # a repair edits only user turns: results, then the user's text
            if isinstance(item.block, ToolResultBlock):
                out.append(item.raw if item.raw is not None else _tool_message(item.block))
        out.extend(m for m in turn.raw if m.get("role") == "user")
    return copy.deepcopy(out)


# -- small readers -----------------------------------------------------------------------------


def _string(obj: Mapping[str, Any], key: str, where: str, index: int) -> str:
    value = obj.get(key)
    if not isinstance(value, str):
        got = "nothing" if key not in obj else _kind(value)
        raise HistoryFormatError(
            f"{where}: {excerpt(key)} should be a string, got {got}", index=index
        )
    return value


def _identifier(obj: Mapping[str, Any], key: str, where: str, index: int) -> str:
    value = obj.get(key)
    if not isinstance(value, str) or not value:
        got = "nothing" if key not in obj else repr(value) if value == "" else _kind(value)
        raise HistoryFormatError(
            f"{where} has no {excerpt(key)} (expected a non-empty string, got {got})", index=index
        )
    return value


def _result_text(content: Any, where: str, index: int) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(isinstance(p, Mapping) for p in content):
        return "\n".join(
            p["text"] for p in content if p.get("type") == "text" and isinstance(p.get("text"), str)
        )
    raise HistoryFormatError(
        f"{where}: 'content' should be a string or a list of blocks, got {_kind(content)}",
        index=index,
    )


def _json_arguments(arguments: str, where: str, index: int) -> None:
    try:
        json.loads(arguments)
    except json.JSONDecodeError as exc:
        raise HistoryFormatError(
            f"{where}: arguments are not JSON text ({exc.msg}): {excerpt(arguments)}", index=index
        ) from None


def _kind(value: object) -> str:
    names = {
        type(None): "null",
        bool: "a boolean",
        int: "a number",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "an object",
    }
    return names.get(type(value), f"a {type(value).__name__}")


# -- JSON files --------------------------------------------------------------------------------

_SPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


@dataclass(frozen=True, slots=True)
class HistoryDocument:
    """A JSON history file: its messages, the line each starts on, and the object around them."""

    messages: list[Any]
    lines: tuple[int, ...]
    envelope: dict[str, Any] | None = None  # the top-level object when it has "messages"

    def line_of(self, error: HistoryFormatError) -> int:
        """The JSON line an error is about (1 when no better line is known)."""
        if error.line is not None:
            return error.line
        if error.index is not None and 0 <= error.index < len(self.lines):
            return self.lines[error.index]
        return 1

    def with_messages(self, messages: Sequence[Any]) -> Any:
        """The document's JSON value with these messages instead (for writing a repair)."""
        if self.envelope is None:
            return list(messages)
        return {**self.envelope, "messages": list(messages)}


def parse_history_json(text: str) -> HistoryDocument:
    """Read a JSON list of messages, or an object with a ``"messages"`` list (a request body).

    >>> doc = parse_history_json('{"model": "m",\\n "messages": [\\n  {"role": "user", "content": "hi"}]}')
    >>> doc.messages, doc.lines
    ([{'role': 'user', 'content': 'hi'}], (3,))

    Text that is not JSON, or JSON of another shape, raises ``HistoryFormatError`` with a line.
    """
    try:
        value = json.loads(text)
        deep = _deeper_than(value, MAX_DEPTH)
    except json.JSONDecodeError as exc:
        raise HistoryFormatError(
            f"not JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})", line=exc.lineno
        ) from None
    except RecursionError:
        deep = True
    except ValueError as exc:  # an integer longer than Python converts
        long = _LONG_NUMBER.search(text)
        raise HistoryFormatError(
            f"not JSON the harness can read: {str(exc).split(';')[0]}",
            line=text.count("\n", 0, long.start()) + 1 if long else 1,
        ) from None
    if deep:
        raise HistoryFormatError(
            f"the JSON nests deeper than {MAX_DEPTH} levels, more than a history may",
            line=text.count("\n", 0, _too_deep(text)) + 1,
        )
    start = _skip(text, 0)
    if isinstance(value, list):
        return HistoryDocument(value, _lines(text, _elements(text, start)))
    where = _value_at(text, start, "messages") if isinstance(value, dict) else None
    if not isinstance(value, dict) or not isinstance(value.get("messages"), list):
        got = (
            _kind(value.get("messages"))
            if isinstance(value, dict) and "messages" in value
            else None
        )
        raise HistoryFormatError(
            'expected a list of messages or an object with a "messages" list, got '
            + (f'"messages" holding {got}' if got else _kind(value)),
            line=_lines(text, [where])[0] if where is not None else 1,
        )
    assert where is not None
    return HistoryDocument(value["messages"], _lines(text, _elements(text, where)), value)


_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')
_LONG_NUMBER = re.compile(r"\d{4000,}")


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether a parsed JSON value nests deeper than ``limit`` (level by level: no recursion,
    and one pass over the containers)."""
    level = [value] if isinstance(value, (dict, list)) else []
    for _ in range(limit):
        below: list[Any] = []
        for item in level:
            below += [
                child
                for child in (item.values() if isinstance(item, dict) else item)
                if isinstance(child, (dict, list))
            ]
        if not below:
            return False
        level = below
    return True


def _too_deep(text: str) -> int:
    """Where the JSON text first nests deeper than ``MAX_DEPTH`` (called only when the parser
    gave up: this scan is slower than parsing, and stops there)."""
    depth = 0
    for token in _TOKEN.finditer(text):
        char = token.group()[0]
        if char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return token.start()
        elif char in "]}":
            depth -= 1
    return 0


def _elements(text: str, start: int) -> list[int]:
    """Where each element of the (valid) JSON array at ``start`` begins."""
    offsets: list[int] = []
    pos = _skip(text, start + 1)
    while text[pos] != "]":
        offsets.append(pos)
        pos = _skip(text, _DECODER.raw_decode(text, pos)[1])
        if text[pos] == ",":
            pos = _skip(text, pos + 1)
    return offsets


def _value_at(text: str, start: int, wanted: str) -> int | None:
    """Where the (last) value of key ``wanted`` of the (valid) JSON object at ``start`` begins."""
    found = None
    pos = _skip(text, start + 1)
    while text[pos] != "}":
        key, pos = _DECODER.raw_decode(text, pos)
        pos = _skip(text, _skip(text, pos) + 1)
        if key == wanted:
            found = pos
        pos = _skip(text, _DECODER.raw_decode(text, pos)[1])
        if text[pos] == ",":
            pos = _skip(text, pos + 1)
    return found


def _skip(text: str, pos: int) -> int:
    match = _SPACE.match(text, pos)
    assert match is not None  # the pattern matches the empty string
    return match.end()


def _lines(text: str, offsets: Sequence[int]) -> tuple[int, ...]:
    lines, line, last = [], 1, 0
    for offset in offsets:
        line += text.count("\n", last, offset)
        lines.append(line)
        last = offset
    return tuple(lines)
