#!/usr/bin/env node
// ai's readUIMessageStream as the harness sees it: each chat's messages kept as the AI SDK's
// Chat keeps them (the user's message pushed, each response's UIMessage put in place by id or
// pushed), each response's chunks read by readUIMessageStream, given the chat's last message
// when it is an assistant message (a start naming its id continues it, another id starts anew).
//
//   harness run scenarios/session --adapter "exec:node examples/ui-consumers/ai-sdk-ui.mjs"

import { readUIMessageStream } from 'ai';
import { runSession } from '../../js/streamharness/index.js';

/** Let the consumer's asynchronous pipeline (promises, then timers) run to rest. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

const chats = new Map(); // chat id -> {messages, response}

function chatOf(id) {
  if (!chats.has(id)) chats.set(id, { messages: [], response: null });
  return chats.get(id);
}

/** A response streaming into a chat: its chunks go to readUIMessageStream one by one. */
function respond(chat) {
  let controller;
  const stream = new ReadableStream({ start: (c) => { controller = c; } });
  const last = chat.messages.at(-1);
  const response = { controller, failure: null, dropped: false };
  const messages = readUIMessageStream({
    stream,
    message: last?.role === 'assistant' ? structuredClone(last) : undefined,
    onError: (err) => { response.failure = err; },
  });
  response.done = (async () => {
    for await (const message of messages) {
      if (response.dropped) break; // a reconnect replaced the messages it was building
      const at = chat.messages.findLastIndex((m) => m.id === message.id);
      if (at === -1) chat.messages.push(message);
      else chat.messages[at] = message;
    }
  })().catch((err) => { response.failure = err; });
  return response;
}

async function feed(event) {
  const chat = chatOf(event.chat);
  if (event.sendMessage) {
    chat.messages.push(structuredClone(event.sendMessage));
    return;
  }
  if (event.setMessages) {
    if (chat.response) {
      chat.response.dropped = true; // the reconnect drops the stream it was reading
      chat.response.controller.close();
      chat.response = null;
    }
    chat.messages = structuredClone(event.setMessages);
    return;
  }
  const { chunk } = event;
  if (chunk.type === 'start') chat.response = respond(chat);
  const response = chat.response;
  if (!response) throw new Error(`${chunk.type} outside a response (no start)`);
  response.controller.enqueue(chunk);
  if (chunk.type === 'finish' || chunk.type === 'abort') {
    response.controller.close(); // the response's body ends
    await response.done;
    chat.response = null;
  } else {
    await settle();
  }
  if (response.failure) throw response.failure;
}

function view() {
  return Object.fromEntries([...chats].map(([id, chat]) => [id, chat.messages]));
}

runSession({ name: 'ai readUIMessageStream', sessionDialect: 'ai-sdk-ui', feed, view });
