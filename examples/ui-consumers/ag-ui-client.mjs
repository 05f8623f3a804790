#!/usr/bin/env node
// @ag-ui/client as the harness sees it: each AG-UI event the harness feeds goes through the
// client's own run pipeline (AbstractAgent.runAgent: verifyEvents, then defaultApplyEvents),
// one agent per thread, one runAgent per run; the view is each agent's messages.
//
//   harness run scenarios/session --adapter "exec:node examples/ui-consumers/ag-ui-client.mjs"

import { AbstractAgent } from '@ag-ui/client';
import { ReplaySubject } from 'rxjs';
import { runSession } from '../../js/streamharness/index.js';

process.env.SUPPRESS_TRANSFORMATION_WARNINGS = 'true';

/** Let the consumer's asynchronous pipeline (promises, then timers) run to rest. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** An agent whose run is the events the harness feeds, not an HTTP request. */
class FedAgent extends AbstractAgent {
  run() {
    return this.events.asObservable();
  }
}

const agents = new Map();
let current = null; // {agent, done, failure}

async function feed(event) {
  if (event.type === 'RUN_STARTED') {
    let agent = agents.get(event.threadId);
    if (!agent) {
      agent = new FedAgent({ threadId: event.threadId });
      agents.set(event.threadId, agent);
    }
    agent.events = new ReplaySubject(); // the run subscribes after its own async start
    current = { agent, failure: null };
    const run = current;
    run.done = agent.runAgent({ runId: event.runId }).catch((err) => {
      run.failure = err;
    });
  }
  if (!current) throw new Error(`${event.type} before any RUN_STARTED`);
  const run = current;
  run.agent.events.next(event);
  if (event.type === 'RUN_FINISHED' || event.type === 'RUN_ERROR') {
    run.agent.events.complete();
    await run.done;
    current = null;
  } else {
    await settle(); // the run's pipeline takes the event in, or fails on it, first
  }
  if (run.failure) throw run.failure;
}

function view() {
  return Object.fromEntries([...agents].map(([thread, agent]) => [thread, agent.messages]));
}

runSession({ name: '@ag-ui/client defaultApplyEvents', sessionDialect: 'ag-ui', feed, view });
