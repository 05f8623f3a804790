// The process's standard streams. Standard output belongs to the protocol: once guarded,
// whatever else writes to it (console.log, a library's banner, process.stdout.write) goes to
// standard error, and only sendLine reaches the harness, one whole line per write.

import { createInterface } from 'node:readline';

let writeStdout = null; // the real process.stdout.write, once guarded

export function guardStdout() {
  if (writeStdout !== null) return;
  const stdout = process.stdout;
  writeStdout = stdout.write.bind(stdout);
  stdout.write = (...args) => process.stderr.write(...args);
  stdout.on('error', (err) => {
    if (err.code === 'EPIPE') process.exit(0); // the harness stopped listening
    throw err;
  });
}

/** Write one protocol message; `then` runs once it is written. JSON.stringify runs before
 * anything is written, so a value it cannot serialize throws here and writes nothing. */
export function sendLine(message, then) {
  const line = `${JSON.stringify(message)}\n`;
  guardStdout();
  writeStdout(line, then);
}

export function log(...parts) {
  process.stderr.write(`[streamharness] ${parts.join(' ')}\n`);
}

/** The harness's lines, handed out one at a time as the helper asks for them; null once
 * standard input is closed. */
export class Lines {
  constructor(input = process.stdin) {
    this.queue = [];
    this.waiting = [];
    this.closed = false;
    const lines = createInterface({ input, crlfDelay: Infinity });
    lines.on('line', (line) => {
      const waiter = this.waiting.shift();
      if (waiter) waiter(line);
      else this.queue.push(line);
    });
    lines.on('close', () => {
      this.closed = true;
      for (const waiter of this.waiting.splice(0)) waiter(null);
    });
  }

  next() {
    if (this.queue.length > 0) return Promise.resolve(this.queue.shift());
    if (this.closed) return Promise.resolve(null);
    return new Promise((resolve) => this.waiting.push(resolve));
  }
}

/** A line as an error message quotes it: short. */
export function excerpt(text, limit = 200) {
  return text.length <= limit ? text : `${text.slice(0, limit)}...`;
}

/** What went wrong, in one line: "TypeError: x is not a function". */
export function describe(err) {
  if (err instanceof Error) return err.message ? `${err.name}: ${err.message}` : err.name;
  return String(err);
}
