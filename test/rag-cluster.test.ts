// The multi-node mode and the vector stores, with two server processes and
// a real Redis: nodes that share PLATEN_DATA_DIR see the same embedded
// collections (a write on one is found by a search on the other, and writes
// on both at once all land), and a pgvector connection given to one node is
// found by the other through Redis, sealed with PLATEN_VECTOR_STORE_KEY:
// the record in Redis holds neither the endpoint nor the password in clear.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { post, topicPages, type SearchResult } from './helpers/rag.js';
import { startPgvector, type TestPgvector } from './helpers/pgvector.js';
import { redisEnv, startRedis, type TestRedis } from './helpers/redis.js';
import { spawnServers, temporaryDataDir, type SpawnedServer } from './helpers/server.js';

const API_KEY = 'pg-password-cluster-42b7e19d';

async function data(response: Response): Promise<Record<string, unknown>> {
  const body = (await response.json()) as { data?: Record<string, unknown> };
  assert.equal(response.status, 200, JSON.stringify(body).slice(0, 500));
  return body.data as Record<string, unknown>;
}

describe('vector stores across two nodes', () => {
  let redis: TestRedis;
  let pgv: TestPgvector;
  let a: SpawnedServer;
  let b: SpawnedServer;
  let pdf: string;
  let prefix: string;
  before(async () => {
    redis = await startRedis();
    pgv = await startPgvector();
    const env: Record<string, string> = { ...redisEnv(redis), PLATEN_DATA_DIR: temporaryDataDir(), PLATEN_VECTOR_STORE_KEY: randomBytes(32).toString('base64'), PLATEN_VECTOR_STORE_ALLOW: '127.0.0.1' };
    prefix = env.PLATEN_REDIS_PREFIX as string;
    [a, b] = (await spawnServers(env, env)) as [SpawnedServer, SpawnedServer];
    pdf = Buffer.from(await topicPages(a.base)).toString('base64');
  });
  after(async () => {
    await Promise.all([a?.kill('SIGTERM'), b?.kill('SIGTERM')]);
    await pgv?.close();
    await redis?.stop();
  });

  test('a collection indexed on one node is searched on the other; concurrent writes on both all land', async () => {
    await data(await post(a.base, '/v1/rag/index', { pdf_data: pdf, vector_store: { collection: 'shared' }, options: { chunking_strategy: 'page' } }));
    const found = await data(await post(b.base, '/v1/rag/search', { query: 'lamp wick trimmed by the keeper', vector_store: { collection: 'shared' } }));
    assert.equal((found.results as SearchResult[])[0]?.page, 2);
    await Promise.all(
      ['n1', 'n2', 'n3', 'n4'].map(async (namespace, i) => data(await post(i % 2 === 0 ? a.base : b.base, '/v1/rag/index', { pdf_data: pdf, vector_store: { collection: 'shared' }, options: { chunking_strategy: 'page', namespace } }))),
    );
    for (const [node, namespace] of [[a, 'n2'], [b, 'n3'], [a, 'n4'], [b, 'n1']] as const) {
      const hits = await data(await post(node.base, '/v1/rag/search', { query: 'harbour', vector_store: { collection: 'shared' }, options: { namespace, top_k: 100 } }));
      assert.equal((hits.results as SearchResult[]).length, 4, namespace);
    }
  });

  test('a pgvector connection given to one node is remembered for the other, sealed in Redis', async () => {
    await data(await post(a.base, '/v1/rag/index', { pdf_data: pdf, vector_store: { backend: 'pgvector', collection: 'pg', endpoint: pgv.endpoint, api_key: API_KEY }, options: { chunking_strategy: 'page' } }));
    const found = await data(await post(b.base, '/v1/rag/search', { query: 'ripe fruit to the cider press', vector_store: { backend: 'pgvector', collection: 'pg' } }));
    assert.equal((found.results as SearchResult[])[0]?.page, 4);
    const keys = execFileSync('redis-cli', ['-p', String(redis.port), '--scan', '--pattern', `${prefix}:vector-connection:*`], { encoding: 'utf8' }).trim().split('\n').filter(Boolean);
    assert.equal(keys.length, 1);
    const record = execFileSync('redis-cli', ['-p', String(redis.port), 'GET', keys[0] as string], { encoding: 'utf8' });
    assert.ok(!record.includes(API_KEY) && !record.includes('127.0.0.1') && !Buffer.from(record.trim(), 'base64').toString('latin1').includes(API_KEY));
    assert.ok(!a.output().includes(API_KEY) && !b.output().includes(API_KEY), 'no log line holds the password');
  });
});
