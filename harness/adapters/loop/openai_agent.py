"""An agent loop over the ``openai`` SDK: Chat Completions (``client.chat.completions.stream``)
or the Responses API (``client.responses.stream``). Stream a turn, keep the calls the stream
completed, run them, send the turn and the results back, until a turn ends without calls. The
client reads ``OPENAI_BASE_URL`` and ``OPENAI_API_KEY``.

    python -m harness.adapters.loop.openai_agent [--api chat|responses] [--prompt TEXT] [--bug NAME]

In Chat Completions a call is complete when the next starts or the choice finishes; a choice
that finished for ``length`` was cut in its last call, which is left out. In the Responses API a
call is complete at its ``response.output_item.done``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from harness.adapters.loop._tools import MAX_TURNS, arguments, parsed, run_tool


class ChatConversation:
    """One Chat Completions conversation: its messages, and (for the ``pair-by-position`` bug)
    every call id it was given, in order."""

    def __init__(self, client: Any, model: str, bug: str | None) -> None:
        self.client = client
        self.model = model
        self.bug = bug
        self.messages: list[dict[str, Any]] = []
        self.ids: list[str] = []

    def run(self, prompt: str) -> str:
        self.messages.append({"role": "user", "content": prompt})
        for _ in range(MAX_TURNS):
            message, finish = self.stream()
            calls = list(message.tool_calls or [])
            if finish == "length" and calls and self.bug != "run-cut-call":
                calls = calls[:-1]  # the call the limit cut off is not the model's call
            if not calls or (self.bug == "text-ends-loop" and message.content):
                return message.content or ""
            self.messages.append(
                {
                    "role": "assistant",
                    "content": None if self.bug == "drop-text" else message.content,
                    "tool_calls": [
                        {
                            "id": call.id,
                            "type": "function",
                            "function": {
                                "name": call.function.name,
                                "arguments": call.function.arguments,
                            },
                        }
                        for call in calls
                    ],
                }
            )
            for n, call in enumerate(calls):
                self.ids.append(call.id)
                output = run_tool(
                    call.function.name, parsed(call.function.arguments), self.sub_agent
                )
                call_id = self.ids[n] if self.bug == "pair-by-position" else call.id
                self.messages.append({"role": "tool", "tool_call_id": call_id, "content": output})
        raise SystemExit(f"no turn without calls after {MAX_TURNS} turns")

    def stream(self) -> tuple[Any, str | None]:
        with self.client.chat.completions.stream(
            model=self.model, messages=self.messages
        ) as stream:
            for event in stream:
                if (
                    self.bug == "early-request"
                    and event.type == "chunk"
                    and event.chunk.choices
                    and event.chunk.choices[0].finish_reason
                ):
                    break
            choices = stream.current_completion_snapshot.choices
            cut = not choices or choices[0].finish_reason is None
            if cut and self.bug != "cut-body-ends-turn":
                # a body cut short: its last call may be cut too, so there is no turn to act on
                raise SystemExit("the response ended before its finish_reason: no turn to act on")
            return choices[0].message, choices[0].finish_reason

    def sub_agent(self, task: str) -> str:
        if self.bug == "subagent-in-parent":
            return self.run(task)  # the bug: the parent's own message list
        return ChatConversation(self.client, self.model, self.bug).run(task)


class ResponsesConversation:
    """One Responses API conversation: its input items, sent whole each time."""

    def __init__(self, client: Any, model: str, bug: str | None) -> None:
        self.client = client
        self.model = model
        self.bug = bug
        self.items: list[dict[str, Any]] = []

    def run(self, prompt: str) -> str:
        self.items.append({"role": "user", "content": prompt})
        for _ in range(MAX_TURNS):
            done, final = self.stream()
            output = final if self.bug == "run-cut-call" else done
            calls = [item for item in output if item["type"] == "function_call"]
            if not calls:
                return "".join(
                    part.get("text", "")
                    for item in output
                    if item["type"] == "message"
                    for part in item.get("content", [])
                )
            self.items.extend(output)
            for call in calls:
                result = run_tool(call["name"], parsed(call["arguments"]), self.sub_agent)
                self.items.append(
                    {"type": "function_call_output", "call_id": call["call_id"], "output": result}
                )
        raise SystemExit(f"no turn without calls after {MAX_TURNS} turns")

    def stream(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The output items that were done, and every item of the response's final output."""
        done: list[dict[str, Any]] = []
        final: list[dict[str, Any]] | None = None
        with self.client.responses.stream(model=self.model, input=self.items) as stream:
            for event in stream:
                if event.type == "response.output_item.done":
                    done.append(event.item.model_dump(mode="json", exclude_none=True))
                elif event.type in ("response.completed", "response.incomplete"):
                    final = [
                        i.model_dump(mode="json", exclude_none=True) for i in event.response.output
                    ]
        if final is None and self.bug == "cut-body-ends-turn":
            final = done
        if final is None:
            raise SystemExit("the response ended before it was completed: no turn to act on")
        return done, final

    def sub_agent(self, task: str) -> str:
        return ResponsesConversation(self.client, self.model, self.bug).run(task)


def main(argv: Sequence[str] | None = None) -> int:
    import openai

    args = arguments(argv, apis=("chat", "responses"))
    client = openai.OpenAI(max_retries=0)
    if args.api == "chat":
        chat = ChatConversation(client, args.model or "gpt-4o", args.bug)
        print(chat.run(args.prompt))
    else:
        responses = ResponsesConversation(client, args.model or "gpt-4.1", args.bug)
        print(responses.run(args.prompt))
    return 0


if __name__ == "__main__":
    sys.exit(main())
