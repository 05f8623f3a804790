"""Agent loops over HTTP: what a response's stream told a client, and what the client sent.

A loop scenario serves a program one response per request, each a canonical turn
(``harness.model.driver``). ``streamed_turn`` says what a response's stream told the client: the
assistant turn a correct loop sends back (its text, its thinking, the calls the stream completed)
and the calls it did not complete (cut by ``max_tokens``, or by a failed stream), which it must
neither run nor send back. ``LoopRequest`` is one request as the stand-in received it, and when.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from harness.model import driver as dv


@dataclass(frozen=True, slots=True)
class StreamedCall:
    """A tool call as the stream told it: ``complete`` when its block stopped before the stream
    ended (else its ``arguments`` are the fragments that came)."""

    id: str
    name: str
    arguments: str
    complete: bool


@dataclass(frozen=True, slots=True)
class StreamedTurn:
    """What one response's stream told a client.

    ``thinking`` holds each thinking block's text and the signature the dialect carried for it
    (``""`` where it carries none); ``failed`` says the stream ended before its final stop (the
    server's error, or a body cut short), so the turn has no end.
    """

    text: str
    thinking: tuple[tuple[str, str], ...]
    calls: tuple[StreamedCall, ...]
    stop_reason: str | None
    failed: bool

    @property
    def completed(self) -> tuple[StreamedCall, ...]:
        return tuple(c for c in self.calls if c.complete)

    @property
    def incomplete(self) -> tuple[StreamedCall, ...]:
        return tuple(c for c in self.calls if not c.complete)

    @property
    def at_limit(self) -> bool:
        """The message stopped at the token limit (max_tokens): the loop may go on without the
        calls the limit cut, or stop there and tell its user, who raises the limit (Anthropic's
        stop-reason guidance for max_tokens: "raise max_tokens or continue the response")."""
        return not self.failed and self.stop_reason == "max_tokens"

    @property
    def expects_next(self) -> bool:
        """A turn that ended with calls it completed: the loop runs them and sends their
        results in its next request."""
        return not self.failed and bool(self.completed)


def streamed_turn(
    turn: Sequence[dv.TurnEvent], *, told: int | None = None, signatures: Sequence[str] = ()
) -> StreamedTurn:
    """What a client was told by the events of ``turn`` up to index ``told`` (all of them when
    None: a body cut short tells only part of the turn); ``signatures`` are the thinking
    blocks' signatures, in order, as the dialect sent them.

    >>> from harness.model import driver as dv
    >>> turn = [dv.CycleStart(message_id="m"), dv.BlockStart(index=0, block="tool_use", id="c",
    ...     name="f"), dv.ArgumentsDelta(index=0, fragment='{"a": 1'), dv.CycleDelta(
    ...     stop_reason="max_tokens"), dv.CycleStop()]
    >>> streamed_turn(turn).incomplete[0].id
    'c'
    """
    events = list(turn if told is None else turn[: told + 1])
    text: list[str] = []
    thinking: dict[int, list[str]] = {}
    calls: dict[int, list[str]] = {}
    headers: dict[int, tuple[str, str]] = {}
    stopped: set[int] = set()
    reason: str | None = None
    ended = False
    for event in events:
        if isinstance(event, dv.BlockStart):
            if event.block == "tool_use":
                headers[event.index] = (event.id, event.name)
                calls[event.index] = []
            elif event.block == "thinking":
                thinking[event.index] = []
        elif isinstance(event, dv.TextDelta):
            text.append(event.text)
        elif isinstance(event, dv.ThinkingDelta) and event.index in thinking:
            thinking[event.index].append(event.text)
        elif isinstance(event, dv.ArgumentsDelta) and event.index in calls:
            calls[event.index].append(event.fragment)
        elif isinstance(event, dv.BlockStop):
            stopped.add(event.index)
        elif isinstance(event, dv.CycleDelta):
            reason = event.stop_reason
        elif isinstance(event, dv.CycleStop):
            ended = True
        elif isinstance(event, dv.StreamError):
            ended = False
            break
    failed = not ended
    signed = list(signatures)
    thoughts = tuple(
        ("".join(parts), signed[n] if n < len(signed) else "")
        for n, parts in enumerate(thinking[k] for k in sorted(thinking))
    )
    return StreamedTurn(
        text="".join(text),
        thinking=thoughts,
        calls=tuple(
            StreamedCall(*headers[k], "".join(calls[k]), k in stopped) for k in sorted(calls)
        ),
        stop_reason=reason,
        failed=failed,
    )


@dataclass(frozen=True, slots=True)
class LoopRequest:
    """One request the stand-in received while serving a loop scenario.

    ``number`` counts requests from 1 in the order they arrived; ``response`` is the scenario's
    response it was served (its index from 0), or None when it got an error answer instead
    (``refused`` says why: no response was left, ``extra``, or it was not a request of the
    dialect).
    ``after`` is the response served last before it arrived (None: none was), and ``early``
    says that response had not yet sent its last event.
    """

    number: int
    method: str
    path: str
    body: bytes
    response: int | None
    early: bool = False
    refused: str = ""
    #: it came after every response of the scenario was served
    extra: bool = False
    after: int | None = None

    @property
    def label(self) -> str:
        return f"request {self.number} ({self.method} {self.path})"


@dataclass(frozen=True, slots=True)
class ProgramOutcome:
    """How the program under test ended: its exit status (None when it had to be stopped),
    whether it overran its time limit, and the end of what it printed."""

    status: int | None
    timed_out: bool
    seconds: float
    output: str = ""
