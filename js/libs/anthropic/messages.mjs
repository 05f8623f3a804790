// @anthropic-ai/sdk's client.messages.stream (its MessageStream), fed the body through the
// helper's fetch, cut anywhere.
//
// What a user of its events acts on: 'text' deltas, and each tool use at its 'contentBlock'
// event, fired at content_block_stop with the finished block (its input already parsed by the
// SDK: reported as JSON text, and as valid, since the SDK hands it over as a complete input),
// and the 'message' event at message_stop with the message's stop_reason; done() rejects when the
// stream fails. (finalMessage() would reject as well on a body that ends before message_stop.)
import Anthropic from '@anthropic-ai/sdk';
import { runDriver } from '../../streamharness/index.js';

const TOOLS = new Set(['tool_use', 'server_tool_use']);

runDriver({
  name: '@anthropic-ai/sdk messages.stream events',
  dialect: 'anthropic',
  reads: 'bytes', // the SDK reads the body as the network cuts it
  emitsCalls: 'per-call',
  async turn(ctx) {
    const client = new Anthropic({ apiKey: 'offline', fetch: ctx.fetch, maxRetries: 0 });
    const request = { model: 'offline', max_tokens: 1024, messages: [{ role: 'user', content: 'go' }] };
    const stream = client.messages.stream(request, { signal: ctx.signal });
    stream.on('text', (delta) => ctx.emit({ type: 'text', text: delta }));
    stream.on('contentBlock', (block) => {
      if (!TOOLS.has(block.type)) return;
      ctx.emit({ type: 'tool_call', id: block.id, name: block.name, arguments: JSON.stringify(block.input), valid: true });
    });
    stream.on('message', (message) => ctx.emit({ type: 'turn_end', stop_reason: message.stop_reason ?? undefined }));
    await stream.done();
  },
});
