// LangChain.js's ChatOpenAI (Chat Completions) streamed with tools bound, as a driver of the
// openai-chat dialect: what a user of .stream() acts on.
//
// Each chunk .stream() yields is an AIMessageChunk: its text comes out as it arrives. The user
// concatenates the chunks (concat from @langchain/core) and acts on the whole message once the
// stream ends: its tool_calls (arguments parsed by LangChain, reported as JSON text and valid)
// and invalid_tool_calls (raw arguments, invalid), then the turn's end with the message's
// finish_reason, if it has one (a body cut before the choice finished has none). LangChain
// checks no call against the tools bound: which tools are bound changes only the request.

import { ChatOpenAI } from '@langchain/openai';
import { concat } from '@langchain/core/utils/stream';
import { runDriver } from '../../streamharness/index.js';

const REASONS = { stop: 'end_turn', tool_calls: 'tool_use', function_call: 'tool_use', length: 'max_tokens' };

const TOOLS = [
  {
    type: 'function',
    function: { name: 'write_file', description: 'a tool the model may call', parameters: { type: 'object' } },
  },
];

runDriver({
  name: 'langchain-js-openai',
  dialect: 'openai-chat',
  reads: 'bytes', // the openai client under ChatOpenAI reads the body as the network cuts it
  emitsCalls: 'per-message', // the calls are LangChain's once the message is whole
  async turn(ctx) {
    const model = new ChatOpenAI({
      model: 'gpt-4o',
      apiKey: 'offline',
      maxRetries: 0, // one response a turn: a retry would be a second request
      configuration: { fetch: ctx.fetch },
    }).bindTools(TOOLS);
    let message;
    for await (const chunk of await model.stream('go', { signal: ctx.signal })) {
      if (typeof chunk.content === 'string' && chunk.content !== '') {
        ctx.emit({ type: 'text', text: chunk.content });
      }
      message = message === undefined ? chunk : concat(message, chunk);
    }
    if (message === undefined) return;
    for (const call of message.tool_calls ?? []) {
      ctx.emit({ type: 'tool_call', id: call.id ?? '', name: call.name, arguments: JSON.stringify(call.args), valid: true });
    }
    for (const call of message.invalid_tool_calls ?? []) {
      ctx.emit({ type: 'tool_call', id: call.id ?? '', name: call.name ?? '', arguments: call.args ?? '', valid: false });
    }
    const reason = message.response_metadata?.finish_reason;
    if (reason != null) ctx.emit({ type: 'turn_end', stop_reason: REASONS[reason] ?? reason });
  },
});
