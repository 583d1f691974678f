// A request body that stops arriving (shorter than its Content-Length, or
// chunked without its last chunk) is answered 408 body-timeout after
// PLATEN_BODY_TIMEOUT_MS of silence and the connection closed; before, uWS
// held it to its idle timeout (8 to 12 s) and closed it unanswered. A body
// that keeps arriving, however slowly, is not cut: the timeout runs from the
// last read. Raw sockets, since fetch cannot send a truncated body.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { KEYS } from './helpers/keys.js';
import { textDocument } from './helpers/http.js';
import { assertMatchesContract, loadContract, type ContractName } from './helpers/openapi.js';
import { rawExchange, type RawAnswer } from './helpers/raw-http.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const BODY_TIMEOUT_MS = 1_500;
/** Well under uWS's own idle close (8 to 12 s measured): the answer comes from the body timeout, not from uWS. */
const ANSWERED_WITHIN_MS = BODY_TIMEOUT_MS + 3_000;

/** The raw answer as a fetch Response, for the contract checks. */
function asResponse(answer: RawAnswer): Response {
  const split = answer.text.indexOf('\r\n\r\n');
  const [statusLine = '', ...lines] = answer.text.slice(0, split).split('\r\n');
  const headers = new Headers();
  for (const line of lines) headers.append(line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim());
  return new Response(answer.text.slice(split + 4), { status: Number(statusLine.split(' ')[1]), headers });
}

function post(path: string, framing: string): string {
  return `POST ${path} HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${KEYS.enterprise}\r\nContent-Type: application/json\r\n${framing}\r\n`;
}

describe('body timeout (PLATEN_BODY_TIMEOUT_MS)', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ PLATEN_BODY_TIMEOUT_MS: String(BODY_TIMEOUT_MS) });
  });
  after(() => s.close());

  const stalled: Record<string, { contract: ContractName; path: string; request: string; detail: RegExp }> = {
    'a body shorter than its Content-Length (render API)': {
      contract: 'render',
      path: '/api/v1/render',
      request: `${post('/api/v1/render', 'Content-Length: 100\r\n')}{"operations":`,
      detail: /14 bytes of the 100 the Content-Length declares/,
    },
    'headers and no body at all (accelerator)': {
      contract: 'accel',
      path: '/v1/linearize',
      request: post('/v1/linearize', 'Content-Length: 50\r\n'),
      detail: /0 bytes of the 50/,
    },
    'a chunked body without its last chunk': {
      contract: 'render',
      path: '/api/v1/render',
      request: `${post('/api/v1/render', 'Transfer-Encoding: chunked\r\n')}e\r\n{"operations":\r\n`,
      detail: /14 bytes of a chunked body/,
    },
    'a chunked body that stops inside a chunk': {
      contract: 'render',
      path: '/api/v1/render',
      request: `${post('/api/v1/render', 'Transfer-Encoding: chunked\r\n')}40\r\n{"operations":`,
      detail: /bytes of a chunked body/,
    },
  };

  for (const [name, { contract, path, request, detail }] of Object.entries(stalled)) {
    test(`${name}: 408 body-timeout, then the connection closes`, async () => {
      const answer = await rawExchange(s.base, [request], 15_000);
      assert.equal(answer.statusLine, 'HTTP/1.1 408 Request Timeout', answer.text);
      assert.equal(answer.closedByServer, true);
      assert.ok(answer.ms >= BODY_TIMEOUT_MS - 50, `answered after ${Math.round(answer.ms)} ms, before the timeout`);
      assert.ok(answer.ms < ANSWERED_WITHIN_MS, `answered after ${Math.round(answer.ms)} ms`);
      const problem = (await assertMatchesContract(await loadContract(contract), 'post', path, asResponse(answer))) as { type: string; detail: string };
      assert.match(problem.type, /\/body-timeout$/);
      assert.match(problem.detail, detail);
      assert.match(problem.detail, new RegExp(`${BODY_TIMEOUT_MS} ms`));
    });
  }

  test('a body that keeps arriving, each pause shorter than the timeout, is served though it takes longer in all', async () => {
    const json = JSON.stringify(textDocument('slow but steady'));
    const parts = Array.from({ length: 8 }, (_, i) => json.slice(Math.floor((i * json.length) / 8), Math.floor(((i + 1) * json.length) / 8)));
    const pauseMs = BODY_TIMEOUT_MS / 5;
    const { port } = new URL(s.base);
    const socket = connect(Number(port), '127.0.0.1');
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const started = performance.now();
    socket.write(post('/api/v1/render', `Content-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n`));
    for (const part of parts) {
      // Pacing the client, not waiting for the server: the pauses are what is being tested.
      await delay(pauseMs);
      socket.write(part);
    }
    const sendingMs = performance.now() - started;
    await closed;
    assert.ok(sendingMs > BODY_TIMEOUT_MS, `the body took ${Math.round(sendingMs)} ms to send, longer than the timeout`);
    assert.match(text.split('\r\n', 1)[0] ?? '', /^HTTP\/1\.1 200 /, text.slice(0, 300));
    assert.match(text, /content-type: application\/pdf/i);
  });
});
