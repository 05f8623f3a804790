"""An agent loop over the ``anthropic`` SDK's ``client.messages.stream``: stream a turn, keep the
calls whose blocks stopped, run them, send the turn and the results back, until a turn ends
without calls. The client reads ``ANTHROPIC_BASE_URL`` and ``ANTHROPIC_API_KEY``.

    python -m harness.adapters.loop.anthropic_agent [--prompt TEXT] [--bug NAME]
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from harness.adapters.loop._tools import MAX_TURNS, arguments, run_tool


class Conversation:
    """One conversation with the model: its messages, and (for the ``pair-by-position`` bug)
    every call id it was given, in order."""

    def __init__(self, client: Any, model: str, bug: str | None) -> None:
        self.client = client
        self.model = model
        self.bug = bug
        self.messages: list[dict[str, Any]] = []
        self.ids: list[str] = []

    def run(self, prompt: str) -> str:
        """The conversation from ``prompt`` to a turn without calls; its final text."""
        self.messages.append({"role": "user", "content": prompt})
        for _ in range(MAX_TURNS):
            message, stopped = self.stream()
            content, calls = self.assistant_content(message, stopped)
            if not calls:
                return "".join(b.text for b in message.content if b.type == "text")
            self.messages.append({"role": "assistant", "content": content})
            results = []
            for n, call in enumerate(calls):
                self.ids.append(call.id)
                output = run_tool(call.name, call.input, self.sub_agent)
                tool_use_id = self.ids[n] if self.bug == "pair-by-position" else call.id
                results.append(
                    {"type": "tool_result", "tool_use_id": tool_use_id, "content": output}
                )
            if self.bug == "text-before-results":
                results.insert(0, {"type": "text", "text": "Here are the results."})
            self.messages.append({"role": "user", "content": results})
        raise SystemExit(f"no turn without calls after {MAX_TURNS} turns")

    def stream(self) -> tuple[Any, set[int]]:
        """One turn: the message as streamed, and the indices of the blocks that stopped. A
        stream that ends before its ``message_stop`` (a body cut short) is a failure, not a
        turn to act on."""
        stopped: set[int] = set()
        ended = False
        with self.client.messages.stream(
            model=self.model, max_tokens=1024, messages=self.messages
        ) as stream:
            for event in stream:
                if event.type == "content_block_stop":
                    stopped.add(event.index)
                elif event.type == "message_stop":
                    ended = True
                elif event.type == "message_delta" and self.bug == "early-request":
                    ended = True
                    break
            if not ended and self.bug != "cut-body-ends-turn":
                raise SystemExit("the response ended before its message_stop: no turn to act on")
            return stream.current_message_snapshot, stopped

    def assistant_content(
        self, message: Any, stopped: set[int]
    ) -> tuple[list[dict[str, Any]], list[Any]]:
        """The turn to send back, and the calls to run: a tool_use whose block did not stop
        (max_tokens cut it) is not the model's call."""
        content: list[dict[str, Any]] = []
        calls = []
        for index, block in enumerate(message.content):
            if block.type == "text" and block.text:
                content.append({"type": "text", "text": block.text})
            elif block.type == "thinking" and self.bug != "drop-thinking":
                content.append(
                    {"type": "thinking", "thinking": block.thinking, "signature": block.signature}
                )
            elif block.type == "tool_use" and (index in stopped or self.bug == "run-cut-call"):
                content.append(
                    {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
                )
                calls.append(block)
        return content, calls

    def sub_agent(self, task: str) -> str:
        if self.bug == "subagent-in-parent":
            return self.run(task)  # the bug: the parent's own message list
        return Conversation(self.client, self.model, self.bug).run(task)


def main(argv: Sequence[str] | None = None) -> int:
    import anthropic

    args = arguments(argv)
    client = anthropic.Anthropic(max_retries=0)
    answer = Conversation(client, args.model or "claude-sonnet-4-6", args.bug).run(args.prompt)
    print(answer)
    return 0


if __name__ == "__main__":
    sys.exit(main())
