"""What llama-index's LLM classes hand a FunctionAgent (llama-index-openai and
llama-index-anthropic read through it)."""

from __future__ import annotations

from typing import Any

from llama_index.core.tools import FunctionTool


def streamed_calls(llm: Any, tool: str, **options: Any) -> tuple[list[Any], list[Any]]:
    """Every response ``llm.stream_chat_with_tools`` streams with one tool named ``tool``, and
    the calls of the last one (those FunctionAgent runs) as (tool_id, tool_name, tool_kwargs)."""
    function = FunctionTool.from_defaults(lambda path: path, name=tool, description="A tool.")
    responses = list(llm.stream_chat_with_tools([function], user_msg="go", **options))
    if not responses:
        return responses, []
    calls = llm.get_tool_calls_from_response(responses[-1], error_on_no_tool_call=False)
    return responses, [(c.tool_id, c.tool_name, c.tool_kwargs) for c in calls]
