// The AI SDK's streamText over @ai-sdk/openai's Chat Completions model, without the harness: a
// body that ends in the middle of a tool call's arguments (a dropped connection, a proxy's
// timeout), before any finish_reason or [DONE], raises nothing and reports no error part. The
// provider hands the cut call over as it stood (invalid, its arguments do not parse) and
// fullStream ends with a finish part (finishReason 'other'), as a turn that ended for a reason
// the SDK does not name: the user cannot tell the cut turn from a finished one.
//
//     node docs/reproductions/ai-sdk-openai/cut-body-reads-as-finished.mjs
//
// prints, with ai 6.0.326 and @ai-sdk/openai 3.0.141:
//
//     parts: ["tool-call call_1 write_file \"{\\\"path\\\": \\\"notes/todo.md\\\", \\\"c\" invalid","finish other"]
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

// the SDK as js/libs/ai-sdk pins it (npm ci --prefix js/libs/ai-sdk)
const require = createRequire(new URL('../../../js/libs/ai-sdk/package.json', import.meta.url));
const { jsonSchema, streamText } = require('ai');
const { createOpenAI } = require('@ai-sdk/openai');

const chunk = (delta, finish_reason = null) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices: [{ index: 0, delta, finish_reason }] })}\n\n`;
const BODY = [
  chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'write_file', arguments: '' } }] }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: '{"path": "notes/todo.md", "c' } }] }),
  // the connection drops here
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
assert.equal(seen.at(-1), 'finish other', 'a cut body no longer ends with a finish part');
assert.ok(!seen.some((p) => p.startsWith('error')), 'a cut body is now reported as an error');
