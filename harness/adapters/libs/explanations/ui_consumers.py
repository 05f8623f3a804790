"""What the consumers of UI protocols get wrong (adapters: ``examples/ui-consumers/``), over the
session scenarios as their protocol carries them (docs/ui-protocols.md): ``ag-ui-client``
(``@ag-ui/client``'s run pipeline, ``verifyEvents`` then ``defaultApplyEvents``) and
``ai-sdk-ui`` (``ai``'s ``readUIMessageStream``, each chat's messages kept as its ``Chat`` keeps
them). Their causes are keyed by session scenario, rule and variation (``resumed``,
``every-event``, ...) as a driver library's are by quirk.
"""

from __future__ import annotations

from harness.adapters.libs.explanations import explain

explain(
    "ag-ui-client",
    "call-id-reused-across-runs",
    """A call id reused in a later run renames the earlier call: TOOL_CALL_START looks the id up
    across every message of the thread, whatever agent and run it came from, and updates that
    call in place (made so for replayed starts by ag-ui-protocol/ag-ui#2330, after #1524). A
    sub-agent's call_0 in the second run renames the parent's call_0 of the first to the
    sub-agent's tool, appends the sub-agent's arguments to the parent's, shows the sub-agent's
    result under the parent's call as a second result, and leaves the sub-agent's own message
    with no call. Models that number calls per response (call_0) make this common.""",
    scenarios={"subsession-reuses-tool-id-from-earlier-run"},
)
explain(
    "ag-ui-client",
    "result-delivered-twice",
    """A result delivered twice is shown twice: TOOL_CALL_RESULT inserts a tool message whether
    or not one with its messageId is already there, so a producer that retries the delivery (or
    a reconnect that replays it) gives the call two results.""",
    scenarios={"duplicate-completion", "duplicate-completion-subsession-tool-first"},
    rules={"exactly-once"},
)
explain(
    "ag-ui-client",
    "snapshot-keeps-old-order",
    """A snapshot's order is lost: MESSAGES_SNAPSHOT keeps the messages the client knows by id
    where they were and appends the new ones after them. A server that rebuilds the thread's
    text under new ids on resume (its store keeps none) and keeps the tool results' ids, as one
    that stores results by call does, has every result shown before the call it answers, so the
    resumed thread shows the calls as still running and no longer matches the live one. Every
    case that resumes a thread shows it.""",
    rules={"resume-equivalence", "notification-lifecycle"},
)
explain(
    "ai-sdk-ui",
    "abort-leaves-running-parts",
    """The user's stop leaves the tool parts of the stopped response running:
    processUIMessageStream has no case for the abort chunk, so a call it cut off stays in
    input-available (or input-streaming), shown as running for good, and is sent back to the
    model as a call without a result on the next request unless convertToModelMessages is told
    to ignore incomplete calls. A decision of the AI SDK rule profile, not a breach of the SDK's
    own contract: cleanup-user-turn asks that no part stay running after abort, a candidate
    rule after marimo-team/marimo#10174 (docs/ui-protocols.md).""",
    rules={"cleanup-user-turn"},
)
