// sseEvents: server-sent events read from pieces cut anywhere.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { sseEvents } from '../lib/sse.js';

async function events(pieces) {
  const out = [];
  for await (const event of sseEvents(pieces)) out.push(event);
  return out;
}

const BODY = '\ufeffevent: delta\ndata: {"a":\ndata: 1}\n\n: ping\n\ndata: café\r\n\r\nid: 7\rdata: [DONE]\r\r';
const EXPECTED = [
  { event: 'delta', data: '{"a":\n1}' },
  { event: 'message', data: 'café' },
  { event: 'message', data: '[DONE]' },
];

test('events whole, with CRLF, CR and LF line ends, comments, a BOM and several data lines', async () => {
  assert.deepEqual(await events([BODY]), EXPECTED);
});

test('the same body cut at every place, in bytes, gives the same events', async () => {
  const bytes = new TextEncoder().encode(BODY);
  for (let cut = 1; cut < bytes.length; cut += 1) {
    assert.deepEqual(await events([bytes.slice(0, cut), bytes.slice(cut)]), EXPECTED, `cut at byte ${cut}`);
  }
  assert.deepEqual(await events([...bytes].map((b) => Uint8Array.of(b))), EXPECTED, 'byte by byte');
});

test('each event is handed on before the next piece is read', async () => {
  const seen = [];
  async function* pieces() {
    seen.push('read 1');
    yield 'data: 1\n\ndata: 2\n';
    seen.push('read 2');
    yield '\ndata: 3\n\n';
  }
  for await (const event of sseEvents(pieces())) seen.push(event.data);
  assert.deepEqual(seen, ['read 1', '1', 'read 2', '2', '3']);
});

test('an event the body ends in, without its blank line, is handed on', async () => {
  assert.deepEqual(await events(['data: 1\n\ndata: cut']), [
    { event: 'message', data: '1' },
    { event: 'message', data: 'cut' },
  ]);
  assert.deepEqual(await events(['event: x\n', ': nothing\n']), []);
});
