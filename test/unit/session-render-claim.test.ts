// The render claim of both session stores (issue 9), with an injected clock:
// one claim at a time, ended as rendered (terminal) or active (retry), and a
// claim whose render never ended lapses after its lease.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '../../src/logger.js';
import { RedisConnection } from '../../src/store/redis/connection.js';
import { RedisSessionStore } from '../../src/store/redis/sessions.js';
import { MemorySessionStore, type SessionRecord, type SessionStore } from '../../src/store/sessions.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';

const IDLE_MS = 900_000;
const LEASE_MS = 90_000;
const LIMITS = { maxOperations: 10, maxBytes: 1_000_000 };

function record(id: string, now: number): SessionRecord {
  const at = new Date(now).toISOString();
  return { id, owner: 'client-a', status: 'active', documentId: 'doc', pageSize: 'A4', orientation: 'portrait', createdAt: at, lastActivityAt: at, operationCount: 0, bytes: 0 };
}

function claimTests(open: (now: () => number) => SessionStore): void {
  let clock = Date.now();
  let store: SessionStore;
  let sessions = 0;
  const fresh = async () => {
    const id = `sess_${(++sessions).toString(16).padStart(24, '0')}`;
    await store.create(record(id, clock));
    return id;
  };
  before(() => {
    store = open(() => clock);
  });
  after(() => store.close());

  test('one claim at a time; rendered is terminal', async () => {
    const id = await fresh();
    const claims = await Promise.all(Array.from({ length: 8 }, () => store.beginRender(id, LEASE_MS)));
    const won = claims.filter((claim) => claim.kind === 'ok');
    assert.equal(won.length, 1);
    assert.ok(claims.every((claim) => claim.kind === 'ok' || (claim.kind === 'not-active' && claim.status === 'rendering')));
    assert.equal((await store.append(id, '{"type":"add_page"}', LIMITS)).kind, 'not-active');
    const winner = won[0] as Extract<(typeof won)[number], { kind: 'ok' }>;
    assert.equal(await store.endRender(id, winner.token, 'rendered'), true);
    assert.equal((await store.get(id))?.status, 'rendered');
    assert.deepEqual(await store.beginRender(id, LEASE_MS), { kind: 'not-active', status: 'rendered' });
    assert.equal(await store.endRender(id, winner.token, 'active'), false, 'an ended claim ends once');
  });

  test('a failed render hands the session back active, with its operations, to be claimed again', async () => {
    const id = await fresh();
    assert.equal((await store.append(id, '{"type":"add_page"}', LIMITS)).kind, 'ok');
    const first = await store.beginRender(id, LEASE_MS);
    assert.equal(first.kind, 'ok');
    assert.equal(await store.endRender(id, (first as { token: string }).token, 'active'), true);
    const session = await store.get(id);
    assert.deepEqual({ status: session?.status, count: session?.operationCount }, { status: 'active', count: 1 });
    assert.equal((await store.beginRender(id, LEASE_MS)).kind, 'ok');
  });

  test('a claim lapses after its lease: the session is active again and the old token ends nothing', async () => {
    const id = await fresh();
    const stale = await store.beginRender(id, LEASE_MS);
    assert.equal(stale.kind, 'ok');
    clock += LEASE_MS - 1;
    assert.equal((await store.get(id))?.status, 'rendering');
    clock += 1;
    assert.equal((await store.get(id))?.status, 'active');
    const next = await store.beginRender(id, LEASE_MS);
    assert.equal(next.kind, 'ok');
    assert.equal(await store.endRender(id, (stale as { token: string }).token, 'rendered'), false);
    assert.equal(await store.endRender(id, (next as { token: string }).token, 'rendered'), true);
    assert.equal((await store.get(id))?.status, 'rendered');
  });

  test('a deleted session cannot be claimed or ended', async () => {
    const id = await fresh();
    const claim = await store.beginRender(id, LEASE_MS);
    await store.remove(id);
    assert.equal(await store.endRender(id, (claim as { token: string }).token, 'rendered'), false);
    assert.deepEqual(await store.beginRender(id, LEASE_MS), { kind: 'gone' });
  });
}

describe('render claim, memory store', () => claimTests((now) => new MemorySessionStore(IDLE_MS, now)));

describe('render claim, Redis store', () => {
  let redis: TestRedis;
  let connection: RedisConnection;
  before(async () => {
    redis = await startRedis();
    connection = await RedisConnection.open(redis.url, `claim-${process.pid}`, createLogger('silent'), 500);
  });
  after(async () => {
    await connection?.close();
    await redis?.stop();
  });
  claimTests((now) => new RedisSessionStore(connection, IDLE_MS, now));
});
