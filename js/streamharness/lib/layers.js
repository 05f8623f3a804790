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
 *
 * A consumer of a UI protocol names it (`sessionDialect`: 'ag-ui', 'ai-sdk-ui'), is fed that
 * protocol's events as they are, and answers `view()`, the protocol's own state, in place of
 * notifications and a transcript (protocol 2 only). Each feed is answered once the consumer's
 * asynchronous work has settled (its promises, then what it set for the next turn of the loop).
 *
 *   runSession({ sessionDialect: 'ag-ui', feed: (e) => store.dispatch(e), view: () => ({ main: store.messages }) });
 */
export function runSession(options) {
  // a consumer of canonical events answers notifications and a transcript; one of a UI
  // protocol answers view()
  const answers =
    options?.sessionDialect === undefined
      ? { notifications: required.function, transcript: required.function, view: absent('view() is for a consumer of a UI protocol (sessionDialect)') }
      : { notifications: absent('a consumer of a UI protocol answers view()'), transcript: absent('a consumer of a UI protocol answers view()'), view: required.function };
  const { name, sessionDialect, feed, notifications, transcript, view } = checkOptions('runSession', options, {
    name: optional.string,
    sessionDialect: optional.string,
    feed: required.function,
    ...answers,
  });
  if (sessionDialect !== undefined) {
    const hello = helloFor('session', [2], name);
    serve({
      hello: (request) => {
        const answer = hello(request);
        return answer.ok ? { ...answer, session_dialect: sessionDialect } : answer;
      },
      ops: {
        feed: answering(async (request) => {
          await feed(event(request));
          await settled();
        }),
        view: answering(() => view(), 'view'),
      },
    });
    return;
  }
  serve({
    hello: helloFor('session', [1, 2], name),
    ops: {
      feed: answering((request) => feed(event(request))),
      notifications: answering(() => notifications(), 'notifications'),
      transcript: answering(() => transcript(), 'transcript'),
    },
  });
}

/** An option that must not be given, and why. */
function absent(why) {
  return (value) => (value === undefined ? null : `must not be given: ${why}`);
}

/** The consumer's pending promises run, then what it set for the next turn of the loop. */
function settled() {
  return new Promise((resolve) => setImmediate(resolve));
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
