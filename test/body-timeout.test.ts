// A request body that stops arriving (shorter than its Content-Length, or
// chunked without its last chunk) is answered 408 body-timeout after
// PLATEN_BODY_TIMEOUT_MS of silence and the connection closed; before, uWS
// held it to its idle timeout (8 to 12 s) and closed it unanswered. A body
// that keeps arriving, however slowly, is not cut: the timeout runs from the
// last read, and with PLATEN_BODY_MIN_RATE 0 nothing else cuts it. With a
// minimum rate, a body that keeps arriving below it on average is answered
// 408 body-timeout too, and one above it is served though it takes longer
// than the idle timeout. Raw sockets, since fetch cannot send a truncated body.
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
    s = await startTestServer({ PLATEN_BODY_TIMEOUT_MS: String(BODY_TIMEOUT_MS), PLATEN_BODY_MIN_RATE: '0' });
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

describe('whole-body deadline (PLATEN_BODY_MIN_RATE)', () => {
  const GRACE_MS = 1_000;
  const RATE = 100;
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ PLATEN_BODY_TIMEOUT_MS: String(GRACE_MS), PLATEN_BODY_MIN_RATE: String(RATE) });
  });
  after(() => s.close());

  /**
   * Writes the request head, then each part after `pauseMs` until the parts
   * run out or the server closes; resolves with what the server wrote.
   */
  async function paced(head: string, parts: readonly string[], pauseMs: number) {
    const { port } = new URL(s.base);
    const socket = connect(Number(port), '127.0.0.1');
    socket.setNoDelay(true);
    socket.on('error', () => undefined);
    let text = '';
    let open = true;
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    const closed = new Promise<void>((resolve) => socket.on('close', () => ((open = false), resolve())));
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const started = performance.now();
    socket.write(head);
    for (const part of parts) {
      // Pacing the client, not waiting for the server: the pace is what is being tested.
      await delay(pauseMs);
      if (!open) break;
      socket.write(part);
    }
    const sendingMs = performance.now() - started;
    await closed;
    return { text, sendingMs, closedMs: performance.now() - started };
  }

  test('a body trickled below the rate, never silent for the idle timeout, is answered 408 body-timeout and closed', async () => {
    // One byte every 250 ms for up to 20 s: without the deadline the idle timeout (1 s) would never fire.
    const { text, closedMs } = await paced(post('/api/v1/render', 'Content-Length: 80\r\n'), Array.from({ length: 80 }, () => ' '), 250);
    assert.equal(text.split('\r\n', 1)[0], 'HTTP/1.1 408 Request Timeout', text);
    assert.ok(closedMs >= GRACE_MS, `closed after ${Math.round(closedMs)} ms, within the grace`);
    assert.ok(closedMs < 10_000, `closed after ${Math.round(closedMs)} ms: the trickle was not cut`);
    const answer: RawAnswer = { text, statusLine: text.split('\r\n', 1)[0] ?? '', closedByServer: true, ms: closedMs };
    const problem = (await assertMatchesContract(await loadContract('render'), 'post', '/api/v1/render', asResponse(answer))) as { type: string; detail: string };
    assert.match(problem.type, /\/body-timeout$/);
    assert.match(problem.detail, /too slowly: \d+ bytes in \d+ ms/);
    assert.match(problem.detail, /100 bytes per second on average after the first 1000 ms \(PLATEN_BODY_MIN_RATE\)/);
  });

  test('a body above the rate is served though it takes longer than the grace', async () => {
    const json = JSON.stringify(textDocument('x'.repeat(600)));
    const parts = Array.from({ length: 6 }, (_, i) => json.slice(Math.floor((i * json.length) / 6), Math.floor(((i + 1) * json.length) / 6)));
    // About 110 bytes every 300 ms, 3.7 times the rate: the budget stays seconds ahead of the clock.
    const { text, sendingMs } = await paced(post('/api/v1/render', `Content-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n`), parts, 300);
    assert.ok(sendingMs > GRACE_MS, `the body took ${Math.round(sendingMs)} ms to send`);
    assert.match(text.split('\r\n', 1)[0] ?? '', /^HTTP\/1\.1 200 /, text.slice(0, 300));
  });
});
