// Server-sent events, read incrementally from text or bytes cut anywhere (WHATWG parsing).

const LINE_END = /\r\n|\r|\n/g;

/**
 * The events of an SSE body, each as soon as its blank line has arrived: `source` is any
 * (async) iterable of strings or bytes (ctx.chunks, response.body, a TextDecoderStream).
 * Lines end with CRLF, LF or CR, a character or a CRLF may be split across pieces, comments
 * are skipped, several data lines are joined with "\n". An event the body ends in, without
 * its blank line, is handed on too: its reader decides what a cut body means.
 *
 *   for await (const { event, data } of sseEvents(ctx.chunks)) ...
 */
export async function* sseEvents(source) {
  const decoder = new TextDecoder();
  let line = ''; // the start of a line not ended yet
  let afterCR = false; // the last piece ended with CR: an LF starting the next is its end
  let event = { event: 'message', data: [] };
  const field = (text) => {
    if (text.startsWith(':')) return; // a comment: keep-alive
    const colon = text.indexOf(':');
    const name = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (name === 'data') event.data.push(value);
    else if (name === 'event') event.event = value;
  };
  const dispatch = () => {
    const done = event;
    event = { event: 'message', data: [] };
    return done.data.length > 0 ? { event: done.event, data: done.data.join('\n') } : null;
  };
  let first = true;
  for await (const piece of source) {
    let text = typeof piece === 'string' ? piece : decoder.decode(piece, { stream: true });
    if (first && text !== '') {
      if (text.startsWith('\ufeff')) text = text.slice(1);
      first = false;
    }
    let pos = afterCR && text.startsWith('\n') ? 1 : 0;
    afterCR = false;
    LINE_END.lastIndex = pos;
    const ready = [];
    for (let end = LINE_END.exec(text); end !== null; end = LINE_END.exec(text)) {
      const whole = line + text.slice(pos, end.index);
      line = '';
      pos = end.index + end[0].length;
      if (whole !== '') field(whole);
      else {
        const done = dispatch();
        if (done !== null) ready.push(done);
      }
      afterCR = end[0] === '\r' && pos === text.length;
    }
    line += text.slice(pos);
    yield* ready;
  }
  const rest = line + decoder.decode();
  if (rest !== '') field(rest);
  const done = dispatch();
  if (done !== null) yield done;
}
