// ai's readUIMessageStream over a list of UI message stream chunks, no harness: the UIMessage
// it leaves once the stream is over.
import { readUIMessageStream } from 'ai';

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
