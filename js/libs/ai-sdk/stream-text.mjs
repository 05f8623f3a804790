// The Vercel AI SDK's streamText as a driver: what a user of its fullStream acts on, over one
// provider's language model (openai.mjs, anthropic.mjs, google.mjs each pass theirs).
//
// The user's tools declare every tool the model calls, each with an object input schema and no
// execute, so streamText only reports the calls (one step, no tool runs, no second request).
// What the user acts on, part by part:
//   text-delta  its text;
//   tool-call   a call, complete: its id, name and input (JSON text of the parsed input; the
//               raw text when it did not parse); `invalid` (the input did not parse, or is no
//               JSON object) reports it invalid. A tool-error part follows an invalid call: it
//               is the SDK's note that the call cannot run, no failure of the stream.
//   error       the stream failed (the AI SDK reports errors as parts, not exceptions);
//   abort       the request was aborted (ctx.signal is its abortSignal): the turn is cancelled;
//   finish      the turn ended, for finishReason; 'error' is a failed turn (its error part came
//               first), no end; 'other' is an end the SDK gives no reason for (a body that ends
//               before the provider's own finish reads so too).

import { jsonSchema, streamText } from 'ai';
import { runDriver } from '../../streamharness/index.js';

const REASONS = { stop: 'end_turn', 'tool-calls': 'tool_use', length: 'max_tokens', other: null };

/** A user's tool: any JSON object as input, nothing to execute. */
const TOOL = {
  description: 'a tool the model may call',
  inputSchema: jsonSchema(
    { type: 'object' },
    {
      validate: (value) =>
        value !== null && typeof value === 'object' && !Array.isArray(value)
          ? { success: true, value }
          : { success: false, error: new TypeError('the input is not a JSON object') },
    },
  ),
};

/** The user's tool set: it declares every tool the model calls, whatever its name. */
const TOOLS = new Proxy({}, { get: (_, name) => (typeof name === 'string' ? TOOL : undefined) });

function callArguments(input) {
  return typeof input === 'string' ? input : JSON.stringify(input) ?? '';
}

function errorMessage(error) {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return typeof error === 'string' ? error : JSON.stringify(error);
}

/**
 * Serve streamText over the model `makeModel(fetch)` returns as a driver of `dialect`.
 *
 *   driveStreamText({ name: 'ai-sdk-openai', dialect: 'openai-chat', emitsCalls: 'per-message',
 *     model: (fetch) => createOpenAI({ apiKey: 'offline', fetch }).chat('gpt-4o') });
 */
export function driveStreamText({ name, dialect, emitsCalls, model }) {
  runDriver({
    name,
    dialect,
    emitsCalls,
    reads: 'bytes', // the provider reads the HTTP body itself, as the network cuts it
    async turn(ctx) {
      const result = streamText({
        model: model(ctx.fetch),
        prompt: 'go',
        tools: TOOLS,
        maxRetries: 0, // one response a turn: a retry would be a second request
        abortSignal: ctx.signal,
        onError: () => {}, // by default it also logs each error part; the part is reported
      });
      for await (const part of result.fullStream) {
        switch (part.type) {
          case 'text-delta':
            ctx.emit({ type: 'text', text: part.text });
            break;
          case 'tool-call':
            ctx.emit({
              type: 'tool_call',
              id: part.toolCallId,
              name: part.toolName,
              arguments: callArguments(part.input),
              valid: part.invalid !== true,
            });
            break;
          case 'error':
            ctx.emit({ type: 'error', message: errorMessage(part.error) });
            break;
          case 'abort':
            ctx.signal.throwIfAborted(); // the SDK reports the abort as a part
            throw new Error('the stream was aborted, though the harness did not cancel it');
          case 'finish':
            if (part.finishReason !== 'error') {
              const reason = part.finishReason in REASONS ? REASONS[part.finishReason] : part.finishReason;
              ctx.emit({ type: 'turn_end', stop_reason: reason });
            }
            break;
          default:
            break;
        }
      }
    },
  });
}
