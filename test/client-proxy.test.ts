// The client's proxy support, with a tiny forward proxy on loopback: an
// http base URL goes through HTTP_PROXY in absolute form, an https base URL
// through HTTPS_PROXY as a CONNECT tunnel (TLS end to end, terminated in
// front of the real server as a deployment would), and NO_PROXY hosts
// connect directly. The proxy only forwards to 127.0.0.1.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer as createHttpServer, request as httpRequest } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { PlatenClient, PlatenNetworkError, type PlatenClientOptions } from '../src/client/index.js';
import { TEST_TLS_CERT, TEST_TLS_KEY } from './fixtures/tls.js';
import { envelope, scripted } from './helpers/accel-routes.js';
import { KEYS } from './helpers/keys.js';
import { startTestServer, type TestServer } from './helpers/server.js';

interface Forwarded {
  readonly method: string;
  /** The request target as the proxy got it: an absolute URL, or host:port for CONNECT. */
  readonly target: string;
  readonly proxyAuthorization: string | undefined;
}

interface Closable {
  readonly port: number;
  close(): Promise<void>;
}

/** A forward proxy: absolute-form requests for http targets, CONNECT tunnels for https ones. */
async function startProxy(): Promise<Closable & { readonly log: Forwarded[] }> {
  const log: Forwarded[] = [];
  const sockets = new Set<Socket>();
  const server = createHttpServer((req, res) => {
    log.push({ method: req.method ?? '', target: req.url ?? '', proxyAuthorization: req.headers['proxy-authorization'] });
    const url = URL.canParse(req.url ?? '') ? new URL(req.url as string) : undefined;
    if (url === undefined || url.protocol !== 'http:' || url.hostname !== '127.0.0.1') {
      res.writeHead(403).end();
      return;
    }
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    const upstream = httpRequest({ hostname: url.hostname, port: url.port, path: url.pathname + url.search, method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('connect', (req, client: Socket, head: Buffer) => {
    log.push({ method: 'CONNECT', target: req.url ?? '', proxyAuthorization: req.headers['proxy-authorization'] });
    const [host, port] = (req.url ?? '').split(':');
    client.on('error', () => {});
    if (host !== '127.0.0.1') {
      client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    const upstream = connect(Number(port), '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
  });
  return listening(server, log, sockets);
}

/** TLS in front of the server (the deployment the contract describes: TLS terminated upstream). */
async function startTlsFront(targetPort: number): Promise<Closable> {
  const sockets = new Set<Socket>();
  const server = createTlsServer({ key: TEST_TLS_KEY, cert: TEST_TLS_CERT }, (socket) => {
    const upstream = connect(targetPort, '127.0.0.1');
    for (const end of [socket, upstream]) end.on('error', () => (socket.destroy(), upstream.destroy()));
    socket.pipe(upstream).pipe(socket);
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  return listening(server, undefined, sockets);
}

function listening<L>(server: import('node:net').Server, log: L, sockets: Set<Socket>): Promise<Closable & { readonly log: L }> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve({
        port: (server.address() as AddressInfo).port,
        log,
        close: () =>
          new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}

describe('client library through proxies', () => {
  const echo = scripted('/v1/test/echo', (_, context) => envelope(context, { ok: true }));
  let s: TestServer;
  let proxy: Awaited<ReturnType<typeof startProxy>>;
  let front: Closable;
  let proxyUrl: string;
  let httpsBase: string;
  const clients: PlatenClient[] = [];
  const client = (options: Omit<PlatenClientOptions, 'apiKey'>) => {
    const made = new PlatenClient({ apiKey: KEYS.core, retry: { maxAttempts: 1 }, ...options });
    clients.push(made);
    return made;
  };
  /** The proxy log entries written while `run` ran. */
  const forwardedDuring = async (run: () => Promise<unknown>): Promise<Forwarded[]> => {
    const from = proxy.log.length;
    await run();
    return proxy.log.slice(from);
  };

  before(async () => {
    s = await startTestServer({}, { extraRoutes: [echo.route] });
    proxy = await startProxy();
    front = await startTlsFront(Number(new URL(s.base).port));
    proxyUrl = `http://127.0.0.1:${proxy.port}`;
    httpsBase = `https://127.0.0.1:${front.port}`;
  });
  after(async () => {
    for (const made of clients) made.close();
    await front.close();
    await proxy.close();
    await s.close();
  });

  test('HTTP_PROXY: an http base URL is sent through the proxy in absolute form', async () => {
    const c = client({ baseUrl: s.base, env: { HTTP_PROXY: proxyUrl } });
    const forwarded = await forwardedDuring(async () => {
      assert.equal((await c.health()).status, 'ok');
      await c.request('GET', '/v1/test/echo');
    });
    assert.deepEqual(
      forwarded.map((f) => `${f.method} ${f.target}`),
      [`GET ${s.base}/health`, `GET ${s.base}/v1/test/echo`],
    );
    assert.equal(echo.seen.at(-1)?.remote, '127.0.0.1');
  });

  test('http_proxy (lower case) comes first, and credentials in the proxy URL become Proxy-Authorization', async () => {
    const c = client({ baseUrl: s.base, env: { http_proxy: `http://user:p%40ss@127.0.0.1:${proxy.port}`, HTTP_PROXY: 'http://127.0.0.1:1' } });
    const forwarded = await forwardedDuring(() => c.health());
    assert.equal(forwarded.length, 1);
    assert.equal(forwarded[0]?.proxyAuthorization, `Basic ${Buffer.from('user:p@ss').toString('base64')}`);
  });

  test('HTTPS_PROXY: an https base URL is tunnelled with CONNECT, TLS end to end', async () => {
    const c = client({ baseUrl: httpsBase, env: { HTTPS_PROXY: proxyUrl }, ca: TEST_TLS_CERT });
    const forwarded = await forwardedDuring(async () => {
      assert.equal((await c.health()).status, 'ok');
      await c.request('GET', '/v1/test/echo', undefined, { requestId: 'via-tunnel' });
    });
    // One tunnel, kept alive for both requests; the proxy never saw a request line.
    assert.deepEqual(forwarded.map((f) => `${f.method} ${f.target}`), [`CONNECT 127.0.0.1:${front.port}`]);
    assert.equal(echo.seen.at(-1)?.requestId, 'via-tunnel');
  });

  test('https: the certificate is verified (an untrusted one is a network error, not retried)', async () => {
    const untrusted = client({ baseUrl: httpsBase, env: { HTTPS_PROXY: proxyUrl }, retry: {} });
    const error = await untrusted.health().catch((e: unknown) => e);
    assert.ok(error instanceof PlatenNetworkError, String(error));
    assert.equal(error.code, 'DEPTH_ZERO_SELF_SIGNED_CERT');
    assert.equal(error.attempts, 1);
  });

  test('NO_PROXY: listed hosts connect directly, for http and https', async () => {
    const direct = await forwardedDuring(async () => {
      await client({ baseUrl: s.base, env: { HTTP_PROXY: proxyUrl, NO_PROXY: 'example.com, 127.0.0.1' } }).health();
      await client({ baseUrl: httpsBase, env: { HTTPS_PROXY: proxyUrl, no_proxy: '*' }, ca: TEST_TLS_CERT }).health();
      await client({ baseUrl: s.base, env: { HTTP_PROXY: proxyUrl, NO_PROXY: `127.0.0.1:${new URL(s.base).port}` } }).health();
    });
    assert.deepEqual(direct, []);
    // An entry for another port of the host does not match.
    const proxied = await forwardedDuring(() => client({ baseUrl: s.base, env: { HTTP_PROXY: proxyUrl, NO_PROXY: '127.0.0.1:1' } }).health());
    assert.equal(proxied.length, 1);
  });

  test('only the variable of the base URL\'s scheme applies; proxy: false and an explicit proxy override the environment', async () => {
    const forwarded = await forwardedDuring(async () => {
      await client({ baseUrl: s.base, env: { HTTPS_PROXY: proxyUrl } }).health();
      await client({ baseUrl: s.base, env: { HTTP_PROXY: proxyUrl }, proxy: false }).health();
    });
    assert.deepEqual(forwarded, []);
    const explicit = await forwardedDuring(() => client({ baseUrl: s.base, env: {}, proxy: proxyUrl }).health());
    assert.deepEqual(explicit.map((f) => f.target), [`${s.base}/health`]);
  });
});
