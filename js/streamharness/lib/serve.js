// The request loop every layer shares: hello, the layer's ops, shutdown; a request that
// fails is answered {"ok": false, "error": ...}, never left half-written or unanswered.

import { Lines, describe, excerpt, guardStdout, log, sendLine } from './io.js';

/** The protocols the harness offers in its hello: `protocols` (2 and later) or `protocol`. */
export function offered(hello) {
  return Array.isArray(hello.protocols) ? hello.protocols : [hello.protocol];
}

let failCurrent = null; // fails the operation under way, if one is

/** Run `work`; an exception nobody caught or a rejection nobody handled while it runs fails
 * it, as Node would have ended the process. */
export async function guarded(work) {
  let fail;
  const failed = new Promise((_, reject) => {
    fail = reject;
  });
  failCurrent = fail;
  try {
    return await Promise.race([work(), failed]);
  } finally {
    failCurrent = null;
  }
}

/** An op whose function's value (awaited) is answered as `field`, or {ok: true} without one. */
export function answering(fn, field) {
  return async (request) => {
    const value = await guarded(() => fn(request));
    return field === undefined ? { ok: true } : { ok: true, [field]: value };
  };
}

function stray(kind) {
  return (err) => {
    log(`${kind}:`, err && err.stack ? err.stack : String(err));
    if (failCurrent !== null) failCurrent(err);
  };
}

/**
 * Answer the harness's requests until it says shutdown or closes standard input.
 * `hello(request)` answers the hello; `ops[op](request, lines)` answers an op (an exception is
 * answered as its failure), or returns undefined when it spoke for itself (a driver's turn).
 */
export function serve({ hello, ops }) {
  guardStdout();
  process.on('uncaughtException', stray('uncaught exception'));
  process.on('unhandledRejection', stray('unhandled rejection'));
  const lines = new Lines();
  const handlers = { hello, ...ops };
  const loop = async () => {
    for (;;) {
      const line = await lines.next();
      if (line === null) process.exit(0); // the harness is gone
      let request;
      try {
        request = JSON.parse(line);
      } catch {
        sendLine({ ok: false, error: `request is not JSON: ${excerpt(line)}` });
        continue;
      }
      if (request === null || typeof request !== 'object' || Array.isArray(request)) {
        sendLine({ ok: false, error: 'each request is a JSON object' });
        continue;
      }
      if (request.op === 'shutdown') {
        // the answer is not needed; the callback runs once it is written
        sendLine({ ok: true }, () => process.exit(0));
        return;
      }
      const handler = Object.hasOwn(handlers, request.op) ? handlers[request.op] : undefined;
      if (handler === undefined) {
        sendLine({ ok: false, error: `unknown op ${JSON.stringify(request.op)}` });
        continue;
      }
      try {
        const answer = await handler(request, lines);
        if (answer !== undefined) sendLine(answer);
      } catch (err) {
        log(`${request.op} failed:`, err && err.stack ? err.stack : String(err));
        sendLine({ ok: false, error: `${request.op} failed: ${describe(err)}` });
      }
    }
  };
  loop().catch((err) => {
    log('the helper failed:', err && err.stack ? err.stack : String(err));
    process.exit(70);
  });
}

/**
 * The options of `where` (runDriver, ...), checked before anything starts: `spec` maps each
 * known option to a check returning what is wrong with a value, or null.
 */
export function checkOptions(where, options, spec) {
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`${where} takes an object of options, got ${String(options)}`);
  }
  for (const key of Object.keys(options)) {
    if (!Object.hasOwn(spec, key)) {
      const known = Object.keys(spec).join(', ');
      throw new TypeError(`${where}: unknown option ${JSON.stringify(key)}; known: ${known}`);
    }
  }
  for (const [key, check] of Object.entries(spec)) {
    const wrong = check(options[key]);
    if (wrong !== null) {
      throw new TypeError(`${where}: ${key} ${wrong}, got ${excerpt(JSON.stringify(options[key]) ?? String(options[key]), 80)}`);
    }
  }
  return options;
}

export const required = {
  function: (value) => (typeof value === 'function' ? null : 'must be a function'),
  string: (value) => (typeof value === 'string' && value !== '' ? null : 'must be a non-empty string'),
};

export const optional = {
  string: (value) => (value === undefined ? null : required.string(value)),
  oneOf:
    (...values) =>
    (value) =>
      value === undefined || values.includes(value)
        ? null
        : `must be one of ${values.map((v) => JSON.stringify(v)).join(', ')}`,
};
