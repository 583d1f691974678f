// Request framing that must never be guessed at (RFC 9112 section 6.3),
// sent over raw sockets since fetch will not send such requests.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { KEYS } from './helpers/keys.js';
import { startTestServer, type TestServer } from './helpers/server.js';

/** Sends raw bytes; resolves with everything the server answered before closing (or 2 s passing). */
function raw(base: string, request: string): Promise<string> {
  const { port } = new URL(base);
  return new Promise((resolve) => {
    let answer = '';
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(request));
    const done = () => {
      socket.destroy();
      resolve(answer);
    };
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('close', done);
    socket.on('error', done);
    socket.setTimeout(2_000, done);
  });
}

const body = '{"operations":[{"type":"add_text","text":"x"}]}';
const head = (extra: string) =>
  `POST /api/v1/render HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${KEYS.core}\r\nContent-Type: application/json\r\n${extra}\r\n`;

describe('framing', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  test('two Content-Length headers: 400 and the connection closes', async () => {
    const answer = await raw(s.base, `${head(`Content-Length: ${body.length}\r\nContent-Length: 5\r\n`)}${body}`);
    assert.match(answer, /^HTTP\/1\.1 400 /);
    assert.match(answer, /bad-request/);
    assert.match(answer, /Connection: close/i);
  });

  test('Content-Length with Transfer-Encoding is never served', async () => {
    const answer = await raw(s.base, `${head(`Content-Length: ${body.length}\r\nTransfer-Encoding: chunked\r\n`)}${body}`);
    assert.doesNotMatch(answer, /^HTTP\/1\.1 2/);
  });

  test('a body shorter than its Content-Length is not rendered', async () => {
    // The client stops sending; uWS's idle timeout or our length check ends it, never a render.
    const answer = await raw(s.base, `${head(`Content-Length: ${body.length + 10}\r\n`)}${body}`);
    assert.doesNotMatch(answer, /^HTTP\/1\.1 2/);
  });

  test('an empty chunked body is a 400 without a worker', async () => {
    const answer = await raw(s.base, `${head('Transfer-Encoding: chunked\r\n')}0\r\n\r\n`);
    assert.match(answer, /^HTTP\/1\.1 400 /);
  });
});
