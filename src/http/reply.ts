// Writes exactly one response to a uWS HttpResponse (hyper-express's Response
// is the model: the abort handler is attached in the constructor and the
// response completes at most once). Every write is corked, so it is safe
// after an await. Large bodies are written with tryEnd + onWritable
// backpressure (uWS examples/VideoStreamer.js).
import { ClientSignal } from './client-signal.js';
import { CORK_FLUSH_BYTES } from './uws-limits.js';
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
  408: '408 Request Timeout',
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
  /**
   * The client may still be sending a body nobody will read: closing now
   * would make the kernel answer its next segments with a reset, which
   * destroys our answer in the client's receive buffer (6 of 10 Node clients
   * saw EPIPE instead of the 413). Answer at once, keep reading and
   * discarding up to this many bytes, then close (nginx's lingering close).
   */
  readonly lingerBytes?: number;
  /**
   * uWS closes the connection as soon as the handler returns (see
   * uws-limits.ts): pad the body with JSON whitespace past the cork buffer so
   * that it is written before that close.
   */
  readonly flushBeforeClose?: boolean;
}

/** Lingering stops this long after the answer, or after this long without a byte (nginx: lingering_time, lingering_timeout). */
const LINGER_MAX_MS = 30_000;
const LINGER_QUIET_MS = 1_000;

const encoder = new TextEncoder();

export class Reply {
  #done = false;
  #aborted = false;
  #settled = false;
  #lingerAbort: (() => void) | undefined;
  /** Fires when the client disconnects before the response is complete (client-signal.ts). */
  readonly gone = new ClientSignal();
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
      this.#lingerAbort?.();
      this.gone.abort();
      this.#settle(false);
    });
  }

  /** `gone` as an AbortSignal, made on first use. */
  get signal(): AbortSignal {
    return this.gone.signal;
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
      // Indexed, not `for (const [name, value] of ...)`: destructuring a pair goes through the iterator
      // protocol, ~1 KB of allocation per response in unoptimised code (a sampling heap profile).
      const headers = response.headers;
      for (let i = 0; i < headers.length; i++) {
        const header = headers[i] as readonly [string, string];
        res.writeHeader(header[0], header[1]);
      }
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
      if (response.close === true && response.lingerBytes !== undefined) {
        this.#linger(body, response.lingerBytes);
        return;
      }
      if (response.close === true && response.flushBeforeClose === true) {
        const padded = new Uint8Array(Math.max(CORK_FLUSH_BYTES, body.byteLength)).fill(0x20);
        padded.set(body instanceof Uint8Array ? body : new Uint8Array(body));
        this.bytesOut = padded.byteLength;
        res.end(padded, true);
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

  /**
   * Writes the answer as one chunk (uWS frames write() with chunked coding)
   * and completes it once the request body is over or the client has been
   * quiet for a second: by then nothing is in flight, so closing cannot
   * reset it. The HttpResponse is ours only until end() (uWS forbids
   * touching it afterwards), which is why the answer is held open while
   * lingering. A client still sending past the byte or time bound is cut
   * off with close(): its answer lacks the last chunk, as nginx's does after
   * lingering_time. Called inside cork.
   */
  #linger(body: Uint8Array | ArrayBuffer, maxBytes: number): void {
    const res = this.res;
    this.bytesOut = body.byteLength;
    res.writeHeader('Connection', 'close');
    res.write(body);
    let discarded = 0;
    let over = false;
    let quiet: NodeJS.Timeout | undefined;
    const finish = (how: 'complete' | 'cut') => {
      clearTimeout(quiet);
      clearTimeout(deadline);
      if (over || this.#aborted) return;
      over = true;
      // Not end(…, true): after write() this build then adds a stray "Connection: close" line to the body.
      // The header already asks the client to close, and uWS discards whatever body may still follow.
      res.cork(() => (how === 'complete' ? res.end() : res.close()));
      this.#settle(how === 'complete');
    };
    const deadline = setTimeout(() => finish('cut'), LINGER_MAX_MS);
    const rearm = () => {
      clearTimeout(quiet);
      quiet = setTimeout(() => finish('complete'), LINGER_QUIET_MS);
    };
    this.#lingerAbort = () => {
      clearTimeout(quiet);
      clearTimeout(deadline);
    };
    rearm();
    // Replaces the body reader's handler: every later chunk is discarded here.
    res.onData((chunk, isLast) => {
      if (over || this.#aborted) return;
      discarded += chunk.byteLength;
      if (isLast) return finish('complete');
      if (discarded > maxBytes) return finish('cut');
      rearm();
    });
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
