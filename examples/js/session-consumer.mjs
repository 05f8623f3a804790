#!/usr/bin/env node
// A session-layer consumer in plain Node.js (v20, no dependencies), made a protocol process
// (docs/PROTOCOL.md, session layer) by the Node helper in js/streamharness:
//
//   python -m harness run --adapter "exec:node examples/js/session-consumer.mjs"
//
// Options:
//   --bug=keyed-by-tool-id   put back a known bug: tool notifications keyed by tool call
//                            id only, so a sub-session's call with the same id overwrites or
//                            removes the parent's notification.

import { runSession } from '../../js/streamharness/index.js';

const NAME = 'js-session-consumer';
const BUGS = new Set(['keyed-by-tool-id']);

// ---------------------------------------------------------------------------------------------
// Tool notifications ("Agent is preparing to use / using X")
// ---------------------------------------------------------------------------------------------

class ToolCallManager {
  /** @param {{keyedByToolIdOnly?: boolean}} options */
  constructor({ keyedByToolIdOnly = false } = {}) {
    this.keyedByToolIdOnly = keyedByToolIdOnly;
    /** @type {Map<string, {sessionId: string, toolCallId: string, toolName: string, status: 'preparing'|'using'}>} */
    this.activeTools = new Map();
  }

  makeKey(sessionId, toolCallId) {
    if (this.keyedByToolIdOnly) return toolCallId; // the bug: sessions collide on the same id
    return `${sessionId}:${toolCallId}`;
  }

  /**
   * A completion is final: tool events travel by different paths, and a select or executing
   * event that arrives after its call completed (`finished` holds the ids) shows nothing again.
   */
  onToolSelect(event, finished) {
    for (const call of event.calls) {
      if (finished.has(call.id)) continue;
      this.activeTools.set(this.makeKey(event.session_id, call.id), {
        sessionId: event.session_id,
        toolCallId: call.id,
        toolName: call.name,
        status: 'preparing',
      });
    }
  }

  onToolExecuting(event, finished) {
    for (const call of event.calls) {
      if (finished.has(call.id)) continue;
      const key = this.makeKey(event.session_id, call.id);
      // The executing event may omit the name; keep the one the select event gave.
      const toolName = call.name || this.activeTools.get(key)?.toolName || '';
      this.activeTools.set(key, {
        sessionId: event.session_id,
        toolCallId: call.id,
        toolName,
        status: 'using',
      });
    }
  }

  onToolCompleted(sessionId, toolCallId) {
    this.activeTools.delete(this.makeKey(sessionId, toolCallId));
  }

  /** Safety net at the end of a session's interaction. */
  clearSessionNotifications(sessionId) {
    for (const [key, notification] of this.activeTools) {
      if (notification.sessionId === sessionId) this.activeTools.delete(key);
    }
  }

  /** Safety net when the user's turn starts: no agent can be using a tool any more. */
  clearAllActiveNotifications() {
    this.activeTools.clear();
  }

  toJSON() {
    return [...this.activeTools.values()].map((n) => ({
      session_id: n.sessionId,
      tool_call_id: n.toolCallId,
      tool_name: n.toolName,
      status: n.status,
    }));
  }
}

// ---------------------------------------------------------------------------------------------
// Per-session transcript state
// ---------------------------------------------------------------------------------------------

class SessionState {
  constructor() {
    /** @type {{messageId: string, role: string, text: string, toolCalls: object[]}[]} */
    this.messages = [];
    this.byId = new Map();
    /** The latest assistant or thought message of the current interaction. */
    this.host = null;
    /** Completed calls waiting for the next message (the interaction started with tool calls). */
    this.held = [];
    /** Tool call ids already attached, so a repeated completion is not attached twice. */
    this.attached = new Set();
    /** call_id -> accumulated streamed tool call / delegation. */
    this.streams = new Map();
  }

  newInteraction() {
    this.host = null;
    this.held = [];
  }
}

const canHost = (message) => message.role === 'assistant' || message.role === 'thought';

// ---------------------------------------------------------------------------------------------
// The event stream processor
// ---------------------------------------------------------------------------------------------

class EventStreamProcessor {
  constructor({ bugs = new Set() } = {}) {
    this.toolCalls = new ToolCallManager({ keyedByToolIdOnly: bugs.has('keyed-by-tool-id') });
    /** @type {Map<string, SessionState>} */
    this.sessions = new Map();
    /** "message updated" notices: tool calls attached to a message after it was shown. */
    this.updates = [];
    this.handlers = {
      interaction_start: (e) => this.session(e.session_id).newInteraction(),
      interaction_end: (e) => this.handleInteractionEnd(e),
      user_turn_start: () => this.toolCalls.clearAllActiveNotifications(),
      user_message: (e) => this.handleUserMessage(e),
      message_start: (e) => this.handleMessageStart(e),
      message_delta: (e) => this.handleMessageDelta(e),
      tool_select: (e) => this.toolCalls.onToolSelect(e, this.finished(e.session_id)),
      tool_executing: (e) => this.toolCalls.onToolExecuting(e, this.finished(e.session_id)),
      tool_completed: (e) => this.handleToolCompleted(e),
      tool_stream: (e) => this.handleToolStream(e),
      subsession_start: (e) => this.session(e.session_id).newInteraction(),
      resume: (e) => this.handleResume(e),
      // message_end, system_message, media, subsession_end: nothing to track
    };
  }

  processEvent(event) {
    const handler = this.handlers[event.type];
    if (handler) handler(event);
  }

  session(sessionId) {
    let session = this.sessions.get(sessionId);
    if (!session) {
      session = new SessionState();
      this.sessions.set(sessionId, session);
    }
    return session;
  }

  /** The ids of the calls a session has completed, live or in the history it resumed from. */
  finished(sessionId) {
    return this.sessions.get(sessionId)?.attached ?? new Set();
  }

  handleInteractionEnd(event) {
    this.session(event.session_id).newInteraction();
    this.toolCalls.clearSessionNotifications(event.session_id);
  }

  handleUserMessage(event) {
    const session = this.session(event.session_id);
    const message = { messageId: event.message_id, role: 'user', text: event.text, toolCalls: [] };
    session.messages.push(message);
    session.byId.set(message.messageId, message);
    session.newInteraction();
  }

  handleMessageStart(event) {
    const session = this.session(event.session_id);
    const message = { messageId: event.message_id, role: event.role, text: '', toolCalls: [] };
    session.messages.push(message);
    session.byId.set(message.messageId, message);
    if (canHost(message)) {
      session.host = message;
      message.toolCalls.push(...session.held);
      session.held = [];
    }
  }

  handleMessageDelta(event) {
    const message = this.session(event.session_id).byId.get(event.message_id);
    if (!message) {
      throw new Error(
        `message_delta for message ${JSON.stringify(event.message_id)} of session ` +
          `${JSON.stringify(event.session_id)}, which never started`,
      );
    }
    message.text += event.text;
  }

  handleToolCompleted(event) {
    const session = this.session(event.session_id);
    const fresh = [];
    for (const call of event.calls) {
      this.toolCalls.onToolCompleted(event.session_id, call.id);
      if (session.attached.has(call.id)) continue;
      session.attached.add(call.id);
      const result = (event.results ?? []).find((r) => r.tool_call_id === call.id);
      fresh.push({
        id: call.id,
        name: call.name,
        // The raw argument text, as the stream sent it; the harness parses it as JSON where it can.
        input: call.arguments,
        result: result ? result.content : null,
        is_error: result ? Boolean(result.is_error) : false,
      });
    }
    if (fresh.length === 0) return;
    if (session.host) {
      session.host.toolCalls.push(...fresh);
      this.updates.push({ session_id: event.session_id, message_id: session.host.messageId });
    } else {
      session.held.push(...fresh);
    }
  }

  handleToolStream(event) {
    const streams = this.session(event.session_id).streams;
    let stream = streams.get(event.call_id);
    if (!stream) {
      stream = {
        call_id: event.call_id,
        event_type: event.event_type,
        tool_name: event.tool_name,
        tool_response: '',
        summary: '',
        parts: [],
        is_complete: false,
      };
      streams.set(event.call_id, stream);
    }
    // A delegation's result updates its call's entry: same call_id, new event_type.
    stream.event_type = event.event_type;
    stream.tool_name = event.tool_name || stream.tool_name;
    stream.tool_response = event.tool_response || stream.tool_response;
    stream.summary = event.summary || stream.summary;
    if (event.stream_part !== null && event.stream_part !== undefined) {
      stream.parts.push(event.stream_part);
    }
    stream.is_complete = Boolean(event.is_complete);
  }

  // Rebuild the session from its stored history by replaying it through the live handlers, so a
  // resumed transcript is built by exactly the same rules as a live one.
  handleResume(event) {
    this.sessions.set(event.session_id, new SessionState());
    for (const replayed of historyToEvents(event.session_id, event.history)) {
      this.processEvent(replayed);
    }
  }

  notifications() {
    return this.toolCalls.toJSON();
  }

  transcript() {
    // fromEntries defines own properties, so even a session id like "__proto__" stays a plain key.
    const sessions = Object.fromEntries(
      [...this.sessions].map(([sessionId, session]) => [sessionId, this.view(session)]),
    );
    return { sessions, updates: this.updates };
  }

  view(session) {
    return {
      messages: session.messages.map((m) => ({
        message_id: m.messageId,
        role: m.role,
        text: m.text,
        tool_calls: m.toolCalls,
      })),
      tool_streams: [...session.streams.values()].map(({ parts, ...stream }) => ({
        ...stream,
        content: parts.join(''),
      })),
    };
  }
}

// ---------------------------------------------------------------------------------------------
// Stored (provider-shaped) history -> the live events that would have produced it
// ---------------------------------------------------------------------------------------------

function blocksOf(message) {
  if (typeof message.content === 'string') return [{ type: 'text', text: message.content }];
  return Array.isArray(message.content) ? message.content : [];
}

function resultText(content) {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((b) => (b && b.type === 'text' ? b.text : '')).join('');
  }
  return content == null ? '' : String(content);
}

/**
 * Each user text block is a user message (and a new interaction); thinking and text blocks of an
 * assistant message become thought and assistant messages; consecutive tool_use blocks complete
 * together, with results found anywhere in the history. A tool_use without a result never
 * completed, so it yields nothing.
 */
function* historyToEvents(sessionId, history) {
  const results = new Map();
  for (const message of history) {
    if (message.role !== 'user') continue;
    for (const block of blocksOf(message)) {
      if (block.type === 'tool_result') results.set(block.tool_use_id, block);
    }
  }

  let count = 0;
  const base = { session_id: sessionId, parent_session_id: null };
  for (const message of history) {
    if (message.role === 'user') {
      for (const block of blocksOf(message)) {
        if (block.type === 'text') {
          count += 1;
          yield { ...base, type: 'user_message', message_id: `resumed-${count}`, text: block.text };
        }
      }
      continue;
    }

    let pending = [];
    for (const block of [...blocksOf(message), null]) { // null flushes the last tool calls
      if (block && block.type === 'tool_use') {
        pending.push(block);
        continue;
      }
      const done = pending.filter((use) => results.has(use.id));
      if (done.length > 0) {
        yield {
          ...base,
          type: 'tool_completed',
          calls: done.map((use) => ({
            id: use.id,
            name: use.name,
            arguments: JSON.stringify(use.input ?? {}),
            input: use.input ?? {},
          })),
          results: done.map((use) => ({
            tool_call_id: use.id,
            content: resultText(results.get(use.id).content),
            is_error: Boolean(results.get(use.id).is_error),
          })),
        };
      }
      pending = [];
      if (block && (block.type === 'text' || block.type === 'thinking')) {
        count += 1;
        const messageId = `resumed-${count}`;
        const role = block.type === 'thinking' ? 'thought' : 'assistant';
        const text = block.type === 'thinking' ? block.thinking : block.text;
        yield { ...base, type: 'message_start', message_id: messageId, role };
        if (text) yield { ...base, type: 'message_delta', message_id: messageId, text };
        yield { ...base, type: 'message_end', message_id: messageId };
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The session layer over stdin / stdout
// ---------------------------------------------------------------------------------------------

const bugs = new Set();
for (const arg of process.argv.slice(2)) {
  const match = /^--bug=(.+)$/.exec(arg);
  if (!match || !BUGS.has(match[1])) {
    console.error(`unknown option ${arg}; known: ${[...BUGS].map((b) => `--bug=${b}`).join(', ')}`);
    process.exit(2);
  }
  bugs.add(match[1]);
}

const processor = new EventStreamProcessor({ bugs });
runSession({
  name: bugs.size > 0 ? `${NAME} (bug: ${[...bugs].join(', ')})` : NAME,
  feed: (event) => processor.processEvent(event),
  notifications: () => processor.notifications(),
  transcript: () => processor.transcript(),
});
