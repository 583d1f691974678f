// Filling the vector stores for bench/rag.ts's search figures, outside the
// timed part: N chunks of generated sentences with their built-in-model
// vectors (embedded once, shared by both stores), written as the server
// would have written them, so that the searches then timed through the
// server's /v1/rag/search find a collection of the owner and model it
// expects.
//
// - embedded: through the store module itself (EmbeddedVectorStore.write,
//   one merge into an empty table), then its HNSW build, waited for.
// - pgvector: the collection's table and catalogue row are created through
//   the store module (PgvectorStores, one chunk, over the socket as the
//   server connects); then, in the PGlite process itself, its HNSW index is
//   dropped, the rows go in as multi-row INSERTs of 1,000 and the index is
//   built once over all of them with the same definition
//   (`USING hnsw (embedding vector_cosine_ops)`), which is how a bulk load
//   is done on PostgreSQL: inserting into the index row by row costs PGlite
//   ~9 ms a row (one WebAssembly thread), 15 minutes for 100,000.
import type { PGlite } from '@electric-sql/pglite';
import { pino } from 'pino';
import { AddressPolicy } from '../src/store/vectors/address-policy.js';
import type { CollectionKey, DocumentWrite } from '../src/store/vectors/collections.js';
import { EmbeddedVectorStore } from '../src/store/vectors/embedded.js';
import { PgvectorStores } from '../src/store/vectors/pgvector.js';
import type { PlanChunk } from '../workers/protocol.js';
import { embedText } from '../workers/rag/lexical-embedding.js';
import { round } from './stats.js';

export const DIMENSIONS = 384;
export const MODEL = { model: 'platen-lexical-v1', dimensions: DIMENSIONS };

const WORDS = 'harbour lighthouse granary orchard foundry observatory ledger keeper miller pickers barley wheat lamp lens quay nets catch bins flour cider press bell crew evening morning winter summer ship anchor tide storm river bridge mill forge anvil furnace ore coal timber saw rope sail mast deck cargo market toll road gate wall tower clock bell choir organ school pupil slate chalk'.split(' ');

/** Sentence `i`: a few words of WORDS picked by `i`, so that chunks differ and a query shares words with some. */
export function sentence(i: number): string {
  const pick = (k: number) => WORDS[(i * 7919 + k * 104729) % WORDS.length] as string;
  return `The ${pick(1)} and the ${pick(2)} of entry ${i} were checked by the ${pick(3)} before the ${pick(4)}, as the ${pick(5)} records of the ${pick(6)} say near the ${pick(7)}.`;
}

export interface Corpus {
  readonly chunks: readonly PlanChunk[];
  readonly vectors: readonly Float32Array[];
  readonly embedMs: number;
}

/** `count` chunks of one document (id doc_0…), with their vectors. */
export function corpus(count: number): Corpus {
  const started = performance.now();
  const documentId = documentIdOf(0);
  const chunks: PlanChunk[] = Array.from({ length: count }, (_, i) => ({
    chunk_id: `${documentId}_${String(i).padStart(6, '0')}`,
    text: sentence(i),
    page: 1 + (i % 100),
    section: '',
    token_count: 30,
    metadata: { headings_path: [], is_table: false, language: 'en' },
  }));
  const vectors = chunks.map((c) => embedText(c.text, DIMENSIONS, true));
  return { chunks, vectors, embedMs: round(performance.now() - started, 0) };
}

function documentIdOf(n: number): string {
  return `doc_${String(n).padStart(32, '0')}`;
}

function documentOf(data: Corpus, count: number): DocumentWrite {
  return { documentId: documentIdOf(0), namespace: '', upsert: false, chunks: data.chunks.slice(0, count), vectors: data.vectors.slice(0, count) };
}

export interface FillFigures {
  readonly vectors: number;
  readonly writeMs: number;
  readonly indexBuildMs: number;
}

/** The first `count` chunks of `data` into the embedded store under `dataDir`, then its HNSW index. */
export async function fillEmbedded(dataDir: string, key: CollectionKey, data: Corpus, count: number): Promise<FillFigures> {
  const store = new EmbeddedVectorStore({ dataDir, indexMinRows: 10_000, logger: pino({ level: 'warn' }) });
  try {
    const started = performance.now();
    await store.write(key, MODEL, documentOf(data, count));
    const written = performance.now();
    await store.settled();
    return { vectors: count, writeMs: round(written - started, 0), indexBuildMs: round(performance.now() - written, 0) };
  } finally {
    await store.close();
  }
}

const ROWS_PER_INSERT = 1_000;

/** The first `count` chunks of `data` into a pgvector collection on the PGlite `db` served at `endpoint`. */
export async function fillPgvector(db: PGlite, endpoint: string, key: CollectionKey, data: Corpus, count: number): Promise<FillFigures> {
  const stores = new PgvectorStores(new AddressPolicy(['127.0.0.1']), { maxPools: 1, poolSize: 1, idleMs: 30_000 });
  try {
    await stores.use({ endpoint, apiKey: null }, (collections) => collections.write(key, MODEL, documentOf(data, 1)));
  } finally {
    await stores.close();
  }
  const found = await db.query<{ table_name: string }>('SELECT table_name FROM platen_collections');
  if (found.rows.length !== 1) throw new Error(`expected one collection in PGlite, found ${found.rows.length}`);
  const table = (found.rows[0] as { table_name: string }).table_name;
  const documentId = documentIdOf(0);
  const started = performance.now();
  await db.exec(`DROP INDEX "${table}_hnsw"`);
  for (let start = 1; start < count; start += ROWS_PER_INSERT) {
    const rows: string[] = [];
    for (let i = start; i < Math.min(count, start + ROWS_PER_INSERT); i++) {
      const chunk = data.chunks[i] as PlanChunk;
      // The generated ids and sentences hold no quote; the vector is pgvector's text form, as the store writes it.
      rows.push(`('${chunk.chunk_id}', '', '${documentId}', '${chunk.text}', ${chunk.page}, '', ${chunk.token_count}, '[]', false, 'en', '[${(data.vectors[i] as Float32Array).join(',')}]')`);
    }
    await db.exec(`INSERT INTO "${table}" (chunk_id, namespace, document_id, text, page, section, token_count, headings_path, is_table, language, embedding) VALUES ${rows.join(', ')}`);
  }
  const written = performance.now();
  // The graph in memory while it is built (pgvector warns and slows down past maintenance_work_mem).
  await db.exec(`SET maintenance_work_mem = '1GB'`);
  await db.exec(`CREATE INDEX "${table}_hnsw" ON "${table}" USING hnsw (embedding vector_cosine_ops)`);
  await db.exec('ANALYZE');
  return { vectors: count, writeMs: round(written - started, 0), indexBuildMs: round(performance.now() - written, 0) };
}
