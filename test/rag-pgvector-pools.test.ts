// pgvector connection pools are bounded: at most PLATEN_PGVECTOR_MAX_POOLS
// (least recently used out, closed once its requests are done), each of at
// most PLATEN_PGVECTOR_POOL_SIZE connections that close after
// PLATEN_PGVECTOR_IDLE_MS unused, and all closed at shutdown. Before, a
// client sending a new api_key per request grew one pool each, kept for the
// life of the process. The database is PGlite (test/helpers/pgvector.ts)
// behind a TCP relay that counts the connections the server holds.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { KEY_ENTRIES_WITH_OTHER, post, topicPages } from './helpers/rag.js';
import { startPgvector, type TestPgvector } from './helpers/pgvector.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';

interface Relay {
  readonly endpoint: string;
  /** Connections open now, and ever opened. */
  readonly open: () => number;
  readonly opened: () => number;
  close(): Promise<void>;
}

/** A loopback TCP relay to `port` that counts the connections through it. */
async function relayTo(port: number): Promise<Relay> {
  const sockets = new Set<Socket>();
  let opened = 0;
  const server: Server = createServer((client) => {
    opened += 1;
    sockets.add(client);
    const upstream = connect(port, '127.0.0.1');
    client.pipe(upstream).pipe(client);
    const end = () => {
      sockets.delete(client);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: relayPort } = server.address() as { port: number };
  return {
    endpoint: `postgres://postgres@127.0.0.1:${relayPort}/postgres`,
    open: () => sockets.size,
    opened: () => opened,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('pgvector connection pools', () => {
  let pgv: TestPgvector;
  let relay: Relay;
  let pdf: string;
  const servers: TestServer[] = [];
  before(async () => {
    pgv = await startPgvector();
    relay = await relayTo(pgv.port);
  });
  after(async () => {
    for (const s of servers) await s.close().catch(() => undefined);
    await relay?.close();
    await pgv?.close();
  });

  async function server(env: Record<string, string>): Promise<TestServer> {
    const s = await startTestServer({ PLATEN_VECTOR_STORE_ALLOW: '127.0.0.1', PLATEN_API_KEYS: KEY_ENTRIES_WITH_OTHER, ...env });
    servers.push(s);
    pdf ??= Buffer.from(await topicPages(s.base)).toString('base64');
    return s;
  }

  async function index(s: TestServer, apiKey: string): Promise<void> {
    const response = await post(s.base, '/v1/rag/index', { pdf_data: pdf, vector_store: { backend: 'pgvector', collection: 'pools', endpoint: relay.endpoint, api_key: apiKey }, options: { chunking_strategy: 'page' } });
    assert.equal(response.status, 200, await response.text());
  }

  test('a new api_key per request: the least recently used pool is closed past PLATEN_PGVECTOR_MAX_POOLS; shutdown closes the rest', async () => {
    const s = await server({ PLATEN_PGVECTOR_MAX_POOLS: '2', PLATEN_PGVECTOR_POOL_SIZE: '1', PLATEN_PGVECTOR_IDLE_MS: '600000' });
    const before = relay.opened();
    for (const apiKey of ['key-a', 'key-b', 'key-c', 'key-d', 'key-e']) await index(s, apiKey);
    assert.equal(relay.opened() - before, 5, 'one connection per pool (PLATEN_PGVECTOR_POOL_SIZE=1)');
    assert.equal(s.server.vectors.pgvectorPools, 2);
    // Idle connections would stay for 10 minutes: only eviction closes them.
    await waitFor(() => relay.open() === 2, { what: `the evicted pools' connections to close (open: ${relay.open()})` });
    // The pool used last is kept: a request with its key opens nothing new.
    await index(s, 'key-e');
    assert.equal(relay.opened() - before, 5);
    await s.close();
    servers.splice(servers.indexOf(s), 1);
    await waitFor(() => relay.open() === 0, { what: 'shutdown to close every pgvector connection' });
  });

  test('requests in flight on a pool being evicted finish; a pool opens at most PLATEN_PGVECTOR_POOL_SIZE connections', async () => {
    const s = await server({ PLATEN_PGVECTOR_MAX_POOLS: '1', PLATEN_PGVECTOR_POOL_SIZE: '1', PLATEN_PGVECTOR_IDLE_MS: '600000' });
    let peak = 0;
    const watch = setInterval(() => (peak = Math.max(peak, relay.open())), 1);
    try {
      await Promise.all(['f', 'g', 'h', 'f', 'g', 'h'].map((k) => index(s, `key-${k}`)));
    } finally {
      clearInterval(watch);
    }
    assert.ok(peak <= 3, `at most one connection per pool in use at once (peak ${peak})`);
    assert.equal(s.server.vectors.pgvectorPools, 1);
    await waitFor(() => relay.open() === 1, { what: `evicted pools to close once their requests were done (open: ${relay.open()})` });
  });

  test('a connection unused for PLATEN_PGVECTOR_IDLE_MS is closed', async () => {
    const s = await server({ PLATEN_PGVECTOR_IDLE_MS: '200' });
    const openBefore = relay.open();
    await index(s, 'key-idle');
    await waitFor(() => relay.open() === openBefore, { what: `the idle connection to close (open: ${relay.open()})` });
  });
});
