// A sub-agent's call reusing the id of a call the parent made in an earlier run renames the
// parent's call, appends its arguments to the parent's, and shows its result under the
// parent's call a second time; the sub-agent shows no call at all.
// scenarios/session/subsession-reuses-tool-id-from-earlier-run.yaml
import { agent, run, check } from './_agent.mjs';

const a = agent();
await run(a, 'run_1', [
  { type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' },
  { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'Running them.' },
  { type: 'TEXT_MESSAGE_END', messageId: 'm1' },
  { type: 'TOOL_CALL_START', toolCallId: 'call_0', toolCallName: 'bash_command', parentMessageId: 'm1' },
  { type: 'TOOL_CALL_ARGS', toolCallId: 'call_0', delta: '{"command":"make release-check"}' },
  { type: 'TOOL_CALL_END', toolCallId: 'call_0' },
  { type: 'TOOL_CALL_RESULT', messageId: 'r1', toolCallId: 'call_0', content: 'release-check: OK' },
]);
const messages = await run(a, 'run_2', [
  { type: 'SUBAGENT_STARTED', subagentRunId: 'docs', name: 'docs' },
  { type: 'TEXT_MESSAGE_START', messageId: 'd-m1', role: 'assistant', subagentRunId: 'docs' },
  { type: 'TEXT_MESSAGE_END', messageId: 'd-m1', subagentRunId: 'docs' },
  { type: 'TOOL_CALL_START', toolCallId: 'call_0', toolCallName: 'workspace_read', parentMessageId: 'd-m1', subagentRunId: 'docs' },
  { type: 'TOOL_CALL_ARGS', toolCallId: 'call_0', delta: '{"path":"CHANGELOG.md"}', subagentRunId: 'docs' },
  { type: 'TOOL_CALL_END', toolCallId: 'call_0', subagentRunId: 'docs' },
  { type: 'TOOL_CALL_RESULT', messageId: 'r2', toolCallId: 'call_0', content: 'changelog text', subagentRunId: 'docs' },
  { type: 'SUBAGENT_FINISHED', subagentRunId: 'docs' },
]);
console.log(JSON.stringify(messages, null, 1));
const parent = messages.find((m) => m.id === 'm1').toolCalls[0];
const sub = messages.find((m) => m.id === 'd-m1');
const results = messages.filter((m) => m.role === 'tool' && m.toolCallId === 'call_0').map((m) => messages.indexOf(m));
check(
  "the parent's call_0 renamed and given the sub-agent's arguments and result; the sub-agent's message holds no call",
  parent.function.name === 'workspace_read' && parent.function.arguments.endsWith('"CHANGELOG.md"}') &&
    !sub.toolCalls && results.every((i) => i < messages.indexOf(sub)),
);
