// A TOOL_CALL_RESULT delivered twice (a relay or a reconnect repeating an event, the same
// messageId) becomes two tool messages: the call shows its result twice.
// scenarios/session/duplicate-completion.yaml
import { agent, run, check } from './_agent.mjs';

const result = { type: 'TOOL_CALL_RESULT', messageId: 'r1', toolCallId: 'call_1', content: '7 open issues' };
const messages = await run(agent(), 'run_1', [
  { type: 'TOOL_CALL_START', toolCallId: 'call_1', toolCallName: 'search', parentMessageId: 'm1' },
  { type: 'TOOL_CALL_ARGS', toolCallId: 'call_1', delta: '{}' },
  { type: 'TOOL_CALL_END', toolCallId: 'call_1' },
  result,
  result,
]);
console.log(JSON.stringify(messages, null, 1));
check('one result shown as two tool messages', messages.filter((m) => m.role === 'tool').length === 2);
