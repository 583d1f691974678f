// Test-only accelerator routes (mounted in the 'accel' group, under /v1/test/) for the
// client and sidecar suites: each answers what its script says for the
// n-th request, through the real pipeline (auth, limits, problem documents,
// the accelerator's envelope), and records what it was sent.
import { accelJson } from '../../src/http/envelope.js';
import { HttpProblem } from '../../src/http/problem.js';
import { ClientGone, routeGroup, type Method, type MountedRoute, type Route, type RouteContext, type RouteResult } from '../../src/http/route.js';
import type { Tier } from '../../src/auth/tiers.js';

export interface Seen {
  readonly requestId: string;
  readonly tenant: string;
  readonly remote: string;
  readonly body: string;
}

export interface ScriptedRoute {
  readonly route: MountedRoute;
  /** One entry per request that reached the route (past auth and limits). */
  readonly seen: Seen[];
}

/** `hit` counts from 1. The script may throw an HttpProblem, as real routes do. */
export type Script = (hit: number, context: RouteContext) => RouteResult | Promise<RouteResult>;

export function scripted(path: string, script: Script, options: { method?: Method; auth?: Tier } = {}): ScriptedRoute {
  const seen: Seen[] = [];
  const method = options.method ?? 'GET';
  const route: Route = {
    method,
    path,
    auth: options.auth ?? 'core',
    body: method === 'POST' ? 'json' : 'none',
    handle(context) {
      seen.push({
        requestId: context.requestId,
        tenant: context.request.headers['x-tenant-id'],
        remote: context.request.remoteAddress,
        body: new TextDecoder().decode(new Uint8Array(context.body.buffer, 0, context.body.length)),
      });
      return script(seen.length, context);
    },
  };
  return { route: routeGroup('accel', [route])[0] as MountedRoute, seen };
}

/** A 200 in the accelerator's envelope around `data`. */
export function envelope(context: RouteContext, data: unknown): RouteResult {
  return {
    status: 200,
    mediaType: 'application/json',
    body: accelJson(data, { requestId: context.requestId, receivedAt: context.receivedAt, apiVersion: 'test' }),
  };
}

/** The pool's saturation answer: 503 worker-pool-exhausted with Retry-After and retry_after. */
export function saturated(retryAfter: number): never {
  throw new HttpProblem('worker-pool-exhausted', { detail: 'Every worker is busy (test route).', retryAfter });
}

/** Never answers; settles when the client goes away (uWS reports the abort). */
export function hang(context: RouteContext): Promise<never> {
  return new Promise((_, reject) => {
    const gone = () => reject(new ClientGone());
    if (context.signal.aborted) gone();
    else context.signal.addEventListener('abort', gone, { once: true });
  });
}
