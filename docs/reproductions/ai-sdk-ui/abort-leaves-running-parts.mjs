// The user stops a response while a tool runs: the stream ends with abort, and the tool part
// stays in input-available (shown as running) for good: processUIMessageStream has no case for
// abort. The AI SDK profile's cleanup-user-turn asks that no part stay in a running state
// (docs/ui-protocols.md; marimo-team/marimo#10174).
// scenarios/session/cancel-after-executing.yaml
import { read, check } from './_ai_sdk.mjs';

const message = await read([
  { type: 'start', messageId: 'r1' },
  { type: 'start-step' },
  { type: 'text-start', id: 'm1' },
  { type: 'text-delta', id: 'm1', delta: 'Rebuilding the search index.' },
  { type: 'text-end', id: 'm1' },
  { type: 'tool-input-start', toolCallId: 'call_1', toolName: 'bash_command' },
  { type: 'tool-input-delta', toolCallId: 'call_1', inputTextDelta: '{"command":"rebuild_index"}' },
  { type: 'tool-input-available', toolCallId: 'call_1', toolName: 'bash_command', input: { command: 'rebuild_index' } },
  { type: 'abort', reason: 'the user stopped it' },
]);
console.log(JSON.stringify(message, null, 1));
const tool = message.parts.find((p) => p.toolCallId === 'call_1');
check('after abort the tool part is still input-available (running)', tool?.state === 'input-available');
