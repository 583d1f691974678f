// The request pipeline, in the render spec's order: request id, body-size
// limit, CORS, authentication, capability (tier) authorisation, per-IP and
// per-client rate limits, then the route (which applies the processing
// timeout when it dispatches to the pool). Idempotency is added by the job
// routes that need it.
//
// uWS rules (STYLE.md): everything is read from the HttpRequest before the
// first await; the abort handler is attached at once (Reply's constructor);
// every write after an await is corked (Reply.send); no exception escapes.
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { KeyStore, Principal } from '../auth/key-store.js';
import { tierIncludes } from '../auth/tiers.js';
import { BodyError, declaredLength, readBody, type Body } from './body.js';
import type { Cors } from './cors.js';
import type { Lifecycle } from './lifecycle.js';
import { HttpProblem, PROBLEMS, problemBody, type ApiFamily, type Slug } from './problem.js';
import type { LimitVerdict, RateLimits } from './rate-limit.js';
import { Reply } from './reply.js';
import { readRequest, type IncomingRequest } from './request.js';
import { requestIdFor } from './request-id.js';
import { EMPTY_BODY, type Route, type RouteContext, type RouteResult } from './route.js';
import type { HttpRequest, HttpResponse } from './uws.js';

export interface PipelineDeps {
  readonly config: Config;
  readonly keys: KeyStore;
  readonly limits: RateLimits;
  readonly cors: Cors;
  readonly logger: Logger;
  readonly lifecycle: Lifecycle;
}

/** Headers on every response (OWASP REST Security Cheat Sheet: no caching of API answers, no sniffing). */
const COMMON_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['Cache-Control', 'no-store'],
  ['X-Content-Type-Options', 'nosniff'],
];

const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/** State of one request as it moves through the stages. */
class Exchange {
  readonly receivedAt = performance.now();
  readonly timings: { queueMs?: number; taskMs?: number } = {};
  principal: Principal | undefined;
  /** True while the client may still be sending a body we no longer want: the connection must close. */
  bodyPending = false;
  bytesIn = 0;
  status = 0;

  constructor(
    readonly deps: PipelineDeps,
    readonly family: ApiFamily,
    readonly routePath: string,
    readonly request: IncomingRequest,
    readonly requestId: string,
    readonly reply: Reply,
    /** CORS headers for this response; a preflight replaces them with its own. */
    public corsHeaders: ReadonlyArray<readonly [string, string]>,
  ) {}

  respond(result: RouteResult, options: { close?: boolean } = {}): void {
    const headers: Array<readonly [string, string]> = [
      ['Content-Type', result.mediaType],
      ['X-Request-Id', this.requestId],
      ...COMMON_HEADERS,
      ...this.corsHeaders,
      ...(result.headers ?? []),
    ];
    const close = options.close === true || this.bodyPending || this.deps.lifecycle.draining;
    // uWS writes `Connection: close` itself when asked to close.
    this.status = result.status;
    const omitBody = this.request.method === 'HEAD';
    this.reply.send({ status: result.status, headers, body: result.body, omitBody, close });
    this.#complete();
  }

  fail(slug: Slug, init: HttpProblem['init'], options: { close?: boolean } = {}): void {
    const { status } = PROBLEMS[slug];
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

  /** The client left; nothing can be written. Logged with nginx's 499 convention. */
  abandoned(): void {
    this.status = 499;
    this.#complete();
  }

  #completed = false;

  #complete(): void {
    if (this.#completed) return;
    this.#completed = true;
    this.deps.lifecycle.leave();
    const line = {
      req_id: this.requestId,
      method: this.request.method,
      route: this.routePath,
      status: this.status,
      client: this.principal?.label,
      remote: this.request.remoteAddress,
      bytes_in: this.bytesIn,
      bytes_out: this.reply.bytesOut,
      queue_ms: round(this.timings.queueMs),
      task_ms: round(this.timings.taskMs),
      ms: round(performance.now() - this.receivedAt),
    };
    if (this.status >= 500) this.deps.logger.error(line, 'request');
    else this.deps.logger.info(line, 'request');
  }
}

function round(ms: number | undefined): number | undefined {
  return ms === undefined ? undefined : Math.round(ms * 100) / 100;
}

/** Starts an exchange: request id, CORS headers, in-flight accounting, abort handler. */
export function openExchange(
  deps: PipelineDeps,
  family: ApiFamily,
  routePath: string,
  res: HttpResponse,
  req: HttpRequest,
  paramCount: number,
): Exchange {
  const request = readRequest(req, res, paramCount);
  const reply = new Reply(res);
  deps.lifecycle.enter();
  const corsHeaders = deps.cors.responseHeaders(request.headers.origin);
  return new Exchange(deps, family, routePath, request, requestIdFor(request.headers['x-request-id']), reply, corsHeaders);
}

/** The uWS handler for one route. */
export function routeHandler(route: Route, deps: PipelineDeps): (res: HttpResponse, req: HttpRequest) => void {
  const paramCount = (route.path.match(/\/:/g) ?? []).length;
  return (res, req) => {
    let exchange: Exchange | undefined;
    try {
      exchange = openExchange(deps, route.family, route.path, res, req, paramCount);
      run(route, exchange, res);
    } catch (error) {
      crashed(deps, exchange, error, res);
    }
  };
}

/** The synchronous stages; the rest continues in `finish` after the first await. */
function run(route: Route, x: Exchange, res: HttpResponse): void {
  const { deps, request } = x;
  const { config, keys } = deps;
  // Probes keep answering while draining: readiness reports not_ready and
  // liveness stays up, so the balancer sees why (reliability plan, case 51).
  if (deps.lifecycle.draining && route.auth !== 'none') {
    return x.fail('shutting-down', { detail: 'The server is shutting down; retry on another instance.', retryAfter: 1 });
  }

  const declared = declaredLength(request.headers['content-length']);
  if (Number.isNaN(declared)) {
    return x.fail('bad-request', { detail: 'The Content-Length header is not a whole number.' }, { close: true });
  }
  if (declared !== undefined && declared > config.maxBodyBytes) {
    return x.fail('payload-too-large', { detail: tooLarge(config.maxBodyBytes) }, { close: true });
  }

  if (route.auth !== 'none') {
    const principal = keys.authenticate(request.headers.authorization);
    if (principal === undefined) return void rejectUnauthenticated(x);
    x.principal = principal;
    if (!tierIncludes(principal.tier, route.auth)) {
      return x.fail('capability-denied', {
        detail: `This operation needs the ${route.auth} tier; the key "${principal.kid}" is ${principal.tier}.`,
      });
    }
  }

  let body: Promise<Body> | undefined;
  if (route.body === 'json') {
    if (!JSON_MEDIA_TYPE.test(request.headers['content-type'])) {
      const got = request.headers['content-type'] === '' ? 'no Content-Type' : `Content-Type "${request.headers['content-type'].slice(0, 100)}"`;
      return x.fail('unsupported-media-type', { detail: `This route takes a JSON body (Content-Type: application/json); got ${got}.` });
    }
    if (declared === 0 || (declared === undefined && request.headers['transfer-encoding'] === '')) {
      return x.fail('bad-request', { detail: 'This route needs a JSON body; the request has none.' });
    }
    x.bodyPending = true;
    body = readBody(res, declared, config.maxBodyBytes, x.reply.signal);
    // Settled in finish(); this keeps an early rejection from being reported as unhandled.
    body.catch(() => undefined);
  }
  void finish(route, x, body);
}

async function finish(route: Route, x: Exchange, pendingBody: Promise<Body> | undefined): Promise<void> {
  const { deps } = x;
  try {
    if (x.principal !== undefined) {
      const verdict = await limit(deps.limits, x.request.remoteAddress, x.principal);
      if (!verdict.allowed) return rateLimited(x, verdict);
    }
    let body = EMPTY_BODY;
    if (pendingBody !== undefined) {
      try {
        body = await pendingBody;
        x.bodyPending = false;
      } catch (error) {
        if (!(error instanceof BodyError)) throw error;
        if (error.failure === 'aborted') return x.abandoned();
        if (error.failure === 'too-large') {
          return x.fail('payload-too-large', { detail: tooLarge(deps.config.maxBodyBytes) }, { close: true });
        }
        return x.fail('bad-request', { detail: 'The body length does not match the Content-Length header.' }, { close: true });
      }
      x.bytesIn = body.length;
    }
    const context: RouteContext = {
      request: x.request,
      requestId: x.requestId,
      principal: x.principal,
      body,
      signal: x.reply.signal,
      receivedAt: x.receivedAt,
      timings: x.timings,
    };
    const result = await route.handle(context);
    if (x.reply.aborted) return x.abandoned();
    x.respond(result);
  } catch (error) {
    if (x.reply.aborted) return x.abandoned();
    if (error instanceof HttpProblem) return x.fail(error.slug, error.init);
    if (error instanceof ClientGone) return x.abandoned();
    deps.logger.error({ req_id: x.requestId, err: error }, 'unexpected error in a route');
    x.fail('internal', { detail: `An unexpected error occurred; quote request id ${x.requestId} when reporting it.` });
  }
}

/** Thrown by a route when the client went away mid-task: nothing to answer. */
export class ClientGone extends Error {
  constructor() {
    super('client gone');
    this.name = 'ClientGone';
  }
}

async function limit(limits: RateLimits, address: string, principal: Principal): Promise<LimitVerdict> {
  const ip = await limits.ip(address);
  if (!ip.allowed) return ip;
  return limits.client(principal);
}

function rateLimited(x: Exchange, verdict: Extract<LimitVerdict, { allowed: false }>): void {
  const slug = x.family === 'accel' ? 'rate-limit-exceeded' : 'client-rate-exceeded';
  const whose = verdict.scope === 'ip' ? `from ${x.request.remoteAddress}` : `for client "${x.principal?.label}"`;
  x.fail(slug, { detail: `The rate limit ${whose} is exhausted; retry after ${verdict.retryAfterSeconds} s.`, retryAfter: verdict.retryAfterSeconds });
}

/** A failed authentication counts against the address (never the key's owner): brute force ends in 429. */
function rejectUnauthenticated(x: Exchange): Promise<void> {
  const detail =
    x.request.headers.authorization === ''
      ? 'Send the header "Authorization: Bearer <API key>".'
      : 'The API key is not valid. Keys look like svc_live_{kid}_{secret}.';
  return x.deps.limits.ip(x.request.remoteAddress).then(
    (verdict) => {
      if (!verdict.allowed) return rateLimited(x, verdict);
      x.fail('unauthorized', { detail, headers: { 'WWW-Authenticate': 'Bearer' } });
    },
    (error: unknown) => crashed(x.deps, x, error),
  );
}

function tooLarge(limit: number): string {
  return `The body is larger than the limit of ${limit} bytes (PLATEN_MAX_BODY_BYTES).`;
}

/** Last line of defence: an exception in a stage must not escape into uWS. */
export function crashed(deps: PipelineDeps, x: Exchange | undefined, error: unknown, res?: HttpResponse): void {
  deps.logger.error({ req_id: x?.requestId, err: error }, 'unexpected error in the pipeline');
  try {
    if (x !== undefined) {
      x.fail('internal', { detail: `An unexpected error occurred; quote request id ${x.requestId} when reporting it.` });
    } else if (res !== undefined) {
      res.cork(() => res.writeStatus('500 Internal Server Error').end());
    }
  } catch {
    // The response may already be gone; there is nothing left to tell the client.
  }
}

export type { Exchange };
