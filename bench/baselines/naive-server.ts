// Baseline (c), the server side: what a naive service does — a plain
// node:http server that renders on its main thread. Run as its own process
// (bench/baselines/naive-http.ts spawns it) so that it does not share an
// event loop with the load generator. Listens on port 0 and announces the
// port in the same JSON shape as Platen's "listening" line.
import { createServer } from 'node:http';
import { render } from '../../workers/render/task.js';

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/healthz') {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    return;
  }
  if (req.method !== 'POST' || req.url !== '/api/v1/render') {
    res.writeHead(404).end();
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    // The task reads bytes [0, length) of its own ArrayBuffer; slice() gives one (a concatenated Buffer may sit in Node's pool).
    const body = new Uint8Array(Buffer.concat(chunks)).slice();
    render({ body: body.buffer, length: body.byteLength, options: {} }).then(
      (outcome) => {
        if (outcome.ok) res.writeHead(200, { 'content-type': outcome.value.mediaType }).end(new Uint8Array(outcome.value.body));
        else res.writeHead(outcome.code === 'malformed' ? 400 : 422, { 'content-type': 'application/json' }).end(JSON.stringify(outcome));
      },
      () => res.writeHead(500).end(),
    );
  });
});

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (typeof address === 'object' && address !== null) process.stdout.write(`${JSON.stringify({ msg: 'listening', port: address.port })}\n`);
});

// SIGTERM from the bench: close the listener and idle keep-alive sockets, then exit.
process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
