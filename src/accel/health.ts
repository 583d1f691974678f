// GET /health: the accelerator's health record (accelerator spec, section 2).
// No auth, like the other probes. Worker counts are read from the pool.
import type { Route } from '../http/route.js';
import type { Health } from '../health.js';

export function healthRoute(health: Health): Route {
  return {
    method: 'GET',
    path: '/health',
    family: 'accel',
    auth: 'none',
    body: 'none',
    handle() {
      const record = health.record();
      return {
        status: record.circuit_breaker === 'open' ? 503 : 200,
        mediaType: 'application/json',
        body: JSON.stringify(record),
      };
    },
  };
}
