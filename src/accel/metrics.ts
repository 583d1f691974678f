// GET /metrics: Prometheus text exposition (format 0.0.4), registered only
// with PLATEN_METRICS_ENABLED (otherwise the path is 404 like any unknown
// one). No key, like /health: a scraper usually holds none, and the series
// carry no client, tenant or payload data. Bind or firewall it to the
// scraper's network (README, Metrics). Building the text reads the
// accumulators and the pool once; nothing is computed per request.
import type { Registry } from 'prom-client';
import type { Route } from '../http/route.js';

export function metricsRoute(registry: Registry): Route {
  return {
    method: 'GET',
    path: '/metrics',
    auth: 'none',
    body: 'none',
    async handle() {
      return { status: 200, mediaType: registry.contentType, body: await registry.metrics() };
    },
  };
}
