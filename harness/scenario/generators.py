"""Deterministic generators that keep large traces short to write.

Each generator is a pure function of its arguments and a ``random.Random`` seeded by the
scenario, so the same scenario always expands to the same trace on every machine and worker.
"""

from __future__ import annotations

import functools
import itertools
import json
import random
from collections.abc import Iterator
from typing import Any

from harness.model import session as ev
from harness.model.trace import LazyRun

#: No scenario may expand to more events than this; asking for more is an input error.
MAX_EVENTS = 1_000_000

_WORDS = [
    "checking",
    "the",
    "workspace",
    "for",
    "the",
    "config",
    "file",
    "then",
    "reading",
    "the",
    "test",
    "output",
    "and",
    "summarising",
    "what",
    "changed",
    "in",
    "the",
    "build",
    "before",
    "running",
    "the",
    "delegated",
    "task",
    "again",
]
_WORD_BITS = len(_WORDS).bit_length()
#: each draw of ``_WORD_BITS`` bits to its word; None past the list (drawn again, as
#: ``random.choice`` does)
_WORD_AT: tuple[str | None, ...] = (*_WORDS, *[None] * (2**_WORD_BITS - len(_WORDS)))
#: events a burst makes before handing them on (a nested session hands on its own)
_CHUNK = 256
_TOOLS = ("workspace_read", "workspace_grep", "bash_command", "fetch_file", "web_search")


def split_text(text: str, chunks: int | None) -> list[str]:
    """Split text into ``chunks`` contiguous pieces (default: about three words a piece)."""
    if not text:
        return []
    if chunks is None:
        words = text.split(" ")
        pieces = [" ".join(words[i : i + 3]) for i in range(0, len(words), 3)]
        return [p + " " for p in pieces[:-1]] + [pieces[-1]]
    chunks = max(1, min(chunks, len(text)))
    size, extra = divmod(len(text), chunks)
    out, start = [], 0
    for i in range(chunks):
        end = start + size + (1 if i < extra else 0)
        out.append(text[start:end])
        start = end
    return out


def message_events(
    session_id: str,
    parent: str | None,
    message_id: str,
    role: ev.MessageRole,
    text: str,
    chunks: int | None,
    line: int,
) -> list[ev.SessionEvent]:
    return list(_message(session_id, parent, message_id, role, text, chunks, line))


def message_run(
    session_id: str,
    parent: str | None,
    message_id: str,
    role: ev.MessageRole,
    text: str,
    chunks: int | None,
    line: int,
) -> LazyRun:
    """``message_events`` made again on every pass: a long text keeps one copy, not its deltas."""
    args = (session_id, parent, message_id, role, text, chunks, line)
    return LazyRun(functools.partial(_message, *args), line)


def _message(
    session_id: str,
    parent: str | None,
    message_id: str,
    role: ev.MessageRole,
    text: str,
    chunks: int | None,
    line: int,
) -> Iterator[ev.SessionEvent]:
    kw: dict[str, Any] = {
        "session_id": session_id,
        "parent_session_id": parent,
        "message_id": message_id,
        "line": line,
    }
    yield ev.MessageStart(role=role, **kw)
    for piece in split_text(text, chunks):
        yield ev.MessageDelta(text=piece, **kw)
    yield ev.MessageEnd(**kw)


class _Burst:
    """Builds one sub-session's events: messages, tool calls, system notes, media, nesting."""

    def __init__(self, rng: random.Random, line: int, reuse_ids: tuple[str, ...]) -> None:
        self.rng = rng
        self.line = line
        self.reuse_ids = list(reuse_ids)

    def tool_id(self) -> str:
        if self.reuse_ids:
            return self.reuse_ids.pop(0)
        return f"toolu_{self.rng.getrandbits(48):012x}"

    def text(self, words: int) -> str:
        # rng.choice(_WORDS) inlined (the same draws: getrandbits, drawing again for what
        # is too big), as making a burst's text is most of what expanding it costs
        draw, word, bits = self.rng.getrandbits, _WORD_AT, _WORD_BITS
        out = []
        for _ in range(words):
            w = word[draw(bits)]
            while w is None:
                w = word[draw(bits)]
            out.append(w)
        return " ".join(out)

    def session(
        self, session_id: str, parent: str, budget: int, depth: int
    ) -> Iterator[ev.SessionEvent]:
        """Exactly ``budget`` events (at least 4) for one sub-session and its nested ones."""
        return itertools.chain.from_iterable(self._chunks(session_id, parent, budget, depth))

    def _chunks(
        self, session_id: str, parent: str, budget: int, depth: int
    ) -> Iterator[list[ev.SessionEvent]]:
        """``session``'s events a few hundred at a time: a nested session's events then pass
        up through its parents' generators once a chunk, not once an event."""
        # every event is made with its fields named outright (no ``**kw``): a million of
        # them are made on every pass over a long trace
        line, rng = self.line, self.rng
        sid, text = session_id, self.text
        random_, draw, word, bits = rng.random, rng.getrandbits, _WORD_AT, _WORD_BITS
        delta = ev.MessageDelta
        out: list[ev.SessionEvent] = []
        emit = out.append
        emit(ev.SubsessionStart(session_id=sid, parent_session_id=parent, line=line))
        emit(
            ev.InteractionStart(
                interaction_id=f"{sid}-i1", session_id=sid, parent_session_id=parent, line=line
            )
        )
        remaining = budget - 4
        open_calls: list[ev.ToolCall] = []
        messages = nested = 0
        while remaining > 0:
            if len(out) >= _CHUNK:
                yield out
                out = []
                emit = out.append
            roll = random_()
            if open_calls and (roll < 0.25 or remaining <= len(open_calls) + 1):
                call = open_calls.pop(0)
                emit(
                    ev.ToolCompleted(
                        calls=(call,),
                        results=(ev.ToolResult(call.id, f"{call.name} output: {text(4)}"),),
                        session_id=sid,
                        parent_session_id=parent,
                        line=line,
                    )
                )
                remaining -= 1
            elif roll < 0.55 and remaining >= 3:
                messages += 1
                # providers stream a delta every few tokens: dozens per message
                deltas = min(remaining - 2, rng.randint(4, 40))
                role: ev.MessageRole = "thought" if random_() < 0.3 else "assistant"
                message_id = f"{sid}-m{messages}"
                emit(
                    ev.MessageStart(
                        message_id=message_id,
                        role=role,
                        session_id=sid,
                        parent_session_id=parent,
                        line=line,
                    )
                )
                for _ in range(deltas):
                    # text(3) inlined: three words and a space
                    a = word[draw(bits)]
                    while a is None:
                        a = word[draw(bits)]
                    b = word[draw(bits)]
                    while b is None:
                        b = word[draw(bits)]
                    c = word[draw(bits)]
                    while c is None:
                        c = word[draw(bits)]
                    emit(
                        delta(
                            message_id=message_id,
                            text=f"{a} {b} {c} ",
                            session_id=sid,
                            parent_session_id=parent,
                            line=line,
                        )
                    )
                emit(
                    ev.MessageEnd(
                        message_id=message_id, session_id=sid, parent_session_id=parent, line=line
                    )
                )
                remaining -= deltas + 2
            elif roll < 0.75 and remaining >= 3 + len(open_calls):
                name = rng.choice(_TOOLS)
                args = json.dumps({"path": f"src/{text(1)}.py"})
                call = ev.ToolCall(self.tool_id(), name, args)
                emit(
                    ev.ToolSelect(
                        calls=(ev.ToolCall(call.id, name, ""),),
                        session_id=sid,
                        parent_session_id=parent,
                        line=line,
                    )
                )
                emit(
                    ev.ToolExecuting(
                        calls=(call,), session_id=sid, parent_session_id=parent, line=line
                    )
                )
                open_calls.append(call)
                remaining -= 2
            elif depth > 1 and roll < 0.80 and remaining >= 40:
                nested += 1
                size = rng.randint(20, max(20, remaining // 3))
                if out:  # what came before the nested session, first
                    yield out
                    out = []
                    emit = out.append
                yield from self._chunks(f"{sid}/sub-{nested}", sid, size, depth - 1)
                remaining -= size
            elif roll < 0.90:
                emit(
                    ev.SystemMessage(
                        severity="info",
                        text=text(5),
                        session_id=sid,
                        parent_session_id=parent,
                        line=line,
                    )
                )
                remaining -= 1
            else:
                emit(
                    ev.Media(
                        content_type="text/html",
                        content=f"<p>{text(3)}</p>",
                        session_id=sid,
                        parent_session_id=parent,
                        line=line,
                    )
                )
                remaining -= 1
        for call in open_calls:  # only reached when the budget ran out exactly
            emit(
                ev.ToolCompleted(
                    calls=(call,),
                    results=(ev.ToolResult(call.id, "ok"),),
                    session_id=sid,
                    parent_session_id=parent,
                    line=line,
                )
            )
        emit(
            ev.InteractionEnd(
                interaction_id=f"{sid}-i1", session_id=sid, parent_session_id=parent, line=line
            )
        )
        emit(ev.SubsessionEnd(session_id=sid, parent_session_id=parent, line=line))
        yield out


def burst_events(
    session_id: str,
    parent: str,
    events: int,
    seed: int,
    depth: int,
    reuse_ids: tuple[str, ...],
    line: int,
) -> list[ev.SessionEvent]:
    """A sub-session of about ``events`` realistic events, the same for the same seed."""
    return list(_burst(session_id, parent, events, seed, depth, reuse_ids, line))


def burst_run(
    session_id: str,
    parent: str,
    events: int,
    seed: int,
    depth: int,
    reuse_ids: tuple[str, ...],
    line: int,
) -> LazyRun:
    """``burst_events`` made again from its seed on every pass instead of being kept."""
    args = (session_id, parent, events, seed, depth, reuse_ids, line)
    return LazyRun(functools.partial(_burst, *args), line)


def _burst(
    session_id: str,
    parent: str,
    events: int,
    seed: int,
    depth: int,
    reuse_ids: tuple[str, ...],
    line: int,
) -> Iterator[ev.SessionEvent]:
    builder = _Burst(random.Random(seed), line, reuse_ids)
    return builder.session(session_id, parent, max(events, 4), depth)
