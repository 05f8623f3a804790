// The AI SDK's streamText over @ai-sdk/openai's Chat Completions model, without the harness: tool
// call deltas without an index (Gemini's OpenAI-compatible endpoint, Ollama, SambaNova) fail the
// provider's chunk schema, which requires one: each such chunk becomes an error part
// (AI_TypeValidationError) and is dropped whole, so the user gets errors, no call, and a finish
// part that says 'tool-calls', though the provider's own tracker was written to follow calls
// without an index. Upstream: vercel/ai#7238
// (@ai-sdk/openai-compatible accepts them since; @ai-sdk/openai does not).
//
//     node docs/reproductions/ai-sdk-openai/calls-without-index-rejected.mjs
//
// prints, with ai 6.0.326 and @ai-sdk/openai 3.0.141:
//
//     parts: ["error AI_TypeValidationError","error AI_TypeValidationError","finish tool-calls"]
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

// the SDK as js/libs/ai-sdk pins it (npm ci --prefix js/libs/ai-sdk)
const require = createRequire(new URL('../../../js/libs/ai-sdk/package.json', import.meta.url));
const { jsonSchema, streamText } = require('ai');
const { createOpenAI } = require('@ai-sdk/openai');

const chunk = (delta, finish_reason = null) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices: [{ index: 0, delta, finish_reason }] })}\n\n`;
const BODY = [
  chunk({ role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } }] }),
  chunk({ tool_calls: [{ function: { arguments: '{"city": "Lisbon"}' } }] }),
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
  ['error AI_TypeValidationError', 'error AI_TypeValidationError', 'finish tool-calls'],
  'call deltas without an index are no longer rejected',
);
