// The quirk the profile's call-restarted mutant comes from: tool-input-start for a toolCallId
// already in the current step updates that part in place under the new tool. A response that
// continues the last assistant message (its start names that message) without a start-step of
// its own is still in that message's last step, so a model that numbers its calls per response
// (call_0) replaces the earlier response's call_0: renamed, its output gone. With a start-step
// the two calls are two parts (the harness's responses always open with one).
import { read, check } from '../../../docs/reproductions/ai-sdk-ui/_ai_sdk.mjs';

const first = await read([
  { type: 'start', messageId: 'r1' },
  { type: 'start-step' },
  { type: 'tool-input-start', toolCallId: 'call_0', toolName: 'bash_command' },
  { type: 'tool-input-available', toolCallId: 'call_0', toolName: 'bash_command', input: { command: 'make release-check' } },
  { type: 'tool-output-available', toolCallId: 'call_0', output: 'release-check: OK' },
  { type: 'finish-step' },
  { type: 'finish' },
]);
const again = (withStep) => [
  { type: 'start', messageId: 'r1' },
  ...(withStep ? [{ type: 'start-step' }] : []),
  { type: 'tool-input-start', toolCallId: 'call_0', toolName: 'workspace_read' },
];
const continued = await read(again(false), structuredClone(first));
const stepped = await read(again(true), structuredClone(first));
console.log(JSON.stringify(continued, null, 1));
const tools = (m) => m.parts.filter((p) => p.toolCallId === 'call_0');
check(
  "without a start-step the first call_0 is replaced: renamed workspace_read, its output gone; with one, two parts",
  tools(continued).length === 1 && tools(continued)[0].type === 'tool-workspace_read' &&
    tools(continued)[0].output === undefined && tools(stepped).length === 2,
  'QUIRK',
);
