// The AI SDK's streamText over @ai-sdk/openai's Chat Completions model, without the harness: two
// parallel calls sent at one index, each with its own id (Groq, gateways that renumber indices),
// are merged into one. The provider's tracker takes a call's header whose arguments do not start
// a JSON value, at an index an earlier call of the same name holds, for more of that call, so the
// user gets one call under the first id with both argument objects back to back (invalid, it
// cannot run) and loses the second call. No upstream report found.
//
//     node docs/reproductions/ai-sdk-openai/calls-at-one-index-merged.mjs
//
// prints, with ai 6.0.326 and @ai-sdk/openai 3.0.141:
//
//     parts: ["tool-call call_1 write_file \"{\\\"path\\\": \\\"a.rs\\\"}{\\\"path\\\": \\\"b.rs\\\"}\" invalid","finish tool-calls"]
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

// the SDK as js/libs/ai-sdk pins it (npm ci --prefix js/libs/ai-sdk)
const require = createRequire(new URL('../../../js/libs/ai-sdk/package.json', import.meta.url));
const { jsonSchema, streamText } = require('ai');
const { createOpenAI } = require('@ai-sdk/openai');

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
assert.deepEqual(
  seen,
  ['tool-call call_1 write_file "{\\"path\\": \\"a.rs\\"}{\\"path\\": \\"b.rs\\"}" invalid', 'finish tool-calls'],
  'calls at one index are no longer merged',
);
