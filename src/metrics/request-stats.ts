// Per-route request counts and durations, recorded once per request when its
// exchange completes (src/http/request-exchange.ts) and read by the exposition at
// scrape time. The hot path is one Map lookup on the route's path (the same
// string object every time), one Map update and one bucket walk: no label
// objects, no strings built per request (see buckets.ts for the measurement).
import { Buckets } from './buckets.js';

/** Which API a route belongs to (src/http/problem.ts ApiFamily). */
export type Family = 'render' | 'accel';

/** What the stats need to know of a route: enough to name its series. */
export interface RouteDescription {
  readonly family: Family;
  readonly method: string;
  readonly path: string;
  readonly operation?: string;
}

/** Methods are a label on the render API; anything a client invents counts as OTHER (bounded cardinality). */
export const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'OTHER'] as const;
export type MethodLabel = (typeof METHODS)[number];

/** The path answering requests that match no route (the router's catch-all and its log line use it too). */
export const UNKNOWN_ROUTE = '(unknown)';

function methodIndex(method: string): number {
  switch (method) {
    case 'GET':
      return 0;
    case 'HEAD':
      return 1;
    case 'POST':
      return 2;
    case 'PUT':
      return 3;
    case 'DELETE':
      return 4;
    case 'PATCH':
      return 5;
    case 'OPTIONS':
      return 6;
    default:
      return 7;
  }
}

/** Everything recorded for one path. */
export class RouteSeries {
  /** Requests by `methodIndex * 1000 + status` (the accelerator's series use method index 0 only: method is no label there). */
  readonly counts = new Map<number, number>();
  /** Durations per method index; created for the route's own methods up front, for others when first seen. */
  readonly durations: Array<Buckets | undefined> = new Array(METHODS.length).fill(undefined);

  constructor(
    readonly family: Family,
    readonly path: string,
    /** The accelerator's `operation` label. */
    readonly operation: string,
  ) {}

  record(method: string, status: number, seconds: number): void {
    const m = this.family === 'accel' ? 0 : methodIndex(method);
    const key = m * 1000 + status;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    (this.durations[m] ??= new Buckets()).observe(seconds);
  }

  /** Declares a method up front, so that its duration series is exported (as zeros) before the first request. */
  expect(method: string): void {
    const m = this.family === 'accel' ? 0 : methodIndex(method);
    this.durations[m] ??= new Buckets();
  }
}

export class RequestStats {
  readonly #byPath = new Map<string, RouteSeries>();
  readonly #unknown: Record<Family, RouteSeries> = {
    render: new RouteSeries('render', UNKNOWN_ROUTE, UNKNOWN_ROUTE),
    accel: new RouteSeries('accel', UNKNOWN_ROUTE, UNKNOWN_ROUTE),
  };

  /** Names every route's series from the final route table, before the first request. */
  describe(routes: readonly RouteDescription[]): void {
    for (const route of routes) {
      let series = this.#byPath.get(route.path);
      if (series === undefined) {
        series = new RouteSeries(route.family, route.path, route.operation ?? operationOf(route.path));
        this.#byPath.set(route.path, series);
      }
      series.expect(route.method);
    }
  }

  /** One completed request. `routePath` is the route's pattern, or UNKNOWN_ROUTE. */
  record(family: Family, routePath: string, method: string, status: number, seconds: number): void {
    (this.#byPath.get(routePath) ?? this.#unknown[family]).record(method, status, seconds);
  }

  /** Every series, the unknown routes' last. */
  *series(): Iterable<RouteSeries> {
    yield* this.#byPath.values();
    yield this.#unknown.render;
    yield this.#unknown.accel;
  }
}

/** A route without a declared operation is named by its path: /health → health, /v1/cluster/status → cluster_status. */
export function operationOf(path: string): string {
  return path.replace(/^\/(?:v1\/)?/, '').replace(/[/:]+/g, '_');
}

export function methodLabel(index: number): MethodLabel {
  return METHODS[index] ?? 'OTHER';
}
