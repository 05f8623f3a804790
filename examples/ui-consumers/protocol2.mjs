// The harness's out-of-process protocol (version 2, docs/PROTOCOL.md), for a consumer of a UI
// protocol (a session dialect): JSON lines on stdin and stdout, one answer per request.
// Kept apart from the consumers so that it can move onto the shared Node helper package.
//
//   serve({name, sessionDialect, feed(event), view()})   feed and view may be async

import { createInterface } from 'node:readline';

export function serve({ name, sessionDialect, feed, view }) {
  const send = (answer, then) => process.stdout.write(`${JSON.stringify(answer)}\n`, then);
  process.stdout.on('error', (err) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
  const ops = {
    hello: (request) => {
      if (!(request.protocols ?? [request.protocol]).includes(2)) {
        throw new Error(`this consumer speaks protocol 2 only, offered ${JSON.stringify(request.protocol)}`);
      }
      return { ok: true, protocol: 2, layers: ['session'], name, session_dialect: sessionDialect };
    },
    feed: async (request) => {
      await feed(request.event);
      return { ok: true };
    },
    view: async () => ({ ok: true, view: await view() }),
  };
  // one request at a time, in order: a feed's effects are applied before the next request
  let queue = Promise.resolve();
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  lines.on('line', (line) => {
    queue = queue.then(async () => {
      let request;
      try {
        request = JSON.parse(line);
      } catch {
        send({ ok: false, error: `request is not JSON: ${line.slice(0, 200)}` });
        return;
      }
      if (request.op === 'shutdown') {
        send({ ok: true }, () => process.exit(0));
        return;
      }
      const op = Object.hasOwn(ops, request.op) ? ops[request.op] : undefined;
      if (!op) {
        send({ ok: false, error: `unknown op ${JSON.stringify(request.op)}` });
        return;
      }
      try {
        send(await op(request));
      } catch (err) {
        send({ ok: false, error: `${request.op} failed: ${err?.message ?? err}` });
      }
    });
  });
}

/** Let the consumer's asynchronous pipeline (promises, then timers) run to rest. */
export const settle = () => new Promise((resolve) => setImmediate(resolve));
