// What the request pipeline is built with, once per listener at start-up
// (src/server.ts): configuration, keys, limits, CORS, logger, lifecycle, and
// the optional approval gate and metrics.
import type { Logger } from 'pino';
import type { ApprovalGate } from '../auth/approvals.js';
import type { KeyStore } from '../auth/key-store.js';
import type { Config } from '../config.js';
import type { RequestStats } from '../metrics/request-stats.js';
import type { BodyBudget } from './body-budget.js';
import type { Cors } from './cors.js';
import type { Lifecycle } from './lifecycle.js';
import type { RateLimits } from './rate-limit.js';

export interface PipelineDeps {
  readonly config: Config;
  readonly keys: KeyStore;
  readonly limits: RateLimits;
  readonly cors: Cors;
  readonly logger: Logger;
  readonly lifecycle: Lifecycle;
  /** The human-in-the-loop gate, when PLATEN_APPROVAL_REQUIRED lists operations. */
  readonly approvals?: ApprovalGate;
  /**
   * Requests arrive on the sidecar's Unix socket: they are local, so the
   * per-address and per-client rate limits do not apply (accelerator spec,
   * section 8: "core: unlimited (local socket)"). Authentication still does.
   */
  readonly local?: boolean;
  /** Per-route counts and durations for /metrics; undefined when metrics are off (nothing is recorded). */
  readonly requestStats?: RequestStats;
  /** Request-body bytes the process holds at most (PLATEN_BODY_BUDGET_BYTES), shared by every listener. */
  readonly bodyBudget: BodyBudget;
}
