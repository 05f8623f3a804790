#!/usr/bin/env node
// An agent loop in JavaScript (Node 20, no dependencies) over OpenAI's Chat Completions API,
// for `harness loop`: it streams a turn with fetch, reads the server-sent events, assembles the
// tool calls by index, runs a fake tool that echoes its arguments (and `delegate`, which runs a
// sub-agent on its task in a conversation of its own), sends the history back, and goes on
// until a turn ends without calls. It finds the provider through OPENAI_BASE_URL, as the
// official SDKs do.
//
//   harness loop scenarios/loop --dialect openai-chat -- node examples/loops/node/agent.mjs
//
// A choice that finished for `length` was cut in its last call, which is not run; a body that
// ends before its finish_reason is a failure (exit 1), not a turn to act on.
//
// --bug=pair-by-position gives each result the id of the call at its position among all the
// calls of the conversation, the bug test_loop_node.py shows caught.

const BASE = (process.env.OPENAI_BASE_URL || 'https://api.openai.com/v1').replace(/\/$/, '');
const KEY = process.env.OPENAI_API_KEY || '';
const BUG = (process.argv.find((a) => a.startsWith('--bug=')) || '').slice('--bug='.length);
const MAX_TURNS = 50;

async function* events(body) {
  // The `data:` payloads of a server-sent event stream, whatever its line ends.
  const decoder = new TextDecoder();
  let buffer = '';
  let data = [];
  for await (const piece of body) {
    buffer += decoder.decode(piece, { stream: true });
    let end;
    while ((end = buffer.search(/\r\n|\r|\n/)) >= 0) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + (buffer.startsWith('\r\n', end) ? 2 : 1));
      if (line === '') {
        if (data.length) yield data.join('\n');
        data = [];
      } else if (line.startsWith('data:')) {
        data.push(line.slice(5).replace(/^ /, ''));
      }
    }
  }
}

async function turn(messages) {
  const response = await fetch(`${BASE}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
    body: JSON.stringify({ model: 'gpt-4o', stream: true, messages }),
  });
  if (!response.ok) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
  let text = '';
  let finish = null;
  const calls = []; // by index
  for await (const data of events(response.body)) {
    if (data === '[DONE]') break;
    const chunk = JSON.parse(data);
    if (chunk.error) throw new Error(`the server failed: ${JSON.stringify(chunk.error)}`);
    for (const choice of chunk.choices || []) {
      const delta = choice.delta || {};
      if (delta.content) text += delta.content;
      for (const part of delta.tool_calls || []) {
        const call = (calls[part.index] ||= { id: '', name: '', arguments: '' });
        if (part.id) call.id = part.id;
        if (part.function?.name) call.name = part.function.name;
        if (part.function?.arguments) call.arguments += part.function.arguments;
      }
      if (choice.finish_reason) finish = choice.finish_reason;
    }
  }
  if (finish === null) throw new Error('the response ended before its finish_reason');
  let complete = calls.filter(Boolean);
  if (finish === 'length') complete = complete.slice(0, -1); // the call the limit cut off
  return { text, calls: complete };
}

async function converse(prompt) {
  const messages = [{ role: 'user', content: prompt }];
  const ids = [];
  for (let n = 0; n < MAX_TURNS; n += 1) {
    const { text, calls } = await turn(messages);
    if (!calls.length) return text;
    messages.push({
      role: 'assistant',
      content: text || null,
      tool_calls: calls.map((c) => ({
        id: c.id,
        type: 'function',
        function: { name: c.name, arguments: c.arguments },
      })),
    });
    for (const [position, call] of calls.entries()) {
      ids.push(call.id);
      const input = JSON.parse(call.arguments || '{}');
      const output =
        call.name === 'delegate' ? await converse(String(input.task || '')) : JSON.stringify(input);
      const id = BUG === 'pair-by-position' ? ids[position] : call.id;
      messages.push({ role: 'tool', tool_call_id: id, content: output });
    }
  }
  throw new Error(`no turn without calls after ${MAX_TURNS} turns`);
}

try {
  console.log(await converse('Begin.'));
} catch (error) {
  console.error(`agent: ${error.message}`);
  process.exit(1);
}
