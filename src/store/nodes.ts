// The cluster's nodes for GET /v1/cluster/status. In the embedded mode the
// cluster is this one process; in the multi-node mode every node writes a
// heartbeat to Redis (src/store/redis/nodes.ts) and any node lists them all.
import { cpus } from 'node:os';

export interface ClusterNode {
  readonly node_id: string;
  readonly address: string;
  /** healthy: heartbeats arrive and its pool breaker is closed; degraded: breaker not closed; unreachable: heartbeats stopped. */
  readonly status: 'healthy' | 'degraded' | 'unreachable';
  readonly active_jobs: number;
  readonly cpu_percent: number;
  readonly memory_mb: number;
}

export interface NodeRegistry {
  readonly clusterId: string;
  /** Makes this node known at once (called when the listener is bound); heartbeats follow. */
  announce(): Promise<void>;
  nodes(): Promise<ClusterNode[]>;
  close(): Promise<void>;
}

export interface NodeProbe {
  /** Jobs this process runs now. */
  activeJobs(): number;
  /** False while the pool's circuit breaker is not closed. */
  healthy(): boolean;
}

/** Samples this process: CPU use since the previous sample, as a share of all cores, and resident memory. */
export class NodeSampler {
  #lastCpu = process.cpuUsage();
  #lastAt = process.hrtime.bigint();

  constructor(
    readonly nodeId: string,
    /** host:port, known once the listener is bound. */
    private readonly address: () => string,
    private readonly probe: NodeProbe,
  ) {}

  sample(): ClusterNode {
    const now = process.hrtime.bigint();
    const cpu = process.cpuUsage(this.#lastCpu);
    const elapsedUs = Number(now - this.#lastAt) / 1000;
    this.#lastCpu = process.cpuUsage();
    this.#lastAt = now;
    const percent = elapsedUs > 0 ? ((cpu.user + cpu.system) / elapsedUs / cpus().length) * 100 : 0;
    return {
      node_id: this.nodeId,
      address: this.address(),
      status: this.probe.healthy() ? 'healthy' : 'degraded',
      active_jobs: this.probe.activeJobs(),
      cpu_percent: Math.round(Math.min(100, percent) * 10) / 10,
      memory_mb: Math.round(process.memoryUsage.rss() / 1024 / 1024),
    };
  }
}

/** The embedded mode: a cluster of one. */
export class LocalNodeRegistry implements NodeRegistry {
  constructor(
    readonly clusterId: string,
    private readonly sampler: NodeSampler,
  ) {}

  async announce(): Promise<void> {}

  async nodes(): Promise<ClusterNode[]> {
    return [this.sampler.sample()];
  }

  async close(): Promise<void> {}
}
