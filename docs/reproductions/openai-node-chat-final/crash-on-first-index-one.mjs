// openai-node's chat.completions.stream, without the harness: the first call comes at index 1
// (Bedrock Claude through LiteLLM, DeepSeek). The events hand it over, but the stream then fails
// at its end (a TypeError inside, reading the id of a call that is not there), as the finished message has a hole at index 0: finalChatCompletion()
// and done() reject, so the user loses the message (and a user of the events sees the stream fail
// after the call it already ran).
//
//     node docs/reproductions/openai-node-chat-final/crash-on-first-index-one.mjs
//
// prints, with openai 7.59.0:
//
//     tool_calls.function.arguments.done: ["get_weather"]
//     finalChatCompletion() rejected: Cannot read properties of undefined (reading 'id')
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
  chunk({ tool_calls: [{ index: 1, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Porto"}' } }] }),
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
assert.deepEqual(done, ['get_weather']);
assert.match(String(failure?.message), /Cannot read properties of undefined/, 'the SDK now finishes a message whose first call is at index 1');
