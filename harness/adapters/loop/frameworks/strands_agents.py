"""Strands Agents' own agent loop: an ``Agent`` with the loop scenarios' tools, its events
consumed through ``Agent.stream_async``, over ``OpenAIModel`` (Chat Completions) or
``AnthropicModel``. Their clients are the SDKs' defaults, which read ``OPENAI_BASE_URL`` or
``ANTHROPIC_BASE_URL``, set by ``harness loop``.

    python -m harness.adapters.loop.frameworks.strands_agents [--model chat|anthropic] [--prompt TEXT]

Each tool is a module-style tool (its spec, and a function of the tool use) that echoes its
arguments; ``delegate`` runs a second agent (the same model and tools) on its task from inside
the tool, as Strands' agents-as-tools pattern does.
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

MODELS = ("chat", "anthropic")


def make_model(kind: str) -> Any:
    if kind == "anthropic":
        from strands.models.anthropic import AnthropicModel

        return AnthropicModel(model_id="claude-sonnet-4-5", max_tokens=1024)
    from strands.models.openai import OpenAIModel

    return OpenAIModel(model_id="gpt-5")


def make_agent(kind: str) -> Any:
    from strands import Agent
    from strands.tools import PythonAgentTool

    def spec(name: str) -> Any:
        return {
            "name": name,
            "description": tool_description(name),
            "inputSchema": {"json": tool_schema(name)},
        }

    def result(tool_use: Any, text: str) -> Any:
        return {
            "toolUseId": tool_use["toolUseId"],
            "status": "success",
            "content": [{"text": text}],
        }

    def echoing(tool_use: Any, **_: Any) -> Any:
        return result(tool_use, echo(tool_use["input"]))

    async def delegate(tool_use: Any, **_: Any) -> Any:
        task = str((tool_use["input"] or {}).get("task", ""))
        return result(tool_use, await run(make_agent(kind), task))

    tools = [PythonAgentTool(n, spec(n), echoing) for n in TOOLS if n != DELEGATE]
    tools.append(PythonAgentTool(DELEGATE, spec(DELEGATE), delegate))
    return Agent(model=make_model(kind), tools=tools, callback_handler=None)


async def run(agent: Any, prompt: str) -> str:
    """The agent's final answer, its events streamed as they come."""
    final: Any = None
    async for event in agent.stream_async(prompt):
        if "result" in event:
            final = event["result"]
    return str(final)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", choices=MODELS, default=MODELS[0])
    parser.add_argument("--prompt", default=PROMPT)
    args = parser.parse_args(argv)
    print(asyncio.run(run(make_agent(args.model), args.prompt)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
