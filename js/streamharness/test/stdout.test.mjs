// Standard output belongs to the protocol: a library's prints go to standard error.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { FakeHarness, brief, chunk, fixture } from '../fixtures/fake-harness.mjs';

test('what a library prints, at import and during the turn, goes to stderr', async () => {
  const harness = new FakeHarness(fixture('noisy.mjs'));
  try {
    assert.equal((await harness.hello()).ok, true); // not the banner
    const said = await harness.drive([chunk('a'), chunk('b')]);
    assert.deepEqual(brief(said), ['read', 'text:A', 'read', 'text:B', 'read', 'close', 'done']);
    assert.equal(await harness.shutdown(), 0);
    for (const print of ['a banner on stdout at import', 'console.log(a)', 'console.info(a)', 'console.debug(b)', 'console.warn(b)', 'process.stdout.write(b)']) {
      assert.ok(harness.stderr.includes(print), `${print} is not on stderr:\n${harness.stderr}`);
    }
  } finally {
    harness.kill();
  }
});
