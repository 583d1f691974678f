// Registers the route table on a uWS app, built once at start-up. Beyond
// each route's own method, a path also answers:
// - HEAD for GET routes (headers and Content-Length, no body);
// - OPTIONS: a CORS preflight, or 204 with Allow;
// - any other method: 405 method-not-allowed with Allow (RFC 9110 section 15.5.6).
// Everything else is 404 not-found, in the flavour of the API whose routes
// share the path's first segment. uWS gives `any` handlers lower priority
// than method handlers on the same pattern, which is what makes this work.
import { crashed, openExchange, type Exchange } from './request-exchange.js';
import { routeHandler, type PipelineDeps } from './pipeline.js';
import type { ApiFamily } from './problem.js';
import type { MountedRoute } from './route.js';
import type { HttpRequest, HttpResponse, TemplatedApp } from './uws.js';

/** `/v1/font/subset` -> `v1`; `/healthz` -> `healthz`. */
function firstSegment(path: string): string {
  const end = path.indexOf('/', 1);
  return path.slice(1, end === -1 ? undefined : end);
}

/**
 * The family of a path no route matches, from the mounted routes: `/v1/nope`
 * answers as the accelerator (retry_after, its slugs) because its routes live
 * under `/v1`. Two families under one first segment would make that
 * ambiguous, so the table is refused at start-up.
 */
export function unknownPathFamily(routes: readonly MountedRoute[]): (path: string) => ApiFamily {
  const bySegment = new Map<string, ApiFamily>();
  for (const route of routes) {
    const segment = firstSegment(route.path);
    const claimed = bySegment.get(segment);
    if (claimed !== undefined && claimed !== route.family) {
      throw new Error(`routes of both the ${claimed} and the ${route.family} API live under /${segment}; give each API its own first path segment`);
    }
    bySegment.set(segment, route.family);
  }
  return (path) => bySegment.get(firstSegment(path)) ?? 'render';
}

export function registerRoutes(app: TemplatedApp, routes: readonly MountedRoute[], deps: PipelineDeps): void {
  const familyOf = unknownPathFamily(routes);
  const byPath = new Map<string, MountedRoute[]>();
  for (const route of routes) {
    const same = byPath.get(route.path) ?? [];
    if (same.some((r) => r.method === route.method)) throw new Error(`route ${route.method} ${route.path} registered twice`);
    same.push(route);
    byPath.set(route.path, same);
  }

  for (const [path, pathRoutes] of byPath) {
    const methods = pathRoutes.map((r) => r.method);
    const allowed: string[] = [...methods];
    if (methods.includes('GET')) allowed.push('HEAD');
    const allow = [...allowed, 'OPTIONS'].join(', ');
    const family = (pathRoutes[0] as MountedRoute).family;

    for (const route of pathRoutes) {
      const handler = routeHandler(route, deps);
      register(app, route.method, path, handler);
      // HEAD runs the GET route; the exchange omits the body (probes are often checked with HEAD).
      if (route.method === 'GET') register(app, 'HEAD', path, handler);
    }
    app.options(path, guarded(deps, () => family, path, (x) => {
      const { origin } = x.request.headers;
      const requested = x.request.headers['access-control-request-method'];
      if (origin !== '' && requested !== '') x.corsHeaders = deps.cors.preflightHeaders(origin, requested, allowed);
      x.respond({ status: 204, mediaType: 'text/plain', body: '', headers: [['Allow', allow]] });
    }));
    app.any(path, guarded(deps, () => family, path, (x) => {
      x.fail('method-not-allowed', {
        detail: `${x.request.method} is not allowed on ${x.request.path}; allowed: ${allow}.`,
        headers: { Allow: allow },
      });
    }));
  }

  app.any('/*', guarded(deps, (url) => familyOf(url), '(unknown)', (x) => {
    x.fail('not-found', {
      detail: `There is no route ${x.request.method} ${x.request.path.slice(0, 200)} on this server. GET /api/v1/capabilities lists the operations available to your key.`,
    });
  }));
}

type Handler = (res: HttpResponse, req: HttpRequest) => void;

function register(app: TemplatedApp, method: string, path: string, handler: Handler): void {
  switch (method) {
    case 'GET':
      app.get(path, handler);
      break;
    case 'HEAD':
      app.head(path, handler);
      break;
    case 'POST':
      app.post(path, handler);
      break;
    case 'PUT':
      app.put(path, handler);
      break;
    case 'DELETE':
      app.del(path, handler);
      break;
    case 'PATCH':
      app.patch(path, handler);
      break;
    default:
      throw new Error(`unsupported method ${method}`);
  }
}

/** A handler answering from the request alone; an exception becomes a 500 through its exchange. */
function guarded(deps: PipelineDeps, familyOf: (url: string) => ApiFamily, routePath: string, answer: (x: Exchange) => void): Handler {
  return (res, req) => {
    let x: Exchange | undefined;
    try {
      x = openExchange(deps, familyOf(req.getUrl()), routePath, res, req, 0);
      answer(x);
    } catch (error) {
      crashed(deps, x, error, res);
    }
  };
}
