// The accelerator's operations, as declarations of one route per worker
// task (operation.ts). The server adds them to its table; the edition
// filter there decides which exist.
import type { Config } from '../config.js';
import type { Route } from '../http/route.js';
import type { WorkerPool } from '../pool/pool.js';
import { accelRoute, type AnyAccelOperation } from './operation.js';
import type { VectorStores } from '../store/vectors/stores.js';
import type { EmbeddingsProvider } from './rag/embeddings-provider.js';
import { remoteEmbed } from './rag/remote-embed.js';
import { indexDocument } from './rag/vector-index.js';
import { searchCollection } from './rag/vector-search.js';

export function accelRoutes(pool: WorkerPool, config: Config, embeddings: EmbeddingsProvider | undefined, vectors: VectorStores): Route[] {
  const readOptions = { maxPages: config.maxPages, workBudget: config.readWorkBudget };
  const embedOptions = { maxInputs: config.embedMaxInputs, remoteModels: embeddings?.models ?? [] };
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
    { path: '/v1/rag/chunk', tier: 'enterprise', operation: 'rag-chunk', task: 'rag-chunk', options: readOptions },
    {
      path: '/v1/rag/embed',
      tier: 'enterprise',
      operation: 'rag-embed',
      task: 'rag-embed',
      options: embedOptions,
      carryOut: remoteEmbed(embeddings),
    },
    {
      path: '/v1/rag/index',
      tier: 'enterprise',
      operation: 'rag-index',
      task: 'rag-index',
      options: { ...readOptions, remoteModels: embedOptions.remoteModels },
      carryOut: indexDocument(vectors, embeddings),
    },
    {
      path: '/v1/rag/search',
      tier: 'enterprise',
      operation: 'rag-search',
      task: 'rag-search',
      options: {},
      carryOut: searchCollection({ pool, stores: vectors, provider: embeddings, embedOptions }),
    },
  ];
  return operations.map((operation) => accelRoute(pool, config.version, operation));
}
