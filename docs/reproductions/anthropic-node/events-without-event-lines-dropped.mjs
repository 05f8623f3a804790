// @anthropic-ai/sdk's messages.stream, without the harness: events sent as bare data: lines,
// without the event: line before them (third-party Anthropic-compatible proxies:
// earendil-works/pi#1983, openclaw/openclaw#37571), are all skipped, although each one's type is
// in its data: no text, no tool call, and the stream fails with "request ended without sending
// any chunks".
//
//     node docs/reproductions/anthropic-node/events-without-event-lines-dropped.mjs
//
// prints, with @anthropic-ai/sdk 1.14.0:
//
//     text: [] contentBlock: []
//     done() rejected: request ended without sending any chunks
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

// the SDK as js/libs/anthropic pins it (npm ci --prefix js/libs/anthropic)
const require = createRequire(new URL('../../../js/libs/anthropic/package.json', import.meta.url));
const { default: Anthropic } = require('@anthropic-ai/sdk');

const data = (type, fields) => `data: ${JSON.stringify({ type, ...fields })}\n\n`; // no event: line
const MESSAGE = {
  id: 'msg_1', type: 'message', role: 'assistant', content: [], model: 'any',
  stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 },
};
const BODY = [
  data('message_start', { message: MESSAGE }),
  data('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
  data('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Looking it up.' } }),
  data('content_block_stop', { index: 0 }),
  data('content_block_start', { index: 1, content_block: { type: 'tool_use', id: 'toolu_1', name: 'search', input: {} } }),
  data('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: '{"q": "sse"}' } }),
  data('content_block_stop', { index: 1 }),
  data('message_delta', { delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 9 } }),
  data('message_stop', {}),
].join('');

const client = new Anthropic({
  apiKey: 'offline',
  maxRetries: 0,
  fetch: async () => new Response(BODY, { headers: { 'content-type': 'text/event-stream' } }),
});
const stream = client.messages.stream({ model: 'any', max_tokens: 64, messages: [{ role: 'user', content: 'go' }] });
const texts = [];
const blocks = [];
stream.on('text', (delta) => texts.push(delta));
stream.on('contentBlock', (block) => blocks.push(block.type));
const failure = await stream.done().then(() => null, (error) => error);

console.log('text:', JSON.stringify(texts), 'contentBlock:', JSON.stringify(blocks));
console.log('done() rejected:', failure?.message);
assert.deepEqual([texts, blocks], [[], []], 'the SDK no longer drops events without an event: line');
assert.match(String(failure?.message), /request ended without sending any chunks/);
