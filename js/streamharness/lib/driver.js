// The driver layer (protocol 2, pull-style): after {"op": "drive"} the process speaks first,
// asking for each chunk with {"op": "read"} as the library pulls it, emitting outputs, and
// saying {"op": "done"} when the turn function returns or throws.

import { describe, excerpt, log, sendLine } from './io.js';
import { checkOptions, guarded, offered, optional, required, serve } from './serve.js';

const READS = ['chunks', 'bytes'];
const EMITS_CALLS = ['per-call', 'per-message'];
const OUTPUTS = ['text', 'tool_call', 'turn_end', 'refusal', 'error'];
/** The most macrotask turns a read waits for the event loop to settle. */
const MAX_HOPS = 16;

/**
 * Wait until what the previous chunk set off has run: its microtasks, and the setImmediate
 * callbacks queued meanwhile, so that an output made from chunk N is written before the read
 * of chunk N+1. Each turn of the event loop runs every microtask first; the loop goes on while
 * others have queued immediates (a library emitting from one), at most MAX_HOPS turns.
 */
async function settle() {
  let hops = 0;
  do await new Promise((resolve) => setImmediate(resolve));
  while (++hops < MAX_HOPS && process.getActiveResourcesInfo().includes('Immediate'));
}

function contentType(dialect) {
  return dialect === 'gemini-json-array' ? 'application/json' : 'text/event-stream';
}

function abortError(message) {
  return new DOMException(message, 'AbortError');
}

/** Whether a tool call's argument text is a complete JSON object ('' is a call without any). */
function completeJSON(text) {
  if (text === '') return true;
  try {
    const value = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value);
  } catch {
    return false;
  }
}

/** An output as protocol 2 writes it, or a TypeError saying what is wrong with it. */
function checkOutput(output) {
  const kind = output && typeof output === 'object' ? output.type : undefined;
  if (!OUTPUTS.includes(kind)) {
    throw new TypeError(`ctx.emit: an output's type is one of ${OUTPUTS.join(', ')}, got ${excerpt(String(kind), 40)}`);
  }
  const text = (key) => {
    if (typeof output[key] !== 'string') {
      throw new TypeError(`ctx.emit: a ${kind} output needs "${key}" as a string, got ${excerpt(String(output[key]), 40)}`);
    }
    return output[key];
  };
  switch (kind) {
    case 'text':
      return { type: kind, text: text('text') };
    case 'tool_call': {
      const args = text('arguments');
      const valid = output.valid === undefined ? completeJSON(args) : output.valid;
      if (typeof valid !== 'boolean') throw new TypeError(`ctx.emit: a tool_call's "valid" is true or false, got ${String(valid)}`);
      return { type: kind, id: text('id'), name: text('name'), arguments: args, valid };
    }
    case 'turn_end':
      return output.stop_reason == null ? { type: kind } : { type: kind, stop_reason: text('stop_reason') };
    case 'refusal':
      return { type: kind, reason: text('reason') };
    default:
      return { type: kind, message: text('message') };
  }
}

/**
 * The body of one turn, read from the harness one piece per read: a string ("reads":
 * "chunks") or bytes ("reads": "bytes"), null at its end; a read the harness cancelled throws
 * the abort reason. Nothing is read after the turn is over, or after the end.
 */
class Body {
  constructor(lines, abort) {
    this.lines = lines;
    this.abort = abort; // the AbortController of ctx.signal
    this.tail = Promise.resolve();
    this.ended = false;
    this.released = false;
    this.over = false; // the turn is over
    this.reason = null; // once cancelled: why
    this.way = null; // 'fetch' or 'chunks', once the turn reads its body one way
    this.fetched = false;
  }

  claim(way) {
    if (this.way !== null && this.way !== way) {
      throw new TypeError(`the turn's body is read through ctx.${this.way} already; ctx.${way} cannot read it too`);
    }
    this.way = way;
  }

  read() {
    const next = this.tail.then(() => this.#read());
    this.tail = next.catch(() => {});
    return next;
  }

  async #read() {
    await settle();
    if (this.reason !== null) throw this.reason;
    if (this.ended || this.over) return null;
    sendLine({ op: 'read' });
    const line = await this.lines.next();
    if (line === null) process.exit(0); // the harness is gone
    const answer = JSON.parse(line);
    if (typeof answer.chunk === 'string') return this.over ? null : answer.chunk;
    if (typeof answer.bytes === 'string') {
      // a copy of its own: a byte stream takes over (detaches) the buffer of what it is given
      return this.over ? null : new Uint8Array(Buffer.from(answer.bytes, 'base64'));
    }
    if (answer.end === true) {
      this.ended = true;
      return null;
    }
    if (answer.cancelled === true) {
      this.reason = abortError('the harness cancelled the turn');
      this.abort.abort(this.reason); // the library's own abort, where it listens to ctx.signal
      throw this.reason;
    }
    throw new Error(`the harness answered read with ${excerpt(line)}`);
  }

  /** The library let go of the stream: the harness is told, once, while the turn lasts. */
  release() {
    if (this.released || this.over) return;
    this.released = true;
    sendLine({ op: 'close' });
  }
}

/** ctx.fetch: whatever is asked, the answer is the turn's body, pulled as the library reads it. */
function fetcher(body, dialect) {
  return async function fetch(_input, init = {}) {
    body.claim('fetch');
    if (body.fetched) throw new TypeError('ctx.fetch: the turn has one response, and it was fetched already');
    body.fetched = true;
    const signal = init.signal;
    if (signal && signal.aborted) throw signal.reason;
    let controller;
    const settled = (act) => {
      try {
        act();
      } catch {
        // errored or cancelled meanwhile: nobody reads the stream any more
      }
    };
    const stream = new ReadableStream(
      {
        type: 'bytes',
        start(c) {
          controller = c;
        },
        async pull() {
          let piece;
          try {
            do piece = await body.read();
            while (piece !== null && piece.length === 0); // a byte stream takes no empty piece
          } catch (err) {
            settled(() => controller.error(err));
            return;
          }
          if (piece === null) {
            settled(() => controller.close());
            body.release(); // read to its end: the response is done with
          } else {
            const bytes = typeof piece === 'string' ? new TextEncoder().encode(piece) : piece;
            settled(() => controller.enqueue(bytes));
          }
        },
        cancel() {
          body.release();
        },
      },
      { highWaterMark: 0 }, // pulled only when the library reads
    );
    // the library aborted its request (its own abort, or ctx.signal passed on): the body fails
    // as fetch's does, and the connection is released
    signal?.addEventListener(
      'abort',
      () => {
        settled(() => controller.error(signal.reason));
        body.release();
      },
      { once: true },
    );
    return new Response(stream, { status: 200, headers: { 'content-type': contentType(dialect) } });
  };
}

/** ctx.chunks: the body's pieces as an async iterator, released as it ends (the end, a
 * cancelled read, break or return), as an HTTP client's body iterator is. */
function chunkIterator(body) {
  const iterator = {
    [Symbol.asyncIterator]() {
      return iterator;
    },
    async next() {
      body.claim('chunks');
      let piece;
      try {
        piece = await body.read();
      } catch (err) {
        body.release();
        throw err;
      }
      if (piece === null) {
        body.release();
        return { done: true, value: undefined };
      }
      return { done: false, value: piece };
    },
    async return() {
      body.release();
      return { done: true, value: undefined };
    },
  };
  return iterator;
}

/** One turn: run the user's turn function against the body and say how it ended. */
async function drive(turn, dialect, lines) {
  const abort = new AbortController();
  const body = new Body(lines, abort);
  const ctx = {
    dialect,
    signal: abort.signal,
    fetch: fetcher(body, dialect),
    chunks: chunkIterator(body),
    emit(output) {
      const checked = checkOutput(output);
      if (body.over) {
        log(`an output emitted after the turn was over is dropped: ${excerpt(JSON.stringify(checked), 120)}`);
        return;
      }
      sendLine({ op: 'emit', output: checked });
    },
  };
  let outcome = { op: 'done' };
  try {
    await guarded(() => turn(ctx));
  } catch (err) {
    if (body.reason !== null) {
      outcome = { op: 'done', cancelled: true };
    } else {
      log('the turn failed:', err && err.stack ? err.stack : String(err));
      outcome = { op: 'done', error: describe(err) };
    }
  } finally {
    body.over = true; // no read, close or emit from here on
  }
  sendLine(outcome);
}

/**
 * Serve the driver layer of protocol 2 until the harness says shutdown.
 *
 *   runDriver({ dialect: 'openai-chat', reads: 'bytes', name: 'my-driver', async turn(ctx) {
 *     const client = new OpenAI({ apiKey: 'offline', fetch: ctx.fetch });
 *     ...
 *   } });
 */
export function runDriver(options) {
  const { dialect, reads = 'chunks', emitsCalls = 'per-call', name, turn } = checkOptions('runDriver', options, {
    dialect: required.string,
    reads: optional.oneOf(...READS),
    emitsCalls: optional.oneOf(...EMITS_CALLS),
    name: optional.string,
    turn: required.function,
  });
  serve({
    hello(request) {
      if (!offered(request).includes(2)) {
        return { ok: false, error: `the driver layer is protocol 2; the harness offered protocol ${JSON.stringify(request.protocol)}` };
      }
      const hello = { ok: true, protocol: 2, layers: ['driver'], dialect, emits_calls: emitsCalls, reads };
      return name === undefined ? hello : { ...hello, name };
    },
    ops: {
      async drive(_request, lines) {
        await drive(turn, dialect, lines);
        return undefined; // the turn spoke for itself
      },
    },
  });
}
