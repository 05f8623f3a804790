// The AI SDK's streamText over @ai-sdk/google, without the harness: a body whose lines end with a
// lone CR (a line end the SSE rules allow, as some gateways write it) loses its last event, here
// Gemini's function call and finishReason. eventsource-parser waits after a CR at the end of what
// it was fed for a possible LF, and its stream has no flush, so the CR that ends the last event
// is never taken as the blank line it is. The user gets the text, no tool call, and a finish
// part with finishReason 'other', as if the turn had ended.
//
//     node docs/reproductions/ai-sdk-google/last-event-after-lone-cr-dropped.mjs
//
// prints, with ai 6.0.326 and @ai-sdk/google 3.0.141 (eventsource-parser 3.1.1):
//
//     parts: ["text-delta Listing.","finish other"]
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

// the SDK as js/libs/ai-sdk pins it (npm ci --prefix js/libs/ai-sdk)
const require = createRequire(new URL('../../../js/libs/ai-sdk/package.json', import.meta.url));
const { jsonSchema, streamText } = require('ai');
const { createGoogleGenerativeAI } = require('@ai-sdk/google');

const response = (parts, finishReason) => ({
  candidates: [{ content: { role: 'model', parts }, ...(finishReason && { finishReason }), index: 0 }],
  modelVersion: 'gemini-2.5-flash',
});
const BODY = [
  `data: ${JSON.stringify(response([{ text: 'Listing.' }]))}\r\r`,
  `data: ${JSON.stringify(response([{ functionCall: { name: 'list_incidents', args: {} } }], 'STOP'))}\r\r`,
].join('');

const google = createGoogleGenerativeAI({
  apiKey: 'offline',
  fetch: async () => new Response(BODY, { headers: { 'content-type': 'text/event-stream' } }),
});
const result = streamText({
  model: google('gemini-2.5-flash'),
  prompt: 'go',
  tools: { list_incidents: { inputSchema: jsonSchema({ type: 'object' }) } },
  maxRetries: 0,
});
const seen = [];
for await (const part of result.fullStream) {
  if (part.type === 'text-delta') seen.push(`text-delta ${part.text}`);
  if (part.type === 'tool-call') seen.push(`tool-call ${part.toolName}`);
  if (part.type === 'error' || part.type === 'finish') seen.push(`${part.type} ${part.finishReason ?? part.error}`);
}

console.log('parts:', JSON.stringify(seen));
assert.deepEqual(seen, ['text-delta Listing.', 'finish other'], 'the last event after a lone CR is no longer dropped');
