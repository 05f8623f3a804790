// openai-node's chat.completions.stream, without the harness: parallel calls sent at one index,
// each with its own id (Groq, Ollama through LiteLLM, gateways that renumber indices), are merged
// into one call: the later id and name replace the earlier ones and the arguments are
// concatenated, so both a user of its events and one of finalChatCompletion() get a single call
// with two JSON objects back to back, and the first call is lost.
//
//     node docs/reproductions/openai-node-chat-final/calls-at-one-index-merged.mjs
//
// prints, with openai 7.59.0:
//
//     events:                [["call_2","write_file","{\"path\": \"a.rs\"}{\"path\": \"b.rs\"}"]]
//     finalChatCompletion(): [["call_2","write_file","{\"path\": \"a.rs\"}{\"path\": \"b.rs\"}"]]
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

// the SDK as js/libs/openai pins it (npm ci --prefix js/libs/openai)
const require = createRequire(new URL('../../../js/libs/openai/package.json', import.meta.url));
const { default: OpenAI } = require('openai');

/** One chat.completion.chunk as a data: line. */
const chunk = (delta, finish = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'any', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const call = (id, path) => ({ tool_calls: [{ index: 0, id, type: 'function', function: { name: 'write_file', arguments: `{"path": "${path}"}` } }] });
const BODY = [
  chunk({ role: 'assistant', content: null }),
  chunk(call('call_1', 'a.rs')),
  chunk(call('call_2', 'b.rs')),
  chunk({}, 'tool_calls'),
  'data: [DONE]\n\n',
].join('');

const client = new OpenAI({
  apiKey: 'offline',
  maxRetries: 0,
  fetch: async () => new Response(BODY, { headers: { 'content-type': 'text/event-stream' } }),
});
const stream = client.chat.completions.stream({ model: 'any', messages: [{ role: 'user', content: 'go' }] });
const events = [];
stream.on('tool_calls.function.arguments.done', ({ index, name, arguments: args }) => {
  const id = stream.currentChatCompletionSnapshot?.choices[0]?.message.tool_calls?.[index]?.id;
  events.push([id, name, args]);
});
const message = (await stream.finalChatCompletion()).choices[0].message;
const final = message.tool_calls.map((c) => [c.id, c.function.name, c.function.arguments]);

console.log('events:               ', JSON.stringify(events));
console.log('finalChatCompletion():', JSON.stringify(final));
const merged = [['call_2', 'write_file', '{"path": "a.rs"}{"path": "b.rs"}']];
assert.deepEqual([events, final], [merged, merged], 'the SDK no longer merges calls at one index');
