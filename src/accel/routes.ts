// The accelerator's operations, as declarations of one route per worker
// task (operation.ts). The server adds them to its table; the edition
// filter there decides which exist.
import type { Config } from '../config.js';
import type { Route } from '../http/route.js';
import type { WorkerPool } from '../pool/pool.js';
import { accelRoute, type AnyAccelOperation } from './operation.js';

export function accelRoutes(pool: WorkerPool, config: Config): Route[] {
  const readOptions = { maxPages: config.maxPages, workBudget: config.readWorkBudget };
  const operations: AnyAccelOperation[] = [
    { path: '/v1/linearize', tier: 'core', operation: 'linearize', task: 'linearize', options: {} },
    {
      path: '/v1/image/compress',
      tier: 'core',
      operation: 'image-compress',
      task: 'image-compress',
      options: { maxImageBytes: config.maxImageBytes, maxImagePixels: config.maxImagePixels, timeoutMs: config.timeoutMs },
    },
    { path: '/v1/font/subset', tier: 'core', operation: 'font-subset', task: 'font-subset', options: { maxFontBytes: config.maxFontBytes } },
    { path: '/v1/extract-text', tier: 'pro', operation: 'extract-text', task: 'extract-text', options: readOptions },
    { path: '/v1/compare', tier: 'pro', operation: 'compare', task: 'compare', options: readOptions },
    { path: '/v1/parse', tier: 'pro', operation: 'parse', task: 'parse', options: readOptions },
  ];
  return operations.map((operation) => accelRoute(pool, config.version, operation));
}
