// A MESSAGES_SNAPSHOT keeps the messages the client already knows (by id) where they were,
// and appends the snapshot's new messages after them: a resumed thread whose snapshot keeps
// the tool results' ids but gives the rebuilt text new ones shows every result before the
// call it answers. The snapshot's own order is lost.
// scenarios/session/resume-live-after-tool-calls.yaml
import { agent, run, check } from './_agent.mjs';

const a = agent();
await run(a, 'run_1', [
  { type: 'TOOL_CALL_START', toolCallId: 'call_1', toolCallName: 'read', parentMessageId: 'm1' },
  { type: 'TOOL_CALL_ARGS', toolCallId: 'call_1', delta: '{}' },
  { type: 'TOOL_CALL_END', toolCallId: 'call_1' },
  { type: 'TOOL_CALL_RESULT', messageId: 'r1', toolCallId: 'call_1', content: 'contents' },
]);
const snapshot = [
  { id: 'resumed-1', role: 'user', content: 'Read it.' },
  { id: 'resumed-2', role: 'assistant', content: 'Reading.', toolCalls: [{ id: 'call_1', type: 'function', function: { name: 'read', arguments: '{}' } }] },
  { id: 'r1', role: 'tool', toolCallId: 'call_1', content: 'contents' },
];
const messages = await run(a, 'run_2', [{ type: 'MESSAGES_SNAPSHOT', messages: snapshot }]);
console.log(JSON.stringify(messages, null, 1));
check(
  "the snapshot's order lost: its tool result shown before the call it answers",
  JSON.stringify(messages.map((m) => m.id)) === JSON.stringify(['r1', 'resumed-1', 'resumed-2']),
);
