// Node heartbeats in Redis (multi-node mode). Each node writes its sample
// every HEARTBEAT_MS into a hash of all nodes; a node whose last heartbeat is
// older than three periods is reported `unreachable`, and forgotten after
// FORGET_AFTER_MS (a node that was stopped, or died).
import type { ClusterNode, NodeRegistry, NodeSampler } from '../nodes.js';
import type { RedisConnection } from './connection.js';

const HEARTBEAT_MS = 2_000;
const UNREACHABLE_AFTER_MS = 3 * HEARTBEAT_MS;
const FORGET_AFTER_MS = 5 * 60_000;

export class RedisNodeRegistry implements NodeRegistry {
  readonly #timer: NodeJS.Timeout;

  constructor(
    readonly clusterId: string,
    private readonly redis: RedisConnection,
    private readonly sampler: NodeSampler,
  ) {
    this.#timer = setInterval(() => void this.announce().catch(() => undefined), HEARTBEAT_MS);
    this.#timer.unref();
  }

  /** Writes this node's heartbeat: its sample and when it was taken. */
  async announce(): Promise<void> {
    const entry = JSON.stringify({ ...this.sampler.sample(), seen_at: Date.now() });
    await this.redis.run((client) => client.hset(this.#key(), this.sampler.nodeId, entry));
  }

  async nodes(): Promise<ClusterNode[]> {
    const entries = await this.redis.run((client) => client.hgetall(this.#key()));
    const now = Date.now();
    const nodes: ClusterNode[] = [];
    const forgotten: string[] = [];
    for (const [id, json] of Object.entries(entries)) {
      const { seen_at: seenAt, ...node } = JSON.parse(json) as ClusterNode & { seen_at: number };
      if (now - seenAt > FORGET_AFTER_MS) forgotten.push(id);
      else nodes.push(now - seenAt > UNREACHABLE_AFTER_MS ? { ...node, status: 'unreachable' } : node);
    }
    if (forgotten.length > 0) await this.redis.run((client) => client.hdel(this.#key(), ...forgotten));
    return nodes.sort((a, b) => a.node_id.localeCompare(b.node_id));
  }

  /** Leaves the cluster: a node that stops cleanly is not reported unreachable. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.redis.run((client) => client.hdel(this.#key(), this.sampler.nodeId)).catch(() => undefined);
  }

  #key(): string {
    return this.redis.key('nodes');
  }
}
