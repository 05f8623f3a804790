"""What a session-layer consumer shows, in canonical form, and how adapter output becomes it.

Adapters may return these classes or plain JSON-like dicts and lists with the same field names
(which is what an out-of-process adapter sends); ``coerce_*`` turn either into frozen objects and
raise ``MalformedObservation`` with the path of the first bad field.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields, is_dataclass
from typing import Any, Literal

NotificationStatus = Literal["preparing", "using"]
TranscriptRole = Literal["user", "assistant", "thought"]


class MalformedObservation(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class Notification:
    """A visible "agent is preparing to use / using X" notice."""

    session_id: str
    tool_call_id: str
    tool_name: str
    status: NotificationStatus


@dataclass(frozen=True, slots=True)
class AttachedCall:
    """A completed tool call shown on a message, with its result."""

    id: str
    name: str
    input: Any = None
    result: str | None = None
    is_error: bool = False


@dataclass(frozen=True, slots=True)
class Message:
    message_id: str | None
    role: TranscriptRole
    text: str
    tool_calls: tuple[AttachedCall, ...] = ()


@dataclass(frozen=True, slots=True)
class ToolStream:
    """The accumulated state of one streamed tool call or delegation (a ``tool_stream`` event's
    parts and its latest summary)."""

    call_id: str
    event_type: str
    tool_name: str
    tool_response: str
    summary: str
    content: str
    is_complete: bool


@dataclass(frozen=True, slots=True)
class SessionView:
    messages: tuple[Message, ...] = ()
    tool_streams: tuple[ToolStream, ...] = ()


@dataclass(frozen=True, slots=True)
class MessageUpdate:
    """A "message updated" notice the consumer emitted (tool calls attached after the fact)."""

    session_id: str
    message_id: str


@dataclass(frozen=True, slots=True)
class Transcript:
    sessions: Mapping[str, SessionView]
    updates: tuple[MessageUpdate, ...] = ()


@dataclass(frozen=True, slots=True)
class Observation:
    """What the consumer showed at the end of a replay."""

    notifications: tuple[Notification, ...]
    transcript: Transcript

    def to_data(self) -> dict[str, Any]:
        """Plain data in a stable order, for snapshots and JSON.

        Notifications are sorted; message ids the consumer made up itself (for messages rebuilt
        from history) are replaced by their position, so they do not change between runs.
        """
        sessions: dict[str, Any] = {}
        for session_id in sorted(self.transcript.sessions):
            view = self.transcript.sessions[session_id]
            messages = []
            for i, m in enumerate(view.messages):
                entry: dict[str, Any] = {"id": m.message_id, "role": m.role, "text": m.text}
                if m.message_id is None or m.message_id.startswith("resumed-"):
                    entry["id"] = f"#{i}"
                if m.tool_calls:
                    entry["tool_calls"] = [
                        {"id": c.id, "name": c.name, "input": c.input, "result": c.result}
                        | ({"is_error": True} if c.is_error else {})
                        for c in m.tool_calls
                    ]
                messages.append(entry)
            data: dict[str, Any] = {"messages": messages}
            if view.tool_streams:
                data["tool_streams"] = [
                    {
                        "call_id": s.call_id,
                        "event_type": s.event_type,
                        "tool_name": s.tool_name,
                        "tool_response": s.tool_response,
                        "summary": s.summary,
                        "content": s.content,
                        "is_complete": s.is_complete,
                    }
                    for s in view.tool_streams
                ]
            sessions[session_id] = data
        return {
            "notifications": sorted(
                [n.session_id, n.tool_call_id, n.tool_name, n.status] for n in self.notifications
            ),
            "sessions": sessions,
        }


_ROLES = ("user", "assistant", "thought")
_STATUSES = ("preparing", "using")


def _as_mapping(value: Any, path: str) -> Mapping[str, Any]:
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in fields(value)}
    if isinstance(value, Mapping):
        return value
    raise MalformedObservation(f"{path} should be an object, got {type(value).__name__}")


def _as_list(value: Any, path: str) -> list[Any]:
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise MalformedObservation(f"{path} should be a list, got {type(value).__name__}")
    return list(value)


def _str(data: Mapping[str, Any], key: str, path: str, *, optional: bool = False) -> Any:
    value = data.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise MalformedObservation(f"{path}.{key} should be a string, got {value!r}")
    return value


def _bool(data: Mapping[str, Any], key: str, path: str, default: bool) -> bool:
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise MalformedObservation(f"{path}.{key} should be true or false, got {value!r}")
    return value


def _choice(data: Mapping[str, Any], key: str, path: str, choices: tuple[str, ...]) -> Any:
    value = data.get(key)
    if value not in choices:
        raise MalformedObservation(f"{path}.{key} is {value!r}, expected one of {list(choices)}")
    return value


def normalize_input(value: Any) -> Any:
    """Tool input as a JSON value: adapters may keep it as raw JSON text or parsed."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def coerce_notifications(value: Any) -> tuple[Notification, ...]:
    if isinstance(value, (list, tuple)) and all(type(n) is Notification for n in value):
        for i, note in enumerate(value):
            if note.status not in _STATUSES:
                raise MalformedObservation(
                    f"notifications[{i}].status is {note.status!r}, expected one of {list(_STATUSES)}"
                )
        return tuple(value)
    out = []
    for i, item in enumerate(_as_list(value, "notifications")):
        path = f"notifications[{i}]"
        data = _as_mapping(item, path)
        out.append(
            Notification(
                session_id=_str(data, "session_id", path),
                tool_call_id=_str(data, "tool_call_id", path),
                tool_name=_str(data, "tool_name", path),
                status=_choice(data, "status", path, _STATUSES),
            )
        )
    return tuple(out)


def _coerce_call(item: Any, path: str) -> AttachedCall:
    data = _as_mapping(item, path)
    return AttachedCall(
        id=_str(data, "id", path),
        name=_str(data, "name", path),
        input=normalize_input(data.get("input")),
        result=_str(data, "result", path, optional=True),
        is_error=_bool(data, "is_error", path, False),
    )


def _coerce_message(item: Any, path: str) -> Message:
    data = _as_mapping(item, path)
    calls = tuple(
        _coerce_call(c, f"{path}.tool_calls[{j}]")
        for j, c in enumerate(_as_list(data.get("tool_calls", ()), f"{path}.tool_calls"))
    )
    return Message(
        message_id=_str(data, "message_id", path, optional=True),
        role=_choice(data, "role", path, _ROLES),
        text=_str(data, "text", path),
        tool_calls=calls,
    )


def _coerce_stream(item: Any, path: str) -> ToolStream:
    data = _as_mapping(item, path)
    return ToolStream(
        call_id=_str(data, "call_id", path),
        event_type=_str(data, "event_type", path),
        tool_name=_str(data, "tool_name", path),
        tool_response=_str(data, "tool_response", path),
        summary=_str(data, "summary", path),
        content=_str(data, "content", path),
        is_complete=_bool(data, "is_complete", path, False),
    )


def _check_typed(transcript: Transcript) -> bool:
    """Our own classes, as the bundled consumers return them: only the values need checking."""
    for view in transcript.sessions.values():
        if type(view) is not SessionView:
            return False
        for message in view.messages:
            if type(message) is not Message or type(message.text) is not str:
                return False
            if message.role not in _ROLES:  # a tuple: a role of any type is compared, not hashed
                return False
            calls = message.tool_calls
            if type(calls) is not tuple:
                return False
            for call in calls:
                if type(call) is not AttachedCall:
                    return False
        for stream in view.tool_streams:
            if type(stream) is not ToolStream:
                return False
    updates = transcript.updates
    return type(updates) is tuple and set(map(type, updates)) <= _UPDATE_TYPE


_UPDATE_TYPE = frozenset({MessageUpdate})


def coerce_transcript(value: Any) -> Transcript:
    if type(value) is Transcript and _check_typed(value):
        return value
    data = _as_mapping(value, "transcript")
    sessions_in = _as_mapping(data.get("sessions", {}), "transcript.sessions")
    sessions: dict[str, SessionView] = {}
    for session_id, view in sessions_in.items():
        path = f"transcript.sessions[{session_id!r}]"
        if not isinstance(session_id, str):
            raise MalformedObservation(f"{path}: session ids should be strings")
        view_data = _as_mapping(view, path)
        messages = tuple(
            _coerce_message(m, f"{path}.messages[{i}]")
            for i, m in enumerate(_as_list(view_data.get("messages", ()), f"{path}.messages"))
        )
        streams = tuple(
            _coerce_stream(s, f"{path}.tool_streams[{i}]")
            for i, s in enumerate(
                _as_list(view_data.get("tool_streams", ()), f"{path}.tool_streams")
            )
        )
        sessions[session_id] = SessionView(messages=messages, tool_streams=streams)
    updates = []
    for i, item in enumerate(_as_list(data.get("updates", ()), "transcript.updates")):
        path = f"transcript.updates[{i}]"
        u = _as_mapping(item, path)
        updates.append(
            MessageUpdate(
                session_id=_str(u, "session_id", path), message_id=_str(u, "message_id", path)
            )
        )
    return Transcript(sessions=sessions, updates=tuple(updates))
