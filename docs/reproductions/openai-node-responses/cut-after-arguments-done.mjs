// openai-node's responses.stream, without the harness: a body cut after a call's
// response.function_call_arguments.done and before its response.output_item.done. The SDK fails
// nothing and fires neither the item's end nor response.completed, so a user who takes each call
// at its output_item.done never gets the call, although its arguments were whole.
//
//     node docs/reproductions/openai-node-responses/cut-after-arguments-done.mjs
//
// prints, with openai 7.59.0:
//
//     function_call_arguments.done: {"path": "notes.md"}
//     output_item.done: [] completed: false
//     done(): resolved
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

// the SDK as js/libs/openai pins it (npm ci --prefix js/libs/openai)
const require = createRequire(new URL('../../../js/libs/openai/package.json', import.meta.url));
const { default: OpenAI } = require('openai');

let sequence = 0;
const event = (type, fields) => `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...fields })}\n\n`;
const RESPONSE = { id: 'resp_1', object: 'response', created_at: 1, model: 'any', status: 'in_progress', output: [] };
const ITEM = { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'write_file', arguments: '', status: 'in_progress' };
const ARGUMENTS = '{"path": "notes.md"}';
const BODY = [
  event('response.created', { response: RESPONSE }),
  event('response.output_item.added', { output_index: 0, item: ITEM }),
  event('response.function_call_arguments.delta', { item_id: 'fc_1', output_index: 0, delta: ARGUMENTS }),
  event('response.function_call_arguments.done', { item_id: 'fc_1', output_index: 0, arguments: ARGUMENTS }),
  // the body is cut here: no output_item.done, no response.completed
].join('');

const client = new OpenAI({
  apiKey: 'offline',
  maxRetries: 0,
  fetch: async () => new Response(BODY, { headers: { 'content-type': 'text/event-stream' } }),
});
const stream = client.responses.stream({ model: 'any', input: 'go' });
let argumentsDone = null;
const items = [];
let completed = false;
stream.on('response.function_call_arguments.done', (event) => (argumentsDone = event.arguments));
stream.on('response.output_item.done', ({ item }) => items.push(item.call_id));
stream.on('response.completed', () => (completed = true));
const failure = await stream.done().then(() => null, (error) => error);

console.log('function_call_arguments.done:', argumentsDone);
console.log('output_item.done:', JSON.stringify(items), 'completed:', completed);
console.log('done():', failure === null ? 'resolved' : `rejected: ${failure.message}`);
assert.equal(argumentsDone, ARGUMENTS);
assert.deepEqual([items, completed], [[], false], 'the SDK now hands the call over');
