// LangChain.js's ChatOpenAI, without the harness: two parallel calls sent at one index, each with
// its own id (Groq, Ollama through LiteLLM, gateways that renumber indices), are matched by index
// alone when the chunks are concatenated: the second call's header stays a call of its own with
// empty arguments ({}, valid), and both argument objects go to the first call, which is invalid.
//
//     node docs/reproductions/langchain-js-openai/calls-matched-by-index.mjs
//
// prints, with @langchain/openai 1.5.8 (@langchain/core 1.4.0, openai 6.49.0):
//
//     tool_calls: ["call_2 write_file {}"] invalid_tool_calls: ["call_1 write_file {\"path\": \"a.rs\"}{\"path\": \"b.rs\"}"]
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

// the library as js/libs/langchain pins it (npm ci --prefix js/libs/langchain)
const require = createRequire(new URL('../../../js/libs/langchain/package.json', import.meta.url));
const { ChatOpenAI } = require('@langchain/openai');
const { concat } = require('@langchain/core/utils/stream');

const chunk = (delta, finish_reason = null) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices: [{ index: 0, delta, finish_reason }] })}\n\n`;
const header = (id) => ({ index: 0, id, type: 'function', function: { name: 'write_file', arguments: '' } });
const BODY = [
  chunk({ role: 'assistant', content: null, tool_calls: [header('call_1')] }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: '{"path": "a.rs"}' } }] }),
  chunk({ tool_calls: [header('call_2')] }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: '{"path": "b.rs"}' } }] }),
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
assert.deepEqual([calls, invalid], [['call_2 write_file {}'], ['call_1 write_file {"path": "a.rs"}{"path": "b.rs"}']], 'the calls at one index are no longer matched by index alone');
