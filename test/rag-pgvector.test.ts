// /v1/rag/index and /v1/rag/search with `backend: pgvector`, against a real
// PostgreSQL-protocol server with pgvector (test/helpers/pgvector.ts: PGlite
// on a loopback port, reached with `pg` over TCP). The deployment allows
// that loopback address explicitly (PLATEN_VECTOR_STORE_ALLOW); without it,
// and for every other non-public address, the endpoint is refused. The
// database password (api_key) must never show in a response or the log.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { assertMatchesContract, loadContract, type Contract, type Node } from './helpers/openapi.js';
import { readProblem } from './helpers/http.js';
import { checkEveryFilterPath, sectionedDocument } from './helpers/rag-filters.js';
import { KEY_ENTRIES_WITH_OTHER, OTHER_ENTERPRISE, post, topicPages, type SearchResult } from './helpers/rag.js';
import { startPgvector, type TestPgvector } from './helpers/pgvector.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const API_KEY = 'pg-password-7f3a9c1e5b2d4086';

let accel: Contract;

async function ok(s: TestServer, path: string, body: Record<string, unknown>, key?: string): Promise<Node> {
  const response = await post(s.base, path, body, key);
  const json = (await assertMatchesContract(accel, 'post', path, response)) as Node;
  assert.equal(response.status, 200, JSON.stringify(json).slice(0, 600));
  return json.data as Node;
}

async function problem(s: TestServer, path: string, body: Record<string, unknown>, key?: string) {
  const response = await post(s.base, path, body, key);
  await assertMatchesContract(accel, 'post', path, response.clone());
  const text = await response.clone().text();
  assert.ok(!text.includes(API_KEY), 'the password is not echoed');
  return { ...(await readProblem(response)), status: response.status };
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('pgvector backend', () => {
  let pgv: TestPgvector;
  let s: TestServer;
  let pdf: string;
  before(async () => {
    accel = await loadContract('accel');
    pgv = await startPgvector();
    s = await startTestServer({ PLATEN_VECTOR_STORE_ALLOW: '127.0.0.1', PLATEN_API_KEYS: KEY_ENTRIES_WITH_OTHER });
    pdf = Buffer.from(await topicPages(s.base)).toString('base64');
  });
  after(async () => {
    await s?.close();
    await pgv?.close();
  });

  test('index creates a vector(d) table with an HNSW index; search finds by the remembered connection', async () => {
    const store = { backend: 'pgvector', collection: 'towns', endpoint: pgv.endpoint, api_key: API_KEY };
    const indexed = await ok(s, '/v1/rag/index', { pdf_data: pdf, vector_store: store, options: { chunking_strategy: 'page', dimensions: 256 } });
    assert.equal(indexed.chunks_indexed, 4);
    assert.equal(indexed.vectors_upserted, 4);
    assert.equal(indexed.dimensions, 256);
    const indexes = await pgv.query<{ indexdef: string }>(`SELECT indexdef FROM pg_indexes WHERE tablename LIKE 'platen_%' AND indexdef LIKE '%hnsw%'`);
    assert.equal(indexes.length, 1);
    assert.match(indexes[0]?.indexdef ?? '', /USING hnsw \(embedding vector_cosine_ops\)/);
    const columns = await pgv.query<{ type: string }>(`SELECT format_type(atttypid, atttypmod) AS type FROM pg_attribute WHERE attname = 'embedding' AND attrelid IN (SELECT oid FROM pg_class WHERE relkind = 'r' AND relname LIKE 'platen_%')`);
    assert.deepEqual(columns.map((c) => c.type), ['vector(256)']);
    // Only backend and collection, as the seed's search reference has it: the connection is remembered.
    const found = (await ok(s, '/v1/rag/search', { query: 'How is barley weighed before milling?', vector_store: { backend: 'pgvector', collection: 'towns' } })) as unknown as { results: SearchResult[]; model: string };
    assert.equal(found.model, 'platen-lexical-v1');
    assert.deepEqual(found.results.map((r) => r.page).slice(0, 1), [3]);
    assert.equal(found.results.length, 4);
    const scores = found.results.map((r) => r.score);
    assert.deepEqual(scores, [...scores].sort((a, b) => b - a));
    // An explicit endpoint works too; filters and namespaces as on the embedded store.
    const filtered = (await ok(s, '/v1/rag/search', { query: 'barley', vector_store: store, options: { filter: { page: 2, 'metadata.is_table': false } } })) as unknown as { results: SearchResult[] };
    assert.deepEqual(filtered.results.map((r) => r.page), [2]);
    const otherNamespace = (await ok(s, '/v1/rag/search', { query: 'barley', vector_store: store, options: { namespace: 'none-here' } })) as unknown as { results: SearchResult[] };
    assert.equal(otherNamespace.results.length, 0);
  });

  test('a filter on every path a result has, metadata.headings_path as a heading it contains or a path it starts with', async () => {
    const store = { backend: 'pgvector', collection: 'handbook', endpoint: pgv.endpoint, api_key: API_KEY };
    const handbook = Buffer.from(await sectionedDocument(s.base)).toString('base64');
    await ok(s, '/v1/rag/index', { pdf_data: handbook, vector_store: store, options: { max_chunk_size: 128, chunk_overlap: 0 } });
    await checkEveryFilterPath(async (filter) => ((await ok(s, '/v1/rag/search', { query: 'ledger entry crew', vector_store: store, options: { top_k: 100, filter } })) as unknown as { results: SearchResult[] }).results);
  });

  test('upsert replaces the document\'s chunks; a different size is 422', async () => {
    const store = { backend: 'pgvector', collection: 'upserts', endpoint: pgv.endpoint, api_key: API_KEY };
    await ok(s, '/v1/rag/index', { pdf_data: pdf, vector_store: store, options: { chunking_strategy: 'page' } });
    const kept = await ok(s, '/v1/rag/index', { pdf_data: pdf, vector_store: store, options: { chunking_strategy: 'page', upsert: false } });
    assert.equal(kept.vectors_upserted, 0);
    await ok(s, '/v1/rag/index', { pdf_data: pdf, vector_store: store, options: { chunking_strategy: 'fixed', max_chunk_size: 2048, chunk_overlap: 0 } });
    const all = (await ok(s, '/v1/rag/search', { query: 'harbour', vector_store: store, options: { top_k: 100 } })) as unknown as { results: SearchResult[] };
    assert.equal(all.results.length, 1);
    const mismatch = await problem(s, '/v1/rag/index', { pdf_data: pdf, vector_store: store, options: { dimensions: 128 } });
    assert.equal(mismatch.status, 422);
    assert.equal(mismatch.errors?.[0]?.field, 'options.embedding_model');
  });

  test('another client finds nothing, remembered or named: 404', async () => {
    const remembered = await problem(s, '/v1/rag/search', { query: 'harbour', vector_store: { backend: 'pgvector', collection: 'towns' } }, OTHER_ENTERPRISE);
    assert.equal(remembered.status, 404);
    const named = await problem(s, '/v1/rag/search', { query: 'harbour', vector_store: { backend: 'pgvector', collection: 'towns', endpoint: pgv.endpoint, api_key: API_KEY } }, OTHER_ENTERPRISE);
    assert.equal(named.status, 404);
    assert.equal(named.slug, 'not-found');
  });

  test('a database that cannot be reached is 502 vector-store-failed, without the password', async () => {
    const port = await closedPort();
    const failed = await problem(s, '/v1/rag/index', { pdf_data: pdf, vector_store: { backend: 'pgvector', collection: 'gone', endpoint: `postgres://postgres@127.0.0.1:${port}/postgres`, api_key: API_KEY } });
    assert.equal(failed.status, 502);
    assert.equal(failed.slug, 'vector-store-failed');
    assert.match(failed.detail, /could not be reached/);
  });

  test('the password never reaches the log', () => {
    const lines = JSON.stringify(s.logs);
    // The 502's log line carries what the database side said (its cause), and still no password.
    assert.ok(s.logs.some((l) => l.route === '/v1/rag/index' && l.status === 502 && typeof l.cause === 'string'), 'the failure is logged with its cause');
    assert.ok(lines.includes('/v1/rag/search'));
    assert.ok(!JSON.stringify(s.logs).includes(API_KEY));
  });
});

describe('pgvector endpoints: outbound address checks', () => {
  let s: TestServer;
  let pgv: TestPgvector;
  let pdf: string;
  before(async () => {
    accel = await loadContract('accel');
    pgv = await startPgvector();
    s = await startTestServer();
    pdf = Buffer.from(await topicPages(s.base, ['harbour'])).toString('base64');
  });
  after(async () => {
    await s?.close();
    await pgv?.close();
  });

  test('loopback, private, link-local, metadata and mapped addresses are refused unless allowed', async () => {
    const hosts = ['127.0.0.1', 'localhost', '10.1.2.3', '192.168.0.10', '172.16.5.5', '100.64.0.1', '169.254.169.254', '[::1]', '[::ffff:127.0.0.1]', '[::ffff:a9fe:a9fe]', '[fd00:ec2::254]', '[fe80::1]', '[64:ff9b::7f00:1]', '0.0.0.0'];
    for (const host of hosts) {
      const refused = await problem(s, '/v1/rag/index', { pdf_data: pdf, vector_store: { backend: 'pgvector', collection: 'c', endpoint: `postgres://postgres@${host}:${pgv.port}/postgres`, api_key: API_KEY } });
      assert.equal(refused.status, 422, `${host}: ${refused.detail}`);
      assert.equal(refused.errors?.[0]?.field, 'vector_store.endpoint', host);
      assert.match(refused.detail, /PLATEN_VECTOR_STORE_ALLOW/);
    }
    // The loopback server is real and answering: only the policy refused it.
    const rows = await pgv.query<{ one: number }>('SELECT 1 AS one');
    assert.equal(rows[0]?.one, 1);
    const search = await problem(s, '/v1/rag/search', { query: 'x', vector_store: { backend: 'pgvector', collection: 'c', endpoint: pgv.endpoint } });
    assert.equal(search.status, 422);
  });
});
