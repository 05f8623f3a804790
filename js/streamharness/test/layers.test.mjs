// The session and history layers: one answer per request, a failure answered as one.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { FakeHarness, HELLO, fixture } from '../fixtures/fake-harness.mjs';

async function ask(harness, request) {
  harness.send(request);
  return harness.next();
}

const event = (type, session = 'main') => ({ type, session_id: session, parent_session_id: null });

test('a session consumer speaks protocol 2 when offered, 1 when greeted the protocol-1 way', async () => {
  for (const [hello, protocol] of [
    [HELLO, 2],
    [{ op: 'hello', protocol: 1 }, 1],
  ]) {
    const harness = new FakeHarness(fixture('session.mjs'));
    try {
      assert.deepEqual(await ask(harness, hello), { ok: true, protocol, layers: ['session'], name: 'counting-session' });
    } finally {
      harness.kill();
    }
  }
});

test('a session consumer answers feed, notifications and transcript, and its failures', async () => {
  const harness = new FakeHarness(fixture('session.mjs'));
  try {
    await ask(harness, HELLO);
    assert.deepEqual(await ask(harness, { op: 'feed', event: event('tool_select') }), { ok: true });
    assert.deepEqual(await ask(harness, { op: 'feed' }), { ok: false, error: 'feed failed: TypeError: feed needs an event object' });
    assert.deepEqual(await ask(harness, { op: 'feed', event: event('explode') }), { ok: false, error: 'feed failed: Error: the consumer exploded' });
    assert.deepEqual(await ask(harness, { op: 'notifications' }), {
      ok: true,
      notifications: [{ session_id: 'main', tool_call_id: 'x', tool_name: 'tool_select', status: 'running' }],
    });
    assert.deepEqual(await ask(harness, { op: 'transcript' }), { ok: true, transcript: { sessions: {}, updates: [], fed: 1 } });
    await ask(harness, { op: 'feed', event: event('unserializable') });
    const answer = await ask(harness, { op: 'transcript' });
    assert.equal(answer.ok, false);
    assert.match(answer.error, /^transcript failed: TypeError: .*BigInt/);
    assert.deepEqual(await ask(harness, { op: 'drive' }), { ok: false, error: 'unknown op "drive"' });
    assert.deepEqual(await ask(harness, { op: 'shutdown' }), { ok: true });
    assert.equal(await harness.exited, 0);
  } finally {
    harness.kill();
  }
});

test('a history store answers history, request and rebuild with messages', async () => {
  const harness = new FakeHarness(fixture('history.mjs'));
  try {
    assert.deepEqual(await ask(harness, HELLO), { ok: true, protocol: 2, layers: ['history'], name: 'typed-history' });
    for (const type of ['user_message', 'message_start']) assert.deepEqual(await ask(harness, { op: 'feed', event: event(type) }), { ok: true });
    const text = (t) => ({ role: 'user', content: [{ type: 'text', text: t }] });
    assert.deepEqual(await ask(harness, { op: 'history', session_id: 'main' }), { ok: true, messages: [text('user_message'), text('message_start')] });
    assert.deepEqual(await ask(harness, { op: 'request', session_id: 'main' }), { ok: true, messages: [text('message_start')] });
    assert.deepEqual((await ask(harness, { op: 'rebuild', session_id: 'main' })).messages[1], {
      role: 'user',
      text: 'message_start',
      tool_calls: [],
      message_id: 'm1',
    });
    assert.deepEqual(await ask(harness, { op: 'history' }), { ok: false, error: 'history failed: TypeError: history needs a session_id' });
  } finally {
    harness.kill();
  }
});

test('a history store refuses a harness that offers only protocol 1', async () => {
  const harness = new FakeHarness(fixture('history.mjs'));
  try {
    const answer = await ask(harness, { op: 'hello', protocol: 1 });
    assert.equal(answer.ok, false);
    assert.match(answer.error, /protocol 2/);
  } finally {
    harness.kill();
  }
});

test('a consumer of a UI protocol names it, answers view once its work settled, and speaks protocol 2 only', async () => {
  const harness = new FakeHarness(fixture('dialect-session.mjs'));
  try {
    assert.deepEqual(await ask(harness, HELLO), {
      ok: true,
      protocol: 2,
      layers: ['session'],
      name: 'late-reducer',
      session_dialect: 'ag-ui',
    });
    // the view is asked in the same write as the feed: only the feed's answer waiting for the
    // reducer's work lets the view show it
    harness.send(`${JSON.stringify({ op: 'feed', event: { type: 'RUN_STARTED' } })}\n${JSON.stringify({ op: 'view' })}`);
    assert.deepEqual(await harness.next(), { ok: true });
    assert.deepEqual(await harness.next(), { ok: true, view: { main: ['RUN_STARTED'] } });
    assert.deepEqual(await ask(harness, { op: 'feed', event: { type: 'explode' } }), { ok: false, error: 'feed failed: Error: the reducer exploded' });
    assert.deepEqual(await ask(harness, { op: 'view' }), { ok: true, view: { main: ['RUN_STARTED'] } });
    assert.deepEqual(await ask(harness, { op: 'transcript' }), { ok: false, error: 'unknown op "transcript"' });
  } finally {
    harness.kill();
  }
  const old = new FakeHarness(fixture('dialect-session.mjs'));
  try {
    const answer = await ask(old, { op: 'hello', protocol: 1 });
    assert.equal(answer.ok, false);
    assert.match(answer.error, /protocol 2/);
  } finally {
    old.kill();
  }
});
