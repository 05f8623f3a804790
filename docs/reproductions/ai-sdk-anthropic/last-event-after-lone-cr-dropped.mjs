// The AI SDK's streamText over @ai-sdk/anthropic, without the harness: a body whose lines end with
// a lone CR (a line end the SSE rules allow, as some gateways write it) loses its last event:
// here the server's error event, so the failed turn reads as a finished one (no error part, a
// finish part with finishReason 'other'). eventsource-parser waits after a CR at the end of what
// it was fed for a possible LF, and its stream has no flush, so the CR that ends the last event
// is never taken as the blank line it is.
//
//     node docs/reproductions/ai-sdk-anthropic/last-event-after-lone-cr-dropped.mjs
//
// prints, with ai 6.0.326 and @ai-sdk/anthropic 3.0.140 (eventsource-parser 3.1.1):
//
//     parts: ["text-delta Checking.","finish other"]
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

// the SDK as js/libs/ai-sdk pins it (npm ci --prefix js/libs/ai-sdk)
const require = createRequire(new URL('../../../js/libs/ai-sdk/package.json', import.meta.url));
const { streamText } = require('ai');
const { createAnthropic } = require('@ai-sdk/anthropic');

const event = (type, fields) => `event: ${type}\rdata: ${JSON.stringify({ type, ...fields })}\r\r`;
const MESSAGE = {
  id: 'msg_1', type: 'message', role: 'assistant', content: [], model: 'any',
  stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 },
};
const BODY = [
  event('message_start', { message: MESSAGE }),
  event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
  event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Checking.' } }),
  event('error', { error: { type: 'overloaded_error', message: 'Overloaded' } }),
].join('');

const anthropic = createAnthropic({
  apiKey: 'offline',
  fetch: async () => new Response(BODY, { headers: { 'content-type': 'text/event-stream' } }),
});
const result = streamText({ model: anthropic('claude-sonnet-4-5'), prompt: 'go', maxRetries: 0 });
const seen = [];
for await (const part of result.fullStream) {
  if (part.type === 'text-delta') seen.push(`text-delta ${part.text}`);
  if (part.type === 'error') seen.push(`error ${part.error?.message ?? part.error}`);
  if (part.type === 'finish') seen.push(`finish ${part.finishReason}`);
}

console.log('parts:', JSON.stringify(seen));
assert.deepEqual(seen, ['text-delta Checking.', 'finish other'], 'the last event after a lone CR is no longer dropped');
