// A stand-in for the openai package's streamed Chat Completions, as far as a driver uses it,
// so that the example beside it runs offline without installing anything:
//
//   const client = new OpenAI({ apiKey, fetch, maxRetries });
//   const stream = await client.chat.completions.create({ ...request, stream: true }, { signal });
//   for await (const chunk of stream) ...
//
// It works as openai-node does: the request goes through the fetch it is given, with an
// AbortController of its own (aborted when the caller's signal is, or when the caller breaks
// out of the loop); the body is decoded through a pipe (TextDecoderStream) and cut into
// server-sent events; an error object in the stream throws an APIError; [DONE] ends the chunks
// but the body is read to its end; an abort ends the iteration quietly, without an exception.

export class APIError extends Error {
  constructor(error) {
    super(error && error.message ? error.message : JSON.stringify(error));
    this.name = 'APIError';
    this.error = error;
  }
}

// The data of each event, as the body's text is cut into lines (CRLF, LF or CR; a CR at the
// end of what has come so far waits for what follows it).
async function* eventData(body) {
  let buffer = '';
  let data = [];
  for await (const text of body.pipeThrough(new TextDecoderStream())) {
    buffer += text;
    const lines = buffer.split(/\r\n|\n|\r(?!$)/);
    buffer = lines.pop();
    for (const line of lines) {
      if (line === '') {
        if (data.length > 0) yield data.join('\n');
        data = [];
      } else if (line.startsWith('data:')) {
        data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
      }
    }
  }
  // an event the body ends in, before its blank line, is dropped
}

class Stream {
  constructor(response, controller) {
    this.response = response;
    this.controller = controller;
  }

  async *[Symbol.asyncIterator]() {
    let done = false;
    try {
      for await (const data of eventData(this.response.body)) {
        if (done) continue;
        if (data.startsWith('[DONE]')) {
          done = true;
          continue;
        }
        const chunk = JSON.parse(data);
        if (chunk && chunk.error) throw new APIError(chunk.error);
        yield chunk;
      }
      done = true;
    } catch (err) {
      if (err instanceof Error && err.name === 'AbortError') return; // the caller aborted
      throw err;
    } finally {
      if (!done) this.controller.abort(); // the caller broke out of the loop
    }
  }
}

export default class OpenAI {
  constructor({ apiKey, fetch = globalThis.fetch, baseURL = 'https://api.openai.com/v1' } = {}) {
    this.apiKey = apiKey;
    this.fetch = fetch;
    this.baseURL = baseURL;
    this.chat = { completions: { create: (body, options) => this.#create(body, options) } };
  }

  async #create(body, { signal } = {}) {
    const controller = new AbortController();
    if (signal) signal.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
    const response = await this.fetch(`${this.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${this.apiKey}` },
      body: JSON.stringify(body),
      signal: controller.signal,
    });
    if (!response.ok) throw new APIError({ message: `HTTP ${response.status}` });
    return new Stream(response, controller);
  }
}
