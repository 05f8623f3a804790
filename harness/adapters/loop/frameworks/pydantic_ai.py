"""pydantic-ai's own agent loop: an ``Agent`` with the loop scenarios' tools, run by
``Agent.run_stream`` (the final text streamed as it comes) or ``Agent.run_stream_events``
(every event of the run), over ``OpenAIChatModel``, ``OpenAIResponsesModel`` or
``AnthropicModel``. Their clients read ``OPENAI_BASE_URL`` or ``ANTHROPIC_BASE_URL``, which
``harness loop`` sets; nothing else is configured.

    python -m harness.adapters.loop.frameworks.pydantic_ai [--model chat|responses|anthropic]
        [--api run_stream|run_stream_events] [--prompt TEXT]

Each tool echoes its arguments; ``delegate`` runs a second agent (the same model and tools) on
its task, the way pydantic-ai's documentation delegates: from inside the tool, with the parent's
usage.
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
    tool_description,
    tool_schema,
)

MODELS = ("chat", "responses", "anthropic")
MODEL_NAME = "gpt-5"
APIS = ("run_stream", "run_stream_events")


def make_model(kind: str) -> Any:
    if kind == "anthropic":
        from pydantic_ai.models.anthropic import AnthropicModel

        return AnthropicModel("claude-sonnet-4-5")
    from pydantic_ai.models.openai import OpenAIChatModel, OpenAIResponsesModel

    return (OpenAIChatModel if kind == "chat" else OpenAIResponsesModel)(MODEL_NAME)


def make_agent(kind: str, api: str) -> Any:
    from pydantic_ai import Agent, RunContext, Tool

    def echoing(name: str) -> Tool[Any]:
        def run(**arguments: Any) -> str:
            return echo(arguments)

        return Tool.from_schema(run, name, tool_description(name), tool_schema(name))

    async def delegate(ctx: RunContext[Any], task: str = "", **_: Any) -> str:
        return await run(make_agent(kind, api), api, task, usage=ctx.usage)

    tools = [echoing(name) for name in TOOLS if name != DELEGATE]
    tools.append(
        Tool.from_schema(
            delegate, DELEGATE, tool_description(DELEGATE), tool_schema(DELEGATE), takes_ctx=True
        )
    )
    return Agent(make_model(kind), tools=tools)


async def run(agent: Any, api: str, prompt: str, **options: Any) -> str:
    """The run's final text, as its user gets it through ``api``."""
    if api == "run_stream":
        async with agent.run_stream(prompt, **options) as result:
            async for _ in result.stream_text(delta=True):
                pass
            return str(await result.get_output())
    from pydantic_ai import AgentRunResultEvent

    output = ""
    async with agent.run_stream_events(prompt, **options) as events:
        async for event in events:
            if isinstance(event, AgentRunResultEvent):
                output = str(event.result.output)
    return output


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", choices=MODELS, default=MODELS[0])
    parser.add_argument("--api", choices=APIS, default=APIS[0])
    parser.add_argument("--prompt", default=PROMPT)
    args = parser.parse_args(argv)
    print(asyncio.run(run(make_agent(args.model, args.api), args.api, args.prompt)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
