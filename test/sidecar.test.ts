// Sidecar mode (PLATEN_SOCKET): the server also listens on a Unix socket
// with the same routes; socket requests are local, so rate limits do not
// apply, while authentication does. The socket file is 0660, a stale one is
// replaced at start, anything else at the path stops start-up untouched,
// and shutdown closes both listeners and removes the file.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../src/config.js';
import { SOCKET_MODE, SocketPathError } from '../src/http/unix-socket.js';
import { PlatenClient, PlatenNetworkError, PlatenProblemError } from '../src/client/index.js';
import { envelope, scripted } from './helpers/accel-routes.js';
import { KEYS, bearer } from './helpers/keys.js';
import { assertMatchesContract, assertValid, loadContract } from './helpers/openapi.js';
import { startTestServer, testEnv, type TestServer } from './helpers/server.js';

const dirs: string[] = [];
function socketDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'platen-sock-'));
  dirs.push(dir);
  return dir;
}
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A raw request over the socket (no client library): status, headers and body. */
function overSocket(socketPath: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, path, headers: { host: 'localhost', ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        const out = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') out.set(name, value);
        resolve({ status: res.statusCode ?? 0, headers: out, body });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('sidecar socket', () => {
  const ping = scripted('/v1/test/ping', (_, context) => envelope(context, { pong: true }));
  let s: TestServer;
  let socketPath: string;
  const clients: PlatenClient[] = [];

  before(async () => {
    socketPath = join(socketDir(), 'platen.sock');
    // A core client may make 2 requests a minute over TCP.
    s = await startTestServer({ PLATEN_SOCKET: socketPath, PLATEN_CORE_RPM: '2' }, { extraRoutes: [ping.route] });
  });
  after(async () => {
    for (const client of clients) client.close();
    await s.close();
  });

  test('the socket file is a socket with mode 0660', () => {
    const stat = lstatSync(socketPath);
    assert.ok(stat.isSocket());
    assert.equal(stat.mode & 0o777, SOCKET_MODE);
    assert.equal(SOCKET_MODE, 0o660);
    assert.equal(s.server.socketPath, socketPath);
  });

  test('serves the same routes as TCP, answers as the contract says, and logs the request as from "unix"', async () => {
    const accel = await loadContract('accel');
    const health = await overSocket(socketPath, '/health', { 'x-request-id': 'sock-health-1' });
    assert.equal(health.status, 200);
    const response = new Response(health.body, { status: health.status, headers: health.headers });
    const record = await assertMatchesContract(accel, 'get', '/health', response);
    assertValid(accel, 'HealthRecord', record);
    assert.equal(health.headers.get('x-request-id'), 'sock-health-1');
    // The render API is there too.
    const capabilities = await overSocket(socketPath, '/api/v1/capabilities', bearer(KEYS.core));
    assert.equal(capabilities.status, 200);
    const line = s.logs.find((l) => l.msg === 'request' && l.req_id === 'sock-health-1');
    assert.equal(line?.remote, 'unix');
    assert.equal(line?.status, 200);
  });

  test('socket requests are not rate limited; TCP requests are (PLATEN_CORE_RPM=2)', async () => {
    const accel = await loadContract('accel');
    const local = new PlatenClient({ socketPath, apiKey: KEYS.core, retry: { maxAttempts: 1 } });
    const tcp = new PlatenClient({ baseUrl: s.base, apiKey: KEYS.core, retry: { maxAttempts: 1 }, proxy: false });
    clients.push(local, tcp);
    for (let i = 0; i < 5; i++) {
      const answer = await local.request<{ data: { pong: boolean } }>('GET', '/v1/test/ping');
      assert.equal(answer.data.pong, true, `socket request ${i + 1}`);
    }
    await tcp.request('GET', '/v1/test/ping');
    await tcp.request('GET', '/v1/test/ping');
    const limited = await tcp.request('GET', '/v1/test/ping').catch((e: unknown) => e);
    assert.ok(limited instanceof PlatenProblemError, String(limited));
    assert.equal(limited.status, 429);
    assert.equal(limited.slug, 'rate-limit-exceeded');
    assert.ok(limited.retryAfter !== undefined && limited.retryAfter >= 1);
    assertValid(accel, 'Problem', limited.problem, '429 problem');
    // The same client is still unlimited over the socket, after TCP ran out.
    await local.request('GET', '/v1/test/ping');
    assert.deepEqual(
      ping.seen.map((hit) => hit.remote),
      ['unix', 'unix', 'unix', 'unix', 'unix', '127.0.0.1', '127.0.0.1', 'unix'],
    );
  });

  test('authentication is still required over the socket', async () => {
    const none = await overSocket(socketPath, '/v1/test/ping');
    assert.equal(none.status, 401);
    assert.equal(none.headers.get('www-authenticate'), 'Bearer');
    const bad = await overSocket(socketPath, '/v1/test/ping', bearer('svc_live_nobody_xxxxxxxxxxxxxxxxxxxx'));
    assert.equal(bad.status, 401);
    assert.equal((JSON.parse(bad.body) as { type: string }).type, 'https://platen.dev/errors/unauthorized');
  });
});

describe('sidecar socket: start-up and shutdown', () => {
  test('a stale socket file (its server died) is replaced', async () => {
    const path = join(socketDir(), 'stale.sock');
    // A process that binds the socket and exits without removing it, as a crashed server does.
    const child = spawnSync(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(path)}, () => process.exit(0))`]);
    assert.equal(child.status, 0);
    assert.ok(lstatSync(path).isSocket(), 'the stale socket exists');
    const s = await startTestServer({ PLATEN_SOCKET: path });
    try {
      assert.equal((await overSocket(path, '/health')).status, 200);
    } finally {
      await s.close();
    }
  });

  test('a regular file at the path stops start-up and is left alone', async () => {
    const path = join(socketDir(), 'not-a-socket');
    writeFileSync(path, 'precious');
    await assert.rejects(startTestServer({ PLATEN_SOCKET: path }), (error: unknown) => {
      assert.ok(error instanceof SocketPathError);
      assert.match(error.message, /is not a socket/);
      return true;
    });
    assert.equal(readFileSync(path, 'utf8'), 'precious');
  });

  test('a socket another server listens on stops start-up and keeps working', async () => {
    const path = join(socketDir(), 'live.sock');
    const other: Server = createServer((socket) => {
      // The server's check connects and hangs up at once: a reset here is expected.
      socket.on('error', () => {});
      socket.end('other\n');
    });
    await new Promise<void>((resolve) => other.listen(path, resolve));
    try {
      await assert.rejects(startTestServer({ PLATEN_SOCKET: path }), /another server is listening/);
      // The other server still answers on its socket.
      const reply = await new Promise<string>((resolve, reject) => {
        let text = '';
        const socket = connect({ path });
        socket.setEncoding('utf8');
        socket.on('data', (chunk: string) => (text += chunk));
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
      });
      assert.equal(reply, 'other\n');
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });

  test('a missing directory stops start-up with a message', async () => {
    const path = join(socketDir(), 'missing', 'platen.sock');
    await assert.rejects(startTestServer({ PLATEN_SOCKET: path }), /does not exist/);
  });

  test('the configuration refuses a path longer than a Unix socket path may be', () => {
    assert.throws(() => loadConfig(testEnv({ PLATEN_SOCKET: `/tmp/${'x'.repeat(110)}.sock` })), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.match(error.message, /PLATEN_SOCKET: must be at most 107 bytes/);
      return true;
    });
    assert.equal(loadConfig(testEnv()).socketPath, undefined);
  });

  test('shutdown closes both listeners and removes the socket file', async () => {
    const path = join(socketDir(), 'platen.sock');
    const s = await startTestServer({ PLATEN_SOCKET: path });
    const local = new PlatenClient({ socketPath: path, apiKey: KEYS.core, retry: { maxAttempts: 1 } });
    assert.equal((await local.health()).status, 'ok');
    await s.close();
    local.close();
    assert.equal(existsSync(path), false, 'the socket file is gone');
    const error = await local.health().catch((e: unknown) => e);
    assert.ok(error instanceof PlatenNetworkError);
    assert.equal(error.code, 'ENOENT');
    await assert.rejects(fetch(`${s.base}/health`), 'the TCP listener is closed');
    assert.ok(statSync(join(path, '..')).isDirectory(), 'the directory itself stays');
  });
});
