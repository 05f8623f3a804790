"""pydantic-ai's own agent loop over a model endpoint on loopback (the pydantic-ai-run-stream
and pydantic-ai-run-stream-events folders read through it): an ``Agent`` whose tools echo their
arguments, run by ``Agent.run_stream`` or ``Agent.run_stream_events`` as an application would."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from pydantic_ai import Agent, AgentRunResultEvent, Tool

#: the tools the loop scenarios call, each with its parameters (every one a string, none
#: required, others allowed: no call is turned down for its schema's sake)
TOOLS = {"read_file": ("path",), "write_file": ("path", "text")}


def agent(kind: str, base_url: str, ran: list[tuple[str, Any]]) -> Agent:
    """An agent over ``kind``'s model ("chat", "responses" or "anthropic") at ``base_url``,
    each of whose tools appends (its name, its arguments) to ``ran`` and answers them as JSON."""
    if kind == "anthropic":
        from pydantic_ai.models.anthropic import AnthropicModel
        from pydantic_ai.providers.anthropic import AnthropicProvider

        model: Any = AnthropicModel(
            "claude-sonnet-4-5", provider=AnthropicProvider(base_url=base_url, api_key="x")
        )
    else:
        from pydantic_ai.models.openai import OpenAIChatModel, OpenAIResponsesModel
        from pydantic_ai.providers.openai import OpenAIProvider

        chosen = OpenAIChatModel if kind == "chat" else OpenAIResponsesModel
        model = chosen("gpt-5", provider=OpenAIProvider(base_url=base_url, api_key="x"))

    def echoing(name: str) -> Tool[Any]:
        def run(**arguments: Any) -> str:
            ran.append((name, arguments))
            return json.dumps(arguments, sort_keys=True)

        schema = {
            "type": "object",
            "properties": {p: {"type": "string"} for p in TOOLS[name]},
            "additionalProperties": True,
        }
        return Tool.from_schema(run, name, f"The {name} tool: it echoes its arguments.", schema)

    return Agent(model, tools=[echoing(name) for name in TOOLS])


def run_stream(agent: Agent, prompt: str = "Begin.") -> str:
    """The run's output through Agent.run_stream, its text streamed as it comes."""

    async def run() -> str:
        async with agent.run_stream(prompt) as result:
            async for _ in result.stream_text(delta=True):
                pass
            return str(await result.get_output())

    return asyncio.run(run())


def run_stream_events(agent: Agent, prompt: str = "Begin.") -> str:
    """The run's output through Agent.run_stream_events, every event consumed."""

    async def run() -> str:
        output = ""
        async with agent.run_stream_events(prompt) as events:
            async for event in events:
                if isinstance(event, AgentRunResultEvent):
                    output = str(event.result.output)
        return output

    return asyncio.run(run())
