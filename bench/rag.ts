// Retrieval at speed (`npm run bench:rag`, bounded to about two minutes):
// - chunk: POST /v1/rag/chunk on a 10-page document at saturation, beside
//   the same task on a bare Piscina pool (target >= 0.9), in pages/s;
// - embed: POST /v1/rag/embed, 64 texts of ~50 words a request, in texts/s;
// - index: POST /v1/rag/index of a 100-page document end to end (chunk,
//   embed, write to the embedded store), three runs (upserts of the same
//   document after the first);
// - search: POST /v1/rag/search p50/p99, one request at a time, against a
//   collection of BENCH_RAG_VECTORS (default 100,000) vectors in the embedded
//   store (HNSW built), and of BENCH_RAG_PG_VECTORS (default 3,000) in
//   pgvector on PGlite: PostgreSQL compiled to WebAssembly, one thread, in
//   this process (a real PostgreSQL server would be faster; PGlite is what
//   installs from npm here). The collections are filled straight through the
//   store modules (the server's own code) with built-in-model vectors of
//   generated sentences, since 100,000 chunks through the index route would
//   take the whole budget; the searches go through the server.
// Writes bench/results/rag.json.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { pino } from 'pino';
import { AddressPolicy } from '../src/store/vectors/address-policy.js';
import type { CollectionKey, DocumentWrite } from '../src/store/vectors/collections.js';
import { EmbeddedVectorStore } from '../src/store/vectors/embedded.js';
import { PgvectorStores } from '../src/store/vectors/pgvector.js';
import { embedText } from '../workers/rag/lexical-embedding.js';
import { measure } from './autocannon.js';
import { barePool } from './baselines/pool.js';
import { stopChildrenOnExit } from './child.js';
import { runInfo } from './machine.js';
import { RENDER_HEADERS, renderPages, saturation } from './scenarios/render.js';
import { startPlaten } from './server.js';
import { loadSettings, type Settings } from './settings.js';
import { ratio, round, Samples } from './stats.js';

const step = (text: string) => process.stderr.write(`bench rag: ${text}\n`);
const CHUNK_PAGES = 10;
const INDEX_PAGES = 100;
const EMBED_TEXTS = 64;
const SEARCHES = 200;
const DIMENSIONS = 384;
const WORDS = 'harbour lighthouse granary orchard foundry observatory ledger keeper miller pickers barley wheat lamp lens quay nets catch bins flour cider press bell crew evening morning winter summer ship anchor tide storm river bridge mill forge anvil furnace ore coal timber saw rope sail mast deck cargo market toll road gate wall tower clock bell choir organ school pupil slate chalk'.split(' ');

function sentence(i: number): string {
  const pick = (k: number) => WORDS[(i * 7919 + k * 104729) % WORDS.length] as string;
  return `The ${pick(1)} and the ${pick(2)} of entry ${i} were checked by the ${pick(3)} before the ${pick(4)}, as the ${pick(5)} records of the ${pick(6)} say near the ${pick(7)}.`;
}

/** `count` chunks of generated sentences with their built-in-model vectors, in batches the stores write at once. */
async function fill(write: (document: DocumentWrite) => Promise<number>, count: number, batch: number): Promise<number> {
  const started = performance.now();
  for (let start = 0; start < count; start += batch) {
    const size = Math.min(batch, count - start);
    const documentId = `doc_${String(start).padStart(32, '0')}`;
    const chunks = Array.from({ length: size }, (_, i) => ({
      chunk_id: `${documentId}_${String(i).padStart(6, '0')}`,
      text: sentence(start + i),
      page: 1 + (i % 100),
      section: '',
      token_count: 30,
      metadata: { headings_path: [], is_table: false, language: 'en' },
    }));
    await write({ documentId, namespace: '', upsert: false, chunks, vectors: chunks.map((c) => embedText(c.text, DIMENSIONS, true)) });
  }
  return round(performance.now() - started, 0);
}

async function searchLatency(base: string, collection: Record<string, unknown>): Promise<{ p50Ms: number; p99Ms: number; count: number }> {
  const samples = new Samples();
  for (let i = 0; i < SEARCHES + 20; i++) {
    const started = performance.now();
    const response = await fetch(`${base}/v1/rag/search`, { method: 'POST', headers: RENDER_HEADERS, body: JSON.stringify({ query: sentence(1_000_000 + i), vector_store: collection, options: { top_k: 5 } }) });
    const body = (await response.json()) as { data?: { results: unknown[] } };
    if (response.status !== 200 || body.data?.results.length !== 5) throw new Error(`search failed: ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
    if (i >= 20) samples.add(performance.now() - started);
  }
  const latency = samples.latency();
  return { p50Ms: latency.p50Ms, p99Ms: latency.p99Ms, count: latency.count };
}

async function main(): Promise<void> {
  stopChildrenOnExit();
  const settings: Settings = loadSettings({ BENCH_SECONDS: '3', BENCH_WARMUP_SECONDS: '1', ...process.env });
  const vectors = Number(process.env.BENCH_RAG_VECTORS ?? 100_000);
  // PGlite inserts into an HNSW index at ~9 ms a row on this machine (one WebAssembly thread): 3,000 keeps the bench near two minutes.
  const pgVectors = Number(process.env.BENCH_RAG_PG_VECTORS ?? 3_000);
  const connections = saturation(settings);
  const dataDir = mkdtempSync(join(tmpdir(), 'platen-bench-rag-'));
  const db = await PGlite.create({ extensions: { vector } });
  const pgServer = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 8 });
  await pgServer.start();
  const endpoint = `postgres://postgres@127.0.0.1:${pgServer.getServerConn().split(':').pop()}/postgres`;
  const server = await startPlaten(settings, { PLATEN_DATA_DIR: dataDir, PLATEN_VECTOR_STORE_ALLOW: '127.0.0.1', PLATEN_TIMEOUT_MS: '120000' });
  const results: Record<string, unknown> = {};
  let chunkBody: Buffer;
  try {
    const ten = await renderPages(server.base, CHUNK_PAGES);
    chunkBody = Buffer.from(JSON.stringify({ pdf_data: ten.toString('base64') }));
    step(`chunk ${CHUNK_PAGES} pages through the server, ${connections} connections`);
    const chunk = await measure({ url: `${server.base}/v1/rag/chunk`, method: 'POST', headers: { ...RENDER_HEADERS }, body: chunkBody, connections }, settings.warmupSeconds, settings.seconds);
    results.chunk = { server: chunk, serverPagesPerSecond: round(chunk.requestsPerSecond * CHUNK_PAGES, 1) };

    step(`embed ${EMBED_TEXTS} texts a request`);
    const embedBody = Buffer.from(JSON.stringify({ inputs: Array.from({ length: EMBED_TEXTS }, (_, i) => ({ id: `t${i}`, text: `${sentence(i)} ${sentence(i + 1)}` })) }));
    const embed = await measure({ url: `${server.base}/v1/rag/embed`, method: 'POST', headers: { ...RENDER_HEADERS }, body: embedBody, connections }, settings.warmupSeconds, settings.seconds);
    results.embed = { server: embed, textsPerSecond: round(embed.requestsPerSecond * EMBED_TEXTS, 0) };

    step(`index a ${INDEX_PAGES}-page document, three runs`);
    const hundred = (await renderPages(server.base, INDEX_PAGES)).toString('base64');
    const runs: number[] = [];
    let chunks = 0;
    for (let run = 0; run < 3; run++) {
      const started = performance.now();
      const response = await fetch(`${server.base}/v1/rag/index`, { method: 'POST', headers: RENDER_HEADERS, body: JSON.stringify({ pdf_data: hundred, vector_store: { collection: 'hundred' } }) });
      const body = (await response.json()) as { data?: { chunks_indexed: number } };
      if (response.status !== 200) throw new Error(`index failed: ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
      runs.push(round(performance.now() - started, 0));
      chunks = body.data?.chunks_indexed ?? 0;
    }
    results.index100Pages = { chunks, runsMs: runs, pagesPerSecond: round((INDEX_PAGES * 1000) / Math.min(...runs), 1) };

    // The bench's key label is "bench" (documents.ts): the collections are filled as that client's.
    const key: CollectionKey = { owner: 'bench', name: 'big' };
    const model = { model: 'platen-lexical-v1', dimensions: DIMENSIONS };
    step(`fill the embedded store with ${vectors} vectors`);
    const embedded = new EmbeddedVectorStore({ dataDir, indexMinRows: 10_000, logger: pino({ level: 'warn' }) });
    // One write: the fill is set-up, not what is measured, and one merge into an empty table is the quickest.
    const fillMs = await fill((document) => embedded.write(key, model, document), vectors, vectors);
    const indexStarted = performance.now();
    await embedded.settled();
    const indexMs = round(performance.now() - indexStarted, 0);
    await embedded.close();
    step(`search the embedded store, ${SEARCHES} requests one at a time`);
    results.searchEmbedded = { vectors, fillMs, hnswBuildWaitMs: indexMs, ...(await searchLatency(server.base, { collection: 'big' })) };

    step(`fill pgvector (PGlite) with ${pgVectors} vectors`);
    const pg = new PgvectorStores(new AddressPolicy(['127.0.0.1']), { maxPools: 1, poolSize: 4, idleMs: 30_000 });
    const pgFillMs = await pg.use({ endpoint, apiKey: null }, (collections) => fill((document) => collections.write(key, model, document), pgVectors, 200));
    await pg.close();
    step(`search pgvector, ${SEARCHES} requests one at a time`);
    results.searchPgvector = { vectors: pgVectors, engine: 'PGlite 0.5.14 (PostgreSQL in WebAssembly) + pgvector, over loopback TCP', fillMs: pgFillMs, ...(await searchLatency(server.base, { backend: 'pgvector', collection: 'big', endpoint })) };
  } finally {
    await server.stop();
    await pgServer.stop();
    await db.close();
  }
  step('chunk on a bare pool');
  const pool = await barePool(settings, connections, chunkBody, { name: 'rag-chunk', options: { maxPages: 2000, workBudget: 20_000_000 } });
  const chunk = results.chunk as { server: { requestsPerSecond: number } } & Record<string, unknown>;
  chunk.barePool = pool;
  chunk.barePoolPagesPerSecond = round(pool.requestsPerSecond * CHUNK_PAGES, 1);
  chunk.serverToBarePool = ratio(chunk.server.requestsPerSecond, pool.requestsPerSecond);

  const out = { ...runInfo(settings), connections, results };
  writeFileSync(join(settings.resultsDir, 'rag.json'), `${JSON.stringify(out, null, 2)}\n`);
  process.stdout.write(`${JSON.stringify(results, (k, v: unknown) => (k === 'server' || k === 'barePool' ? { rps: (v as { requestsPerSecond: number }).requestsPerSecond, p99Ms: (v as { p99Ms: number }).p99Ms } : v), 2)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench rag failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
