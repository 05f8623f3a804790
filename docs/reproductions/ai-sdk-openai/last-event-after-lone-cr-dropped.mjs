// The AI SDK's streamText over @ai-sdk/openai's Chat Completions model, without the harness: a
// body whose lines end with a lone CR (a line end the SSE rules allow, as some gateways write it)
// loses its last event, here the server's error object, so the failed turn reads as a finished
// one: no error part, and a finish part with finishReason 'other'. eventsource-parser waits after
// a CR at the end of what it was fed for a possible LF, and its stream has no flush, so the CR
// that ends the last event is never taken as the blank line it is.
//
//     node docs/reproductions/ai-sdk-openai/last-event-after-lone-cr-dropped.mjs
//
// prints, with ai 6.0.326 and @ai-sdk/openai 3.0.141 (eventsource-parser 3.1.1):
//
//     parts: ["text-delta Checking.","finish other"]
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

// the SDK as js/libs/ai-sdk pins it (npm ci --prefix js/libs/ai-sdk)
const require = createRequire(new URL('../../../js/libs/ai-sdk/package.json', import.meta.url));
const { jsonSchema, streamText } = require('ai');
const { createOpenAI } = require('@ai-sdk/openai');

const chunk = (delta, finish_reason = null) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices: [{ index: 0, delta, finish_reason }] })}\n\n`;
const BODY = [
  chunk({ role: 'assistant', content: 'Checking.' }),
  `data: ${JSON.stringify({ error: { message: 'The server had an error', type: 'server_error', code: null } })}\n\n`,
].join('').replaceAll('\n', '\r');

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
assert.deepEqual(seen, ['text-delta Checking.', 'finish other'], 'the last event after a lone CR is no longer dropped');
