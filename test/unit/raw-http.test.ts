// The bench's lean load-generator client (bench/raw-http.ts) against a real
// node:http server: each framing the server may use, and that the next
// answer on the same connection is read from its own first byte (a client
// that misread where a body ends would read the rest of it as a status line).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RawConnection, requestHead } from '../../bench/raw-http.js';

async function start(): Promise<{ server: Server; port: number; connections: () => number }> {
  let connections = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const received = Buffer.concat(chunks).byteLength;
      switch (req.url) {
        case '/length':
          res.writeHead(200, { 'content-length': String(received + 3) }).end(Buffer.alloc(received + 3, 0x61));
          break;
        case '/chunked':
          // Three writes, no length: node:http frames them as chunks, one of them large.
          res.writeHead(201);
          res.write('a');
          res.write(Buffer.alloc(70_000, 0x62));
          res.end('\r\n0\r\n\r\n');
          break;
        case '/close':
          res.writeHead(503, { 'content-length': '2', connection: 'close' }).end('no');
          break;
        case '/empty':
          res.writeHead(204).end();
          break;
        default:
          res.writeHead(404, { 'content-length': '0' }).end();
      }
    });
  });
  server.on('connection', () => void (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, connections: () => connections };
}

test('reads each framing and keeps one connection across answers', async (t) => {
  const { server, port, connections } = await start();
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const target = (path: string) => ({ host: '127.0.0.1', port, method: 'POST' as const, path, headers: { 'content-type': 'application/json' } });
  const connection = new RawConnection(target('/'));
  t.after(() => connection.close());
  const body = Buffer.alloc(200_000, 0x7b);
  for (let i = 0; i < 3; i++) {
    assert.equal(await connection.send(requestHead(target('/length')), body), 200);
    assert.equal(await connection.send(requestHead(target('/chunked')), body), 201);
    assert.equal(await connection.send(requestHead(target('/empty')), undefined), 204);
    assert.equal(await connection.send(requestHead(target('/nothing')), Buffer.alloc(0)), 404);
  }
  assert.equal(connections(), 1, 'every answer above kept the connection open');
  // An answer that closes the connection; the next request opens a new one.
  assert.equal(await connection.send(requestHead(target('/close')), body), 503);
  assert.equal(await connection.send(requestHead(target('/length')), body), 200);
  assert.equal(connections(), 2);
});

test('a connection closed before the answer ends is an error, not a hang', async (t) => {
  const server = createServer((req) => req.socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const target = { host: '127.0.0.1', port: (server.address() as AddressInfo).port, method: 'GET' as const, path: '/', headers: {} };
  const connection = new RawConnection(target);
  await assert.rejects(connection.send(requestHead(target), undefined), /closed before the answer ended|ECONNRESET/);
});

test('exchange keeps the head and the whole body of a Content-Length answer, and refuses a chunked one', async (t) => {
  const { server, port } = await start();
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const target = (path: string) => ({ host: '127.0.0.1', port, method: 'POST' as const, path, headers: {} });
  const connection = new RawConnection(target('/'));
  t.after(() => connection.close());
  // 200,000 bytes in: an answer of 200,003 bytes, which arrives in many reads.
  const answer = await connection.exchange(requestHead(target('/length')), Buffer.alloc(200_000, 0x7b));
  assert.equal(answer.status, 200);
  assert.match(answer.head, /content-length: 200003/i);
  assert.equal(answer.body.byteLength, 200_003);
  assert.ok(answer.body.every((byte) => byte === 0x61));
  const closing = await connection.exchange(requestHead(target('/close')), Buffer.alloc(1));
  assert.deepEqual([closing.status, closing.body.toString()], [503, 'no']);
  await assert.rejects(connection.exchange(requestHead(target('/chunked')), Buffer.alloc(1)), /Content-Length/);
  // send() after an exchange keeps nothing and still reads its answer.
  assert.equal(await connection.send(requestHead(target('/length')), Buffer.alloc(10)), 200);
});
