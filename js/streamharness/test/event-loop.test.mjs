// Read counting: a read is asked for only once what the chunk before set off has run, and
// nothing is read once the turn is over, however far ahead the library's pipes pull.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { FakeHarness, brief, chunk, fixture } from '../fixtures/fake-harness.mjs';

async function withHarness(script, args, body) {
  const harness = new FakeHarness(fixture(script), args);
  try {
    await body(harness);
  } finally {
    harness.kill();
  }
}

test('an output made from chunk N, through ticks, promises and immediates, comes before the read of chunk N+1', () =>
  withHarness('microtasks.mjs', [], async (harness) => {
    await harness.hello();
    const said = await harness.drive(['a', 'b', 'c'].map(chunk));
    assert.deepEqual(brief(said), ['read', 'text:a', 'read', 'text:b', 'read', 'text:c', 'read', 'close', 'turn_end', 'done']);
  }));

test('a library whose pipes read ahead is not read past the chunk that ended its turn', () =>
  withHarness('read-ahead.mjs', [], async (harness) => {
    await harness.hello();
    const said = await harness.drive(['a', 'b', 'stop', 'next turn', 'more'].map(chunk));
    assert.deepEqual(brief(said), ['read', 'text:a', 'read', 'text:b', 'read', 'text:stop', 'turn_end', 'done']);
    assert.deepEqual(await harness.quiet(), [], 'the process said something after done');
  }));

test('a library that goes on reading after its turn reads nothing, and the next turn reads its own body', () =>
  withHarness('read-ahead.mjs', ['detached'], async (harness) => {
    await harness.hello();
    for (let turn = 0; turn < 2; turn += 1) {
      const said = await harness.drive(['a', 'stop', 'next turn'].map(chunk));
      assert.deepEqual(brief(said), ['read', 'text:a', 'read', 'text:stop', 'turn_end', 'done']);
      assert.deepEqual(await harness.quiet(), [], 'the process said something after done');
    }
  }));
