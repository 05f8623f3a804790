// streamharness: a JavaScript consumer of streaming LLM events as a protocol-2 process of the
// streamharness conformance harness (docs/PROTOCOL.md, "The Node helper").

export { runDriver } from './lib/driver.js';
export { runHistory, runSession } from './lib/layers.js';
export { sseEvents } from './lib/sse.js';
export { guardStdout } from './lib/io.js';
