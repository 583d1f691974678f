// GET /healthz (liveness) and GET /readyz (readiness), without auth.
// Liveness is 200 whenever the process answers: `degraded` while the circuit
// breaker is not closed. It never turns 503 on the breaker, because an
// orchestrator restarts a process whose liveness fails and a restart cannot
// fix crashing input. Readiness goes 503 with the breaker open and at once on
// shutdown, so a balancer stops sending traffic before the listener closes
// (reliability plan, case 51).
import type { Route } from '../http/route.js';
import type { Health } from '../health.js';

export function probeRoutes(health: Health): Route[] {
  return [
    {
      method: 'GET',
      path: '/healthz',
      auth: 'none',
      body: 'none',
      handle() {
        const status = health.breaker === 'closed' ? 'ok' : 'degraded';
        return json(200, { status, timestamp: new Date().toISOString() });
      },
    },
    {
      method: 'GET',
      path: '/readyz',
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
