// @anthropic-ai/sdk's messages.stream, without the harness: a message_start sent twice (as the
// LiteLLM proxy and bifrost did, BerriAI/litellm#32478, maximhq/bifrost#4556) fails the stream
// with "Unexpected event order": the user gets an error and neither the text nor the call that
// follow.
//
//     node docs/reproductions/anthropic-node/message-start-twice-fails.mjs
//
// prints, with @anthropic-ai/sdk 1.14.0:
//
//     text: [] contentBlock: []
//     done() rejected: Unexpected event order, got message_start before receiving "message_stop"
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

// the SDK as js/libs/anthropic pins it (npm ci --prefix js/libs/anthropic)
const require = createRequire(new URL('../../../js/libs/anthropic/package.json', import.meta.url));
const { default: Anthropic } = require('@anthropic-ai/sdk');

const event = (type, fields) => `event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`;
const MESSAGE = {
  id: 'msg_1', type: 'message', role: 'assistant', content: [], model: 'any',
  stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 },
};
const BODY = [
  event('message_start', { message: MESSAGE }),
  event('message_start', { message: MESSAGE }),
  event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
  event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Querying.' } }),
  event('content_block_stop', { index: 0 }),
  event('content_block_start', { index: 1, content_block: { type: 'tool_use', id: 'toolu_1', name: 'run_sql', input: {} } }),
  event('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: '{"sql": "SELECT 1"}' } }),
  event('content_block_stop', { index: 1 }),
  event('message_delta', { delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 9 } }),
  event('message_stop', {}),
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
assert.deepEqual([texts, blocks], [[], []]);
assert.match(String(failure?.message), /Unexpected event order/, 'the SDK no longer fails on a repeated message_start');
