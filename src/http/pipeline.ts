// The request pipeline, in the render spec's order: request id, body-size
// limit, CORS, authentication, the tenant in high-control mode
// (src/http/tenant.ts), capability (tier) authorisation, per-IP, per-client
// and per-tenant rate limits, then the route (which applies the processing
// timeout when it dispatches to the pool). Idempotency belongs to the job
// routes that need it.
//
// uWS rules (STYLE.md): everything is read from the HttpRequest before the
// first await; the abort handler is attached at once (Reply's constructor);
// every write after an await is corked (Reply.send); no exception escapes.
import { tierIncludes, type Tier } from '../auth/tiers.js';
import { DependencyUnavailable } from '../unavailable.js';
import { runApproved } from './approval-stage.js';
import { BodyError, declaredLength, readBody, type Body } from './body.js';
import type { PipelineDeps } from './pipeline-deps.js';
import { crashed, openExchange, type Exchange } from './request-exchange.js';
import { HttpProblem } from './problem.js';
import { ALLOWED, type LimitVerdict, type PendingVerdict } from './rate-limit.js';
import { checkTenant } from './tenant.js';
import { ClientGone, EMPTY_BODY, type MountedRoute, type RouteContext } from './route.js';
import { uwsClosesAfterHandler } from './uws-limits.js';
import type { HttpRequest, HttpResponse } from './uws.js';

export type { PipelineDeps } from './pipeline-deps.js';

const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/** The uWS handler for one route. */
export function routeHandler(route: MountedRoute, deps: PipelineDeps): (res: HttpResponse, req: HttpRequest) => void {
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
function run(route: MountedRoute, x: Exchange, res: HttpResponse): void {
  const { deps, request } = x;
  const { config, keys } = deps;
  // Probes keep answering while draining: readiness reports not_ready and
  // liveness stays up, so the balancer sees why (reliability plan, case 51).
  if (deps.lifecycle.draining && route.auth !== 'none') {
    return x.fail('shutting-down', { detail: 'The server is shutting down; retry on another instance.', retryAfter: 1 });
  }

  const declared = declaredLength(request.headers['content-length']);
  // uWS closes the connection right after this handler for lengths it cannot frame: answer before that.
  const flushBeforeClose = uwsClosesAfterHandler(request.headers['content-length']);
  if (Number.isNaN(declared) || request.duplicateContentLength) {
    // RFC 9112 section 6.3: a malformed or repeated Content-Length makes the framing unreliable.
    return x.fail('bad-request', { detail: 'The Content-Length header is malformed or repeated.' }, { close: true, flushBeforeClose });
  }
  // Before the key is known, the largest limit any tier has; the key's own below.
  if (declared !== undefined && declared > config.maxBodyBytesAnyTier) {
    return x.fail('payload-too-large', { detail: tooLarge(config.maxBodyBytesAnyTier, undefined) }, { close: true, flushBeforeClose });
  }
  if (flushBeforeClose) {
    return x.fail('bad-request', { detail: 'Content-Length must be written with at most nine digits.' }, { close: true, flushBeforeClose });
  }
  const transferEncoding = request.headers['transfer-encoding'];
  if (transferEncoding !== '' && transferEncoding.toLowerCase() !== 'chunked') {
    // RFC 9112 section 6.1: chunked is the only coding a request may end with that we can frame. uWS frames
    // every Transfer-Encoding as chunked: with no body yet it would wait for its idle timeout, and a body that
    // came in the same read as the headers is parsed as chunks once this handler returns, so the first byte
    // that is not chunk framing closes the connection with the answer still in the cork buffer (the client got
    // no answer at all). Flushed before that close, as for a Content-Length uWS cannot frame.
    return x.fail(
      'bad-request',
      { detail: `Transfer-Encoding "${transferEncoding.slice(0, 100)}" is not supported; send the body with Content-Length or as chunked.` },
      { close: true, flushBeforeClose: true },
    );
  }
  const hasBody = !(declared === 0 || (declared === undefined && transferEncoding === ''));
  x.unreadBody = hasBody;

  if (route.auth !== 'none') {
    const principal = keys.authenticate(request.headers.authorization);
    if (principal === undefined) {
      rejectUnauthenticated(x).catch((error: unknown) => crashed(deps, x, error));
      return;
    }
    x.principal = principal;
    if (config.highControl) {
      const refusal = checkTenant(principal, request.headers['x-tenant-id']);
      if (refusal !== undefined) return x.fail(refusal.slug, { detail: refusal.detail });
    }
    if (!tierIncludes(principal.tier, route.auth)) {
      return x.fail('capability-denied', {
        detail: `This operation needs the ${route.auth} tier; the key "${principal.kid}" is ${principal.tier}.`,
      });
    }
    // The tier-payload limit (render spec section 1), as soon as the key is known.
    if (declared !== undefined && declared > config.maxBodyBytesByTier[principal.tier]) {
      return x.fail('payload-too-large', { detail: tooLarge(config.maxBodyBytesByTier[principal.tier], principal.tier) }, { close: true, flushBeforeClose });
    }
  }

  let body: Promise<Body> | undefined;
  if (route.body === 'json' || route.body === 'binary' || (route.body === 'optional-json' && hasBody)) {
    const refused = mediaTypeRefusal(route, request.headers['content-type']);
    if (refused !== undefined) return x.fail('unsupported-media-type', { detail: refused });
    if (!hasBody) return missingBody(x, route);
    if (declared !== undefined && !x.holdBodyBytes(declared)) return overBudget(x);
    x.bodyPending = true;
    const fingerprint = route.fingerprint?.(request) === true || deps.approvals?.gates(route.operation) === true;
    body = readBody(res, declared, bodyLimit(x), x.reply.gone, {
      fingerprint,
      hold: (bytes) => x.holdBodyBytes(bytes),
      idleMs: config.bodyTimeoutMs,
      minRate: config.bodyMinRate === 0 ? undefined : { bytesPerSecond: config.bodyMinRate, graceMs: config.bodyTimeoutMs },
      onEnd: () => {
        x.bodyPending = false;
        x.unreadBody = false;
      },
    });
    // Settled in finish(); this keeps an early rejection from being reported as unhandled.
    body.catch(() => undefined);
  }
  finish(route, x, body).catch((error: unknown) => crashed(deps, x, error));
}

/** Why the request's Content-Type does not fit the route's body, or undefined when it does. */
function mediaTypeRefusal(route: MountedRoute, contentType: string): string | undefined {
  const got = contentType === '' ? 'no Content-Type' : `Content-Type "${contentType.slice(0, 100)}"`;
  if (route.body !== 'binary') {
    return JSON_MEDIA_TYPE.test(contentType) ? undefined : `This route takes a JSON body (Content-Type: application/json); got ${got}.`;
  }
  const accepted = route.mediaTypes ?? [];
  const essence = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  return accepted.includes(essence) ? undefined : `This route takes the file as the body, with Content-Type ${accepted.join(', ')}; got ${got}.`;
}

async function finish(route: MountedRoute, x: Exchange, pendingBody: Promise<Body> | undefined): Promise<void> {
  const { deps } = x;
  try {
    if (x.principal !== undefined) {
      // Counted in memory, the verdict is a value: no await (see limit()).
      const pending = limit(x);
      const verdict = pending instanceof Promise ? await pending : pending;
      if (!verdict.allowed) return rateLimited(x, verdict);
    }
    let body = EMPTY_BODY;
    if (pendingBody !== undefined) {
      try {
        body = await pendingBody;
        x.bodyPending = false;
        x.unreadBody = false;
      } catch (error) {
        if (!(error instanceof BodyError)) throw error;
        if (error.failure === 'aborted') return x.abandoned();
        if (error.failure === 'over-budget') return overBudget(x);
        if (error.failure === 'timeout') return bodyTimedOut(x, error.received);
        if (error.failure === 'too-slow') return bodyTooSlow(x, error.received, error.elapsedMs);
        if (error.failure === 'too-large') {
          return x.fail('payload-too-large', { detail: tooLarge(bodyLimit(x), x.principal?.tier) }, { close: true });
        }
        return x.fail('bad-request', { detail: 'The body length does not match the Content-Length header.' }, { close: true });
      }
      x.bytesIn = body.length;
      // A chunked body may turn out empty; no worker is needed to say so.
      if (body.length === 0 && (route.body === 'json' || route.body === 'binary')) return missingBody(x, route);
    }
    const context = new ExchangeContext(x, body);
    const { approvals } = deps;
    const result =
      approvals?.gates(route.operation) === true
        ? await runApproved(approvals, route, context, deps.config.version, () => route.handle(context))
        : await route.handle(context);
    x.respond(result);
  } catch (error) {
    if (x.reply.aborted || error instanceof ClientGone) return x.abandoned();
    if (error instanceof HttpProblem) return x.fail(error.slug, error.init);
    if (error instanceof DependencyUnavailable) {
      return x.fail('store-unavailable', {
        detail: `${error.dependency} cannot be reached, so this request cannot be served now; retry after the Retry-After delay.`,
        retryAfter: error.retryAfterSeconds,
      });
    }
    deps.logger.error({ req_id: x.requestId, err: error }, 'unexpected error in a route');
    x.fail('internal', { detail: `An unexpected error occurred; quote request id ${x.requestId} when reporting it.` });
  }
}

/**
 * What a route sees of the exchange. A class rather than an object literal:
 * the literal's `signal` getter was a new function and accessor pair per
 * request.
 */
class ExchangeContext implements RouteContext {
  readonly request: Exchange['request'];
  readonly requestId: string;
  readonly principal: Exchange['principal'];
  readonly gone: RouteContext['gone'];
  readonly receivedAt: number;
  readonly timings: RouteContext['timings'];

  constructor(
    private readonly exchange: Exchange,
    readonly body: Body,
  ) {
    this.request = exchange.request;
    this.requestId = exchange.requestId;
    this.principal = exchange.principal;
    this.gone = exchange.reply.gone;
    this.receivedAt = exchange.receivedAt;
    this.timings = exchange.timings;
  }

  get signal(): AbortSignal {
    return this.exchange.reply.signal;
  }
}

/**
 * The client stopped sending before its body was complete: 408 and a close.
 * Nothing is in flight after that much silence, so the connection closes at
 * once, without the lingering read of the other refusals.
 */
function bodyTimedOut(x: Exchange, received: number): void {
  x.bodyPending = false;
  x.unreadBody = false;
  const declared = declaredLength(x.request.headers['content-length']);
  const of = declared === undefined ? 'of a chunked body (no last chunk)' : `of the ${declared} the Content-Length declares`;
  x.fail('body-timeout', { detail: `The body stopped arriving: ${received} bytes ${of}, then nothing for ${x.deps.config.bodyTimeoutMs} ms. Send the whole body without pausing.` }, { close: true });
}

/**
 * The body kept arriving, but below PLATEN_BODY_MIN_RATE on average: 408 and
 * a close, at once like the silent body (the client is still sending, but
 * what it sends is not worth the lingering read that would wait for it).
 */
function bodyTooSlow(x: Exchange, received: number, elapsedMs: number): void {
  x.bodyPending = false;
  x.unreadBody = false;
  const { bodyMinRate, bodyTimeoutMs } = x.deps.config;
  x.fail(
    'body-timeout',
    {
      detail: `The body arrived too slowly: ${received} bytes in ${Math.round(elapsedMs)} ms, where this server expects ${bodyMinRate} bytes per second on average after the first ${bodyTimeoutMs} ms (PLATEN_BODY_MIN_RATE). Send the body at once.`,
    },
    { close: true },
  );
}

/**
 * The per-address, per-client and per-tenant limits, in that order. A value
 * while every count is in memory; a promise from the first count Redis
 * makes on (the rest follow it there).
 */
function limit(x: Exchange): PendingVerdict {
  if (x.deps.local === true) return ALLOWED;
  const ip = x.deps.limits.ip(x.request.remoteAddress);
  if (ip instanceof Promise) return ip.then((verdict) => (verdict.allowed ? limitClient(x) : verdict));
  return ip.allowed ? limitClient(x) : ip;
}

function limitClient(x: Exchange): PendingVerdict {
  const principal = x.principal as NonNullable<Exchange['principal']>;
  const client = x.deps.limits.client(principal);
  if (client instanceof Promise) return client.then((verdict) => limitTenant(x, principal, verdict));
  return limitTenant(x, principal, client);
}

function limitTenant(x: Exchange, principal: NonNullable<Exchange['principal']>, client: LimitVerdict): PendingVerdict {
  // In high-control mode every principal here has a tenant (checkTenant ran).
  if (!client.allowed || !x.deps.config.highControl || principal.tenant === undefined) return client;
  return x.deps.limits.tenant(principal.tenant);
}

function rateLimited(x: Exchange, verdict: Extract<LimitVerdict, { allowed: false }>): void {
  const slug = x.family === 'accel' ? 'rate-limit-exceeded' : 'client-rate-exceeded';
  const whose =
    verdict.scope === 'client'
      ? `for client "${x.principal?.label}"`
      : verdict.scope === 'tenant'
        ? `for tenant "${x.principal?.tenant}" (PLATEN_TENANT_RPM)`
        : verdict.scope === 'auth' ? `for failed authentications from ${x.request.remoteAddress}` : `from ${x.request.remoteAddress}`;
  x.fail(slug, { detail: `The rate limit ${whose} is exhausted; retry after ${verdict.retryAfterSeconds} s.`, retryAfter: verdict.retryAfterSeconds });
}

/**
 * A failed authentication counts against the address (never the key's
 * owner) in a limiter of its own, much stricter than the request limit:
 * guessing keys ends in 429 after a few tries, while valid keys from the
 * same address keep working.
 */
async function rejectUnauthenticated(x: Exchange): Promise<void> {
  const presented = x.request.headers.authorization !== '';
  // Only a presented credential is a guess. A request without one guessed nothing, and counting it made a
  // client's sweep of the routes without a key (40 of them) end in 429 instead of the spec's 401.
  if (presented) {
    const verdict = await x.deps.limits.authFailure(x.request.remoteAddress);
    if (!verdict.allowed) return rateLimited(x, verdict);
  }
  const detail = presented ? 'The API key is not valid. Keys look like svc_live_{kid}_{secret}.' : 'Send the header "Authorization: Bearer <API key>".';
  x.fail('unauthorized', { detail, headers: { 'WWW-Authenticate': 'Bearer' } });
}

/** Seconds a client refused for the body budget waits: bodies in flight usually complete within one. */
const BUDGET_RETRY_AFTER_S = 1;

function overBudget(x: Exchange): void {
  const budget = x.deps.bodyBudget.limit;
  x.fail(
    'upload-budget-exhausted',
    {
      detail: `The server holds as many request bodies as it may (${budget} bytes, PLATEN_BODY_BUDGET_BYTES); retry after the Retry-After delay.`,
      retryAfter: BUDGET_RETRY_AFTER_S,
    },
    { close: true },
  );
}

function missingBody(x: Exchange, route: MountedRoute): void {
  const what = route.body === 'binary' ? 'the file as its body' : 'a JSON body';
  x.fail('bad-request', { detail: `This route needs ${what}; the request has none.` }, { close: x.bodyPending });
}

/** The body limit of this request: its key's tier's, or the global cap on routes that take no key. */
function bodyLimit(x: Exchange): number {
  const { config } = x.deps;
  return x.principal === undefined ? config.maxBodyBytes : config.maxBodyBytesByTier[x.principal.tier];
}

function tooLarge(limit: number, tier: Tier | undefined): string {
  const setting = tier === undefined ? 'the largest tier limit, PLATEN_MAX_BODY_BYTES_<TIER>' : `the ${tier} tier's limit, PLATEN_MAX_BODY_BYTES_${tier.toUpperCase()}`;
  return `The body is larger than ${limit} bytes (${setting}).`;
}
