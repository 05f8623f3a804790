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
from harness._registry import Registry as _Registry
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
    UNKNOWN_REASON,
    ArgumentsDelta,
    BlockStart,
    BlockStop,
    CycleDelta,
    CycleStart,
    CycleStop,
    DriverOutput,
    ErrorReport,
    Ping,
    Refusal,
    StreamError,
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
from harness.replay import DEFAULT_TIMEOUT, ScenarioResult, cases_to_run, replay, run_cases
from harness.rules import RULES, Finding, Rule, Violation, rule
from harness.rules.driver_timing import DriverTimeline
from harness.rules.history import HistoryFacts
from harness.rules.session import SessionFacts
from harness.scenario import MAX_EVENTS, Scenario, discover, load_all, load_scenario, parse_scenario
from harness.wire import WireError

#: everything registered inside ``with scoped_registrations():`` (rules, codecs, session steps)
#: is forgotten when the block ends, so a test's registrations do not leak into the next test
scoped_registrations = _Registry.scoped

__all__ = [
    "BUNDLED",
    "DEFAULT_TIMEOUT",
    "MAX_EVENTS",
    "RULES",
    "UNKNOWN_REASON",
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
    "DriverTimeline",
    "ErrorReport",
    "Finding",
    "HarnessError",
    "HistoryAdapter",
    "HistoryFacts",
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
    "SessionFacts",
    "SessionView",
    "StreamError",
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
    "cases_to_run",
    "discover",
    "load_all",
    "load_scenario",
    "parse_scenario",
    "register_codec",
    "replay",
    "resolve_adapter",
    "rule",
    "run_cases",
    "scoped_registrations",
    "unregister_codec",
]
