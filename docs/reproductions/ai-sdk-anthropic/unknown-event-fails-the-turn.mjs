// The AI SDK's streamText over @ai-sdk/anthropic, without the harness: an event of a type the
// provider's schema does not know (here the Claude Agent SDK's assembled 'assistant' message,
// after message_stop) is reported as an error part (AI_TypeValidationError, which streamText's
// default onError also logs), although the message is whole and the finish part after it says
// 'tool-calls': a user who takes error parts for what the SDK reports them as, failures, fails
// a complete turn.
// Anthropic's streaming docs ask clients to handle unknown event types gracefully; the Python
// and TypeScript Anthropic SDKs skip them. Upstream: vercel/ai#11309 (Vertex's vertex_event).
//
//     node docs/reproductions/ai-sdk-anthropic/unknown-event-fails-the-turn.mjs
//
// prints, with ai 6.0.326 and @ai-sdk/anthropic 3.0.140:
//
//     parts: ["tool-call read_file","error AI_TypeValidationError","finish tool-calls"]
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
const CALL = { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: {} };
const BODY = [
  event('message_start', { message: MESSAGE }),
  event('content_block_start', { index: 0, content_block: CALL }),
  event('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: '{"path": "deploy.log"}' } }),
  event('content_block_stop', { index: 0 }),
  event('message_delta', { delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 9 } }),
  event('message_stop', {}),
  event('assistant', { message: { id: 'msg_1', role: 'assistant', content: [{ ...CALL, input: { path: 'deploy.log' } }] } }),
].join('');

const anthropic = createAnthropic({
  apiKey: 'offline',
  fetch: async () => new Response(BODY, { headers: { 'content-type': 'text/event-stream' } }),
});
const result = streamText({
  model: anthropic('claude-sonnet-4-5'),
  prompt: 'go',
  tools: { read_file: { inputSchema: jsonSchema({ type: 'object' }) } },
  maxRetries: 0,
  onError: () => {}, // quiet: the error part below is what the user sees
});
const seen = [];
for await (const part of result.fullStream) {
  if (part.type === 'tool-call') seen.push(`tool-call ${part.toolName}`);
  if (part.type === 'error') seen.push(`error ${part.error?.name}`);
  if (part.type === 'finish') seen.push(`finish ${part.finishReason}`);
}

console.log('parts:', JSON.stringify(seen));
assert.deepEqual(seen, ['tool-call read_file', 'error AI_TypeValidationError', 'finish tool-calls'], 'an unknown event no longer fails the turn');
