// Retrieval at speed (`npm run bench:rag`, about two minutes by default;
// `BENCH_FULL=1` for the 100,000-vector figures, many minutes here):
// - chunk: POST /v1/rag/chunk of the 10-page letter at saturation against
//   the same task, options and request bytes on a bare Piscina pool (target
//   ≥ 0.9), in interleaved rounds (interleave.ts), with each side's CPU
//   time per request read from /proc around every round (thread-cpu.ts):
//   the server's main thread, the server process, the pool process. Those
//   do not move with the machine's load; the throughput ratio does.
// - embed: POST /v1/rag/embed, 64 texts of ~50 words a request, texts/s;
// - index: POST /v1/rag/index of a 100-page document end to end (chunk,
//   embed, write to the embedded store), three runs (upserts after the first);
// - search: POST /v1/rag/search p50/p99, one request at a time, through the
//   server, against a collection of BENCH_RAG_VECTORS vectors in the
//   embedded store (HNSW built) and of BENCH_RAG_PG_VECTORS in pgvector on
//   PGlite: PostgreSQL compiled to WebAssembly, one thread, in this process,
//   reached by the server over loopback TCP with `pg` (a real PostgreSQL
//   server is another thing; PGlite is what installs from npm here). The
//   collections are filled outside the timed part (rag-stores.ts).
// Writes bench/results/rag.json and prints a Markdown table.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { measure } from './autocannon.js';
import { stopChildrenOnExit } from './child.js';
import { interleave, verdict } from './interleave.js';
import { largeBodyOperations } from './large-body-operations.js';
import { runInfo } from './machine.js';
import { corpus, fillEmbedded, fillPgvector, sentence } from './rag-stores.js';
import { RENDER_HEADERS, renderPages, saturation } from './scenarios/render.js';
import { startPlaten } from './server.js';
import { loadSettings, type Settings } from './settings.js';
import { BarePool, serverSide } from './sides.js';
import { round, Samples } from './stats.js';
import { cpuSplit, threadTimes, type CpuSplit } from './thread-cpu.js';

const step = (text: string) => process.stderr.write(`bench rag: ${text}\n`);
const CHUNK_PAGES = 10;
const INDEX_PAGES = 100;
const EMBED_TEXTS = 64;
const SEARCHES = 200;

async function searchLatency(base: string, collection: Record<string, unknown>): Promise<{ p50Ms: number; p99Ms: number; count: number }> {
  const samples = new Samples();
  for (let i = 0; i < SEARCHES + 20; i++) {
    const started = performance.now();
    const request = () => fetch(`${base}/v1/rag/search`, { method: 'POST', headers: RENDER_HEADERS, body: JSON.stringify({ query: sentence(1_000_000 + i), vector_store: collection, options: { top_k: 5 } }) });
    // The first request after the fill may be sent on a keep-alive socket the server closed while PGlite held
    // this thread in synchronous WebAssembly for seconds (undici: "other side closed"); a warm-up request is tried again.
    const response = await request().catch((error: unknown) => {
      if (i === 0) return request();
      throw new Error(`search ${i} failed after ${round(performance.now() - started, 0)} ms`, { cause: error });
    });
    const body = (await response.json()) as { data?: { results: unknown[] } };
    if (response.status !== 200 || body.data?.results.length !== 5) throw new Error(`search failed: ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
    if (i >= 20) samples.add(performance.now() - started);
  }
  const latency = samples.latency();
  return { p50Ms: latency.p50Ms, p99Ms: latency.p99Ms, count: latency.count };
}

/** CPU per request of one side over its rounds: µs on the main thread, the workers, and the whole process. */
function perRequest(splits: readonly CpuSplit[], requests: number) {
  const sum = (pick: (s: CpuSplit) => number) => splits.reduce((total, s) => total + pick(s), 0);
  const per = (ms: number) => round((ms * 1000) / Math.max(1, requests), 0);
  return { requests, mainUs: per(sum((s) => s.mainMs)), workersUs: per(sum((s) => s.workersMs)), processUs: per(sum((s) => s.mainMs + s.workersMs + s.otherMs)) };
}

/** Chunk through the server against the bare pool, interleaved, with CPU per request of both sides. */
async function chunkRatio(settings: Settings, base: string, serverPid: number, connections: number) {
  const [operation] = await largeBodyOperations(base, ['chunk'], tmpdir());
  if (operation === undefined) throw new Error('no chunk operation');
  const pool = new BarePool(settings);
  const sides = { server: { splits: [] as CpuSplit[], requests: 0, before: threadTimes(serverPid) }, pool: { splits: [] as CpuSplit[], requests: 0, before: threadTimes(process.pid) } };
  try {
    const body = operation.bodies();
    const ratio = await interleave(
      'chunk: Platen ÷ bare pool',
      serverSide('Platen', { url: base + operation.path, headers: { ...RENDER_HEADERS }, body: body(), connections }),
      pool.side('bare pool', connections, body, operation.task, operation.options),
      { rounds: settings.rounds, roundSeconds: settings.roundSeconds, warmupSeconds: settings.warmupSeconds },
      {
        beforeA: () => void (sides.server.before = threadTimes(serverPid)),
        afterA: (figures) => {
          sides.server.splits.push(cpuSplit(serverPid, sides.server.before, threadTimes(serverPid), settings.workers));
          sides.server.requests += figures.requestsPerSecond * settings.roundSeconds;
        },
        beforeB: () => void (sides.pool.before = threadTimes(process.pid)),
        afterB: (figures) => {
          sides.pool.splits.push(cpuSplit(process.pid, sides.pool.before, threadTimes(process.pid), settings.workers));
          sides.pool.requests += figures.requestsPerSecond * settings.roundSeconds;
        },
      },
    );
    const server = perRequest(sides.server.splits, sides.server.requests);
    const onPool = perRequest(sides.pool.splits, sides.pool.requests);
    return {
      pages: CHUNK_PAGES,
      ratio,
      verdict: verdict(ratio, (median) => median >= 0.9),
      serverPagesPerSecond: round(ratio.aMedian.requestsPerSecond * CHUNK_PAGES, 1),
      barePoolPagesPerSecond: round(ratio.bMedian.requestsPerSecond * CHUNK_PAGES, 1),
      cpuPerRequest: { server, barePool: onPool },
      /** Pool process CPU ÷ server process CPU per request: the ratio CPU alone allows, whatever the load. */
      cpuRatio: round(onPool.processUs / Math.max(1, server.processUs), 3),
    };
  } finally {
    await pool.close();
  }
}

async function main(): Promise<void> {
  stopChildrenOnExit();
  const full = process.env.BENCH_FULL === '1';
  const settings: Settings = loadSettings({ BENCH_SECONDS: '3', BENCH_WARMUP_SECONDS: '1', BENCH_ROUND_SECONDS: '2', BENCH_ROUNDS: '5', ...process.env });
  // 10,000 (the embedded store's index threshold, so HNSW is built) and 3,000 keep the default run near two
  // minutes at a load average of 20; building HNSW over 100,000 takes minutes on each store here.
  const vectors = Number(process.env.BENCH_RAG_VECTORS ?? (full ? 100_000 : 10_000));
  const pgVectors = Number(process.env.BENCH_RAG_PG_VECTORS ?? (full ? 100_000 : 3_000));
  const connections = saturation(settings);
  const dataDir = mkdtempSync(join(tmpdir(), 'platen-bench-rag-'));
  const db = await PGlite.create({ extensions: { vector } });
  const pgServer = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 8 });
  await pgServer.start();
  const endpoint = `postgres://postgres@127.0.0.1:${pgServer.getServerConn().split(':').pop()}/postgres`;
  const server = await startPlaten(settings, { PLATEN_DATA_DIR: dataDir, PLATEN_VECTOR_STORE_ALLOW: '127.0.0.1', PLATEN_TIMEOUT_MS: '120000' });
  const results: Record<string, unknown> = { full };
  try {
    step(`chunk ${CHUNK_PAGES} pages: ${settings.rounds} interleaved rounds of ${settings.roundSeconds} s against a bare pool, ${connections} in flight`);
    results.chunk = await chunkRatio(settings, server.base, server.pid, connections);

    step(`embed ${EMBED_TEXTS} texts a request`);
    const embedBody = Buffer.from(JSON.stringify({ inputs: Array.from({ length: EMBED_TEXTS }, (_, i) => ({ id: `t${i}`, text: `${sentence(i)} ${sentence(i + 1)}` })) }));
    const embed = await measure({ url: `${server.base}/v1/rag/embed`, method: 'POST', headers: { ...RENDER_HEADERS }, body: embedBody, connections }, settings.warmupSeconds, settings.seconds);
    results.embed = { textsPerSecond: round(embed.requestsPerSecond * EMBED_TEXTS, 0), requestsPerSecond: embed.requestsPerSecond, p99Ms: embed.p99Ms };

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

    step(`embed ${Math.max(vectors, pgVectors)} generated chunks for the stores`);
    const data = corpus(Math.max(vectors, pgVectors));
    // The bench's key label is "bench" (documents.ts): the collections are filled as that client's.
    const key = { owner: 'bench', name: 'big' };
    step(`fill the embedded store with ${vectors} vectors and build its HNSW index`);
    const embeddedFill = await fillEmbedded(dataDir, key, data, vectors);
    step(`search the embedded store, ${SEARCHES} requests one at a time`);
    results.searchEmbedded = { ...embeddedFill, ...(await searchLatency(server.base, { collection: 'big' })) };

    step(`fill pgvector (PGlite) with ${pgVectors} vectors and build its HNSW index`);
    const pgFill = await fillPgvector(db, endpoint, key, data, pgVectors);
    step(`search pgvector, ${SEARCHES} requests one at a time`);
    results.searchPgvector = {
      engine: 'PGlite 0.5.14 (PostgreSQL 17 in WebAssembly, one thread) + pgvector, over loopback TCP',
      embedMs: data.embedMs,
      ...pgFill,
      ...(await searchLatency(server.base, { backend: 'pgvector', collection: 'big', endpoint })),
    };
  } catch (error) {
    process.stderr.write(`the server's last output:\n${server.output().slice(-4000)}\n`);
    throw error;
  } finally {
    await server.stop();
    await pgServer.stop();
    await db.close();
  }
  results.benchSeconds = round(process.uptime(), 0);
  writeFileSync(join(settings.resultsDir, 'rag.json'), `${JSON.stringify({ ...runInfo(settings), connections, results }, null, 2)}\n`);
  process.stdout.write(table(results));
}

function table(results: Record<string, unknown>): string {
  const r = results as {
    chunk: Awaited<ReturnType<typeof chunkRatio>>;
    embed: { textsPerSecond: number; requestsPerSecond: number; p99Ms: number };
    index100Pages: { chunks: number; runsMs: number[]; pagesPerSecond: number };
    searchEmbedded: { vectors: number; writeMs: number; indexBuildMs: number; p50Ms: number; p99Ms: number };
    searchPgvector: { vectors: number; writeMs: number; indexBuildMs: number; p50Ms: number; p99Ms: number };
  };
  const c = r.chunk;
  return [
    '| measure | figure |',
    '| --- | --- |',
    `| chunk, ${c.pages}-page letter, Platen ÷ bare pool | **${c.ratio.median}** (${c.ratio.min}-${c.ratio.max}) ${c.verdict}; ${c.serverPagesPerSecond} / ${c.barePoolPagesPerSecond} pages/s; load ${c.ratio.load.before} → ${c.ratio.load.after} |`,
    `| chunk, CPU per request | server process ${c.cpuPerRequest.server.processUs} µs (main thread ${c.cpuPerRequest.server.mainUs}, workers ${c.cpuPerRequest.server.workersUs}); bare pool process ${c.cpuPerRequest.barePool.processUs} µs (workers ${c.cpuPerRequest.barePool.workersUs}); CPU ratio ${c.cpuRatio} |`,
    `| embed, ${EMBED_TEXTS} texts a request | ${r.embed.textsPerSecond} texts/s (p99 ${r.embed.p99Ms} ms) |`,
    `| index a ${INDEX_PAGES}-page document (${r.index100Pages.chunks} chunks) | ${r.index100Pages.runsMs.join(', ')} ms: ${r.index100Pages.pagesPerSecond} pages/s |`,
    `| search, embedded, ${r.searchEmbedded.vectors} vectors | p50 ${r.searchEmbedded.p50Ms} ms, p99 ${r.searchEmbedded.p99Ms} ms (fill ${r.searchEmbedded.writeMs} ms, HNSW build ${r.searchEmbedded.indexBuildMs} ms) |`,
    `| search, pgvector on PGlite, ${r.searchPgvector.vectors} vectors | p50 ${r.searchPgvector.p50Ms} ms, p99 ${r.searchPgvector.p99Ms} ms (fill ${r.searchPgvector.writeMs} ms, HNSW build ${r.searchPgvector.indexBuildMs} ms) |`,
    `| whole bench | ${String(results.benchSeconds)} s |`,
    '',
  ].join('\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`bench rag failed: ${error instanceof Error ? `${error.stack ?? error.message}${error.cause === undefined ? '' : ` (cause: ${String(error.cause)})`}` : String(error)}\n`);
  process.exit(1);
});
