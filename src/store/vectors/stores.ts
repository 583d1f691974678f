// The vector stores a request can name, behind one door: the embedded store
// (one per server) and pgvector databases (one pool per endpoint), with the
// book of remembered pgvector connections. Routes ask for the collections
// of a backend for an owner; they never see which database that is.
import type { Logger } from 'pino';
import type { VectorStoreRef } from '../../../workers/protocol.js';
import type { RedisConnection } from '../redis/connection.js';
import { AddressPolicy } from './address-policy.js';
import type { CollectionKey, VectorCollections } from './collections.js';
import { MemoryConnectionBook, RedisConnectionBook, type ConnectionBook } from './connection-book.js';
import { EmbeddedVectorStore } from './embedded.js';
import { PgvectorStores, type PgEndpoint, type PgPoolLimits } from './pgvector.js';

export interface VectorStoresOptions {
  readonly dataDir: string;
  readonly indexMinRows: number;
  readonly allow: readonly string[];
  readonly sealingKey: Buffer | undefined;
  readonly redis: RedisConnection | undefined;
  readonly logger: Logger;
  readonly pgPools: PgPoolLimits;
}

export class VectorStores {
  readonly embedded: EmbeddedVectorStore;
  readonly #pgvector: PgvectorStores;
  readonly #book: ConnectionBook;

  constructor(options: VectorStoresOptions) {
    this.embedded = new EmbeddedVectorStore({ dataDir: options.dataDir, indexMinRows: options.indexMinRows, logger: options.logger });
    this.#pgvector = new PgvectorStores(new AddressPolicy(options.allow), options.pgPools);
    if (options.redis !== undefined && options.sealingKey !== undefined) {
      this.#book = new RedisConnectionBook(options.redis, options.sealingKey);
    } else {
      if (options.redis !== undefined) {
        options.logger.warn('PLATEN_VECTOR_STORE_KEY is not set: pgvector connections given at index time are remembered by the node that indexed only; searches on other nodes must name vector_store.endpoint');
      }
      this.#book = new MemoryConnectionBook();
    }
  }

  /** pgvector pools kept now (at most PLATEN_PGVECTOR_MAX_POOLS). */
  get pgvectorPools(): number {
    return this.#pgvector.poolCount;
  }

  /**
   * Runs `work` with where an index request writes (a pgvector pool stays
   * leased until `work` settles); a pgvector endpoint is remembered for the
   * owner's collection once written (remember).
   */
  usingIndex<R>(ref: VectorStoreRef, work: (collections: VectorCollections) => Promise<R>): Promise<R> {
    if (ref.backend === 'embedded') return work(this.embedded);
    return this.#pgvector.use(endpointOf(ref), work);
  }

  async remember(key: CollectionKey, ref: VectorStoreRef): Promise<void> {
    if (ref.backend === 'pgvector') await this.#book.remember(key, endpointOf(ref));
  }

  /** Runs `work` with where a search request looks: undefined when it names no endpoint and none is remembered for the collection. */
  async usingSearch<R>(key: CollectionKey, ref: VectorStoreRef, work: (collections: VectorCollections | undefined) => Promise<R>): Promise<R> {
    if (ref.backend === 'embedded') return work(this.embedded);
    const target = ref.endpoint === null ? await this.#book.recall(key) : endpointOf(ref);
    return target === undefined ? work(undefined) : this.#pgvector.use(target, work);
  }

  async close(): Promise<void> {
    await Promise.all([this.embedded.close(), this.#pgvector.close()]);
  }
}

function endpointOf(ref: VectorStoreRef): PgEndpoint {
  if (ref.endpoint === null) throw new Error('a pgvector reference without an endpoint');
  return { endpoint: ref.endpoint, apiKey: ref.api_key };
}
