// @anthropic-ai/sdk's messages.stream, without the harness: a content_block_stop sent twice for
// one tool_use block (as a LiteLLM proxy did, BerriAI/litellm#37273) fires the 'contentBlock'
// event twice with the finished block, so a user who runs tools there runs this one twice.
//
//     node docs/reproductions/anthropic-node/block-stop-passed-twice.mjs
//
// prints, with @anthropic-ai/sdk 1.14.0:
//
//     contentBlock: ["toolu_1 git_branch {\"name\":\"fix\"}","toolu_1 git_branch {\"name\":\"fix\"}"]
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
  event('content_block_start', { index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'git_branch', input: {} } }),
  event('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: '{"name": "fix"}' } }),
  event('content_block_stop', { index: 0 }),
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
stream.on('contentBlock', (block) => handed.push(`${block.id} ${block.name} ${JSON.stringify(block.input)}`));
await stream.done();

console.log('contentBlock:', JSON.stringify(handed));
const once = 'toolu_1 git_branch {"name":"fix"}';
assert.deepEqual(handed, [once, once], 'the SDK no longer passes a repeated block stop on');
