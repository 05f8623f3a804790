// The options of runDriver, runSession and runHistory are checked before anything starts.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const INDEX = fileURLToPath(new URL('../index.js', import.meta.url));

/** What `call` (a call of the helper's API, as source) does in a process of its own. */
function run(call) {
  const source = `import * as sh from ${JSON.stringify(INDEX)};\n${call}`;
  return spawnSync(process.execPath, ['--input-type=module', '-e', source], { input: '', encoding: 'utf8', timeout: 10000 });
}

const turn = 'async turn() {}';

test('each wrong option is a TypeError naming it, before anything is read or written', () => {
  for (const [call, says] of [
    [`sh.runDriver({ dialect: 'anthropic', reads: 'lines', ${turn} })`, 'runDriver: reads must be one of "chunks", "bytes", got "lines"'],
    [`sh.runDriver({ reads: 'bytes', ${turn} })`, 'runDriver: dialect must be a non-empty string, got undefined'],
    [`sh.runDriver({ dialect: 'anthropic', emitsCalls: 'per-turn', ${turn} })`, 'runDriver: emitsCalls must be one of "per-call", "per-message"'],
    [`sh.runDriver({ dialect: 'anthropic', emits_calls: 'per-call', ${turn} })`, 'runDriver: unknown option "emits_calls"; known: dialect, reads, emitsCalls, name, turn'],
    [`sh.runDriver({ dialect: 'anthropic' })`, 'runDriver: turn must be a function'],
    [`sh.runSession({ feed() {}, transcript() {} })`, 'runSession: notifications must be a function'],
    [`sh.runHistory({ feed() {}, history() {}, request() {}, rebuild: [] })`, 'runHistory: rebuild must be a function, got []'],
    [`sh.runSession()`, 'runSession takes an object of options'],
    [`sh.runSession({ sessionDialect: 'ag-ui', feed() {} })`, 'runSession: view must be a function'],
    [`sh.runSession({ sessionDialect: 'ag-ui', feed() {}, view() {}, transcript() {} })`, 'runSession: transcript must not be given'],
    [`sh.runSession({ feed() {}, notifications() {}, transcript() {}, view() {} })`, 'runSession: view must not be given'],
  ]) {
    const done = run(call);
    assert.notEqual(done.status, 0, call);
    assert.equal(done.stdout, '', `${call} wrote to stdout`);
    assert.ok(done.stderr.includes(`TypeError: ${says}`), `${call}:\n${done.stderr}`);
  }
});

test('right options start the request loop, which ends with standard input', () => {
  const done = run(`sh.runDriver({ dialect: 'anthropic', reads: 'bytes', emitsCalls: 'per-message', name: 'x', ${turn} })`);
  assert.equal(done.status, 0, done.stderr);
});
