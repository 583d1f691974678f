// The Redis font store's family → file list while Redis is unreachable: the
// list last read stays in use past its freshness, and a client never read
// before gets the outage (the render route turns that into a render without
// registered fonts, or a 503 when the document names one).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FILES_TTL_MS, RedisFontStore } from '../../src/store/redis/fonts.js';
import type { RedisConnection } from '../../src/store/redis/connection.js';
import { DependencyUnavailable } from '../../src/unavailable.js';

const RECORD = { family: 'Brand Sans', sha256: 'ab'.repeat(32), size: 3, glyphs: 1, name: 'Brand Sans', createdAt: '2026-11-24T00:00:00.000Z' };

/** A connection whose Redis answers from a map, or is down. */
function fakeRedis() {
  const state = { down: false };
  const client = {
    hgetall: async () => ({ [RECORD.family]: JSON.stringify(RECORD) }),
    getBuffer: async () => Buffer.from([1, 2, 3]),
  };
  const connection = {
    key: (...parts: string[]) => ['platen', ...parts].join(':'),
    run: async <T>(work: (c: typeof client) => Promise<T>): Promise<T> => {
      if (state.down) throw new DependencyUnavailable('Redis');
      return work(client);
    },
  };
  return { state, connection: connection as unknown as RedisConnection };
}

test('while Redis is down, the list last read is used however old, and a client never read gets the outage', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'platen-font-files-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  let now = 1_000_000;
  const { state, connection } = fakeRedis();
  const store = new RedisFontStore(connection, dataDir, () => now);

  const files = await store.files('client-a');
  assert.deepEqual(Object.keys(files ?? {}), ['Brand Sans']);

  state.down = true;
  now += FILES_TTL_MS * 100;
  assert.deepEqual(await store.files('client-a'), files);
  await assert.rejects(store.files('client-b'), DependencyUnavailable);

  state.down = false;
  assert.deepEqual(Object.keys((await store.files('client-b')) ?? {}), ['Brand Sans']);
});
