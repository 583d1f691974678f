// Writes exactly one response to a uWS HttpResponse (hyper-express's Response
// is the model: the abort handler is attached in the constructor and the
// response completes at most once). Every write is corked, so it is safe
// after an await. Large bodies are written with tryEnd + onWritable
// backpressure (uWS examples/VideoStreamer.js).
import type { HttpResponse } from './uws.js';

const STATUS_LINES: Record<number, string> = {
  200: '200 OK',
  201: '201 Created',
  202: '202 Accepted',
  204: '204 No Content',
  400: '400 Bad Request',
  401: '401 Unauthorized',
  403: '403 Forbidden',
  404: '404 Not Found',
  405: '405 Method Not Allowed',
  409: '409 Conflict',
  413: '413 Content Too Large',
  415: '415 Unsupported Media Type',
  422: '422 Unprocessable Content',
  429: '429 Too Many Requests',
  500: '500 Internal Server Error',
  503: '503 Service Unavailable',
  504: '504 Gateway Timeout',
};

export type ResponseBody = string | Uint8Array | ArrayBuffer;

export interface OutgoingResponse {
  readonly status: number;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body: ResponseBody;
  /** Write headers and Content-Length only (HEAD). */
  readonly omitBody?: boolean;
  /** Close the connection after this response (e.g. a 413 while the client is still sending). */
  readonly close?: boolean;
}

const encoder = new TextEncoder();

export class Reply {
  #done = false;
  #aborted = false;
  #settled = false;
  readonly #controller = new AbortController();
  bytesOut = 0;

  /**
   * `onSettled` runs exactly once: when the whole response has been handed to
   * the socket, or when the client went away. Shutdown waits on it, so a
   * large PDF still draining to a slow client is not cut off.
   */
  constructor(
    private readonly res: HttpResponse,
    private readonly onSettled: (delivered: boolean) => void,
  ) {
    res.onAborted(() => {
      this.#aborted = true;
      this.#controller.abort();
      this.#settle(false);
    });
  }

  /** Fires when the client disconnects before the response is complete. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get finished(): boolean {
    return this.#done || this.#aborted;
  }

  get aborted(): boolean {
    return this.#aborted;
  }

  send(response: OutgoingResponse): void {
    if (this.finished) return;
    this.#done = true;
    const body = typeof response.body === 'string' ? encoder.encode(response.body) : response.body;
    const res = this.res;
    res.cork(() => {
      res.writeStatus(STATUS_LINES[response.status] ?? String(response.status));
      for (const [name, value] of response.headers) res.writeHeader(name, value);
      if (response.omitBody === true || response.status === 204) {
        // Only the argument-less endWithoutBody() finishes a response in this
        // uWS build: with a length it never terminates the headers and the
        // keep-alive connection freezes (uNetworking/uWebSockets.js#739). So a
        // HEAD answer states its length itself, and a 204 states none
        // (RFC 9110 section 8.6). `close` is not honoured here: such answers
        // are tiny, and shutdown closes every connection anyway.
        this.bytesOut = 0;
        if (response.status !== 204) res.writeHeader('Content-Length', String(body.byteLength));
        // Without endWithoutBody's close flag, ask the client to close instead.
        if (response.close === true) res.writeHeader('Connection', 'close');
        res.endWithoutBody();
        this.#settle(true);
        return;
      }
      this.bytesOut = body.byteLength;
      if (response.close === true) {
        res.end(body, true);
        this.#settle(true);
        return;
      }
      this.#stream(body);
    });
  }

  #settle(delivered: boolean): void {
    if (this.#settled) return;
    this.#settled = true;
    this.onSettled(delivered);
  }

  /** tryEnd writes what the socket takes now; onWritable continues from the acknowledged offset. */
  #stream(body: Uint8Array | ArrayBuffer): void {
    const res = this.res;
    const total = body.byteLength;
    const view = body instanceof Uint8Array ? body : new Uint8Array(body);
    const start = res.getWriteOffset();
    // The body is complete in one call, so `ok` (all of it taken) means done too.
    const [ok, done] = res.tryEnd(view, total);
    if (ok || done) {
      this.#settle(true);
      return;
    }
    res.onWritable((offset) => {
      if (this.#aborted) return true;
      const [wrote, finished] = res.tryEnd(view.subarray(offset - start), total);
      if (wrote || finished) this.#settle(true);
      return wrote;
    });
  }
}
