#!/usr/bin/env node
// An Anthropic SSE driver in JavaScript (Node 20, no dependencies), made a protocol-2 process
// (docs/PROTOCOL.md, driver layer) by the Node helper in js/streamharness.
//
// It is shaped like the AgentX event layer's SSE driver: it reads the stream events an agent
// forwards over SSE (dialect anthropic-agent: every message cycle of a turn on one stream),
// assembles text and tool_use blocks from their deltas, emits each tool call when its
// content_block_stop arrives and the turn's end at the message_stop of its final message.
// A message_stop after stop_reason "tool_use" ends a message, not the turn: the driver reads on.
// The server's error event, or a body that ends inside a message (a cut), ends in an error
// output, never a turn end.
//
//   harness run scenarios/driver --adapter "exec:node examples/drivers/js/driver.mjs"
//
// --fetch reads each turn as an SDK does, through ctx.fetch: the body in bytes cut anywhere,
// decoded by a TextDecoderStream (a pipe, which reads ahead).
// --bug=ends-at-first-message-stop puts back the AgentX bug: the iterator ends at the first
// message_stop, so the UI waits for a tool result forever.
// --url=URL is the second mode, end to end over real HTTP: the driver POSTs to URL (a provider,
// or `harness serve SCENARIO --dialect anthropic-agent`), reads the body as the network cuts it,
// and prints each output as a JSON line, the same objects it emits to the harness.

import { runDriver, sseEvents } from '../../../js/streamharness/index.js';

const NAME = 'js-anthropic-sse-driver';
const BUGS = new Set(['ends-at-first-message-stop']);

function completeArguments(text) {
  if (text === '') return true; // a call without arguments
  try {
    const value = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value);
  } catch {
    return false;
  }
}

async function* payloads(source) {
  for await (const sse of sseEvents(source)) {
    if (sse.data.trim() !== '[DONE]') yield JSON.parse(sse.data);
  }
}

// -- the driver: stream events -> what the consumer shows ------------------------------------

async function* turn(events, bugs) {
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
  for await (const event of events) {
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

// -- main -------------------------------------------------------------------------------------

// The body of one POST as an SDK reads it: decoded as it comes by a TextDecoderStream.
async function post(fetch, url, signal) {
  const headers = { 'content-type': 'application/json' };
  const response = await fetch(url, { method: 'POST', body: '{}', headers, signal });
  if (!response.ok || !response.body) throw new Error(`${url} answered HTTP ${response.status}`);
  return response.body.pipeThrough(new TextDecoderStream());
}

const bugs = new Set();
let url = null;
let viaFetch = false;
for (const arg of process.argv.slice(2)) {
  if (arg.startsWith('--bug=') && BUGS.has(arg.slice(6))) bugs.add(arg.slice(6));
  else if (arg.startsWith('--url=')) url = arg.slice(6);
  else if (arg === '--fetch') viaFetch = true;
  else {
    const known = [...[...BUGS].map((b) => `--bug=${b}`), '--fetch', '--url=URL'].join(', ');
    process.stderr.write(`unknown option ${arg}; known: ${known}\n`);
    process.exit(2);
  }
}

if (url !== null) {
  for await (const output of turn(payloads(await post(fetch, url)), bugs)) {
    process.stdout.write(`${JSON.stringify(output)}\n`);
  }
} else {
  const variant = [viaFetch && 'via fetch', bugs.size > 0 && `bug: ${[...bugs].join(', ')}`].filter(Boolean);
  runDriver({
    name: variant.length > 0 ? `${NAME} (${variant.join('; ')})` : NAME,
    dialect: 'anthropic-agent',
    reads: viaFetch ? 'bytes' : 'chunks',
    emitsCalls: 'per-call',
    async turn(ctx) {
      const body = viaFetch ? await post(ctx.fetch, 'http://offline/v1/messages', ctx.signal) : ctx.chunks;
      for await (const output of turn(payloads(body), bugs)) ctx.emit(output);
    },
  });
}
