// One request and its answer (an exchange): what was read from uWS, the
// response written through Reply, and the single completion log line
// (request id, route, status, client, bytes, queue and task time; 5xx at
// error, the rest at info, as fastify's log-controller does), recorded for
// /metrics at the same moment when metrics are on. The exchange completes when its answer
// has reached the socket or the client has gone, never earlier: shutdown
// waits for that.
import { performance } from 'node:perf_hooks';
import type { Principal } from '../auth/key-store.js';
import type { PipelineDeps } from './pipeline-deps.js';
import { PROBLEMS, problemBody, type ApiFamily, type ProblemInit, type Slug } from './problem.js';
import { Reply } from './reply.js';
import { readRequest, type IncomingRequest } from './request.js';
import { requestIdFor } from './request-id.js';
import type { RouteResult } from './route.js';
import type { HttpRequest, HttpResponse } from './uws.js';

/** An answer that closes reads and discards up to one more body cap's worth (at least this) first: see Reply's lingerBytes. */
const LINGER_BYTES_MIN = 16 * 1024 * 1024;

export interface AnswerOptions {
  /** Close the connection after the answer. */
  readonly close?: boolean;
  /** uWS closes the connection when the handler returns: the answer must leave before (Reply.flushBeforeClose). */
  readonly flushBeforeClose?: boolean;
}

/**
 * Headers on every response (OWASP REST Security Cheat Sheet): no caching of
 * API answers, no sniffing, and a policy under which an answer a browser
 * opens can load nothing and be framed by no page. Precomputed: a response
 * only picks one of two lists.
 */
const COMMON_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['Cache-Control', 'no-store'],
  ['X-Content-Type-Options', 'nosniff'],
  ['Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'"],
];
/**
 * A PDF opened in a browser is shown by its built-in viewer, which a
 * `default-src 'none'` on the PDF's response leaves unstyled in Chrome
 * (chromium issue 271452; rust-lang/www.rust-lang.org#942): only framing is refused.
 */
const PDF_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['Cache-Control', 'no-store'],
  ['X-Content-Type-Options', 'nosniff'],
  ['Content-Security-Policy', "frame-ancestors 'none'"],
];

export class Exchange {
  readonly receivedAt = performance.now();
  readonly timings: { queueMs?: number; waitMs?: number; taskMs?: number } = {};
  readonly reply: Reply;
  readonly requestId: string;
  principal: Principal | undefined;
  /** True while the client may still be sending a body we no longer want: the connection must close. */
  bodyPending = false;
  /**
   * The request announced a body that nobody has read yet. Should the
   * answer close the connection, it lingers to read and discard that body
   * first (Reply's lingerBytes), so that the client sees the answer rather
   * than a reset.
   */
  unreadBody = false;
  #heldBodyBytes = 0;
  bytesIn = 0;
  status = 0;
  /** CORS headers for this response; a preflight replaces them with its own. */
  corsHeaders: ReadonlyArray<readonly [string, string]>;
  /** A library's words about a refused input, for the completion line only (ProblemInit.cause). */
  #cause: string | undefined;
  #logged = false;

  constructor(
    readonly deps: PipelineDeps,
    readonly family: ApiFamily,
    readonly routePath: string,
    readonly request: IncomingRequest,
    res: HttpResponse,
  ) {
    this.requestId = requestIdFor(request.headers['x-request-id']);
    this.corsHeaders = deps.cors.responseHeaders(request.headers.origin);
    deps.lifecycle.enter();
    this.reply = new Reply(res, (delivered) => this.#complete(delivered));
  }

  respond(result: RouteResult, options: AnswerOptions = {}): void {
    if (this.reply.aborted) return this.abandoned();
    // Pushed one by one: the spread form allocated five arrays and iterators per response.
    const headers: Array<readonly [string, string]> = [];
    // A 204 has no content, so no content type either.
    if (result.status !== 204) headers.push(['Content-Type', result.mediaType]);
    headers.push(['X-Request-Id', this.requestId]);
    pushAll(headers, result.mediaType === 'application/pdf' ? PDF_HEADERS : COMMON_HEADERS);
    pushAll(headers, this.corsHeaders);
    if (result.headers !== undefined) pushAll(headers, result.headers);
    const close = options.close === true || this.bodyPending || this.deps.lifecycle.draining;
    const flushBeforeClose = options.flushBeforeClose === true;
    const lingerBytes = close && !flushBeforeClose && (this.bodyPending || this.unreadBody) ? Math.max(this.deps.config.maxBodyBytesAnyTier, LINGER_BYTES_MIN) : undefined;
    this.status = result.status;
    this.reply.send({ status: result.status, headers, body: result.body, omitBody: this.request.method === 'HEAD', close, lingerBytes, flushBeforeClose });
  }

  fail(slug: Slug, init: ProblemInit, options: AnswerOptions = {}): void {
    const { status } = PROBLEMS[slug];
    this.#cause = init.cause;
    const headers: Array<readonly [string, string]> = [...(init.headers ? Object.entries(init.headers) : [])];
    if (init.retryAfter !== undefined) headers.push(['Retry-After', String(init.retryAfter)]);
    const body = problemBody(slug, init, {
      errorsBase: this.deps.config.errorsBase,
      family: this.family,
      instance: this.request.path,
      requestId: this.requestId,
    });
    this.respond({ status, mediaType: 'application/problem+json', body, headers }, options);
  }

  /** The client left; nothing can be written. Logged with nginx's 499 convention once Reply settles. */
  abandoned(): void {
    this.status = 499;
  }

  /** Takes `bytes` of the process's body budget for this request, until it completes; false when they do not fit. */
  holdBodyBytes(bytes: number): boolean {
    if (!this.deps.bodyBudget.take(bytes)) return false;
    this.#heldBodyBytes += bytes;
    return true;
  }

  #complete(delivered: boolean): void {
    if (this.#logged) return;
    this.#logged = true;
    this.deps.bodyBudget.give(this.#heldBodyBytes);
    this.#heldBodyBytes = 0;
    if (!delivered) this.status = 499;
    this.deps.lifecycle.leave();
    const ms = performance.now() - this.receivedAt;
    this.deps.requestStats?.record(this.family, this.routePath, this.request.method, this.status, ms / 1000);
    const level = this.status >= 500 && this.status !== 499 ? 'error' : 'info';
    // At PLATEN_LOG_LEVEL=warn (as the bench runs) the line would be built to be thrown away.
    if (!this.deps.logger.isLevelEnabled(level)) return;
    const line = {
      req_id: this.requestId,
      method: this.request.method,
      route: this.routePath,
      status: this.status,
      client: this.principal?.label,
      remote: this.request.remoteAddress,
      bytes_in: this.bytesIn,
      bytes_out: delivered ? this.reply.bytesOut : 0,
      queue_ms: round(this.timings.queueMs),
      wait_ms: round(this.timings.waitMs),
      task_ms: round(this.timings.taskMs),
      ms: round(ms),
      cause: this.#cause,
    };
    this.deps.logger[level](line, 'request');
  }
}

/** Indexed rather than for-of, whose iterator is an allocation per loop in code V8 has not optimised. */
function pushAll<T>(into: T[], from: readonly T[]): void {
  for (let i = 0; i < from.length; i++) into.push(from[i] as T);
}

function round(ms: number | undefined): number | undefined {
  return ms === undefined ? undefined : Math.round(ms * 100) / 100;
}

/** Reads the request (synchronously: HttpRequest dies at the first await) and opens its exchange. */
export function openExchange(deps: PipelineDeps, family: ApiFamily, routePath: string, res: HttpResponse, req: HttpRequest, paramCount: number): Exchange {
  return new Exchange(deps, family, routePath, readRequest(req, res, paramCount, deps.local === true), res);
}

/**
 * Last line of defence: an exception in a stage must not escape into uWS.
 * Answers 500 through the exchange when there is one, else raw (still with
 * a request id, which every response carries).
 */
export function crashed(deps: PipelineDeps, x: Exchange | undefined, error: unknown, res?: HttpResponse): void {
  deps.logger.error({ req_id: x?.requestId, err: error }, 'unexpected error in the pipeline');
  try {
    if (x !== undefined) {
      x.fail('internal', { detail: `An unexpected error occurred; quote request id ${x.requestId} when reporting it.` });
    } else if (res !== undefined) {
      res.cork(() => {
        res.writeStatus('500 Internal Server Error').writeHeader('X-Request-Id', requestIdFor(''));
        for (const [name, value] of COMMON_HEADERS) res.writeHeader(name, value);
        res.end();
      });
    }
  } catch {
    // The response may already be gone; there is nothing left to tell the client.
  }
}
