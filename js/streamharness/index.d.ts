// Types of streamharness, the Node helper of the streamharness conformance harness: its API,
// and every message of the out-of-process protocol it speaks (docs/PROTOCOL.md, version 2).

// -- the protocol: names ------------------------------------------------------------------------

export type Layer = 'session' | 'history' | 'driver';
/** One read is one server-sent event, as text ("chunks"), or a slice of the body cut anywhere. */
export type Reads = 'chunks' | 'bytes';
/** Each tool call as soon as it is complete, or the calls of a message when it finishes. */
export type EmitsCalls = 'per-call' | 'per-message';
/** A dialect the harness has registered (`harness.codecs.dialects()`); these are bundled. */
export type Dialect =
  | 'anthropic'
  | 'anthropic-agent'
  | 'openai-chat'
  | 'openai-responses'
  | 'gemini-sse'
  | 'gemini-json-array'
  | 'ag-ui'
  | (string & {});

// -- session events, as the harness sends them (event_to_json) ----------------------------------

export interface ToolCall {
  id: string;
  name: string;
  /** The raw argument text. */
  arguments: string;
  /** The arguments parsed, or null where they are not JSON. */
  input: unknown;
}

export interface ToolResult {
  tool_call_id: string;
  content: string;
  is_error: boolean;
}

/** A provider-shaped message of a stored history (Anthropic: role and content blocks). */
export interface HistoryMessage {
  role: 'user' | 'assistant' | (string & {});
  content: string | Array<{ type: string; [field: string]: unknown }>;
  [field: string]: unknown;
}

interface EventBase {
  session_id: string;
  parent_session_id: string | null;
}

export type SessionEvent = EventBase &
  (
    | { type: 'interaction_start'; interaction_id: string }
    | { type: 'interaction_end'; interaction_id: string }
    | { type: 'user_turn_start' }
    | { type: 'user_message'; message_id: string; text: string }
    | { type: 'message_start'; message_id: string; role: 'assistant' | 'thought' }
    | { type: 'message_delta'; message_id: string; text: string }
    | { type: 'message_end'; message_id: string }
    | { type: 'tool_select'; calls: ToolCall[] }
    | { type: 'tool_executing'; calls: ToolCall[] }
    | { type: 'tool_completed'; calls: ToolCall[]; results: ToolResult[] }
    | {
        type: 'tool_stream';
        call_id: string;
        event_type: 'call' | 'result' | 'delegation_call' | 'delegation_result';
        tool_name: string;
        tool_response: string;
        summary: string;
        stream_part: string | null;
        is_complete: boolean;
      }
    | { type: 'system_message'; severity: string; text: string }
    | { type: 'media'; content_type: string; content: string }
    | { type: 'subsession_start' }
    | { type: 'subsession_end' }
    | { type: 'resume'; history: HistoryMessage[] }
    | { type: 'checkpoint'; name: string }
  );

// -- what a session consumer shows (harness.model.observation) -----------------------------------

export interface Notification {
  session_id: string;
  tool_call_id: string;
  tool_name: string;
  status: 'preparing' | 'using';
}

export interface AttachedCall {
  id: string;
  name: string;
  input?: unknown;
  result?: string | null;
  is_error?: boolean;
}

export interface TranscriptMessage {
  message_id: string | null;
  role: 'user' | 'assistant' | 'thought';
  text: string;
  tool_calls?: AttachedCall[];
}

export interface ToolStream {
  call_id: string;
  event_type: string;
  tool_name: string;
  tool_response: string;
  summary: string;
  content: string;
  is_complete: boolean;
}

export interface Transcript {
  sessions: Record<string, { messages: TranscriptMessage[]; tool_streams?: ToolStream[] }>;
  updates?: Array<{ session_id: string; message_id: string }>;
}

/** A message the history layer's `rebuild` answers: the transcript a reconnecting client rebuilds. */
export type RebuiltMessage = TranscriptMessage;

// -- what a driver emits (harness.model.driver, coerce_output) -----------------------------------

export interface TextOutput {
  type: 'text';
  text: string;
}

export interface ToolCallOutput {
  type: 'tool_call';
  id: string;
  name: string;
  /** The raw argument text ('' for a call without arguments). */
  arguments: string;
  /** Whether `arguments` is a complete JSON object; ctx.emit works it out when left out. */
  valid: boolean;
}

export interface TurnEndOutput {
  type: 'turn_end';
  /** Left out or null: the library does not say why the turn ended. */
  stop_reason?: string | null;
}

export interface RefusalOutput {
  type: 'refusal';
  reason: string;
}

/** The stream failed: the server's error, a cut body. */
export interface ErrorOutput {
  type: 'error';
  message: string;
}

export type Output = TextOutput | ToolCallOutput | TurnEndOutput | RefusalOutput | ErrorOutput;
/** What ctx.emit takes: an output, `valid` optional on a tool call. */
export type EmittedOutput = Exclude<Output, ToolCallOutput> | (Omit<ToolCallOutput, 'valid'> & { valid?: boolean });

// -- the harness's requests ("->" in docs/PROTOCOL.md) ------------------------------------------

export interface HelloRequest {
  op: 'hello';
  protocol: 1 | 2;
  /** Every protocol the harness speaks (absent from a protocol-1 greeting). */
  protocols?: number[];
}
export interface FeedRequest {
  op: 'feed';
  event: SessionEvent;
}
export interface NotificationsRequest {
  op: 'notifications';
}
export interface TranscriptRequest {
  op: 'transcript';
}
export interface MessagesRequest {
  op: 'history' | 'request' | 'rebuild';
  session_id: string;
}
export interface DriveRequest {
  op: 'drive';
}
export interface ShutdownRequest {
  op: 'shutdown';
}
export type Request =
  | HelloRequest
  | FeedRequest
  | NotificationsRequest
  | TranscriptRequest
  | MessagesRequest
  | DriveRequest
  | ShutdownRequest;

/** The harness's answer to a driver's read. */
export type ReadAnswer =
  | { chunk: string }
  /** base64 */
  | { bytes: string }
  | { end: true }
  | { cancelled: true };

// -- the process's answers and turn messages ("<-") ---------------------------------------------

export interface HelloAnswer {
  ok: true;
  protocol: 1 | 2;
  layers?: Layer[];
  name?: string;
  dialect?: Dialect;
  emits_calls?: EmitsCalls;
  reads?: Reads;
}
export interface Failure {
  ok: false;
  error: string;
}
export interface OkAnswer {
  ok: true;
}
export interface NotificationsAnswer {
  ok: true;
  notifications: Notification[];
}
export interface TranscriptAnswer {
  ok: true;
  transcript: Transcript;
}
export interface MessagesAnswer {
  ok: true;
  messages: HistoryMessage[] | RebuiltMessage[];
}
export type Answer = HelloAnswer | Failure | OkAnswer | NotificationsAnswer | TranscriptAnswer | MessagesAnswer;

export interface ReadMessage {
  op: 'read';
}
export interface EmitMessage {
  op: 'emit';
  output: Output;
}
/** The driver released the stream (closed the response). */
export interface CloseMessage {
  op: 'close';
}
export type DoneMessage = { op: 'done' } | { op: 'done'; cancelled: true } | { op: 'done'; error: string };
/** What a driver process says during a turn, where it speaks first. */
export type TurnMessage = ReadMessage | EmitMessage | CloseMessage | DoneMessage;

// -- the API ---------------------------------------------------------------------------------------

type MaybePromise<T> = T | Promise<T>;

export interface TurnContext {
  /** The dialect the driver said it reads. */
  readonly dialect: Dialect;
  /** Aborted, with an AbortError, when the harness cancels the turn. */
  readonly signal: AbortSignal;
  /**
   * A fetch for the library: whatever it asks, it gets a 200 response (text/event-stream, or
   * application/json for gemini-json-array) whose body is the turn's, one harness read per piece
   * the library pulls. Aborting the request's signal fails the body and releases it. One fetch
   * a turn.
   */
  readonly fetch: typeof globalThis.fetch;
  /** The turn's body, for a consumer without fetch: strings ("reads": "chunks") or bytes. */
  readonly chunks: AsyncIterableIterator<string | Uint8Array>;
  /** Pass an output on to the harness (a malformed one throws a TypeError). */
  emit(output: EmittedOutput): void;
}

export interface DriverOptions {
  dialect: Dialect;
  /** Default "chunks". */
  reads?: Reads;
  /** Default "per-call". */
  emitsCalls?: EmitsCalls;
  /** Shown in the harness's reports (default: the command). */
  name?: string;
  /**
   * One turn. Returning is `done`; throwing is `done` with the error, or `done` cancelled once
   * the harness cancelled the turn (throw `ctx.signal.reason`, e.g. `ctx.signal.throwIfAborted()`,
   * where a library reports the abort as a stream part).
   */
  turn(ctx: TurnContext): MaybePromise<void>;
}

export interface SessionOptions {
  name?: string;
  feed(event: SessionEvent): MaybePromise<void>;
  notifications(): MaybePromise<Notification[]>;
  transcript(): MaybePromise<Transcript>;
}

/** A UI protocol the harness renders the session scenarios into (docs/ui-protocols.md). */
export type SessionDialect = 'ag-ui' | 'ai-sdk-ui' | (string & {});

/** An event of a session dialect, as the protocol has it: an AG-UI event
 * (`{type: "TOOL_CALL_START", ...}`), or for `ai-sdk-ui` `{chat, chunk}`, `{chat, sendMessage}`
 * or `{chat, setMessages}`. */
export type DialectEvent = Record<string, unknown>;

export interface DialectSessionOptions {
  name?: string;
  /** The UI protocol the consumer reads (protocol 2 only). */
  sessionDialect: SessionDialect;
  /** One event of the protocol; answered once the consumer's asynchronous work has settled. */
  feed(event: DialectEvent): MaybePromise<void>;
  /** The protocol's own state: AG-UI `{threadId: [messages]}`, AI SDK `{chat: [UIMessage]}`. */
  view(): MaybePromise<Record<string, unknown[]>>;
}

export interface HistoryOptions {
  name?: string;
  feed(event: SessionEvent): MaybePromise<void>;
  /** What the store holds for a top-level session, provider-shaped. */
  history(sessionId: string): MaybePromise<HistoryMessage[]>;
  /** What its converter would send the provider. */
  request(sessionId: string): MaybePromise<HistoryMessage[]>;
  /** The transcript a reconnecting client rebuilds from storage. */
  rebuild(sessionId: string): MaybePromise<RebuiltMessage[]>;
}

/** Serve the driver layer (protocol 2) on stdin/stdout until the harness says shutdown. */
export function runDriver(options: DriverOptions): void;
/** Serve the session layer (protocol 2, or 1 when greeted so); a consumer of a UI protocol
 * (`sessionDialect`) in protocol 2. */
export function runSession(options: SessionOptions | DialectSessionOptions): void;
/** Serve the history layer (protocol 2). */
export function runHistory(options: HistoryOptions): void;

export interface ServerSentEvent {
  /** "message" when the event names none. */
  event: string;
  data: string;
}

/** The events of an SSE body read from pieces cut anywhere, each once its blank line arrived. */
export function sseEvents(source: AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>): AsyncGenerator<ServerSentEvent, void, undefined>;

/** Send everything but the protocol's lines from stdout to stderr from now on (run* do it too). */
export function guardStdout(): void;
