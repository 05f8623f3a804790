import OpenAI from './fake-openai.mjs'; // yours: import OpenAI from 'openai';
import { runDriver } from '../index.js'; // yours: import { runDriver } from 'streamharness';

const REASONS = { stop: 'end_turn', tool_calls: 'tool_use', length: 'max_tokens' };

runDriver({
  name: 'openai-node chat stream', dialect: 'openai-chat',
  reads: 'bytes', // the SDK reads the body as the network cuts it
  emitsCalls: 'per-message', // the calls are known complete when the choice finishes
  async turn(ctx) {
    const client = new OpenAI({ apiKey: 'offline', fetch: ctx.fetch, maxRetries: 0 });
    const request = { model: 'gpt-4o', messages: [{ role: 'user', content: 'go' }], stream: true };
    const stream = await client.chat.completions.create(request, { signal: ctx.signal });
    const calls = [];
    let finish = null;
    for await (const { choices: [choice] } of stream) {
      if (choice?.delta?.content) ctx.emit({ type: 'text', text: choice.delta.content });
      for (const { index, id, function: f } of choice?.delta?.tool_calls ?? []) {
        calls[index] ??= { type: 'tool_call', id, name: f?.name, arguments: '' };
        calls[index].arguments += f?.arguments ?? '';
      }
      finish = choice?.finish_reason ?? finish;
    }
    ctx.signal.throwIfAborted(); // the SDK ends its stream quietly when aborted
    if (finish === null) return; // the body was cut: the turn did not end
    for (const call of calls.filter(Boolean)) ctx.emit(call);
    ctx.emit({ type: 'turn_end', stop_reason: REASONS[finish] ?? finish });
  },
});
