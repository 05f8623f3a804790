"""Tool pairing in stored histories: conversion, validation against an oracle, repair, CLI."""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal, cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.cli import main
from harness.history import (
    INTERRUPTED_RESULT,
    HistoryFormatError,
    PairingProblem,
    detect_shape,
    from_anthropic,
    from_openai,
    repair_history,
    to_anthropic,
    to_openai,
    validate_history,
)
from harness.model.history import (
    Block,
    HistoryMessage,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from tests.budgets import examples

POOL = tuple(f"t{n}" for n in range(8))

# -- strategies --------------------------------------------------------------------------------

words = st.text(alphabet="ab é\n", max_size=5)
arguments = st.dictionaries(st.sampled_from(("path", "cmd")), words, max_size=2).map(
    lambda value: json.dumps(value, ensure_ascii=False)
)


@st.composite
def tool_use(draw: st.DrawFn, tool_id: str) -> ToolUseBlock:
    return ToolUseBlock(tool_id, draw(st.sampled_from(("read", "bash"))), draw(arguments))


@st.composite
def tool_result(draw: st.DrawFn, tool_id: str) -> ToolResultBlock:
    return ToolResultBlock(tool_id, draw(words), draw(st.booleans()))


Role = Literal["user", "assistant"]
Draft = list[tuple[Role, list[Block]]]
#: messages in a provider's JSON shape, as a store keeps them
Wire = list[dict[str, Any]]


@st.composite
def sessions(draw: st.DrawFn, unique_ids: bool) -> Draft:
    """Well-paired turns: user text, an assistant with parallel calls, results in any order."""
    messages: Draft = []
    used: set[str] = set()
    for _ in range(draw(st.integers(0, 4))):
        if draw(st.booleans()):
            messages.append(("user", [TextBlock(draw(words))]))
        blocks: list[Block] = []
        if draw(st.booleans()):
            blocks.append(ThinkingBlock(draw(words)))
        if draw(st.booleans()):
            blocks.append(TextBlock(draw(words)))
        free = [i for i in POOL if i not in used] if unique_ids else list(POOL)
        calls = draw(st.lists(st.sampled_from(free), unique=True, max_size=3)) if free else []
        used.update(calls)
        blocks += [draw(tool_use(i)) for i in calls]
        if draw(st.integers(0, 4)) == 0:
            blocks.append(TextBlock(draw(words)))  # text after the calls
        messages.append(("assistant", blocks))
        if calls:
            reply: list[Block] = [draw(tool_result(i)) for i in draw(st.permutations(calls))]
            if draw(st.booleans()):
                reply.append(TextBlock(draw(words)))
            messages.append(("user", reply))
    return messages


MUTATIONS = (
    "drop_result",  # anthropics/claude-quickstarts#155: the result was never written
    "duplicate_result",  # BerriAI/litellm#37273: the tool ran twice
    "split_results",  # docker/docker-agent#596: parallel results split across user messages
    "insert_between",  # earendil-works/pi#8502: a custom message between call and result
    "move_result",
    "orphan",  # docker/docker-agent#2053: a result of another session
    "drop_message",
    "truncate",  # letta-ai/letta#3273: interrupted
    "swap",
)


def _pick(draw: st.DrawFn, n: int) -> int:
    return draw(st.integers(0, max(n - 1, 0)))


def _result_places(messages: Draft) -> list[tuple[int, int]]:
    return [
        (i, j)
        for i, (_, blocks) in enumerate(messages)
        for j, b in enumerate(blocks)
        if isinstance(b, ToolResultBlock)
    ]


@st.composite
def mutate(draw: st.DrawFn, messages: Draft) -> Draft:
    for mutation in draw(st.lists(st.sampled_from(MUTATIONS), max_size=3)):
        places = _result_places(messages)
        if mutation == "drop_result" and places:
            i, j = places[_pick(draw, len(places))]
            del messages[i][1][j]
        elif mutation == "duplicate_result" and places:
            i, j = places[_pick(draw, len(places))]
            original = messages[i][1][j]
            assert isinstance(original, ToolResultBlock)
            copy = draw(st.sampled_from((original, ToolResultBlock(original.tool_use_id, "again"))))
            messages[i][1].insert(_pick(draw, len(messages[i][1]) + 1), copy)
        elif mutation == "split_results" and places:
            i, _ = places[_pick(draw, len(places))]
            cut = draw(st.integers(0, len(messages[i][1])))
            blocks = messages[i][1]
            messages[i : i + 1] = [("user", blocks[:cut]), ("user", blocks[cut:])]
        elif mutation == "insert_between":
            roles: tuple[Role, ...] = ("user", "assistant")
            role = draw(st.sampled_from(roles))
            messages.insert(_pick(draw, len(messages) + 1), (role, [TextBlock("needs attention")]))
        elif mutation == "move_result" and places:
            i, j = places[_pick(draw, len(places))]
            block = messages[i][1].pop(j)
            users = [k for k, (role, _) in enumerate(messages) if role == "user"]
            if len(users) > 0 and draw(st.booleans()):
                k = users[_pick(draw, len(users))]
                messages[k][1].insert(_pick(draw, len(messages[k][1]) + 1), block)
            else:
                messages.insert(_pick(draw, len(messages) + 1), ("user", [block]))
        elif mutation == "orphan":
            block = draw(tool_result(draw(st.sampled_from(POOL))))
            messages.insert(_pick(draw, len(messages) + 1), ("user", [block]))
        elif mutation == "drop_message" and messages:
            del messages[_pick(draw, len(messages))]
        elif mutation == "truncate":
            del messages[_pick(draw, len(messages) + 1) :]
        elif mutation == "swap" and len(messages) > 1:
            k = _pick(draw, len(messages) - 1)
            messages[k], messages[k + 1] = messages[k + 1], messages[k]
    return messages


@st.composite
def chaos(draw: st.DrawFn) -> Draft:
    """Any sequence of messages with blocks where each kind is allowed."""
    messages: Draft = []
    for _ in range(draw(st.integers(0, 6))):
        if draw(st.booleans()):
            calls = draw(st.lists(st.sampled_from(POOL[:4]), unique=True, max_size=3))
            extra = draw(st.lists(st.sampled_from(("text", "thinking")), max_size=2))
            blocks: list[Block] = [
                TextBlock("t") if e == "text" else ThinkingBlock("h") for e in extra
            ]
            blocks += [draw(tool_use(i)) for i in calls]
            messages.append(("assistant", draw(st.permutations(blocks))))
        else:
            ids = draw(st.lists(st.sampled_from(POOL[:4]), max_size=3))
            reply: list[Block] = [draw(tool_result(i)) for i in ids]
            reply += [TextBlock("u")] * draw(st.integers(0, 1))
            messages.append(("user", draw(st.permutations(reply))))
    return messages


def _freeze(messages: Draft) -> tuple[HistoryMessage, ...]:
    return tuple(HistoryMessage(role, tuple(blocks)) for role, blocks in messages)


@st.composite
def histories(draw: st.DrawFn, unique_ids: bool = False) -> tuple[HistoryMessage, ...]:
    if not unique_ids and draw(st.integers(0, 3)) == 0:
        return _freeze(draw(chaos()))
    return _freeze(draw(mutate(draw(sessions(unique_ids)))))


# -- the oracle: pairing stated from each side, independently of harness.history --------------


def uses(message: HistoryMessage | None) -> list[ToolUseBlock]:
    if message is None or message.role != "assistant":
        return []
    return [b for b in message.blocks if isinstance(b, ToolUseBlock)]


def results(message: HistoryMessage | None) -> list[ToolResultBlock]:
    if message is None or message.role != "user":
        return []
    return [b for b in message.blocks if isinstance(b, ToolResultBlock)]


def at(history: Sequence[HistoryMessage], i: int) -> HistoryMessage | None:
    return history[i] if 0 <= i < len(history) else None


def oracle(history: Sequence[HistoryMessage]) -> list[tuple[str, int, str]]:
    """(kind, message index, tool id) of every pairing problem."""
    found = []
    for i, message in enumerate(history):
        for call in uses(message):
            answers = [r for r in results(at(history, i + 1)) if r.tool_use_id == call.id]
            if not answers:
                found.append(("missing_result", i, call.id))
            found += [("duplicate_result", i + 1, call.id)] * (len(answers) - 1)
        called = {call.id for call in uses(at(history, i - 1))}
        found += [
            ("orphan_result", i, r.tool_use_id)
            for r in results(message)
            if r.tool_use_id not in called
        ]
        if message.role == "user":  # a result after the message's other content
            first_other = next(
                (n for n, b in enumerate(message.blocks) if not isinstance(b, ToolResultBlock)),
                len(message.blocks),
            )
            found += [
                ("result_after_content", i, b.tool_use_id)
                for b in message.blocks[first_other:]
                if isinstance(b, ToolResultBlock)
            ]
    return sorted(found, key=lambda p: (p[1], p))


def valid_pairs(history: Sequence[HistoryMessage]) -> list[tuple[int, ToolResultBlock]]:
    """(ordinal of the assistant message, the result that answers one of its calls)."""
    pairs = []
    assistants = [i for i, m in enumerate(history) if m.role == "assistant"]
    for ordinal, i in enumerate(assistants):
        for call in uses(history[i]):
            answers = [r for r in results(at(history, i + 1)) if r.tool_use_id == call.id]
            if answers:
                pairs.append((ordinal, answers[0]))
    return pairs


def found(problems: list[PairingProblem]) -> list[tuple[str, int, str]]:
    return sorted(((p.kind, p.message_index, p.tool_id) for p in problems), key=lambda p: (p[1], p))


def others(message: HistoryMessage) -> list[Block]:
    return [b for b in message.blocks if not isinstance(b, ToolResultBlock)]


# -- (a) validation matches the oracle ---------------------------------------------------------


@pytest.mark.slow
@settings(max_examples=examples(300))
@given(histories())
def test_validate_reports_exactly_the_oracle_problems(history):
    problems = validate_history(history)
    assert found(problems) == oracle(history)
    assert [p.message_index for p in problems] == sorted(p.message_index for p in problems)
    for p in problems:
        assert repr(p.tool_id) in p.message and f"message {p.message_index + 1} (" in p.message


def test_oracle_and_validator_disagree_on_a_bad_history_only_if_broken():
    # the oracle itself must see what the hand cases say
    history = _freeze(
        [
            ("assistant", [ToolUseBlock("a", "read"), ToolUseBlock("b", "read")]),
            ("user", [ToolResultBlock("a", "1"), ToolResultBlock("a", "2")]),
            ("user", [ToolResultBlock("b", "3")]),
        ]
    )
    assert oracle(history) == [
        ("missing_result", 0, "b"),
        ("duplicate_result", 1, "a"),
        ("orphan_result", 2, "b"),
    ]


# -- (b) repair --------------------------------------------------------------------------------


@pytest.mark.slow
@settings(max_examples=examples(300))
@given(histories())
def test_repair_output_is_valid_idempotent_and_keeps_what_was_valid(history):
    repaired = repair_history(history)
    assert isinstance(repaired, tuple)
    assert validate_history(repaired) == []
    assert repair_history(repaired) == repaired
    if not oracle(history):
        assert repaired == history

    # assistant messages are untouched, so the k-th one is the same call site before and after
    before = [i for i, m in enumerate(history) if m.role == "assistant"]
    after = [i for i, m in enumerate(repaired) if m.role == "assistant"]
    assert [history[i] for i in before] == [repaired[i] for i in after]
    for ordinal, result in valid_pairs(history):
        answers = [
            r
            for r in results(at(repaired, after[ordinal] + 1))
            if r.tool_use_id == result.tool_use_id
        ]
        assert answers == [result]

    # text and thinking of user messages are kept, in order (a repaired results message may
    # absorb the user message right after it, so compare them in one sequence)
    assert [b for m in history if m.role == "user" for b in others(m)] == [
        b for m in repaired if m.role == "user" for b in others(m)
    ]

    # results are merged into an existing next user message, never into a new one before it
    inserted = 0
    for ordinal, i in enumerate(before):
        following = at(history, i + 1)
        if not uses(history[i]):
            continue
        if following is not None and following.role == "user":
            got = others(repaired[after[ordinal] + 1])
            assert got[: len(others(following))] == others(following)
            # anything more comes from the user messages that followed it, in order
            later = []
            for m in history[i + 2 :]:
                if m.role != "user":
                    break
                later.extend(others(m))
            assert got[len(others(following)) :] == later[: len(got) - len(others(following))]
        else:
            inserted += 1
    users_before = sum(m.role == "user" for m in history)
    assert sum(m.role == "user" for m in repaired) <= users_before + inserted

    # every result is one of the input's, or the synthetic one
    originals = {r for m in history for r in results(m)}
    for m in repaired:
        for r in results(m):
            assert r in originals or r == ToolResultBlock(r.tool_use_id, INTERRUPTED_RESULT, True)


@pytest.mark.slow
@settings(max_examples=examples(300))
@given(histories(unique_ids=True))
def test_repair_moves_a_real_result_to_its_call_instead_of_inventing_one(history):
    repaired = repair_history(history)
    after = [i for i, m in enumerate(repaired) if m.role == "assistant"]
    missing = {(i, tool_id) for kind, i, tool_id in oracle(history) if kind == "missing_result"}
    orphans = [
        (i, r)
        for i, m in enumerate(history)
        for r in results(m)
        if ("orphan_result", i, r.tool_use_id) in oracle(history)
    ]
    for ordinal, i in enumerate(i for i, m in enumerate(history) if m.role == "assistant"):
        for call in uses(history[i]):
            if (i, call.id) not in missing:
                continue
            later = [r for j, r in orphans if j > i and r.tool_use_id == call.id]
            expected = later[0] if later else ToolResultBlock(call.id, INTERRUPTED_RESULT, True)
            answers = [r for r in results(repaired[after[ordinal] + 1]) if r.tool_use_id == call.id]
            assert answers == [expected]


# -- (c) both provider shapes ------------------------------------------------------------------


def openai_form(history: Sequence[HistoryMessage]) -> tuple[HistoryMessage, ...]:
    """The same history in the form OpenAI can carry (see harness.history.convert)."""
    out: list[HistoryMessage] = []
    for m in history:
        texts = [b for b in m.blocks if isinstance(b, TextBlock)]
        if m.role == "assistant":
            out.append(HistoryMessage("assistant", (*texts, *uses(m))))
            continue
        answers = [ToolResultBlock(r.tool_use_id, r.content) for r in results(m)]
        if out and out[-1].role == "user" and results(out[-1]) and not others(out[-1]):
            answers = [*results(out.pop()), *answers]  # tool messages then user text merge
        out.append(HistoryMessage("user", (*answers, *texts)))
    return tuple(out)


def without_is_error(history: Sequence[HistoryMessage]) -> tuple[HistoryMessage, ...]:
    return tuple(
        HistoryMessage(
            m.role,
            tuple(
                ToolResultBlock(b.tool_use_id, b.content) if isinstance(b, ToolResultBlock) else b
                for b in m.blocks
            ),
        )
        for m in history
    )


@pytest.mark.slow
@settings(max_examples=examples(200))
@given(histories())
def test_anthropic_shape_round_trips_and_validates_and_repairs_the_same(history):
    messages = to_anthropic(history)
    assert detect_shape(messages) == "anthropic"
    assert from_anthropic(messages) == history
    assert validate_history(messages) == validate_history(history)
    assert repair_history(messages) == to_anthropic(repair_history(history))


@pytest.mark.slow
@settings(max_examples=examples(200))
@given(histories().map(openai_form))
def test_openai_shape_round_trips_and_validates_the_same(history):
    messages = to_openai(history)
    assert from_openai(messages) == history
    problems = validate_history(messages)
    assert [(p.kind, p.tool_id) for p in problems] == [
        (p.kind, p.tool_id) for p in validate_history(history)
    ]
    for p in problems:  # indices point into the OpenAI list
        message = messages[p.message_index]
        if p.kind == "missing_result":
            assert message["role"] == "assistant"
            assert p.tool_id in [c["id"] for c in message["tool_calls"]]
        else:
            assert (message["role"], message["tool_call_id"]) == ("tool", p.tool_id)
    repaired = repair_history(messages)
    assert validate_history(repaired) == []
    # OpenAI cannot mark where tool results end and the next user message begins, so the two
    # are compared with adjacent user messages joined
    assert joined_users(from_openai(repaired)) == joined_users(
        without_is_error(repair_history(history))
    )


def joined_users(history: tuple[HistoryMessage, ...]) -> list[tuple[str, tuple[object, ...]]]:
    out: list[tuple[str, tuple[object, ...]]] = []
    for m in history:
        blocks = tuple(b for b in m.blocks if b != TextBlock(""))
        if out and m.role == "user" and out[-1][0] == "user":
            out[-1] = ("user", out[-1][1] + blocks)
        else:
            out.append((m.role, blocks))
    return out


def _anthropic_use(tool_id: str, name: str = "read", **arguments: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": name, "input": arguments}


def _anthropic_result(tool_id: str, content: str, is_error: bool = False) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": tool_id, "content": content, "is_error": is_error}


def _openai_call(tool_id: str, name: str = "read", arguments: str = "{}") -> dict[str, Any]:
    return {"id": tool_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def _tool(tool_id: str, content: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": tool_id, "content": content}


def kinds(messages: Any) -> list[tuple[str, int, str]]:
    return [(p.kind, p.message_index, p.tool_id) for p in validate_history(messages)]


def test_same_problems_at_each_shapes_own_indices():
    anthropic: Wire = [
        {"role": "user", "content": "Look at both."},
        {"role": "assistant", "content": [_anthropic_use("a"), _anthropic_use("b")]},
        {
            "role": "user",
            "content": [
                _anthropic_result("b", "B"),
                _anthropic_result("a", "A"),
                _anthropic_result("a", "A"),
                {"type": "text", "text": "and now?"},
            ],
        },
        {"role": "assistant", "content": [_anthropic_use("c")]},
        {"role": "assistant", "content": "done"},
        {"role": "user", "content": [_anthropic_result("c", "C")]},
    ]
    openai: Wire = [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "Look at both."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [_openai_call("a"), _openai_call("b")],
        },
        _tool("b", "B"),
        _tool("a", "A"),
        _tool("a", "A"),
        {"role": "user", "content": "and now?"},
        {"role": "assistant", "content": None, "tool_calls": [_openai_call("c")]},
        {"role": "assistant", "content": "done"},
        _tool("c", "C"),
    ]
    assert detect_shape(openai) == "openai"
    assert kinds(anthropic) == [
        ("duplicate_result", 2, "a"),
        ("missing_result", 3, "c"),
        ("orphan_result", 5, "c"),
    ]
    assert kinds(openai) == [
        ("duplicate_result", 5, "a"),
        ("missing_result", 7, "c"),
        ("orphan_result", 9, "c"),
    ]
    assert from_openai(openai) == from_anthropic(anthropic)  # the system message is left out
    assert repair_history(openai) == [
        *openai[:5],
        {"role": "user", "content": "and now?"},
        openai[7],
        _tool("c", "C"),  # moved to its call, before the assistant message that was in between
        openai[8],
    ]


def test_a_system_message_between_call_and_results_breaks_the_pairing():
    openai: Wire = [
        {"role": "assistant", "content": "", "tool_calls": [_openai_call("a")]},
        {"role": "developer", "content": "Reply in French."},
        _tool("a", "A"),
    ]
    assert kinds(openai) == [("missing_result", 0, "a"), ("orphan_result", 2, "a")]
    assert repair_history(openai) == [openai[0], _tool("a", "A"), openai[1]]


# -- hand cases from reported bugs (docker/docker-agent#2053 and others) -------------------------


def test_row_15_duplicated_tool_result():
    history: Wire = [
        {"role": "user", "content": "Run the tests."},
        {"role": "assistant", "content": [_anthropic_use("toolu_1", "bash", cmd="pytest")]},
        {
            "role": "user",
            "content": [
                _anthropic_result("toolu_1", "3 passed"),
                _anthropic_result("toolu_1", "3 passed"),
            ],
        },
    ]
    (problem,) = validate_history(history)
    assert (problem.kind, problem.message_index, problem.tool_id) == (
        "duplicate_result",
        2,
        "toolu_1",
    )
    assert problem.message == (
        "message 3 (user) answers tool_use 'toolu_1' of message 2 (assistant) a second time; "
        "an earlier tool_result in the same message already answers it"
    )
    assert repair_history(history) == [
        *history[:2],
        {"role": "user", "content": [_anthropic_result("toolu_1", "3 passed")]},
    ]


def test_row_18_interrupted_tool_use_gets_a_result_merged_into_the_next_user_message():
    history: Wire = [
        {"role": "user", "content": "Fetch it."},
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "On it."}, _anthropic_use("toolu_9")],
        },
        {"role": "user", "content": "Are you still there?"},
    ]
    assert kinds(history) == [("missing_result", 1, "toolu_9")]
    assert validate_history(history)[0].message == (
        "message 2 (assistant) calls 'read' as tool_use 'toolu_9', but the next, message 3 (user), "
        "has no tool_result for it"
    )
    assert repair_history(history) == [
        *history[:2],
        {
            "role": "user",
            "content": [
                _anthropic_result("toolu_9", INTERRUPTED_RESULT, True),
                {"type": "text", "text": "Are you still there?"},
            ],
        },
    ]


def test_row_18_interrupted_as_the_last_message_gets_a_new_user_message():
    history = _freeze(
        [("user", [TextBlock("Fetch it.")]), ("assistant", [ToolUseBlock("x", "fetch")])]
    )
    assert kinds(history) == [("missing_result", 1, "x")]
    assert repair_history(history) == (
        *history,
        HistoryMessage("user", (ToolResultBlock("x", INTERRUPTED_RESULT, True),)),
    )


def test_the_repair_merges_into_the_partial_results_instead_of_a_separate_message():
    # repairSequencing's bug: a synthetic message before the user message orphaned its results
    history = _freeze(
        [
            ("assistant", [ToolUseBlock("A", "read"), ToolUseBlock("B", "read")]),
            ("user", [ToolResultBlock("B", "b"), TextBlock("next")]),
        ]
    )
    assert kinds(history) == [("missing_result", 0, "A")]
    assert repair_history(history) == _freeze(
        [
            ("assistant", [ToolUseBlock("A", "read"), ToolUseBlock("B", "read")]),
            (
                "user",
                [
                    ToolResultBlock("B", "b"),
                    ToolResultBlock("A", INTERRUPTED_RESULT, True),
                    TextBlock("next"),
                ],
            ),
        ]
    )


def test_row_19_custom_message_between_tool_use_and_tool_result():
    history: Wire = [
        {"role": "user", "content": "Deploy."},
        {"role": "assistant", "content": [_anthropic_use("toolu_d", "deploy")]},
        {"role": "user", "content": "[needs attention] the deploy is waiting for approval"},
        {"role": "user", "content": [_anthropic_result("toolu_d", "deployed")]},
    ]
    assert kinds(history) == [("missing_result", 1, "toolu_d"), ("orphan_result", 3, "toolu_d")]
    orphan = validate_history(history)[1].message
    assert "the one before it, message 3 (user), is not the assistant message" in orphan
    assert "tool_use 'toolu_d' is in message 2 (assistant)" in orphan
    assert repair_history(history) == [
        *history[:2],
        {
            "role": "user",
            "content": [
                _anthropic_result("toolu_d", "deployed"),
                {"type": "text", "text": "[needs attention] the deploy is waiting for approval"},
            ],
        },
    ]


def test_row_19_parallel_results_split_across_user_messages():
    history = _freeze(
        [
            ("assistant", [ToolUseBlock("p1", "read"), ToolUseBlock("p2", "read")]),
            ("user", [ToolResultBlock("p1", "one")]),
            ("user", [ToolResultBlock("p2", "two", True)]),
        ]
    )
    assert kinds(history) == [("missing_result", 0, "p2"), ("orphan_result", 2, "p2")]
    assert repair_history(history) == _freeze(
        [
            ("assistant", [ToolUseBlock("p1", "read"), ToolUseBlock("p2", "read")]),
            ("user", [ToolResultBlock("p1", "one"), ToolResultBlock("p2", "two", True)]),
        ]
    )


def test_orphan_results_after_sub_agent_messages_leaked_into_the_parent():
    parent_call = _anthropic_use("tooluse_PD", "transfer_task", agent="fixer")
    history: Wire = [
        {"role": "user", "content": "Delegate the fix."},
        {"role": "assistant", "content": [parent_call]},
        # the sub-agent's stream, persisted into the parent session
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "Reading."}, _anthropic_use("tooluse_sub")],
        },
        {"role": "user", "content": [_anthropic_result("tooluse_sub", "file text")]},
        {"role": "assistant", "content": "The sub-agent is done."},
        {"role": "user", "content": [_anthropic_result("tooluse_PD", "fixed")]},
        {"role": "user", "content": "Thanks. Now run the tests."},
    ]
    assert kinds(history) == [
        ("missing_result", 1, "tooluse_PD"),
        ("orphan_result", 5, "tooluse_PD"),
    ]
    assert validate_history(history)[0].message.endswith(
        "but the next, message 3 (assistant), is not the user message with its tool_result"
    )
    repaired = repair_history(history)
    assert repaired == [
        *history[:2],
        {"role": "user", "content": [_anthropic_result("tooluse_PD", "fixed")]},
        *history[2:5],
        history[6],
    ]
    assert validate_history(repaired) == []


def test_an_orphan_moves_to_the_nearest_earlier_call_with_its_id():
    call = ToolUseBlock("x", "read")
    history = _freeze(
        [
            ("assistant", [call]),
            ("assistant", [TextBlock("again")]),
            ("assistant", [call]),
            ("user", [TextBlock("hm")]),
            ("user", [ToolResultBlock("x", "real")]),
        ]
    )
    assert kinds(history) == [
        ("missing_result", 0, "x"),
        ("missing_result", 2, "x"),
        ("orphan_result", 4, "x"),
    ]
    assert repair_history(history) == _freeze(
        [
            ("assistant", [call]),
            ("user", [ToolResultBlock("x", INTERRUPTED_RESULT, True)]),
            ("assistant", [TextBlock("again")]),
            ("assistant", [call]),
            ("user", [ToolResultBlock("x", "real"), TextBlock("hm")]),
        ]
    )


def test_plain_text_reads_as_either_shape_and_is_called_anthropic():
    plain: Wire = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "text", "text": "yo"}]},
    ]
    assert detect_shape(plain) == "anthropic"
    assert from_openai(plain) == from_anthropic(plain)
    assert detect_shape([{"role": "assistant", "content": None}]) == "openai"
    assert (
        detect_shape([{"role": "user", "content": [{"type": "thinking", "thinking": ""}]}])
        == "anthropic"
    )


def test_unknown_blocks_are_kept_by_a_repair():
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AA"}}
    history: Wire = [
        {
            "role": "assistant",
            "content": [{"type": "redacted_thinking", "data": "x"}, _anthropic_use("a")],
        },
        {"role": "user", "content": [image, {"type": "text", "text": "see"}]},
    ]
    assert kinds(history) == [("missing_result", 0, "a")]
    assert from_anthropic(history)[1] == HistoryMessage("user", (TextBlock("see"),))
    assert repair_history(history)[1]["content"] == [
        _anthropic_result("a", INTERRUPTED_RESULT, True),
        image,
        {"type": "text", "text": "see"},
    ]


# -- bad input ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("messages", "index", "words"),
    [
        (
            [{"role": "user", "content": "x"}, {"role": "robot", "content": "x"}],
            1,
            "unknown role 'robot'",
        ),
        ([{"role": "user", "content": 3}], 0, "'content' should be a string or a list"),
        (
            [{"role": "assistant", "content": [{"type": "tool_use", "name": "x", "input": {}}]}],
            0,
            "no 'id'",
        ),
        (
            [
                {
                    "role": "user",
                    "content": [{"type": "tool_use", "id": "a", "name": "x", "input": {}}],
                }
            ],
            0,
            "tool_use in a user message",
        ),
        (
            [{"role": "assistant", "content": None, "tool_calls": [_openai_call("c", "x", "")]}],
            0,
            "arguments are not JSON text",
        ),  # microsoft/autogen#5666
        ([{"role": "tool", "content": "x"}], 0, "no 'tool_call_id'"),
        (
            [
                {"role": "tool", "tool_call_id": "a", "content": "x"},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a"}]},
            ],
            1,
            "in the anthropic shape but message 0 is in the openai shape",
        ),
        (
            [{"role": "assistant", "content": [_anthropic_use("a"), _anthropic_use("a")]}],
            0,
            "share the id 'a'",
        ),
        (["hello"], 0, "is a string, not an object"),
    ],
)
def test_bad_input_names_the_message(messages, index, words):
    with pytest.raises(HistoryFormatError) as caught:
        validate_history(messages)
    assert caught.value.index == index
    assert words in str(caught.value) and str(caught.value).startswith(f"message {index}: ")


def test_conversions_refuse_what_the_other_shape_cannot_hold():
    with pytest.raises(HistoryFormatError, match="message 1: tool_use 'a': arguments are not JSON"):
        to_anthropic(
            _freeze([("user", [TextBlock("x")]), ("assistant", [ToolUseBlock("a", "x", "")])])
        )
    with pytest.raises(HistoryFormatError, match="message 0: tool_use 'a' is in a user message"):
        to_openai(_freeze([("user", [ToolUseBlock("a", "x")])]))
    with pytest.raises(HistoryFormatError, match="unknown role 'system'"):
        from_anthropic([{"role": "system", "content": "x"}])


# -- the command line --------------------------------------------------------------------------


def check(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["check-history", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path: Path, value: Any) -> str:
    path = tmp_path / "history.json"
    path.write_text(
        value if isinstance(value, str) else json.dumps(value, indent=1), encoding="utf-8"
    )
    return str(path)


def test_cli_valid_history_exits_0(tmp_path, capsys):
    openai: Wire = [
        {"role": "system", "content": "Be brief."},
        {"role": "assistant", "content": None, "tool_calls": [_openai_call("c1")]},
        _tool("c1", "ok"),
    ]
    path = write(tmp_path, {"model": "gpt", "messages": openai})
    assert check(capsys, path) == (
        0,
        f"{path}: valid openai history, 3 messages, tool pairing intact\n",
        "",
    )


def test_cli_problems_exit_1_one_line_each(tmp_path, capsys):
    path = write(
        tmp_path,
        [
            {"role": "assistant", "content": [_anthropic_use("a", "ls")]},
            {"role": "user", "content": [_anthropic_result("b", "x")]},
        ],
    )
    code, out, _ = check(capsys, path)
    assert code == 1
    assert out.splitlines() == [
        f"{path}: message 1 (assistant): missing_result: tool a: message 1 (assistant) calls 'ls' "
        "as tool_use 'a', but the next, message 2 (user), has no tool_result for it",
        f"{path}: message 2 (user): orphan_result: tool b: message 2 (user) holds a tool_result "
        "for 'b', but the one before it, message 1 (assistant), has no tool_use 'b'",
    ]


def test_cli_not_json_exits_2_with_line_and_column(tmp_path, capsys):
    path = write(tmp_path, '[\n  {"role": "user", "content": "x"},\n  ]\n')
    code, out, err = check(capsys, path)
    assert (code, out) == (2, "")
    assert err == f"{path}:3: error: not JSON: Expecting value (line 3, column 3)\n"


def test_cli_wrong_shape_exits_2(tmp_path, capsys):
    path = write(tmp_path, '{"model": "m", "messages": {"role": "user"}}')
    code, _, err = check(capsys, path)
    assert code == 2
    assert err == (
        f'{path}:1: error: expected a list of messages or an object with a "messages" list, '
        'got "messages" holding an object\n'
    )


def test_cli_unknown_role_exits_2_at_the_message_line(tmp_path, capsys):
    text = '{"messages": [\n  {"role": "user", "content": "x"},\n\n  {"role": "robot", "content": "x"}\n]}'
    path = write(tmp_path, text)
    code, _, err = check(capsys, path)
    assert code == 2
    assert err.startswith(f"{path}:4: error: message 1: unknown role 'robot'")
    assert "Traceback" not in err


def test_cli_missing_file_exits_2(tmp_path, capsys):
    code, _, err = check(capsys, str(tmp_path / "absent.json"))
    assert code == 2 and "cannot read" in err


def test_cli_repair_prints_the_same_shape_repaired(tmp_path, capsys):
    openai: Wire = [
        {"role": "user", "content": "Go."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [_openai_call("c1"), _openai_call("c2")],
        },
        _tool("c2", "two"),
        {"role": "user", "content": "Well?"},
    ]
    path = write(tmp_path, {"model": "gpt", "messages": openai})
    code, out, _ = check(capsys, path, "--repair")
    assert code == 0
    document = json.loads(out)
    assert document["model"] == "gpt"
    assert validate_history(document["messages"]) == []
    assert document["messages"] == [*openai[:3], _tool("c1", INTERRUPTED_RESULT), openai[3]]


@pytest.mark.parametrize(
    ("messages", "said"),
    [
        (  # OpenAI: the tool message after the user's text moves before it
            [
                {"role": "user", "content": "List it."},
                {"role": "assistant", "content": None, "tool_calls": [_openai_call("c1", "ls")]},
                {"role": "user", "content": "and also this"},
                _tool("c1", "a b"),
            ],
            "reordered message 3 (user): its text now comes after the tool message for 'c1' "
            "(moved from message 4 (tool))",
        ),
        (  # Anthropic: the result in the next message joins this one, before its text
            [
                {"role": "user", "content": "List it."},
                {"role": "assistant", "content": [_anthropic_use("t1", "ls")]},
                {"role": "user", "content": "and also this"},
                {"role": "user", "content": [_anthropic_result("t1", "a b")]},
            ],
            "reordered message 3 (user): its text now comes after the tool_result for 't1' "
            "(moved from message 4 (user))",
        ),
        (  # Anthropic: the result after the text, in the same message
            [
                {"role": "user", "content": "List it."},
                {"role": "assistant", "content": [_anthropic_use("t1", "ls")]},
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "and also this"},
                        _anthropic_result("t1", "a b"),
                    ],
                },
            ],
            "reordered message 3 (user): its text now comes after the tool_result for 't1'",
        ),
    ],
    ids=["openai-tool-message-after", "anthropic-result-in-next-message", "anthropic-same-message"],
)
def test_cli_repair_says_when_it_puts_the_users_text_after_results(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], messages: Wire, said: str
) -> None:
    path = write(tmp_path, messages)
    code, out, err = check(capsys, path, "--repair")
    assert code == 0 and json.loads(out) != messages
    assert f"{path}: {said}\n" in err, err


def test_cli_repair_that_moves_no_text_says_no_reorder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(
        tmp_path,
        [
            {"role": "assistant", "content": [_anthropic_use("t1", "ls")]},
            {
                "role": "user",
                "content": [_anthropic_result("t1", "a"), _anthropic_result("t1", "a")],
            },
        ],
    )
    _, _, err = check(capsys, path, "--repair")
    assert "duplicate_result" in err and "reordered" not in err


def test_a_result_after_the_users_text_is_reported_and_moved_first(tmp_path: Path) -> None:
    history = [
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "ls", "input": {}}],
        },
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "and also this"},
                {"type": "tool_result", "tool_use_id": "t1", "content": "a b"},
            ],
        },
    ]
    (problem,) = validate_history(history)
    assert (problem.kind, problem.message_index, problem.tool_id) == (
        "result_after_content",
        1,
        "t1",
    )
    repaired = repair_history(history)
    assert [b["type"] for b in repaired[1]["content"]] == ["tool_result", "text"]
    assert validate_history(repaired) == []
    path = tmp_path / "h.json"
    path.write_text(json.dumps(history))
    assert main(["check-history", str(path)]) == 1


def test_cli_speaks_of_an_openai_history_in_openai_terms(tmp_path, capsys):
    call = {"id": "call_1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
    path = write(
        tmp_path,
        [
            {"role": "user", "content": "list it"},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "call_1", "content": "a b"},
            {"role": "tool", "tool_call_id": "call_1", "content": "a b"},
            {"role": "tool", "tool_call_id": "call_9", "content": "?"},
        ],
    )
    code, out, _ = check(capsys, path)
    assert code == 1
    assert out.splitlines() == [
        f"{path}: message 4 (tool): duplicate_result: tool call_1: message 4 (tool) answers tool "
        "call 'call_1' of message 2 (assistant) a second time; message 3 (tool) already answers it",
        f"{path}: message 5 (tool): orphan_result: tool call_9: message 5 (tool) is a tool message "
        "for 'call_9', but the one before it, message 2 (assistant), has no tool call 'call_9'",
    ]
    assert "tool_use" not in out and "tool_result" not in out


def test_a_stored_history_whose_calls_share_an_id_is_a_malformed_observation():
    from harness.adapters.history.reference import ReferenceHistoryStore
    from harness.adapters.registry import AdapterInfo
    from harness.library import library_path
    from harness.replay import replay
    from harness.scenario import load_scenario

    class SameIds:
        """The reference store, showing every call of what it stored with one id."""

        def __init__(self) -> None:
            self.store = ReferenceHistoryStore()

        def __getattr__(self, name: str) -> Any:
            return getattr(self.store, name)

        def history(self, session_id: str) -> list[dict[str, Any]]:
            stored: list[dict[str, Any]] = copy.deepcopy(self.store.history(session_id))
            for message in stored:
                for block in cast(list[Any], message["content"]):
                    if isinstance(block, dict) and block.get("type") == "tool_use":
                        block["id"] = "toolu_same"
            return stored

    scenario = load_scenario(library_path() / "history" / "parallel-results-reverse-order.yaml")
    result = replay(scenario, AdapterInfo("same-ids", "history", "reference", SameIds))
    assert result.status == "error", result
    assert "two tool calls share the id 'toolu_same'" in (result.error or "")
    assert "history() or request()" in (result.error or "")
