// A bare @ag-ui/client agent run over a list of AG-UI events: the client's own runAgent
// pipeline (verifyEvents, defaultApplyEvents), no harness.
// The client as examples/ui-consumers pins it (npm ci --prefix examples/ui-consumers), found
// from that folder wherever this runs (docs/reproductions/README.md).
import { createRequire } from 'node:module';

const require = createRequire(new URL('../../../examples/ui-consumers/package.json', import.meta.url));
const { AbstractAgent } = require('@ag-ui/client');
const { from } = require('rxjs');

process.env.SUPPRESS_TRANSFORMATION_WARNINGS = 'true';
console.warn = () => {};

class ListAgent extends AbstractAgent {
  run() {
    return from(this.events);
  }
}

export function agent(threadId = 'main') {
  return new ListAgent({ threadId });
}

export async function run(agent, runId, events) {
  agent.events = [{ type: 'RUN_STARTED', threadId: agent.threadId, runId }, ...events,
    { type: 'RUN_FINISHED', threadId: agent.threadId, runId }];
  await agent.runAgent({ runId });
  return agent.messages;
}

export function check(bug, shown) {
  console.log(shown ? `BUG SHOWN: ${bug}` : `not shown: ${bug}`);
  process.exitCode = shown ? 0 : 1;
}
