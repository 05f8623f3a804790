// The session layer (protocols 1 and 2) and the history layer (protocol 2): each request gets
// one answer.

import { answering, checkOptions, offered, optional, required, serve } from './serve.js';

function event(request) {
  const value = request.event;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new TypeError('feed needs an event object');
  }
  return value;
}

function sessionId(request) {
  if (typeof request.session_id !== 'string') throw new TypeError(`${request.op} needs a session_id`);
  return request.session_id;
}

function helloFor(layer, protocols, name) {
  return (request) => {
    const offers = offered(request);
    const protocol = protocols.filter((p) => offers.includes(p)).pop();
    if (protocol === undefined) {
      return { ok: false, error: `the ${layer} layer speaks protocol ${protocols.join(' or ')}; the harness offered protocol ${JSON.stringify(request.protocol)}` };
    }
    const hello = { ok: true, protocol, layers: [layer] };
    return name === undefined ? hello : { ...hello, name };
  };
}

/**
 * Serve the session layer until the harness says shutdown: each event fed to `feed`, and
 * `notifications()` and `transcript()` answered as the harness asks for them.
 *
 *   const processor = new EventStreamProcessor();
 *   runSession({ name: 'my-ui', feed: (e) => processor.processEvent(e),
 *                notifications: () => processor.notifications(), transcript: () => processor.transcript() });
 */
export function runSession(options) {
  const { name, feed, notifications, transcript } = checkOptions('runSession', options, {
    name: optional.string,
    feed: required.function,
    notifications: required.function,
    transcript: required.function,
  });
  serve({
    hello: helloFor('session', [1, 2], name),
    ops: {
      feed: answering((request) => feed(event(request))),
      notifications: answering(() => notifications(), 'notifications'),
      transcript: answering(() => transcript(), 'transcript'),
    },
  });
}

/**
 * Serve the history layer (protocol 2) until the harness says shutdown: each event fed to
 * `feed`; `history`, `request` and `rebuild` called with a top-level session's id, answering
 * its messages.
 */
export function runHistory(options) {
  const { name, feed, history, request, rebuild } = checkOptions('runHistory', options, {
    name: optional.string,
    feed: required.function,
    history: required.function,
    request: required.function,
    rebuild: required.function,
  });
  const messages = (fn) => answering((r) => fn(sessionId(r)), 'messages');
  serve({
    hello: helloFor('history', [2], name),
    ops: {
      feed: answering((r) => feed(event(r))),
      history: messages(history),
      request: messages(request),
      rebuild: messages(rebuild),
    },
  });
}
