#!/usr/bin/env node
// An Anthropic SSE driver in JavaScript (Node 20, no dependencies), spoken to by the harness in
// JSON lines (protocol 2, driver layer: see docs/PROTOCOL.md).
//
// It is shaped like the AgentX event layer's SSE driver: it reads the stream events an agent
// forwards over SSE (dialect anthropic-agent: every message cycle of a turn on one stream),
// assembles text and tool_use blocks from their deltas, emits each tool call when its
// content_block_stop arrives and the turn's end at the message_stop of its final message.
// A message_stop after stop_reason "tool_use" ends a message, not the turn: the driver reads on.
//
//   harness run scenarios/driver --adapter "exec:node examples/drivers/js/driver.mjs"
//
// --bug=ends-at-first-message-stop puts back the AgentX bug: the iterator ends at the first
// message_stop, so the UI waits for a tool result forever.
//
// The server's error event, or a body that ends inside a message (a cut), ends in an error
// output, never a turn end.
//
// --url URL is the second mode, end to end over real HTTP: the driver POSTs to URL (a provider,
// or `harness serve SCENARIO --dialect anthropic-agent`), reads the body as the network cuts it,
// and prints each output as a JSON line, the same objects it emits to the harness.

import { createInterface } from 'node:readline';

const NAME = 'js-anthropic-sse-driver';
const BUGS = new Set(['ends-at-first-message-stop']);

// -- the conversation with the harness ------------------------------------------------------

const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') process.exit(0); // the harness stopped listening
  throw err;
});

// Lines from the harness, pulled one at a time: a driver asks for the next chunk when it wants it.
const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
const queue = [];
const waiting = [];
let closed = false;
lines.on('line', (line) => {
  const waiter = waiting.shift();
  if (waiter) waiter(line);
  else queue.push(line);
});
lines.on('close', () => {
  closed = true;
  for (const waiter of waiting.splice(0)) waiter(null);
});

function nextLine() {
  if (queue.length > 0) return Promise.resolve(queue.shift());
  if (closed) return Promise.resolve(null);
  return new Promise((resolve) => waiting.push(resolve));
}

async function receive() {
  const line = await nextLine();
  if (line === null) process.exit(0); // stdin closed: the harness is gone
  return JSON.parse(line);
}

class Cancelled extends Error {}

// The stream as the driver sees it: each read asks the harness for the next chunk.
class Chunks {
  async read() {
    send({ op: 'read' });
    const answer = await receive();
    if (typeof answer.chunk === 'string') return answer.chunk; // its hello says reads: chunks
    if (answer.cancelled === true) throw new Cancelled('the turn was cancelled');
    if (answer.end === true) return null;
    throw new Error(`unexpected answer to read: ${JSON.stringify(answer).slice(0, 200)}`);
  }

  close() {
    send({ op: 'close' });
  }
}

// The stream over HTTP: a body cut anywhere by the network, given to the driver one whole event
// at a time (the text up to and with the blank line that ends it).
class HttpChunks {
  constructor(url) {
    this.url = url;
    this.reader = null;
    this.decoder = new TextDecoder();
    this.buffer = '';
    this.ended = false;
  }

  async read() {
    if (this.reader === null) {
      const response = await fetch(this.url, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
      if (!response.ok || !response.body) throw new Error(`${this.url} answered HTTP ${response.status}`);
      this.reader = response.body.getReader();
    }
    for (;;) {
      const end = this.buffer.search(/\r\n\r\n|\n\n|\r\r/);
      if (end >= 0) {
        const stop = end + (this.buffer.startsWith('\r\n\r\n', end) ? 4 : 2);
        const event = this.buffer.slice(0, stop);
        this.buffer = this.buffer.slice(stop);
        return event;
      }
      if (this.ended) {
        const rest = this.buffer;
        this.buffer = '';
        return rest === '' ? null : rest;
      }
      const { value, done } = await this.reader.read();
      if (done) {
        this.ended = true;
        this.buffer += this.decoder.decode();
      } else {
        this.buffer += this.decoder.decode(value, { stream: true });
      }
    }
  }

  close() {
    if (this.reader !== null) this.reader.cancel().catch(() => {});
  }
}

// -- server-sent events (WHATWG parsing) ----------------------------------------------------

function* sseEvents(text) {
  if (text.startsWith('\ufeff')) text = text.slice(1);
  let data = [];
  let event = '';
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === '') {
      if (data.length > 0) yield { event: event || null, data: data.join('\n') };
      data = [];
      event = '';
      continue;
    }
    if (line.startsWith(':')) continue; // a comment: keep-alive
    const colon = line.indexOf(':');
    const name = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (name === 'data') data.push(value);
    else if (name === 'event') event = value;
  }
  if (data.length > 0) yield { event: event || null, data: data.join('\n') };
}

// Every JSON payload the stream carries, read chunk by chunk, as the stream layer's events.
async function* streamEvents(chunks) {
  for (;;) {
    const chunk = await chunks.read();
    if (chunk === null) return;
    for (const sse of sseEvents(chunk)) {
      if (sse.data.trim() === '[DONE]') continue;
      yield JSON.parse(sse.data);
    }
  }
}

// -- the driver: stream layer -> what the consumer shows ------------------------------------

function completeArguments(text) {
  if (text === '') return true; // a call without arguments
  try {
    const value = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value);
  } catch {
    return false;
  }
}

async function* turn(chunks, bugs) {
  let blocks = new Map();
  const started = new Set();
  let stopReason = 'end_turn';

  function* finish(block) {
    if (!block || block.done) return; // a repeated content_block_stop changes nothing
    block.done = true;
    if (block.type === 'tool_use' || block.type === 'server_tool_use') {
      const args = block.parts.join('');
      yield { type: 'tool_call', id: block.id, name: block.name, arguments: args, valid: completeArguments(args) };
    }
  }

  let inMessage = false; // a message started and has not stopped
  for await (const event of streamEvents(chunks)) {
    const kind = event && typeof event === 'object' ? event.type : undefined;
    if (kind === 'error') {
      // the server's error mid-stream: the stream ends with it, and so does the turn, unfinished
      const error = event.error || {};
      yield { type: 'error', message: `${error.type}: ${error.message}` };
      return;
    } else if (kind === 'message_start') {
      const id = (event.message && event.message.id) || '';
      if (started.has(id)) continue; // a repeated message_start must not reset the message
      started.add(id);
      blocks = new Map();
      inMessage = true;
    } else if (kind === 'content_block_start') {
      const block = event.content_block || {};
      blocks.set(event.index, { type: block.type, id: block.id || '', name: block.name || '', parts: [], done: false });
    } else if (kind === 'content_block_delta') {
      const block = blocks.get(event.index);
      const delta = event.delta || {};
      if (!block) continue;
      if (delta.type === 'text_delta') yield { type: 'text', text: delta.text };
      else if (delta.type === 'input_json_delta') block.parts.push(delta.partial_json);
    } else if (kind === 'content_block_stop') {
      yield* finish(blocks.get(event.index));
    } else if (kind === 'message_delta') {
      stopReason = (event.delta && event.delta.stop_reason) || 'end_turn';
      // cut short (max_tokens): the calls still open end here
      for (const index of [...blocks.keys()].sort((a, b) => a - b)) yield* finish(blocks.get(index));
    } else if (kind === 'message_stop') {
      inMessage = false;
      if (bugs.has('ends-at-first-message-stop')) {
        yield { type: 'turn_end', stop_reason: stopReason };
        return; // the AgentX bug: one message taken for the whole turn
      }
      if (stopReason === 'tool_use') continue; // the end of a message; the turn goes on
      const called = [...blocks.values()].some((b) => b.type === 'tool_use');
      // 'end_turn' with tool calls in the message: the tools still have to run
      const reason = called && stopReason !== 'max_tokens' ? 'tool_use' : stopReason;
      yield { type: 'turn_end', stop_reason: reason };
      return; // the stream goes on with the next turn: stop reading here
    }
    // ping, an SDK's assembled 'assistant' copy, anything else: nothing to emit
  }
  // the body ended inside a message: it was cut, and the turn did not end
  if (inMessage) yield { type: 'error', message: 'the stream ended before the turn did' };
}

async function drive(bugs) {
  const chunks = new Chunks();
  let outcome = { op: 'done' };
  try {
    for await (const output of turn(chunks, bugs)) send({ op: 'emit', output });
  } catch (err) {
    outcome = err instanceof Cancelled ? { op: 'done', cancelled: true } : { op: 'done', error: String(err) };
  }
  chunks.close(); // done, failed or cancelled: the response is released
  send(outcome);
}

// -- main -------------------------------------------------------------------------------------

function parseOptions(argv) {
  const bugs = new Set();
  let url = null;
  for (const arg of argv) {
    const bug = arg.startsWith('--bug=') ? arg.slice(6) : undefined;
    if (bug && BUGS.has(bug)) bugs.add(bug);
    else if (arg.startsWith('--url=')) url = arg.slice(6);
    else {
      const known = [...[...BUGS].map((b) => `--bug=${b}`), '--url=URL'].join(', ');
      process.stderr.write(`unknown option ${arg}; known: ${known}\n`);
      process.exit(2);
    }
  }
  return { bugs, url };
}

// The second mode: one turn read over HTTP, each output printed as a JSON line.
async function overHttp(url, bugs) {
  const chunks = new HttpChunks(url);
  try {
    for await (const output of turn(chunks, bugs)) process.stdout.write(`${JSON.stringify(output)}\n`);
  } finally {
    chunks.close();
  }
}

async function main() {
  const { bugs, url } = parseOptions(process.argv.slice(2));
  if (url !== null) return overHttp(url, bugs);
  const name = bugs.size > 0 ? `${NAME} (bug: ${[...bugs].join(', ')})` : NAME;
  for (;;) {
    const request = await receive();
    if (request.op === 'hello') {
      if (!Array.isArray(request.protocols) || !request.protocols.includes(2)) {
        send({ ok: false, error: `this driver speaks protocol 2, not ${JSON.stringify(request.protocol)}` });
        continue;
      }
      send({
        ok: true,
        protocol: 2,
        layers: ['driver'],
        name,
        dialect: 'anthropic-agent',
        emits_calls: 'per-call',
        reads: 'chunks',
      });
    } else if (request.op === 'drive') {
      await drive(bugs);
    } else if (request.op === 'shutdown') {
      process.exit(0);
    } else {
      send({ ok: false, error: `unknown op ${JSON.stringify(request.op)}` });
    }
  }
}

main().catch((err) => {
  process.stderr.write(`${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});
