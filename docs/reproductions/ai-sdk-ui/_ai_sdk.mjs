// ai's readUIMessageStream over a list of UI message stream chunks, no harness: the UIMessage
// it leaves once the stream is over.
// ai as examples/ui-consumers pins it (npm ci --prefix examples/ui-consumers), found from that
// folder wherever this runs (docs/reproductions/README.md).
import { createRequire } from 'node:module';

const require = createRequire(new URL('../../../examples/ui-consumers/package.json', import.meta.url));
const { readUIMessageStream } = require('ai');

export async function read(chunks, message) {
  const stream = new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  let last = message;
  for await (const snapshot of readUIMessageStream({ stream, message, onError: (err) => { throw err; } })) {
    last = snapshot;
  }
  return last;
}

export function check(what, shown, kind = 'BUG') {
  console.log(shown ? `${kind} SHOWN: ${what}` : `not shown: ${what}`);
  process.exitCode = shown ? 0 : 1;
}
