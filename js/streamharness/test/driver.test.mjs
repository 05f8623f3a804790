// The driver layer against a fake harness: hello, reads of chunks and bytes, ctx.fetch,
// several turns in one process, failures that become the protocol's error reply.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { FakeHarness, HELLO, brief, bytes, chunk, fixture } from '../fixtures/fake-harness.mjs';

async function withHarness(script, args, body) {
  const harness = new FakeHarness(fixture(script), args);
  try {
    await body(harness);
  } finally {
    harness.kill();
  }
}

test('hello says the driver layer, its dialect, reads and emits_calls', () =>
  withHarness('echo.mjs', [], async (harness) => {
    assert.deepEqual(await harness.hello(), {
      ok: true,
      protocol: 2,
      layers: ['driver'],
      dialect: 'anthropic',
      emits_calls: 'per-call',
      reads: 'chunks',
      name: 'echo',
    });
  }));

test('a hello offering only protocol 1 is refused, naming the protocol', () =>
  withHarness('echo.mjs', [], async (harness) => {
    harness.send({ op: 'hello', protocol: 1 });
    const answer = await harness.next();
    assert.equal(answer.ok, false);
    assert.match(answer.error, /protocol 2/);
  }));

test('each chunk is one read, answered after the outputs of the one before', () =>
  withHarness('echo.mjs', [], async (harness) => {
    await harness.hello();
    const said = await harness.drive([chunk('a'), chunk('b')]);
    assert.deepEqual(brief(said), ['read', 'text:a', 'read', 'text:b', 'read', 'close', 'turn_end', 'done']);
  }));

test('reads of bytes are decoded from base64, and a process drives turn after turn', () =>
  withHarness('echo.mjs', ['bytes'], async (harness) => {
    assert.equal((await harness.hello()).reads, 'bytes');
    for (const text of ['café', 'naïve']) {
      const said = await harness.drive([bytes(text)]);
      assert.deepEqual(brief(said), ['read', `text:${text}`, 'read', 'close', 'turn_end', 'done']);
    }
    assert.equal(await harness.shutdown(), 0);
  }));

test('ctx.fetch answers with a streamed response whose body is pulled one read per piece', async () => {
  for (const [reads, dialect, answers, type] of [
    ['bytes', 'openai-chat', [bytes('data: {"a"'), bytes(':1}\n\n')], 'text/event-stream'],
    ['chunks', 'gemini-json-array', [chunk('[{"a":1}'), chunk(']')], 'application/json'],
  ]) {
    await withHarness('fetch-reader.mjs', [reads, dialect], async (harness) => {
      await harness.hello();
      const said = await harness.drive(answers);
      const pieces = answers.map((a) => `text:${a.chunk ?? Buffer.from(a.bytes, 'base64').toString()}`);
      assert.deepEqual(brief(said), [`text:200 ${type}`, 'read', pieces[0], 'read', pieces[1], 'read', 'close', 'turn_end', 'done']);
    });
  }
});

test('a turn that throws is done with its error, and the next turn runs', () =>
  withHarness('fails.mjs', ['throws'], async (harness) => {
    await harness.hello();
    for (let turn = 0; turn < 2; turn += 1) {
      assert.deepEqual(brief(await harness.drive([chunk('a')])), ['read', 'text:a', 'done error: Error: boom']);
    }
    assert.match(harness.stderr, /Error: boom/);
  }));

test('a malformed output fails the turn with what is wrong with it', () =>
  withHarness('fails.mjs', ['bad-output'], async (harness) => {
    await harness.hello();
    const said = brief(await harness.drive([chunk('a')]));
    assert.equal(said.length, 3);
    assert.match(said[2], /^done error: TypeError: ctx.emit: a tool_call output needs "id" as a string, got 7/);
  }));

test('an exception nobody catches, or a rejection nobody handles, fails the turn', async () => {
  for (const [mode, says] of [
    ['uncaught', 'Error: thrown in a timer'],
    ['rejection', 'RangeError: nobody handles this'],
  ]) {
    await withHarness('fails.mjs', [mode], async (harness) => {
      await harness.hello();
      assert.deepEqual(brief(await harness.drive([chunk('a')])), ['read', 'text:a', `done error: ${says}`]);
      assert.deepEqual(brief(await harness.drive([chunk('b')])), ['read', 'text:b', `done error: ${says}`]);
    });
  }
});

test('requests out of place are answered as failures, and the process goes on', () =>
  withHarness('echo.mjs', [], async (harness) => {
    harness.send('not json');
    assert.match((await harness.next()).error, /^request is not JSON: not json/);
    harness.send('[1, 2]');
    assert.deepEqual(await harness.next(), { ok: false, error: 'each request is a JSON object' });
    harness.send({ op: 'feed', event: {} });
    assert.deepEqual(await harness.next(), { ok: false, error: 'unknown op "feed"' });
    assert.equal((await harness.hello()).ok, true);
  }));

test('the process exits when the harness closes its standard input', () =>
  withHarness('echo.mjs', [], async (harness) => {
    harness.send(HELLO);
    await harness.next();
    harness.child.stdin.end();
    assert.equal(await harness.exited, 0);
  }));
