// POST /v1/rag/index and /v1/rag/search on the embedded store (LanceDB under
// PLATEN_DATA_DIR), end to end through the real pipeline: documents the
// server renders, indexed and found again by their words; upsert, namespaces
// and filters; one client's collections invisible to another; a collection's
// model fixed; durable across a restart on the same data directory; and
// every bad request a problem document of the contract.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PlatenClient } from '../src/client/index.js';
import { KEYS } from './helpers/keys.js';
import { assertMatchesContract, loadContract, type Contract, type Node } from './helpers/openapi.js';
import { readProblem } from './helpers/http.js';
import { checkEveryFilterPath, sectionedDocument } from './helpers/rag-filters.js';
import { KEY_ENTRIES_WITH_OTHER, OTHER_ENTERPRISE, post, topicPages, type SearchResult } from './helpers/rag.js';
import { startTestServer, temporaryDataDir, type TestServer } from './helpers/server.js';

let accel: Contract;

interface IndexData {
  document_id: string;
  chunks_indexed: number;
  vectors_upserted: number;
  collection: string;
  namespace: string;
  model: string;
  dimensions: number;
  duration_ms: number;
}

async function index(s: TestServer, body: Record<string, unknown>, key: string = KEYS.enterprise): Promise<IndexData> {
  const response = await post(s.base, '/v1/rag/index', body, key);
  const json = (await assertMatchesContract(accel, 'post', '/v1/rag/index', response)) as Node;
  assert.equal(response.status, 200, JSON.stringify(json).slice(0, 600));
  return json.data as unknown as IndexData;
}

async function search(s: TestServer, body: Record<string, unknown>, key: string = KEYS.enterprise): Promise<{ results: SearchResult[]; model: string; took_ms: number }> {
  const response = await post(s.base, '/v1/rag/search', body, key);
  const json = (await assertMatchesContract(accel, 'post', '/v1/rag/search', response)) as Node;
  assert.equal(response.status, 200, JSON.stringify(json).slice(0, 600));
  return json.data as unknown as { results: SearchResult[]; model: string; took_ms: number };
}

describe('POST /v1/rag/index and /v1/rag/search, embedded store', () => {
  let s: TestServer;
  let dataDir: string;
  let pdf: string;
  before(async () => {
    dataDir = temporaryDataDir();
    s = await startTestServer({ PLATEN_DATA_DIR: dataDir, PLATEN_API_KEYS: KEY_ENTRIES_WITH_OTHER });
    accel = await loadContract('accel');
    pdf = Buffer.from(await topicPages(s.base)).toString('base64');
  });
  after(() => s.close());

  test('a document indexed by page is found by the words of each page, best first, with its metadata', async () => {
    const data = await index(s, { pdf_data: pdf, vector_store: { collection: 'towns' }, options: { chunking_strategy: 'page' } });
    assert.equal(data.chunks_indexed, 4);
    assert.equal(data.vectors_upserted, 4);
    assert.equal(data.collection, 'towns');
    assert.equal(data.model, 'platen-lexical-v1');
    assert.equal(data.dimensions, 384);
    assert.match(data.document_id, /^doc_[0-9a-f]{32}$/);
    const questions: [string, number][] = [
      ['Who inspects the fishing boats and the catch?', 1],
      ['When is the lamp wick trimmed by the keeper?', 2],
      ['How is barley weighed before milling?', 3],
      ['Where do pickers carry the ripe apples?', 4],
    ];
    for (const [question, page] of questions) {
      const found = await search(s, { query: question, vector_store: { backend: 'embedded', collection: 'towns' } });
      assert.equal(found.model, 'platen-lexical-v1');
      assert.ok(found.results.length === 4, `top_k 5 over 4 chunks: ${found.results.length}`);
      assert.equal(found.results[0]?.page, page, `${question} -> ${JSON.stringify(found.results.map((r) => r.page))}`);
      assert.equal(found.results[0]?.document_id, data.document_id);
      assert.match(found.results[0]?.chunk_id ?? '', /^doc_[0-9a-f]{32}_\d{5}$/);
      const scores = found.results.map((r) => r.score);
      assert.deepEqual(scores, [...scores].sort((a, b) => b - a));
      assert.ok((scores[0] as number) > 0 && (scores[0] as number) <= 1 + 1e-6);
    }
  });

  test('a query without words is 422 on query, not an empty answer: its vector is zero and near nothing', async () => {
    for (const query of ['   ', '?!', '… — ;']) {
      const response = await post(s.base, '/v1/rag/search', { query, vector_store: { collection: 'towns' } });
      await assertMatchesContract(accel, 'post', '/v1/rag/search', response.clone());
      const problem = await readProblem(response);
      assert.equal(response.status, 422, `${JSON.stringify(query)}: ${problem.detail}`);
      assert.equal(problem.errors?.[0]?.field, 'query');
      assert.match(problem.detail ?? '', /no words/);
    }
    assert.equal((await search(s, { query: 'lamp?', vector_store: { collection: 'towns' } })).results.length, 4);
  });

  test('top_k, min_score and filters narrow the results', async () => {
    const one = await search(s, { query: 'lighthouse lamp', vector_store: { collection: 'towns' }, options: { top_k: 1 } });
    assert.equal(one.results.length, 1);
    const strict = await search(s, { query: 'lighthouse lamp', vector_store: { collection: 'towns' }, options: { min_score: 0.99 } });
    assert.equal(strict.results.length, 0);
    const onPage3 = await search(s, { query: 'lighthouse lamp', vector_store: { collection: 'towns' }, options: { filter: { page: 3 } } });
    assert.deepEqual(onPage3.results.map((r) => r.page), [3]);
    const tables = await search(s, { query: 'lighthouse lamp', vector_store: { collection: 'towns' }, options: { filter: { 'metadata.is_table': true } } });
    assert.equal(tables.results.length, 0);
    const english = await search(s, { query: 'barley', vector_store: { collection: 'towns' }, options: { filter: { 'metadata.language': 'en', 'metadata.is_table': false } } });
    assert.equal(english.results.length, 4);
    // A quote in a filter value is a value, not SQL.
    const quoted = await search(s, { query: 'barley', vector_store: { collection: 'towns' }, options: { filter: { section: "x' OR '1'='1" } } });
    assert.equal(quoted.results.length, 0);
  });

  test('a filter on every path a result has, metadata.headings_path as a heading it contains or a path it starts with', async () => {
    const handbook = Buffer.from(await sectionedDocument(s.base)).toString('base64');
    await index(s, { pdf_data: handbook, vector_store: { collection: 'handbook' }, options: { max_chunk_size: 128, chunk_overlap: 0 } });
    await checkEveryFilterPath(async (filter) => (await search(s, { query: 'ledger entry crew', vector_store: { collection: 'handbook' }, options: { top_k: 100, filter } })).results);
  });

  test('upsert replaces a document\'s chunks; upsert false adds only chunks not stored; namespaces are apart', async () => {
    const first = await index(s, { pdf_data: pdf, vector_store: { collection: 'upserts' }, options: { chunking_strategy: 'page' } });
    const again = await index(s, { pdf_data: pdf, vector_store: { collection: 'upserts' }, options: { chunking_strategy: 'page', upsert: true } });
    assert.equal(again.vectors_upserted, 4);
    const kept = await index(s, { pdf_data: pdf, vector_store: { collection: 'upserts' }, options: { chunking_strategy: 'page', upsert: false } });
    assert.equal(kept.vectors_upserted, 0);
    const all = await search(s, { query: 'harbour', vector_store: { collection: 'upserts' }, options: { top_k: 100 } });
    assert.equal(all.results.length, 4, 'still one copy of each chunk');
    // Re-chunked as one chunk per... fixed windows of the whole text: upsert drops the page chunks that no longer exist.
    const fixed = await index(s, { pdf_data: pdf, vector_store: { collection: 'upserts' }, options: { chunking_strategy: 'fixed', max_chunk_size: 2048, chunk_overlap: 0 } });
    assert.equal(fixed.chunks_indexed, 1);
    const after = await search(s, { query: 'harbour', vector_store: { collection: 'upserts' }, options: { top_k: 100 } });
    assert.equal(after.results.length, 1);
    assert.equal(after.results[0]?.document_id, first.document_id);
    // Another namespace of the same collection holds its own copy; the default namespace is untouched.
    await index(s, { pdf_data: pdf, vector_store: { collection: 'upserts' }, options: { chunking_strategy: 'page', namespace: 'drafts' } });
    const drafts = await search(s, { query: 'harbour', vector_store: { collection: 'upserts' }, options: { top_k: 100, namespace: 'drafts' } });
    assert.equal(drafts.results.length, 4);
    assert.ok(drafts.results.every((r) => r.metadata.namespace === 'drafts'));
    assert.equal((await search(s, { query: 'harbour', vector_store: { collection: 'upserts' }, options: { top_k: 100 } })).results.length, 1);
  });

  test('another client neither finds nor changes a collection: 404 as for a name that does not exist', async () => {
    const theirs = await post(s.base, '/v1/rag/search', { query: 'harbour', vector_store: { collection: 'towns' } }, OTHER_ENTERPRISE);
    assert.equal(theirs.status, 404);
    const theirProblem = await readProblem(theirs);
    const missing = await post(s.base, '/v1/rag/search', { query: 'harbour', vector_store: { collection: 'no-such-collection' } });
    const missingProblem = await readProblem(missing);
    assert.equal(theirProblem.slug, 'not-found');
    assert.equal(missingProblem.slug, 'not-found');
    assert.equal(theirProblem.detail.replace('towns', 'X'), missingProblem.detail.replace('no-such-collection', 'X'));
    // Indexing under the same name makes the other client a collection of its own, with another model even.
    const other = await index(s, { pdf_data: pdf, vector_store: { collection: 'towns' }, options: { chunking_strategy: 'page', dimensions: 128 } }, OTHER_ENTERPRISE);
    assert.equal(other.dimensions, 128);
    const mine = await search(s, { query: 'harbour', vector_store: { collection: 'towns' }, options: { top_k: 100 } });
    assert.equal(mine.results.length, 4);
  });

  test('a collection keeps its model: indexing with other dimensions is a 422 naming them', async () => {
    const response = await post(s.base, '/v1/rag/index', { pdf_data: pdf, vector_store: { collection: 'towns' }, options: { dimensions: 256 } });
    await assertMatchesContract(accel, 'post', '/v1/rag/index', response.clone());
    const problem = await readProblem(response);
    assert.equal(response.status, 422);
    assert.equal(problem.errors?.[0]?.field, 'options.embedding_model');
    assert.match(problem.detail, /platen-lexical-v1 with 384 dimensions/);
  });

  test('bad requests are 422 with the field named; pro keys 403', async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ pdf_data: pdf, vector_store: { collection: 'bad name!' } }, '/v1/rag/index', 'vector_store.collection'],
      [{ pdf_data: pdf, vector_store: { collection: 'c', backend: 'pgvector' } }, '/v1/rag/index', 'vector_store.endpoint'],
      [{ pdf_data: pdf, vector_store: { collection: 'c', endpoint: 'postgres://db.example/x' } }, '/v1/rag/index', 'vector_store.endpoint'],
      [{ pdf_data: pdf, vector_store: { collection: 'c', backend: 'pgvector', endpoint: 'postgres://u:secret@db.example/x' } }, '/v1/rag/index', 'vector_store.endpoint'],
      [{ pdf_data: pdf, vector_store: { collection: 'c' }, options: { embedding_model: 'nope' } }, '/v1/rag/index', 'options.embedding_model'],
      [{ query: '', vector_store: { collection: 'towns' } }, '/v1/rag/search', 'query'],
      [{ query: 'x', vector_store: { collection: 'towns' }, options: { top_k: 101 } }, '/v1/rag/search', 'options.top_k'],
      [{ query: 'x', vector_store: { collection: 'towns' }, options: { filter: { 'metadata.secret': 1 } } }, '/v1/rag/search', 'options.filter.metadata.secret'],
      [{ query: 'x', vector_store: { collection: 'towns' }, options: { filter: { page: 'three' } } }, '/v1/rag/search', 'options.filter.page'],
      [{ query: 'x', vector_store: { collection: 'towns' }, options: { filter: { page: [3] } } }, '/v1/rag/search', 'options.filter.page'],
      [{ query: 'x', vector_store: { collection: 'towns' }, options: { filter: { 'metadata.headings_path': ['a', 1] } } }, '/v1/rag/search', 'options.filter.metadata.headings_path'],
      [{ query: 'x', vector_store: { collection: 'towns' }, options: { filter: { 'metadata.headings_path': null } } }, '/v1/rag/search', 'options.filter.metadata.headings_path'],
      [{ query: 'x', vector_store: { collection: 'towns' }, options: { filter: { 'metadata.headings_path': Array.from({ length: 33 }, () => 'a') } } }, '/v1/rag/search', 'options.filter.metadata.headings_path'],
      [{ query: 'x', vector_store: { collection: 'towns' }, options: { filter: { 'metadata.token_count': 1.5 } } }, '/v1/rag/search', 'options.filter.metadata.token_count'],
    ];
    for (const [body, path, field] of cases) {
      const response = await post(s.base, path, body);
      await assertMatchesContract(accel, 'post', path, response.clone());
      const problem = await readProblem(response);
      assert.equal(response.status, 422, `${field}: ${problem.detail}`);
      assert.equal(problem.errors?.[0]?.field, field, problem.detail);
    }
    const pro = await post(s.base, '/v1/rag/search', { query: 'x', vector_store: { collection: 'towns' } }, KEYS.pro);
    assert.equal(pro.status, 403);
  });

  test('the typed client indexes and searches', async () => {
    const client = new PlatenClient({ baseUrl: s.base, apiKey: KEYS.enterprise });
    try {
      const indexed = await client.index({ pdf_data: Buffer.from(pdf, 'base64'), vector_store: { collection: 'client' }, options: { chunking_strategy: 'page' } });
      assert.equal(indexed.data.chunks_indexed, 4);
      const found = await client.search({ query: 'cider press baskets', vector_store: { collection: 'client' }, options: { top_k: 2 } });
      assert.equal(found.data.results.length, 2);
      // Page chunks have no headings: any heading filtered on finds none, the empty path all.
      const headed = await client.search({ query: 'cider press baskets', vector_store: { collection: 'client' }, options: { filter: { 'metadata.headings_path': ['Orchard'] } } });
      assert.equal(headed.data.results.length, 0);
      const anyPath = await client.search({ query: 'cider press baskets', vector_store: { collection: 'client' }, options: { top_k: 100, filter: { 'metadata.headings_path': [] } } });
      assert.equal(anyPath.data.results.length, 4);
      assert.equal(found.data.results[0]?.page, 4);
      assert.equal(found.data.results[0]?.document_id, indexed.data.document_id);
    } finally {
      client.close();
    }
  });

  test('collections are durable: a new server on the same data directory finds them', async () => {
    const second = await startTestServer({ PLATEN_DATA_DIR: dataDir, PLATEN_API_KEYS: KEY_ENTRIES_WITH_OTHER });
    try {
      const found = await search(second, { query: 'pickers carry ripe fruit', vector_store: { collection: 'towns' } });
      assert.equal(found.results[0]?.page, 4);
    } finally {
      await second.close();
    }
  });
});

describe('embedded store past PLATEN_VECTOR_INDEX_MIN_ROWS', () => {
  test('the collection gets its HNSW index and still finds the right page', async () => {
    const s = await startTestServer({ PLATEN_VECTOR_INDEX_MIN_ROWS: '8' });
    try {
      accel ??= await loadContract('accel');
      const pdf = Buffer.from(await topicPages(s.base)).toString('base64');
      await index(s, { pdf_data: pdf, vector_store: { collection: 'big' }, options: { chunking_strategy: 'page', namespace: 'a' } });
      await index(s, { pdf_data: pdf, vector_store: { collection: 'big' }, options: { chunking_strategy: 'page', namespace: 'b' } });
      await index(s, { pdf_data: pdf, vector_store: { collection: 'big' }, options: { chunking_strategy: 'page', namespace: 'c' } });
      await s.server.vectors.embedded.settled();
      assert.ok(s.logs.some((line) => line.msg === 'vector collection indexed (hnswSq)'), 'index built');
      const found = await search(s, { query: 'barley weighed by the miller', vector_store: { collection: 'big' }, options: { namespace: 'b' } });
      assert.equal(found.results[0]?.page, 3);
      assert.ok(found.results.every((r) => r.metadata.namespace === 'b'));
    } finally {
      await s.close();
    }
  });
});
