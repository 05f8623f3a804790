"""The OpenAI Agents SDK's own agent loop: an ``Agent`` with the loop scenarios' tools, run by
``Runner.run_streamed`` (its events consumed as they come), over ``OpenAIChatCompletionsModel``
or the SDK's default, ``OpenAIResponsesModel``. The client is the SDK's default ``AsyncOpenAI``,
which reads ``OPENAI_BASE_URL``, set by ``harness loop``.

    python -m harness.adapters.loop.frameworks.openai_agents [--model chat|responses] [--prompt TEXT]

Each tool echoes its arguments; ``delegate`` is a second agent (the same model and tools) made a
tool with ``Agent.as_tool``, the SDK's agents-as-tools pattern, its nested run streamed too.
Tracing is turned off: its exporter would post every run to api.openai.com.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from typing import Any

from harness.adapters.loop._tools import (
    DELEGATE,
    PROMPT,
    TOOLS,
    echo,
    parsed,
    tool_description,
    tool_schema,
)

MODELS = ("chat", "responses")
#: a reasoning model: the loop scenarios stream thinking, which the SDK sends back for one
MODEL_NAME = "gpt-5"


def make_agent(kind: str, *, depth: int = 0) -> Any:
    from agents import Agent, FunctionTool, OpenAIChatCompletionsModel
    from openai import AsyncOpenAI
    from pydantic import BaseModel

    class Delegated(BaseModel):
        task: str

    def echoing(name: str) -> FunctionTool:
        async def run(_context: Any, arguments: str) -> str:
            return echo(parsed(arguments))

        return FunctionTool(
            name=name,
            description=tool_description(name),
            params_json_schema=tool_schema(name),
            on_invoke_tool=run,
            strict_json_schema=False,
        )

    async def streamed(_event: Any) -> None:
        pass  # the nested run streams, as the parent's does

    tools: list[Any] = [echoing(name) for name in TOOLS if name != DELEGATE]
    if depth == 0:
        tools.append(
            make_agent(kind, depth=1).as_tool(
                tool_name=DELEGATE,
                tool_description=tool_description(DELEGATE),
                parameters=Delegated,
                on_stream=streamed,
            )
        )
    model = OpenAIChatCompletionsModel(MODEL_NAME, AsyncOpenAI()) if kind == "chat" else MODEL_NAME
    return Agent(name="researcher" if depth else "assistant", model=model, tools=tools)


async def run(kind: str, prompt: str) -> str:
    from agents import Runner

    result = Runner.run_streamed(make_agent(kind), prompt)
    async for _ in result.stream_events():
        pass
    return str(result.final_output)


def main(argv: Sequence[str] | None = None) -> int:
    from agents import set_tracing_disabled

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", choices=MODELS, default=MODELS[0])
    parser.add_argument("--prompt", default=PROMPT)
    args = parser.parse_args(argv)
    set_tracing_disabled(True)
    print(asyncio.run(run(args.model, args.prompt)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
