// @anthropic-ai/sdk's messages.stream, without the harness: a tool input that stops before its
// closing brace is handed over at the 'contentBlock' event (and in finalMessage()) as a complete
// object: the SDK parses the input in partial mode and never checks that it was complete.
//
//     node docs/reproductions/anthropic-node/unclosed-input-completed.mjs
//
// prints, with @anthropic-ai/sdk 1.14.0:
//
//     sent:           {"ticket_id": 42, "fields": ["title", "status"]
//     contentBlock:   {"ticket_id":42,"fields":["title","status"]}
//     finalMessage(): {"ticket_id":42,"fields":["title","status"]}
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
const SENT = '{"ticket_id": 42, "fields": ["title", "status"]';
const BODY = [
  event('message_start', { message: MESSAGE }),
  event('content_block_start', { index: 0, content_block: { type: 'tool_use', id: 'call_tk', name: 'get_ticket', input: {} } }),
  event('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: SENT } }),
  event('content_block_stop', { index: 0 }),
  event('message_delta', { delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 9 } }),
  event('message_stop', {}),
].join('');

const client = new Anthropic({
  apiKey: 'offline',
  maxRetries: 0,
  fetch: async () => new Response(BODY, { headers: { 'content-type': 'text/event-stream' } }),
});
const stream = client.messages.stream({ model: 'any', max_tokens: 64, messages: [{ role: 'user', content: 'go' }] });
const handed = [];
stream.on('contentBlock', (block) => handed.push(JSON.stringify(block.input)));
const final = JSON.stringify((await stream.finalMessage()).content[0].input);

console.log('sent:          ', SENT);
console.log('contentBlock:  ', handed.join(', '));
console.log('finalMessage():', final);
const completed = '{"ticket_id":42,"fields":["title","status"]}';
assert.deepEqual([handed, final], [[completed], completed], 'the SDK no longer completes an unclosed input');
