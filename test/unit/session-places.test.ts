// A client's places below its active-session maximum, in both session
// stores, with an injected clock: a creation reserves its place before it
// awaits anything, so concurrent reservations never pass the maximum; the
// creation fills the place or releases it, and a reservation whose node died
// lapses after its lease.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '../../src/logger.js';
import { RedisConnection } from '../../src/store/redis/connection.js';
import { RedisSessionStore } from '../../src/store/redis/sessions.js';
import { MemorySessionStore, type SessionRecord, type SessionStore } from '../../src/store/sessions.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';

const IDLE_MS = 900_000;
const LEASE_MS = 90_000;

function record(id: string, owner: string, now: number): SessionRecord {
  const at = new Date(now).toISOString();
  return { id, owner, status: 'active', documentId: 'doc', pageSize: 'A4', orientation: 'portrait', createdAt: at, lastActivityAt: at, operationCount: 0, bytes: 0 };
}

function placeTests(open: (now: () => number) => SessionStore): void {
  let clock = Date.now();
  let store: SessionStore;
  let ids = 0;
  let owners = 0;
  const id = () => `sess_${(++ids).toString(16).padStart(24, '0')}`;
  const owner = () => `client-${++owners}`;
  before(() => {
    store = open(() => clock);
  });
  after(() => store.close());

  test('twelve reservations at once for a maximum of 3: three places, nine full stating the count', async () => {
    const client = owner();
    const results = await Promise.all(Array.from({ length: 12 }, () => store.reserve(client, id(), 3, LEASE_MS)));
    assert.equal(results.filter((result) => result.kind === 'ok').length, 3);
    assert.ok(results.every((result) => result.kind === 'ok' || result.active === 3));
  });

  test('a created session keeps its place; a released one frees it; another client has its own', async () => {
    const client = owner();
    const [first, second] = [id(), id()];
    assert.equal((await store.reserve(client, first, 2, LEASE_MS)).kind, 'ok');
    assert.equal((await store.reserve(client, second, 2, LEASE_MS)).kind, 'ok');
    await store.create(record(first, client, clock));
    await store.release(client, second);
    assert.deepEqual(await store.reserve(owner(), id(), 1, LEASE_MS), { kind: 'ok' });
    assert.equal((await store.reserve(client, id(), 2, LEASE_MS)).kind, 'ok', 'the released place');
    assert.deepEqual(await store.reserve(client, id(), 2, LEASE_MS), { kind: 'full', active: 2 }, 'the created session and the new reservation');
  });

  test('a reservation never filled nor released lapses after its lease', async () => {
    const client = owner();
    assert.equal((await store.reserve(client, id(), 1, LEASE_MS)).kind, 'ok');
    clock += LEASE_MS - 1;
    assert.deepEqual(await store.reserve(client, id(), 1, LEASE_MS), { kind: 'full', active: 1 });
    clock += 1;
    assert.equal((await store.reserve(client, id(), 1, LEASE_MS)).kind, 'ok');
  });

  test('rendered, deleted and expired sessions hold no place', async () => {
    const client = owner();
    const [rendered, deleted, idle] = [id(), id(), id()];
    for (const session of [rendered, deleted, idle]) {
      assert.equal((await store.reserve(client, session, 3, LEASE_MS)).kind, 'ok');
      await store.create(record(session, client, clock));
    }
    const claim = await store.beginRender(rendered, LEASE_MS);
    assert.equal(await store.endRender(rendered, (claim as { token: string }).token, 'rendered'), true);
    await store.remove(deleted);
    assert.equal((await store.reserve(client, id(), 2, LEASE_MS)).kind, 'ok', 'one place held, by the session still active');
    assert.deepEqual(await store.reserve(client, id(), 2, LEASE_MS), { kind: 'full', active: 2 }, 'that session and the reservation');
    clock += IDLE_MS;
    assert.equal((await store.reserve(client, id(), 2, LEASE_MS)).kind, 'ok', 'the idle session expired; the reservation of an idle period ago lapsed');
  });
}

describe('session places, memory store', () => placeTests((now) => new MemorySessionStore(IDLE_MS, now)));

describe('session places, Redis store', () => {
  let redis: TestRedis;
  let connection: RedisConnection;
  before(async () => {
    redis = await startRedis();
    connection = await RedisConnection.open(redis.url, `places-${process.pid}`, createLogger('silent'), 500);
  });
  after(async () => {
    await connection?.close();
    await redis?.stop();
  });
  placeTests((now) => new RedisSessionStore(connection, IDLE_MS, now));
});
