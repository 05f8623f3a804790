"""Persisted histories in provider shapes: conversion, and tool pairing checked and repaired.

>>> from harness.history import repair_history, validate_history
>>> history = [
...     {"role": "assistant", "content": None, "tool_calls": [
...         {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}]},
...     {"role": "user", "content": "still there?"},
... ]
>>> [(p.kind, p.message_index, p.tool_id) for p in validate_history(history)]
[('missing_result', 0, 'c1')]
>>> validate_history(repair_history(history))
[]
"""

from harness.history.convert import (
    HistoryDocument,
    HistoryFormatError,
    Shape,
    detect_shape,
    from_anthropic,
    from_openai,
    parse_history_json,
    to_anthropic,
    to_openai,
)
from harness.history.validate import (
    INTERRUPTED_RESULT,
    MessageNames,
    PairingProblem,
    ProblemKind,
    repair_history,
    validate_history,
)

__all__ = [
    "INTERRUPTED_RESULT",
    "HistoryDocument",
    "HistoryFormatError",
    "MessageNames",
    "PairingProblem",
    "ProblemKind",
    "Shape",
    "detect_shape",
    "from_anthropic",
    "from_openai",
    "parse_history_json",
    "repair_history",
    "to_anthropic",
    "to_openai",
    "validate_history",
]
