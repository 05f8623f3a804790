// openai-node's chat.completions.stream, without the harness: a call the stream finished never
// reaches a user of its events. tool_calls.function.arguments.done fires for a call only when the
// next call starts, or when finish_reason comes while that call is open, so a call whose first
// delta arrives in the chunk that carries finish_reason (each call whole, the finish on the last,
// as OpenRouter relaying Gemini sends them) gets no done event, though finalChatCompletion()
// holds it.
//
//     node docs/reproductions/openai-node-chat/calls-never-handed-over.mjs
//
// prints, with openai 7.59.0:
//
//     events:                ["call_1"]
//     finalChatCompletion(): ["call_1","call_2"]
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

// the SDK as js/libs/openai pins it (npm ci --prefix js/libs/openai)
const require = createRequire(new URL('../../../js/libs/openai/package.json', import.meta.url));
const { default: OpenAI } = require('openai');

/** One chat.completion.chunk as a data: line. */
const chunk = (delta, finish = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'any', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const call = (index, id, region) => ({ tool_calls: [{ index, id, type: 'function', function: { name: 'get_region_status', arguments: `{"region": "${region}"}` } }] });
const BODY = [
  chunk({ role: 'assistant', content: null }),
  chunk(call(0, 'call_1', 'eu-west-1')),
  chunk(call(1, 'call_2', 'us-east-1'), 'tool_calls'),
  'data: [DONE]\n\n',
].join('');

const client = new OpenAI({
  apiKey: 'offline',
  maxRetries: 0,
  fetch: async () => new Response(BODY, { headers: { 'content-type': 'text/event-stream' } }),
});
const stream = client.chat.completions.stream({ model: 'any', messages: [{ role: 'user', content: 'go' }] });
const events = [];
stream.on('tool_calls.function.arguments.done', ({ index }) => {
  events.push(stream.currentChatCompletionSnapshot?.choices[0]?.message.tool_calls?.[index]?.id);
});
const message = (await stream.finalChatCompletion()).choices[0].message;
const final = message.tool_calls.map((c) => c.id);

console.log('events:               ', JSON.stringify(events));
console.log('finalChatCompletion():', JSON.stringify(final));
assert.deepEqual([events, final], [['call_1'], ['call_1', 'call_2']], 'the SDK now hands every finished call over');
