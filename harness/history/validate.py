"""Tool pairing in a history, checked and repaired (seed 004, REAL_BUGS rows 15, 18-21).

The rule is Anthropic's documented one, which OpenAI's reduces to:

- forward: every tool_use of an assistant message has exactly one tool_result in the message
  immediately after it, which must be a user message (else ``missing_result``);
- reverse: every tool_result refers to a tool_use of the immediately preceding assistant
  message (else ``orphan_result``); a second result for the same tool_use is a
  ``duplicate_result``;
- order: in a user message, the tool_result blocks come before any other content (else
  ``result_after_content``; the Messages API rejects a tool_result after text). OpenAI's
  shape cannot break it: its tool messages come before the user message they go with.

For the OpenAI shape a run of ``tool`` messages (and the user message right after it) is the
"user message", and a system or developer message is a message like any other: one between a
call and its results breaks the pairing.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, NamedTuple, overload

from harness.history.convert import (
    HistoryFormatError,
    _Item,
    _read_anthropic,
    _read_neutral,
    _read_openai,
    _Turn,
    _write_anthropic,
    _write_openai,
    detect_shape,
)
from harness.model.history import HistoryMessage, TextBlock, ToolResultBlock, ToolUseBlock

INTERRUPTED_RESULT = "The tool call was interrupted before it returned a result."

ProblemKind = Literal["missing_result", "orphan_result", "duplicate_result", "result_after_content"]
_Status = Literal["valid", "orphan", "duplicate"]


@dataclass(frozen=True, slots=True)
class PairingProblem:
    """One broken tool pairing; ``message_index`` is a position in the list as given.

    For the OpenAI shape that is the assistant message of a ``missing_result`` and the ``tool``
    message of an ``orphan_result`` or ``duplicate_result``.
    """

    kind: ProblemKind
    message_index: int
    tool_id: str
    message: str
    #: the message's role as the input spells it (``tool`` for an OpenAI tool message)
    role: str = ""

    def __str__(self) -> str:
        """Counted from 1, as a reader counts messages, with the role."""
        where = f"message {self.message_index + 1}" + (f" ({self.role})" if self.role else "")
        return f"{where}: {self.kind}: tool {self.tool_id}: {self.message}"


class _Words(NamedTuple):
    """How a shape's own documentation names the parts of a pairing."""

    use: str  # a call
    result: str  # its answer
    holds: str  # what a message answering a call is
    results_message: str  # the message that must follow a call


_WORDS = {
    "anthropic": _Words(
        "tool_use", "tool_result", "holds a tool_result for", "user message with its tool_result"
    ),
    "openai": _Words(
        "tool call", "tool message", "is a tool message for", "tool message answering it"
    ),
}


class _Say:
    """Sentences about one history, its messages counted from 1 with their roles as the input
    spells them (an OpenAI tool message is a ``tool`` message, the user message after it a
    ``user`` one)."""

    def __init__(self, shape: str, turns: Sequence[_Turn]) -> None:
        self.words = _WORDS.get(shape, _WORDS["anthropic"])
        self.roles: dict[int, str] = {}
        for turn in turns:
            for j, raw in enumerate(turn.raw):
                self.roles[turn.index + j] = str(raw.get("role", turn.label))
            self.roles.setdefault(turn.index, turn.label)

    def message(self, index: int) -> str:
        return self.messages(index, index)

    def messages(self, first: int, last: int) -> str:
        """Input messages ``first`` to ``last`` (positions), as one name."""
        if first == last:
            return f"message {first + 1} ({self.roles.get(first, '?')})"
        roles = dict.fromkeys(self.roles.get(i, "?") for i in range(first, last + 1))
        return f"messages {first + 1}-{last + 1} ({', '.join(roles)})"


class MessageNames:
    """How messages about a history name its messages: counted from 1 in the list as given, with
    the role that list gives each, in the words of its shape.

    ``of(k)`` names the k-th message of the neutral history read from that list (what
    ``from_anthropic`` or ``from_openai`` give), ``of_block(k, b)`` the input message its b-th
    block came from. In OpenAI's shape a neutral user message can be a run of ``tool`` messages
    and the user message after them:

    >>> names = MessageNames([
    ...     {"role": "system", "content": "Be brief."},
    ...     {"role": "assistant", "content": None, "tool_calls": [
    ...         {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}]},
    ...     {"role": "tool", "tool_call_id": "c1", "content": "a.txt"},
    ...     {"role": "user", "content": "thanks"},
    ... ])
    >>> names.of(0), names.of(1), names.of_block(1, 1), names.use
    ('message 2 (assistant)', 'messages 3-4 (tool, user)', 'message 4 (user)', 'tool call')

    A list that is not a history raises ``HistoryFormatError``.
    """

    def __init__(self, messages: Sequence[HistoryMessage] | Sequence[Mapping[str, Any]]) -> None:
        shape, turns = _read(messages)
        self._say = _Say(shape, turns)
        self._turns = [turn for turn in turns if turn.role != "other"]
        #: what the shape calls a tool call and its result
        self.use = self._say.words.use
        self.result = self._say.words.result

    def of(self, k: int) -> str:
        turn = self._turns[k]
        return self._say.messages(turn.index, turn.index + max(len(turn.raw), 1) - 1)

    def of_block(self, k: int, b: int) -> str:
        items = [item for item in self._turns[k].items if item.block is not None]
        return self._say.message(items[b].index)


def validate_history(
    messages: Sequence[HistoryMessage] | Sequence[Mapping[str, Any]],
) -> list[PairingProblem]:
    """Every pairing problem of a neutral history or a provider message list, in message order.

    >>> validate_history([
    ...     {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "ls", "input": {}}]},
    ...     {"role": "user", "content": "go on"},
    ... ])[0].kind
    'missing_result'

    A list that is not a history raises ``HistoryFormatError``.
    """
    shape, turns = _read(messages)
    say = _Say(shape, turns)
    pairing = _pair(turns)
    problems = []
    for k, turn in enumerate(turns):
        for call in pairing.missing.get(k, ()):
            text = _missing(say, turns, k, call)
            problems.append(
                PairingProblem("missing_result", turn.index, call.id, text, say.roles[turn.index])
            )
        for p, item in enumerate(turn.items):
            status = pairing.status.get((k, p))
            if status == "orphan" or status == "duplicate":
                tool_id = _result_id(item)
                kind: ProblemKind = "orphan_result" if status == "orphan" else "duplicate_result"
                text = (
                    _orphan(say, turns, k, item, pairing)
                    if status == "orphan"
                    else _duplicate(say, turns, k, item)
                )
                problems.append(
                    PairingProblem(kind, item.index, tool_id, text, say.roles[item.index])
                )
        problems += _results_after_content(turn, say)
    return problems


def _results_after_content(turn: _Turn, say: _Say | None = None) -> list[PairingProblem]:
    if turn.role != "user":
        return []
    problems, other = [], False
    for item in turn.items:
        if not isinstance(item.block, ToolResultBlock):
            other = True
        elif other:
            where = say.message(item.index) if say else f"message {item.index + 1}"
            problems.append(
                PairingProblem(
                    "result_after_content",
                    item.index,
                    item.block.tool_use_id,
                    f"the tool_result for {item.block.tool_use_id!r} in {where} comes after "
                    "other content; a user message's tool_result blocks should come first",
                    say.roles.get(item.index, "") if say else "",
                )
            )
    return problems


@overload
def repair_history(
    messages: Sequence[HistoryMessage], *, notes: list[str] | None = None
) -> tuple[HistoryMessage, ...]: ...


@overload
def repair_history(
    messages: Sequence[Mapping[str, Any]], *, notes: list[str] | None = None
) -> list[dict[str, Any]]: ...


def repair_history(
    messages: Sequence[HistoryMessage] | Sequence[Mapping[str, Any]],
    *,
    notes: list[str] | None = None,
) -> tuple[HistoryMessage, ...] | list[dict[str, Any]]:
    """The history with its pairing fixed, in the shape it was given.

    >>> repair_history([
    ...     {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "ls", "input": {}}]},
    ...     {"role": "user", "content": "go on"},
    ... ])[1]["content"][0]["content"]
    'The tool call was interrupted before it returned a result.'

    Orphan results are dropped, or moved to the nearest earlier tool_use of theirs that has no
    result; duplicates are dropped (the first is kept); a tool_use still without a result gets
    ``INTERRUPTED_RESULT`` (``is_error=True``) merged into the next user message, before its
    text, or in a new user message when the next message is not a user message. Results after
    other content in a user message move before it. A user message left empty is removed. Valid
    pairs, assistant messages and everything else are unchanged.

    ``notes``, when given, gets a sentence for each user message whose text (or other content)
    the repair puts after results that were not before it: results moved there from another
    message, or from after that text.
    """
    if not messages:
        return [] if isinstance(messages, list) else ()
    shape, turns = _read(messages)
    # In OpenAI's shape results are `tool` messages, which a user message normally follows; in
    # the others a results-only user message takes in the user message after it.
    reordered: list[_Reordered] = []
    repaired = _repair(turns, join_after_results=shape != "openai", reordered=reordered)
    if notes is not None:
        say = _Say(shape, turns)
        notes += [_reordered(say, moved, others) for moved, others in reordered]
    if shape == "neutral":
        return tuple(t.neutral() for t in repaired)
    return _write_anthropic(repaired) if shape == "anthropic" else _write_openai(repaired)


# -- pairing -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Pairing:
    status: dict[tuple[int, int], _Status]  # (turn, item) of every tool result, in order
    missing: dict[int, list[ToolUseBlock]]  # assistant turn -> its calls without a result
    callers: dict[str, list[int]]  # tool id -> the assistant turns that call it, in order


def _read(
    messages: Sequence[HistoryMessage] | Sequence[Mapping[str, Any]],
) -> tuple[Literal["neutral", "anthropic", "openai"], tuple[_Turn, ...]]:
    if isinstance(messages, (str, bytes, Mapping)) or not isinstance(messages, Sequence):
        raise HistoryFormatError(f"expected a list of messages, got {type(messages).__name__}")
    neutral = [isinstance(m, HistoryMessage) for m in messages]
    shape: Literal["neutral", "anthropic", "openai"]
    if all(neutral):
        shape, turns = "neutral", _read_neutral(messages)  # type: ignore[arg-type]
    elif any(neutral):
        raise HistoryFormatError(
            "is a HistoryMessage in a list of provider messages; a history is one or the other",
            index=neutral.index(True),
        )
    else:
        shape = detect_shape(messages)  # type: ignore[arg-type]
        read = _read_openai if shape == "openai" else _read_anthropic
        turns = read(messages)  # type: ignore[arg-type]
    for turn in turns:
        ids = [call.id for call in turn.tool_uses()]
        if len(set(ids)) < len(ids):
            repeated = next(i for n, i in enumerate(ids) if i in ids[:n])
            raise HistoryFormatError(
                f"two tool calls share the id {repeated!r}; each call needs its own id",
                index=turn.index,
            )
    return shape, turns


def _pair(turns: Sequence[_Turn]) -> _Pairing:
    status: dict[tuple[int, int], _Status] = {}
    missing: dict[int, list[ToolUseBlock]] = {}
    callers: dict[str, list[int]] = {}
    for k, turn in enumerate(turns):
        if turn.role == "assistant":
            for call in turn.tool_uses():
                callers.setdefault(call.id, []).append(k)
            after = turns[k + 1] if k + 1 < len(turns) else None
            answered = (
                {_result_id(i) for i in after.items if isinstance(i.block, ToolResultBlock)}
                if after is not None and after.role == "user"
                else set()
            )
            missing[k] = [call for call in turn.tool_uses() if call.id not in answered]
        elif turn.role == "user":
            before = turns[k - 1] if k else None
            called = (
                {call.id for call in before.tool_uses()}
                if before is not None and before.role == "assistant"
                else set()
            )
            seen: set[str] = set()
            for p, item in enumerate(turn.items):
                if isinstance(item.block, ToolResultBlock):
                    tool_id = item.block.tool_use_id
                    status[(k, p)] = (
                        "orphan"
                        if tool_id not in called
                        else "duplicate"
                        if tool_id in seen
                        else "valid"
                    )
                    seen.add(tool_id)
    return _Pairing(status, missing, callers)


#: a user message's content that a repair put after results (the results, that content)
_Reordered = tuple[tuple[_Item, ...], tuple[_Item, ...]]


def _repair(
    turns: Sequence[_Turn], *, join_after_results: bool, reordered: list[_Reordered] | None = None
) -> list[_Turn]:
    pairing = _pair(turns)
    fill: dict[int, dict[str, _Item]] = {k: {} for k in pairing.missing}
    unanswered: dict[str, list[int]] = {}  # tool id -> assistant turns still without its result
    for a, calls in pairing.missing.items():
        for call in calls:
            unanswered.setdefault(call.id, []).append(a)
    drop: set[tuple[int, int]] = set()
    for (k, p), status in pairing.status.items():
        if status == "valid":
            continue
        drop.add((k, p))
        if status == "duplicate":
            continue
        item = turns[k].items[p]
        waiting = unanswered.get(_result_id(item), [])
        nearest = bisect_left(waiting, k)  # the nearest earlier call still without its result
        if nearest:
            fill[waiting.pop(nearest - 1)][_result_id(item)] = item  # moved to that call
    for a, calls in pairing.missing.items():
        for call in calls:
            fill[a].setdefault(
                call.id, _Item(ToolResultBlock(call.id, INTERRUPTED_RESULT, True), -1)
            )

    out: list[_Turn] = []
    for k, turn in enumerate(turns):
        if turn.role != "user":
            out.append(turn)
            if fill.get(k) and (k + 1 == len(turns) or turns[k + 1].role != "user"):
                out.append(_Turn("user", "user", -1, _in_call_order(turn, fill[k]), edited=True))
            continue
        added = _in_call_order(turns[k - 1], fill[k - 1]) if k and fill.get(k - 1) else ()
        kept = tuple(item for p, item in enumerate(turn.items) if (k, p) not in drop)
        disordered = bool(_results_after_content(turn))
        if not added and len(kept) == len(turn.items) and not disordered:
            _append_user(out, turn, join_after_results)
            continue
        if added or disordered:  # tool results first, then the message's other content
            results = tuple(i for i in kept if isinstance(i.block, ToolResultBlock))
            others = tuple(i for i in kept if not isinstance(i.block, ToolResultBlock))
            kept = (*results, *added, *others)
            if others and reordered is not None:
                reordered += _put_before(turn, (*results, *added), others)
        if kept:  # a user message left empty is removed
            _append_user(out, replace(turn, items=kept, edited=True), join_after_results)
    return out


def _put_before(
    turn: _Turn, results: tuple[_Item, ...], others: tuple[_Item, ...]
) -> list[_Reordered]:
    """The results now before the turn's other content that were not before it in the input
    (made-up results, which the missing_result problem already names, aside)."""
    first_other = turn.items.index(others[0])
    was_before = {id(item) for item in turn.items[:first_other]}
    moved = tuple(i for i in results if i.index >= 0 and id(i) not in was_before)
    return [(moved, others)] if moved else []


def _append_user(out: list[_Turn], turn: _Turn, join_after_results: bool) -> None:
    """A user message the repair leaves right after one holding only results joins it (results
    first), so the results are never split from the user's text by the repair."""
    before = out[-1] if out else None
    if (
        join_after_results
        and before is not None
        and before.role == "user"
        and (before.edited or turn.edited)
        and before.items
        and all(isinstance(i.block, ToolResultBlock) for i in before.items)
    ):
        out[-1] = replace(before, items=before.items + turn.items, edited=True)
    else:
        out.append(turn)


def _in_call_order(assistant: _Turn, results: dict[str, _Item]) -> tuple[_Item, ...]:
    return tuple(results[call.id] for call in assistant.tool_uses() if call.id in results)


def _result_id(item: _Item) -> str:
    assert isinstance(item.block, ToolResultBlock)
    return item.block.tool_use_id


# -- sentences ---------------------------------------------------------------------------------


def _missing(say: _Say, turns: Sequence[_Turn], k: int, call: ToolUseBlock) -> str:
    w = say.words
    said = f"{say.message(turns[k].index)} calls {call.name!r} as {w.use} {call.id!r}"
    after = turns[k + 1] if k + 1 < len(turns) else None
    if after is None:
        return f"{said}, but no message follows it with its {w.result}"
    if after.role == "user":
        return f"{said}, but the next, {say.message(after.index)}, has no {w.result} for it"
    return f"{said}, but the next, {say.message(after.index)}, is not the {w.results_message}"


def _orphan(say: _Say, turns: Sequence[_Turn], k: int, item: _Item, pairing: _Pairing) -> str:
    w = say.words
    tool_id = _result_id(item)
    said = f"{say.message(item.index)} {w.holds} {tool_id!r}"
    before = turns[k - 1] if k else None
    if before is None:
        text = f"{said}, but no assistant message comes before it"
    elif before.role == "assistant":
        text = f"{said}, but the one before it, {say.message(before.index)}, has no {w.use} {tool_id!r}"
    else:
        text = (
            f"{said}, but the one before it, {say.message(before.index)}, is not the assistant "
            "message that made the call"
        )
    callers = pairing.callers.get(tool_id, [])
    nearest = bisect_left(callers, k)
    if not nearest:
        return text
    return f"{text}; {w.use} {tool_id!r} is in {say.message(turns[callers[nearest - 1]].index)}"


def _reordered(say: _Say, moved: tuple[_Item, ...], others: tuple[_Item, ...]) -> str:
    where = others[0].index
    what = "text" if all(isinstance(i.block, TextBlock) for i in others) else "content"
    plural = "s" if len(moved) > 1 else ""
    ids = ", ".join(repr(_result_id(i)) for i in moved)
    sources = dict.fromkeys(say.message(i.index) for i in moved if i.index != where)
    source = f" (moved from {', '.join(sources)})" if sources else ""
    return (
        f"reordered {say.message(where)}: its {what} now comes after the "
        f"{say.words.result}{plural} for {ids}{source}"
    )


def _duplicate(say: _Say, turns: Sequence[_Turn], k: int, item: _Item) -> str:
    w = say.words
    tool_id = _result_id(item)
    first = next(
        i
        for i in turns[k].items
        if isinstance(i.block, ToolResultBlock) and i.block.tool_use_id == tool_id
    )
    earlier = (
        f"an earlier {w.result} in the same message"
        if first.index == item.index
        else say.message(first.index)
    )
    return (
        f"{say.message(item.index)} answers {w.use} {tool_id!r} of "
        f"{say.message(turns[k - 1].index)} a second time; {earlier} already answers it"
    )
