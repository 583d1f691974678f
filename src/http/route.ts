// What a route module declares, and what its handler receives and returns.
// Routes are thin: the pipeline has already identified, authorised, limited
// and read the body by the time `handle` runs. A route does not say which
// API it belongs to: the server mounts each API's routes as one group
// (routeGroup, after hono's `app.route('/v1', v1)`), so a family is declared
// once and cannot disagree between two routes of one module.
import type { Principal } from '../auth/key-store.js';
import type { Tier } from '../auth/tiers.js';
import type { Body } from './body.js';
import type { CallerSignal } from '../pool/pool.js';
import type { ApiFamily } from './problem.js';
import type { ResponseBody } from './reply.js';
import type { IncomingRequest } from './request.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

export interface Route {
  readonly method: Method;
  /** uWS pattern, e.g. /api/v1/jobs/:id */
  readonly path: string;
  /** Minimum tier, or 'none' for the unauthenticated probes. */
  readonly auth: Tier | 'none';
  /**
   * 'json': a JSON body is required (415 otherwise); 'optional-json': none, or JSON; 'none': any body is ignored;
   * 'binary': a body of one of `mediaTypes` is required (a file sent as it is, e.g. a font).
   */
  readonly body: 'json' | 'optional-json' | 'none' | 'binary';
  /** For 'binary' bodies: the Content-Types accepted (lower case, without parameters). */
  readonly mediaTypes?: readonly string[];
  /** Operation name listed by /api/v1/capabilities, for routes that are operations. */
  readonly operation?: string;
  /** Hash the body as it arrives (Body.sha256) when this says so, e.g. when an Idempotency-Key is sent. */
  readonly fingerprint?: (request: IncomingRequest) => boolean;
  handle(context: RouteContext): RouteResult | Promise<RouteResult>;
}

/** A route as the server registers it: declared in a module, mounted in its API's group. */
export interface MountedRoute extends Route {
  /** Which API's problem flavour and envelope the route uses. */
  readonly family: ApiFamily;
}

/** Mounts one API's routes: every route of the group answers in that API's flavour. */
export function routeGroup(family: ApiFamily, routes: readonly Route[]): MountedRoute[] {
  // Copied with `handle` bound, so a route declared as a class instance keeps its methods.
  return routes.map((route) => ({ ...route, family, handle: (context: RouteContext) => route.handle(context) }));
}

export interface RouteContext {
  readonly request: IncomingRequest;
  readonly requestId: string;
  /** Undefined only on routes with auth 'none'. */
  readonly principal: Principal | undefined;
  /** Empty for routes without a body. Transferred (unusable) once dispatched to a worker. */
  readonly body: Body;
  /** Fires when the client goes away: what the pool and the body reader listen to (client-signal.ts). */
  readonly gone: CallerSignal;
  /** `gone` as an AbortSignal, for APIs that take nothing else (fetch); made on first read. */
  readonly signal: AbortSignal;
  /** performance.now() when the request arrived, for meta.duration_ms. */
  readonly receivedAt: number;
  /** Filled in by dispatch for the completion log line. */
  readonly timings: { queueMs?: number; waitMs?: number; taskMs?: number };
}

export interface RouteResult {
  readonly status: number;
  readonly mediaType: string;
  readonly body: ResponseBody;
  readonly headers?: ReadonlyArray<readonly [string, string]>;
}

export const EMPTY_BODY: Body = Object.freeze({ buffer: new ArrayBuffer(0), length: 0 });

/** Thrown by a route when the client went away mid-task: nothing to answer. */
export class ClientGone extends Error {
  constructor() {
    super('client gone');
    this.name = 'ClientGone';
  }
}
