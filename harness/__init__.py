"""Record/replay conformance harness for code that consumes streaming agent event streams.

>>> from harness import load_scenario, replay
>>> result = replay(load_scenario("scenarios/session/backward-attachment-basic.yaml"), "session-reference")
>>> result.status
'pass'
"""

from harness._errors import (
    AdapterError,
    ConformanceFailure,
    HarnessError,
    Problem,
    ScenarioError,
    UsageError,
)
from harness.adapters import BUNDLED, AdapterInfo, ReferenceSessionConsumer, resolve_adapter
from harness.adapters.protocol import (
    AsyncDriverAdapter,
    AsyncHistoryAdapter,
    AsyncSessionAdapter,
    DriverAdapter,
    HistoryAdapter,
    SessionAdapter,
)
from harness.model.driver import DriverOutput, TextOut, ToolCallOut, TurnEnd
from harness.model.observation import (
    AttachedCall,
    Message,
    MessageUpdate,
    Notification,
    SessionView,
    ToolStream,
    Transcript,
)
from harness.replay import DEFAULT_TIMEOUT, ScenarioResult, replay
from harness.rules import RULES, Rule, Violation
from harness.scenario import MAX_EVENTS, Scenario, discover, load_all, load_scenario, parse_scenario

__all__ = [
    "BUNDLED",
    "DEFAULT_TIMEOUT",
    "MAX_EVENTS",
    "RULES",
    "AdapterError",
    "AdapterInfo",
    "AsyncDriverAdapter",
    "AsyncHistoryAdapter",
    "AsyncSessionAdapter",
    "AttachedCall",
    "ConformanceFailure",
    "DriverAdapter",
    "DriverOutput",
    "HarnessError",
    "HistoryAdapter",
    "Message",
    "MessageUpdate",
    "Notification",
    "Problem",
    "ReferenceSessionConsumer",
    "Rule",
    "Scenario",
    "ScenarioError",
    "ScenarioResult",
    "SessionAdapter",
    "SessionView",
    "TextOut",
    "ToolCallOut",
    "ToolStream",
    "Transcript",
    "TurnEnd",
    "UsageError",
    "Violation",
    "discover",
    "load_all",
    "load_scenario",
    "parse_scenario",
    "replay",
    "resolve_adapter",
]
