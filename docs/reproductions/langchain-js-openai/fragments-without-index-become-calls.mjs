// LangChain.js's ChatOpenAI, without the harness: call deltas without an index (Gemini's
// OpenAI-compatible endpoint, Ollama) are not merged when the chunks are concatenated: each
// argument fragment becomes an invalid call of its own with no id and no name, and the call that
// opened them is handed over with empty arguments ({}, valid).
//
//     node docs/reproductions/langchain-js-openai/fragments-without-index-become-calls.mjs
//
// prints, with @langchain/openai 1.5.8 (@langchain/core 1.4.0, openai 6.49.0):
//
//     tool_calls: ["call_1 write_file {}"] invalid_tool_calls: ["undefined  {\"path\":","undefined  \"a.rs\"}"]
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

// the library as js/libs/langchain pins it (npm ci --prefix js/libs/langchain)
const require = createRequire(new URL('../../../js/libs/langchain/package.json', import.meta.url));
const { ChatOpenAI } = require('@langchain/openai');
const { concat } = require('@langchain/core/utils/stream');

const chunk = (delta, finish_reason = null) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices: [{ index: 0, delta, finish_reason }] })}\n\n`;
const BODY = [
  chunk({ role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'write_file', arguments: '' } }] }),
  chunk({ tool_calls: [{ function: { arguments: '{"path": ' } }] }),
  chunk({ tool_calls: [{ function: { arguments: '"a.rs"}' } }] }),
  chunk({}, 'tool_calls'),
  'data: [DONE]\n\n',
].join('');

const model = new ChatOpenAI({
  model: 'gpt-4o',
  apiKey: 'offline',
  maxRetries: 0,
  configuration: {
    fetch: async () => new Response(BODY, { headers: { 'content-type': 'text/event-stream' } }),
  },
}).bindTools([{ type: 'function', function: { name: 'write_file', parameters: { type: 'object' } } }]);
let message;
for await (const part of await model.stream('go')) message = message === undefined ? part : concat(message, part);
const calls = message.tool_calls.map((c) => `${c.id} ${c.name} ${JSON.stringify(c.args)}`);
const invalid = message.invalid_tool_calls.map((c) => `${c.id} ${c.name} ${c.args}`);
console.log('tool_calls:', JSON.stringify(calls), 'invalid_tool_calls:', JSON.stringify(invalid));
assert.deepEqual([calls, invalid], [['call_1 write_file {}'], ['undefined  {"path":', 'undefined  "a.rs"}']], 'fragments without an index are now merged');
