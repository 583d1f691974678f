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
import { PgvectorStores, type PgEndpoint } from './pgvector.js';

export interface VectorStoresOptions {
  readonly dataDir: string;
  readonly indexMinRows: number;
  readonly allow: readonly string[];
  readonly sealingKey: Buffer | undefined;
  readonly redis: RedisConnection | undefined;
  readonly logger: Logger;
}

export class VectorStores {
  readonly embedded: EmbeddedVectorStore;
  readonly #pgvector: PgvectorStores;
  readonly #book: ConnectionBook;

  constructor(options: VectorStoresOptions) {
    this.embedded = new EmbeddedVectorStore({ dataDir: options.dataDir, indexMinRows: options.indexMinRows, logger: options.logger });
    this.#pgvector = new PgvectorStores(new AddressPolicy(options.allow));
    if (options.redis !== undefined && options.sealingKey !== undefined) {
      this.#book = new RedisConnectionBook(options.redis, options.sealingKey);
    } else {
      if (options.redis !== undefined) {
        options.logger.warn('PLATEN_VECTOR_STORE_KEY is not set: pgvector connections given at index time are remembered by the node that indexed only; searches on other nodes must name vector_store.endpoint');
      }
      this.#book = new MemoryConnectionBook();
    }
  }

  /** Where an index request writes; a pgvector endpoint is remembered for the owner's collection once written (remember). */
  async forIndex(ref: VectorStoreRef): Promise<VectorCollections> {
    if (ref.backend === 'embedded') return this.embedded;
    return this.#pgvector.at(endpointOf(ref));
  }

  async remember(key: CollectionKey, ref: VectorStoreRef): Promise<void> {
    if (ref.backend === 'pgvector') await this.#book.remember(key, endpointOf(ref));
  }

  /** Where a search request looks: undefined when it names no endpoint and none is remembered for the collection. */
  async forSearch(key: CollectionKey, ref: VectorStoreRef): Promise<VectorCollections | undefined> {
    if (ref.backend === 'embedded') return this.embedded;
    const target = ref.endpoint === null ? await this.#book.recall(key) : endpointOf(ref);
    return target === undefined ? undefined : this.#pgvector.at(target);
  }

  async close(): Promise<void> {
    await Promise.all([this.embedded.close(), this.#pgvector.close()]);
  }
}

function endpointOf(ref: VectorStoreRef): PgEndpoint {
  if (ref.endpoint === null) throw new Error('a pgvector reference without an endpoint');
  return { endpoint: ref.endpoint, apiKey: ref.api_key };
}
