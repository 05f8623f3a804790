"""What the strands scripts share (the matrix's strands loop): the model endpoint on loopback,
and Strands' agent loop, Agent.stream_async, over it."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from pathlib import Path
from typing import Any

sys.path.append(str(Path(__file__).resolve().parents[1]))  # the modules the folders share

from _loop_server import serving

__all__ = ["run_agent", "serving"]

#: the tools the loop scenarios call, each with its parameters (every one a string, none
#: required, others allowed: no call is turned down for its schema's sake)
TOOLS = {"read_file": ("path",), "write_file": ("path", "text")}


def run_agent(kind: str, base_url: str, ran: list[tuple[str, Any]], prompt: str = "Begin.") -> str:
    """The agent's final answer through Agent.stream_async, its events consumed as they come,
    over ``kind``'s model ("chat": OpenAIModel, "anthropic": AnthropicModel) at ``base_url``;
    each tool appends (its name, its input) to ``ran`` and answers the input as JSON. Strands'
    warnings are printed, as an application's logging would show them."""
    from strands import Agent
    from strands.tools import PythonAgentTool

    logging.basicConfig(level=logging.WARNING, format="log: %(name)s: %(message)s")
    if kind == "anthropic":
        from strands.models.anthropic import AnthropicModel

        model: Any = AnthropicModel(
            client_args={"base_url": base_url, "api_key": "x"},
            model_id="claude-sonnet-4-5",
            max_tokens=1024,
        )
    else:
        from strands.models.openai import OpenAIModel

        model = OpenAIModel(client_args={"base_url": base_url, "api_key": "x"}, model_id="gpt-5")

    def tool(name: str) -> Any:
        def echoing(tool_use: Any, **_: Any) -> Any:
            ran.append((name, tool_use["input"]))
            text = json.dumps(tool_use["input"], sort_keys=True)
            return {"toolUseId": tool_use["toolUseId"], "status": "success", "content": [{"text": text}]}

        spec = {
            "name": name,
            "description": f"The {name} tool: it echoes its arguments.",
            "inputSchema": {
                "json": {
                    "type": "object",
                    "properties": {p: {"type": "string"} for p in TOOLS[name]},
                    "additionalProperties": True,
                }
            },
        }
        return PythonAgentTool(name, spec, echoing)

    agent = Agent(model=model, tools=[tool(name) for name in TOOLS], callback_handler=None)

    async def go() -> str:
        final: Any = None
        async for event in agent.stream_async(prompt):
            if "result" in event:
                final = event["result"]
        return str(final)

    return asyncio.run(go())
