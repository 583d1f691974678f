// Remembered pgvector connections: the seed's search request names only the
// backend and the collection, so the endpoint and key given when a client
// indexed into a collection are kept for that client and collection.
// - One node: in this process's memory (lost on restart; the client then
//   names the endpoint on search once more, or indexes again).
// - Multi-node mode with PLATEN_VECTOR_STORE_KEY: in Redis, sealed with
//   AES-256-GCM under that key (the key never leaves the deployment's
//   configuration; the record's Redis key is a digest, and the sealed record
//   is bound to it as additional data, so a record copied to another
//   client's key does not open). Never written in clear, never logged.
// - Multi-node mode without the key: each node's memory, as on one node, and
//   a warning at start-up.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { RedisConnection } from '../redis/connection.js';
import type { CollectionKey } from './collections.js';
import type { PgEndpoint } from './pgvector.js';

export interface ConnectionBook {
  remember(key: CollectionKey, target: PgEndpoint): Promise<void>;
  recall(key: CollectionKey): Promise<PgEndpoint | undefined>;
}

function digest(key: CollectionKey): string {
  return createHash('sha256').update(`${key.owner}\u0000${key.name}`).digest('hex');
}

export class MemoryConnectionBook implements ConnectionBook {
  readonly #entries = new Map<string, PgEndpoint>();

  async remember(key: CollectionKey, target: PgEndpoint): Promise<void> {
    this.#entries.set(digest(key), { endpoint: target.endpoint, apiKey: target.apiKey });
  }

  async recall(key: CollectionKey): Promise<PgEndpoint | undefined> {
    return this.#entries.get(digest(key));
  }
}

export class RedisConnectionBook implements ConnectionBook {
  readonly #redis: RedisConnection;
  readonly #key: Buffer;

  constructor(redis: RedisConnection, sealingKey: Buffer) {
    this.#redis = redis;
    this.#key = sealingKey;
  }

  async remember(key: CollectionKey, target: PgEndpoint): Promise<void> {
    const id = digest(key);
    const sealed = seal(this.#key, id, JSON.stringify(target));
    await this.#redis.run((client) => client.set(this.#redis.key('vector-connection', id), sealed));
  }

  async recall(key: CollectionKey): Promise<PgEndpoint | undefined> {
    const id = digest(key);
    const sealed = await this.#redis.run((client) => client.get(this.#redis.key('vector-connection', id)));
    if (sealed === null) return undefined;
    // A record sealed under another key (the deployment rotated it) is as good as none: the client names the endpoint again.
    const opened = open(this.#key, id, sealed);
    return opened === undefined ? undefined : (JSON.parse(opened) as PgEndpoint);
  }
}

/** AES-256-GCM: base64 of a 12-byte nonce, the ciphertext and the 16-byte tag (NIST SP 800-38D). */
export function seal(key: Buffer, associated: string, plaintext: string): string {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(Buffer.from(associated));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64');
}

/** The plaintext, or undefined when the record was not sealed with this key and associated data. */
export function open(key: Buffer, associated: string, sealed: string): string | undefined {
  const bytes = Buffer.from(sealed, 'base64');
  if (bytes.length < 28) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
    decipher.setAAD(Buffer.from(associated));
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    return Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
