// GET /healthz (liveness) and GET /readyz (readiness), without auth.
// Liveness is 503 only when the circuit breaker is open (workers keep dying:
// a restart may help); while shutting down liveness stays 200 and readiness
// goes 503 at once, so a balancer stops sending traffic before the listener
// closes (reliability plan, case 51).
import type { Route } from '../http/route.js';
import type { Health } from '../health.js';

export function probeRoutes(health: Health): Route[] {
  return [
    {
      method: 'GET',
      path: '/healthz',
      family: 'render',
      auth: 'none',
      body: 'none',
      handle() {
        const breaker = health.breaker;
        const status = breaker === 'closed' ? 'ok' : 'degraded';
        return json(breaker === 'open' ? 503 : 200, { status, timestamp: new Date().toISOString() });
      },
    },
    {
      method: 'GET',
      path: '/readyz',
      family: 'render',
      auth: 'none',
      body: 'none',
      handle() {
        const checks = health.readiness();
        const ready = Object.values(checks).every(Boolean);
        return json(ready ? 200 : 503, { status: ready ? 'ready' : 'not_ready', checks });
      },
    },
  ];
}

function json(status: number, body: unknown) {
  return { status, mediaType: 'application/json', body: JSON.stringify(body) };
}
