// The `vector_store` member of /v1/rag/index and /v1/rag/search, checked in
// the worker like the rest of the request: a backend, a collection name the
// stores can use as they are (a table name, a path segment), and for
// pgvector an endpoint URL whose password travels as `api_key`, never in the
// URL (URLs end up in logs; api_key is kept out of them).
import * as v from 'valibot';
import type { VectorStoreRef } from '../protocol.js';
import { TaskFailure } from '../task/json-task.js';

export const COLLECTION_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export const VectorStoreSchema = v.strictObject({
  backend: v.optional(v.picklist(['embedded', 'pgvector'] as const), 'embedded'),
  collection: v.pipe(v.string(), v.regex(COLLECTION_PATTERN, 'must be 1-64 of A-Z a-z 0-9 _ -')),
  endpoint: v.optional(v.pipe(v.string(), v.maxLength(2048))),
  api_key: v.optional(v.pipe(v.string(), v.maxLength(1024))),
});

/** The reference as the main thread receives it; `endpointRequired` on index, where pgvector needs one. */
export function vectorStoreRef(store: v.InferOutput<typeof VectorStoreSchema>, endpointRequired: boolean): VectorStoreRef {
  if (store.backend === 'embedded') {
    if (store.endpoint !== undefined) throw TaskFailure.field('vector_store.endpoint', 'INVALID_VALUE', 'the embedded store is this server\'s own; endpoint is for backend "pgvector"');
    if (store.api_key !== undefined) throw TaskFailure.field('vector_store.api_key', 'INVALID_VALUE', 'the embedded store needs no key; api_key is for backend "pgvector"');
    return { backend: 'embedded', collection: store.collection, endpoint: null, api_key: null };
  }
  if (store.endpoint === undefined) {
    if (endpointRequired) throw TaskFailure.field('vector_store.endpoint', 'REQUIRED', 'backend "pgvector" needs the database URL, postgres://user@host:5432/database');
    return { backend: 'pgvector', collection: store.collection, endpoint: null, api_key: store.api_key ?? null };
  }
  return { backend: 'pgvector', collection: store.collection, endpoint: checkedEndpoint(store.endpoint), api_key: store.api_key ?? null };
}

function checkedEndpoint(endpoint: string): string {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw TaskFailure.field('vector_store.endpoint', 'INVALID_FORMAT', 'must be a URL of the form postgres://user@host:5432/database');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') throw TaskFailure.field('vector_store.endpoint', 'INVALID_FORMAT', 'must be a postgres:// or postgresql:// URL');
  if (url.hostname === '') throw TaskFailure.field('vector_store.endpoint', 'INVALID_FORMAT', 'must name a host: postgres://user@host:5432/database');
  if (url.password !== '') throw TaskFailure.field('vector_store.endpoint', 'INVALID_VALUE', 'must not carry a password: give it as vector_store.api_key, which is kept out of logs');
  for (const name of url.searchParams.keys()) {
    if (name !== 'sslmode') throw TaskFailure.field('vector_store.endpoint', 'INVALID_VALUE', `the parameter "${name}" is not supported; only sslmode (disable, require, verify-full) is`);
  }
  const sslmode = url.searchParams.get('sslmode');
  if (sslmode !== null && !['disable', 'require', 'verify-full'].includes(sslmode)) throw TaskFailure.field('vector_store.endpoint', 'INVALID_VALUE', 'sslmode must be disable, require or verify-full');
  return url.href;
}
