// The AI SDK's streamText over @ai-sdk/openai's Chat Completions model, without the harness: a
// delta that repeats the call's name (llama.cpp's server, bifrost) and whose argument text starts
// a JSON object is taken for the start of another call whenever it cannot continue one. Here the
// server repeats the name on every delta and sends the arguments twice: the second copy becomes a
// call of its own under an id the SDK makes up, so the user runs the tool twice instead of
// getting arguments that do not parse. (With an id that changes mid-call, the call's header is
// handed over with no arguments and its arguments become a second call the same way.)
//
//     node docs/reproductions/ai-sdk-openai/repeated-name-starts-a-new-call.mjs
//
// prints, with ai 6.0.326 and @ai-sdk/openai 3.0.141 (the made-up id differs on each run):
//
//     parts: ["tool-call call_fc get_forecast {\"city\":\"Paris\"}","tool-call 7Q3kYpWv0cXgA1bZ get_forecast {\"city\":\"Paris\"}","finish tool-calls"]
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

// the SDK as js/libs/ai-sdk pins it (npm ci --prefix js/libs/ai-sdk)
const require = createRequire(new URL('../../../js/libs/ai-sdk/package.json', import.meta.url));
const { jsonSchema, streamText } = require('ai');
const { createOpenAI } = require('@ai-sdk/openai');

const chunk = (delta, finish_reason = null) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices: [{ index: 0, delta, finish_reason }] })}\n\n`;
const named = (args) => ({ index: 0, function: { name: 'get_forecast', arguments: args } });
const BODY = [
  chunk({ role: 'assistant', content: null, tool_calls: [{ ...named(''), id: 'call_fc', type: 'function' }] }),
  chunk({ tool_calls: [named('{"city": "Paris"}')] }),
  chunk({ tool_calls: [named('{"city": "Paris"}')] }), // the arguments sent twice
  chunk({}, 'tool_calls'),
  'data: [DONE]\n\n',
].join('');

const openai = createOpenAI({
  apiKey: 'offline',
  fetch: async () => new Response(BODY, { headers: { 'content-type': 'text/event-stream' } }),
});
const TOOL = { inputSchema: jsonSchema({ type: 'object' }) };
const result = streamText({
  model: openai.chat('gpt-4o'),
  prompt: 'go',
  tools: { get_weather: TOOL, write_file: TOOL, get_forecast: TOOL },
  maxRetries: 0,
  onError: () => {}, // quiet: error parts are what the user sees
});
const seen = [];
for await (const part of result.fullStream) {
  if (part.type === 'text-delta') seen.push(`text-delta ${part.text}`);
  if (part.type === 'tool-call') seen.push(`tool-call ${part.toolCallId} ${part.toolName} ${JSON.stringify(part.input)}${part.invalid ? ' invalid' : ''}`);
  if (part.type === 'error') seen.push(`error ${part.error?.name}`);
  if (part.type === 'finish') seen.push(`finish ${part.finishReason}`);
}
console.log('parts:', JSON.stringify(seen));
const calls = seen.filter((p) => p.startsWith('tool-call'));
assert.equal(calls.length, 2, 'a repeated name no longer starts a new call');
assert.equal(calls[0], 'tool-call call_fc get_forecast {"city":"Paris"}');
assert.match(calls[1], /^tool-call \S+ get_forecast \{"city":"Paris"\}$/);
assert.notEqual(calls[1].split(' ')[1], 'call_fc');
