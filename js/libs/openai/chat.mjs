// openai-node's client.chat.completions.stream (its ChatCompletionStream), fed the body through
// the helper's fetch, cut anywhere.
//
// What a user of its events acts on: 'content.delta' text, and each call at its
// 'tool_calls.function.arguments.done' event (name and raw arguments from the event, the id from
// the stream's snapshot, since the event carries none). With --final, the calls are taken from
// finalChatCompletion() instead (a user who acts on the whole message). Either way the turn ends
// with the finish_reason of finalChatCompletion(), which rejects when the stream fails.
import OpenAI from 'openai';
import { runDriver } from '../../streamharness/index.js';

const REASONS = { stop: 'end_turn', tool_calls: 'tool_use', function_call: 'tool_use', length: 'max_tokens' };
const final = process.argv.includes('--final');

runDriver({
  name: final ? 'openai-node chat.completions.stream finalChatCompletion()' : 'openai-node chat.completions.stream events',
  dialect: 'openai-chat',
  reads: 'bytes', // the SDK reads the body as the network cuts it
  emitsCalls: final ? 'per-message' : 'per-call',
  async turn(ctx) {
    const client = new OpenAI({ apiKey: 'offline', fetch: ctx.fetch, maxRetries: 0 });
    const request = { model: 'gpt-4o', messages: [{ role: 'user', content: 'go' }] };
    const stream = client.chat.completions.stream(request, { signal: ctx.signal });
    stream.on('content.delta', ({ delta }) => ctx.emit({ type: 'text', text: delta }));
    if (!final) {
      stream.on('tool_calls.function.arguments.done', ({ index, name, arguments: args }) => {
        const call = stream.currentChatCompletionSnapshot?.choices[0]?.message.tool_calls?.[index];
        ctx.emit({ type: 'tool_call', id: call?.id ?? '', name, arguments: args ?? '' });
      });
    }
    const completion = await stream.finalChatCompletion();
    const [choice] = completion.choices;
    if (final) {
      for (const call of choice?.message.tool_calls ?? []) {
        if (call.type !== 'function') continue;
        const { name, arguments: args } = call.function;
        ctx.emit({ type: 'tool_call', id: call.id ?? '', name, arguments: args ?? '' });
      }
    }
    const reason = choice?.finish_reason;
    ctx.emit({ type: 'turn_end', stop_reason: reason ? REASONS[reason] ?? reason : undefined });
  },
});
