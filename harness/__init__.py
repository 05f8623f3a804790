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
from harness.codecs import Codec, register_codec, unregister_codec
from harness.model.driver import (
    ArgumentsDelta,
    BlockStart,
    BlockStop,
    CycleDelta,
    CycleStart,
    CycleStop,
    DriverOutput,
    Ping,
    Refusal,
    TextDelta,
    TextOut,
    ThinkingDelta,
    ToolCallOut,
    TurnEnd,
    TurnEvent,
    WireChunk,
)
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
from harness.wire import WireError

__all__ = [
    "BUNDLED",
    "DEFAULT_TIMEOUT",
    "MAX_EVENTS",
    "RULES",
    "AdapterError",
    "AdapterInfo",
    "ArgumentsDelta",
    "AsyncDriverAdapter",
    "AsyncHistoryAdapter",
    "AsyncSessionAdapter",
    "AttachedCall",
    "BlockStart",
    "BlockStop",
    "Codec",
    "ConformanceFailure",
    "CycleDelta",
    "CycleStart",
    "CycleStop",
    "DriverAdapter",
    "DriverOutput",
    "HarnessError",
    "HistoryAdapter",
    "Message",
    "MessageUpdate",
    "Notification",
    "Ping",
    "Problem",
    "ReferenceSessionConsumer",
    "Refusal",
    "Rule",
    "Scenario",
    "ScenarioError",
    "ScenarioResult",
    "SessionAdapter",
    "SessionView",
    "TextDelta",
    "TextOut",
    "ThinkingDelta",
    "ToolCallOut",
    "ToolStream",
    "Transcript",
    "TurnEnd",
    "TurnEvent",
    "UsageError",
    "Violation",
    "WireChunk",
    "WireError",
    "discover",
    "load_all",
    "load_scenario",
    "parse_scenario",
    "register_codec",
    "replay",
    "resolve_adapter",
    "unregister_codec",
]
