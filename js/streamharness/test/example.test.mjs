// The driver of examples/openai-chat.mjs, on the openai package's streaming (a stand-in with
// its mechanics: its own fetch, a pipe that reads ahead, a quiet abort), against a fake harness.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { FakeHarness, brief } from '../fixtures/fake-harness.mjs';

const EXAMPLE = fileURLToPath(new URL('../examples/openai-chat.mjs', import.meta.url));

const data = (value) => `data: ${JSON.stringify(value)}\n\n`;
const delta = (d, finish = null) => data({ choices: [{ index: 0, delta: d, finish_reason: finish }] });
const call = (index, fields, args) => ({ tool_calls: [{ index, ...fields, function: { ...(fields.name && { name: fields.name }), arguments: args } }] });

const BODY = [
  delta({ role: 'assistant', content: 'Let me look.' }),
  delta(call(0, { id: 'call_1', type: 'function', name: 'read_file' }, '{"path": ')),
  delta(call(0, {}, '"a.txt"}')),
  delta(call(1, { id: 'call_2', type: 'function', name: 'ls' }, '')),
  delta({}, 'tool_calls'),
  data({ choices: [], usage: { total_tokens: 9 } }),
  'data: [DONE]\n\n',
].join('');

/** The body in base64 slices of `size` bytes, cut anywhere. */
function slices(size) {
  const bytes = Buffer.from(BODY);
  const out = [];
  for (let at = 0; at < bytes.length; at += size) out.push({ bytes: bytes.subarray(at, at + size).toString('base64') });
  return out;
}

async function withExample(body) {
  const harness = new FakeHarness(EXAMPLE);
  try {
    await body(harness);
  } finally {
    harness.kill();
  }
}

test('the openai example reads the body cut anywhere and emits the message and its calls', () =>
  withExample(async (harness) => {
    assert.deepEqual(await harness.hello(), {
      ok: true,
      protocol: 2,
      layers: ['driver'],
      dialect: 'openai-chat',
      emits_calls: 'per-message',
      reads: 'bytes',
      name: 'openai-node chat stream',
    });
    for (const size of [7, 64, 10000]) {
      const answers = slices(size);
      const said = await harness.drive(answers);
      const reads = said.filter((m) => m.op === 'read').length;
      assert.equal(reads, answers.length + 1, `every slice and the end, once each (slices of ${size})`);
      const outputs = said.filter((m) => m.op === 'emit').map((m) => m.output);
      assert.deepEqual(outputs, [
        { type: 'text', text: 'Let me look.' },
        { type: 'tool_call', id: 'call_1', name: 'read_file', arguments: '{"path": "a.txt"}', valid: true },
        { type: 'tool_call', id: 'call_2', name: 'ls', arguments: '', valid: true },
        { type: 'turn_end', stop_reason: 'tool_use' },
      ]);
      assert.deepEqual(brief(said).slice(-5), ['close', 'call:call_1', 'call:call_2', 'turn_end', 'done']);
    }
  }));

test('the openai example, cancelled, aborts its request through ctx.signal and is done cancelled', () =>
  withExample(async (harness) => {
    await harness.hello();
    const answers = slices(64);
    const said = await harness.drive([...answers.slice(0, 2), { cancelled: true }]);
    assert.deepEqual(brief(said).slice(-3), ['read', 'close', 'done cancelled']);
    assert.equal(said.filter((m) => m.op === 'emit' && m.output.type === 'tool_call').length, 0);
    assert.deepEqual(await harness.quiet(), []);
  }));

test('the openai example, its body cut, ends without a turn end', () =>
  withExample(async (harness) => {
    await harness.hello();
    const said = await harness.drive(slices(64).slice(0, 3));
    assert.deepEqual(brief(said).slice(-3), ['read', 'close', 'done']);
    assert.ok(!brief(said).includes('turn_end'));
  }));
