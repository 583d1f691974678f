// GET /v1/cluster/status (accelerator spec, enterprise tier): every node of
// the cluster as its heartbeats describe it. In the embedded mode the
// cluster is this one process.
import { accelJson } from '../http/envelope.js';
import type { Route } from '../http/route.js';
import type { NodeRegistry } from '../store/nodes.js';

export function clusterRoute(registry: NodeRegistry, apiVersion: string): Route {
  return {
    method: 'GET',
    path: '/v1/cluster/status',
    auth: 'enterprise',
    body: 'none',
    operation: 'cluster-status',
    async handle(context) {
      const nodes = await registry.nodes();
      const data = {
        cluster_id: registry.clusterId,
        node_count: nodes.length,
        healthy_nodes: nodes.filter((node) => node.status === 'healthy').length,
        nodes,
      };
      return {
        status: 200,
        mediaType: 'application/json',
        body: accelJson(data, { requestId: context.requestId, receivedAt: context.receivedAt, apiVersion }),
      };
    },
  };
}
