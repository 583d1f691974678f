// GET /api/v1/capabilities: the render API operations this deployment
// offers to the calling key: the routes registered for the installed edition, filtered by
// the key's tier. Built from the route table, so it cannot drift from it.
import { tierIncludes, type Tier } from '../auth/tiers.js';
import { renderEnvelope } from '../http/envelope.js';
import type { MountedRoute, Route } from '../http/route.js';

export function capabilitiesRoute(routes: () => readonly MountedRoute[], apiVersion: string): Route {
  let byTier: Map<Tier, string> | undefined;
  const operationsFor = (tier: Tier): string => {
    // The route table is fixed once the server starts, so the answer per tier is computed once.
    byTier ??= new Map();
    let json = byTier.get(tier);
    if (json === undefined) {
      const operations = routes()
        .filter((route) => route.family === 'render' && route.operation !== undefined && route.auth !== 'none' && tierIncludes(tier, route.auth))
        .map((route) => route.operation as string);
      json = JSON.stringify({ tier, operations: [...new Set(operations)] });
      byTier.set(tier, json);
    }
    return json;
  };
  return {
    method: 'GET',
    path: '/api/v1/capabilities',
    auth: 'core',
    body: 'none',
    handle(context) {
      const tier = context.principal?.tier ?? 'core';
      return {
        status: 200,
        mediaType: 'application/json',
        body: renderEnvelope(operationsFor(tier), { requestId: context.requestId, receivedAt: context.receivedAt, apiVersion }),
      };
    },
  };
}
