// openai-node's client.responses.stream (its ResponseStream), fed the body through the helper's
// fetch, cut anywhere.
//
// What its user acts on: 'response.output_text.delta' text; each function call at its
// 'response.output_item.done' event (the item's call_id, name and raw arguments), or, for a call
// that had none (gateways that send no *.done events), in the output of the response's terminal
// event, which the SDK hands over whole; the end of the response at 'response.completed' (for no
// reason it names: a Response has no stop reason) or 'response.incomplete' (its
// incomplete_details.reason); its failure at 'response.failed', which the SDK hands over as an
// event. An error event makes the SDK fail the stream itself.
import OpenAI from 'openai';
import { runDriver } from '../../streamharness/index.js';

const INCOMPLETE = { max_output_tokens: 'max_tokens' };

runDriver({
  name: 'openai-node responses.stream events',
  dialect: 'openai-responses',
  reads: 'bytes', // the SDK reads the body as the network cuts it
  emitsCalls: 'per-call',
  async turn(ctx) {
    const client = new OpenAI({ apiKey: 'offline', fetch: ctx.fetch, maxRetries: 0 });
    const stream = client.responses.stream({ model: 'gpt-4.1', input: 'go' }, { signal: ctx.signal });
    const handed = new Set(); // the calls handed over at their output_item.done
    const call = (item) => {
      handed.add(item.call_id);
      ctx.emit({ type: 'tool_call', id: item.call_id ?? '', name: item.name ?? '', arguments: item.arguments ?? '' });
    };
    const end = ({ response }) => {
      for (const item of response.output ?? []) {
        if (item.type === 'function_call' && !handed.has(item.call_id)) call(item);
      }
      const reason = response.status === 'incomplete' ? response.incomplete_details?.reason : undefined;
      ctx.emit({ type: 'turn_end', stop_reason: reason ? INCOMPLETE[reason] ?? reason : undefined });
    };
    stream.on('response.output_text.delta', ({ delta }) => ctx.emit({ type: 'text', text: delta }));
    stream.on('response.output_item.done', ({ item }) => {
      if (item.type === 'function_call') call(item);
    });
    stream.on('response.completed', end);
    stream.on('response.incomplete', end);
    stream.on('response.failed', ({ response }) => {
      ctx.emit({ type: 'error', message: JSON.stringify(response.error ?? null) });
    });
    await stream.done();
  },
});
