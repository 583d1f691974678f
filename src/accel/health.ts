// GET /health: the accelerator's health record (accelerator spec, section 2).
// No auth, like the other probes. Worker counts are read from the pool.
// Always 200 when the process answers (a scraper reads `status` and
// `circuit_breaker`); readiness is /readyz.
import type { Route } from '../http/route.js';
import type { Health } from '../health.js';

export function healthRoute(health: Health): Route {
  return {
    method: 'GET',
    path: '/health',
    auth: 'none',
    body: 'none',
    handle() {
      const record = health.record();
      return {
        status: 200,
        mediaType: 'application/json',
        body: JSON.stringify(record),
      };
    },
  };
}
