"""What the openai-agents scripts read through: the Chat Completions body builders and the Agents
SDK's Chat Completions model over a body, shared with openai-agents-buffered; and, for the
scripts of the SDK's agent loop (the matrix's openai-agents loop), the model endpoint on
loopback and Runner.run_streamed over it."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

sys.path.append(str(Path(__file__).resolve().parents[1]))  # the modules the folders share

from _agents_sdk import function_calls, stream_response
from _chat_wire import ROLE, body, call
from _loop_server import serving

__all__ = ["ROLE", "body", "call", "function_calls", "run_streamed", "serving", "stream_response"]

#: the tools the loop scenarios call, each with its parameters (every one a string, none
#: required, others allowed: no call is turned down for its schema's sake)
TOOLS = {"read_file": ("path",), "write_file": ("path", "text")}


def run_streamed(base_url: str, ran: list[tuple[str, str]], prompt: str = "Begin.") -> str:
    """The final output of Runner.run_streamed, its events consumed as they come, for an agent
    over OpenAIChatCompletionsModel at ``base_url`` whose tools each append (their name, the
    arguments as the SDK hands them over) to ``ran`` and answer them as JSON."""
    from agents import Agent, FunctionTool, OpenAIChatCompletionsModel, Runner
    from agents import set_tracing_disabled
    from openai import AsyncOpenAI

    set_tracing_disabled(True)  # its exporter would post every run to api.openai.com

    def echoing(name: str) -> FunctionTool:
        async def run(_context: Any, arguments: str) -> str:
            ran.append((name, arguments))
            try:
                return json.dumps(json.loads(arguments), sort_keys=True)
            except ValueError:
                return arguments

        schema = {
            "type": "object",
            "properties": {p: {"type": "string"} for p in TOOLS[name]},
            "additionalProperties": True,
        }
        return FunctionTool(
            name=name,
            description=f"The {name} tool: it echoes its arguments.",
            params_json_schema=schema,
            on_invoke_tool=run,
            strict_json_schema=False,
        )

    model = OpenAIChatCompletionsModel("gpt-5", AsyncOpenAI(base_url=base_url, api_key="x"))
    agent = Agent(name="assistant", model=model, tools=[echoing(name) for name in TOOLS])

    async def go() -> str:
        result = Runner.run_streamed(agent, prompt)
        async for _ in result.stream_events():
            pass
        return str(result.final_output)

    return asyncio.run(go())
