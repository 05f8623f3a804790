// openai-node's chat.completions.stream, without the harness: call deltas without an index (as
// Gemini's OpenAI-compatible endpoint and Ollama send them) fail the stream with "invalid tool
// call index: undefined", so neither a user of its events nor one of finalChatCompletion() gets
// a call.
//
//     node docs/reproductions/openai-node-chat/crash-without-index.mjs
//
// prints, with openai 7.59.0:
//
//     tool_calls.function.arguments.done: []
//     finalChatCompletion() rejected: Chat completion stream contains an invalid tool call index: undefined
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

// the SDK as js/libs/openai pins it (npm ci --prefix js/libs/openai)
const require = createRequire(new URL('../../../js/libs/openai/package.json', import.meta.url));
const { default: OpenAI } = require('openai');

/** One chat.completion.chunk as a data: line. */
const chunk = (delta, finish = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'any', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const BODY = [
  chunk({ role: 'assistant', content: null }),
  chunk({ tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Porto"}' } }] }),
  chunk({}, 'tool_calls'),
  'data: [DONE]\n\n',
].join('');

const client = new OpenAI({
  apiKey: 'offline',
  maxRetries: 0,
  fetch: async () => new Response(BODY, { headers: { 'content-type': 'text/event-stream' } }),
});
const stream = client.chat.completions.stream({ model: 'any', messages: [{ role: 'user', content: 'go' }] });
const done = [];
stream.on('tool_calls.function.arguments.done', (event) => done.push(event.name));
const failure = await stream.finalChatCompletion().then(() => null, (error) => error);

console.log('tool_calls.function.arguments.done:', JSON.stringify(done));
console.log('finalChatCompletion() rejected:', failure?.message);
assert.deepEqual(done, []);
assert.match(String(failure?.message), /invalid tool call index: undefined/, 'the SDK now takes calls without an index');
