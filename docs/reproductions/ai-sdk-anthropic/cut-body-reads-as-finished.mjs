// The AI SDK's streamText over @ai-sdk/anthropic, without the harness: a body that ends in the
// middle of a tool call's input (a dropped connection, a proxy's timeout), before message_delta
// and message_stop, raises nothing and reports no error part: fullStream ends with a finish part
// (finishReason 'other'), as a finished turn ends, and the user cannot tell the cut turn from one
// that ended for a reason the SDK does not name. The provider sends its finish only at
// message_stop; streamText ends the step with 'other' without it.
//
//     node docs/reproductions/ai-sdk-anthropic/cut-body-reads-as-finished.mjs
//
// prints, with ai 6.0.326 and @ai-sdk/anthropic 3.0.140:
//
//     parts: ["text-delta Saving the notes.","finish other"]
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

// the SDK as js/libs/ai-sdk pins it (npm ci --prefix js/libs/ai-sdk)
const require = createRequire(new URL('../../../js/libs/ai-sdk/package.json', import.meta.url));
const { jsonSchema, streamText } = require('ai');
const { createAnthropic } = require('@ai-sdk/anthropic');

const event = (type, fields) => `event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`;
const MESSAGE = {
  id: 'msg_1', type: 'message', role: 'assistant', content: [], model: 'any',
  stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 },
};
const BODY = [
  event('message_start', { message: MESSAGE }),
  event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
  event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Saving the notes.' } }),
  event('content_block_stop', { index: 0 }),
  event('content_block_start', { index: 1, content_block: { type: 'tool_use', id: 'toolu_1', name: 'write_file', input: {} } }),
  event('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: '{"path": "notes/todo.md", "c' } }),
  // the connection drops here
].join('');

const anthropic = createAnthropic({
  apiKey: 'offline',
  fetch: async () => new Response(BODY, { headers: { 'content-type': 'text/event-stream' } }),
});
const result = streamText({
  model: anthropic('claude-sonnet-4-5'),
  prompt: 'go',
  tools: { write_file: { inputSchema: jsonSchema({ type: 'object' }) } },
  maxRetries: 0,
});
const seen = [];
for await (const part of result.fullStream) {
  if (part.type === 'text-delta') seen.push(`text-delta ${part.text}`);
  if (part.type === 'tool-call') seen.push(`tool-call ${part.toolName}`);
  if (part.type === 'error' || part.type === 'finish') seen.push(`${part.type} ${part.finishReason ?? part.error}`);
}

console.log('parts:', JSON.stringify(seen));
assert.deepEqual(seen, ['text-delta Saving the notes.', 'finish other'], 'a cut body no longer ends with a finish part');
