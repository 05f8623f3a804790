// The harness's cancellation becomes the library's own abort: ctx.signal, and the read it
// answered failing with an AbortError.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { FakeHarness, brief, chunk, fixture } from '../fixtures/fake-harness.mjs';

const CANCEL = { cancelled: true };

async function cancelled(mode) {
  const harness = new FakeHarness(fixture('cancel.mjs'), [mode]);
  try {
    await harness.hello();
    const said = brief(await harness.drive([chunk('a'), CANCEL]));
    assert.deepEqual(await harness.quiet(), [], 'the process said something after done');
    return said;
  } finally {
    harness.kill();
  }
}

test('a library given ctx.signal for its request lets go of the response and is done cancelled', async () => {
  assert.deepEqual(await cancelled('signal'), ['read', 'text:a', 'read', 'close', 'done cancelled']);
});

test('a library whose read fails is done cancelled, and never said it let go of the response', async () => {
  assert.deepEqual(await cancelled('no-signal'), ['read', 'text:a', 'read', 'done cancelled']);
});

test('an abort reported as a stream part is the cancellation once the turn throws it', async () => {
  assert.deepEqual(await cancelled('part'), ['read', 'text:a', 'read', 'close', 'done cancelled']);
});

test('a turn that ignores the abort part is plainly done: the harness sees it swallowed', async () => {
  assert.deepEqual(await cancelled('swallow'), ['read', 'text:a', 'read', 'close', 'done']);
});
