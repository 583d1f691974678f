// What the uWS HTTP parser of this build accepts and refuses, over raw
// sockets, on both sides of each limit (src/http/uws-limits.ts; README
// "HTTP parser limits"). Where uWS never hands a request to us, the test
// pins down what the client sees: a prompt close, or the idle timeout.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_HEADER_BLOCK_BYTES, MAX_HEADER_LINES } from '../src/http/uws-limits.js';
import { KEYS } from './helpers/keys.js';
import { fillerHeaders, rawExchange, type RawAnswer } from './helpers/raw-http.js';
import { startTestServer, type TestServer } from './helpers/server.js';

/** uWS's HTTP idle timeout is 10 s, checked on a 4 s tick: measured 12.0 s from the last byte. */
const IDLE_CLOSE_MS = 13_000;
const PROMPT_MS = 1_000;

function problemOf(answer: RawAnswer): { type: string; status: number } {
  return JSON.parse(answer.text.slice(answer.text.indexOf('\r\n\r\n') + 4)) as { type: string; status: number };
}

function assertPromptClose(answer: RawAnswer, what: string): void {
  assert.equal(answer.closedByServer, true, `${what}: the server must close the connection`);
  assert.ok(answer.ms < PROMPT_MS, `${what}: closed after ${Math.round(answer.ms)} ms`);
}

describe('HTTP parser limits and refusals', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ PLATEN_MAX_BODY_BYTES: String(1024 * 1024) });
  });
  after(() => s.close());

  test(`${MAX_HEADER_LINES} header lines are served`, async () => {
    const answer = await rawExchange(s.base, [`GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n${fillerHeaders(MAX_HEADER_LINES - 2)}\r\n`]);
    assert.equal(answer.statusLine, 'HTTP/1.1 200 OK');
  });

  test(`a header block of ${MAX_HEADER_BLOCK_BYTES} bytes in two reads is served, one byte more is closed at once`, async () => {
    const block = (size: number) => {
      const start = 'GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\nX-Pad: ';
      return `${start}${'p'.repeat(size - start.length - 4)}\r\n\r\n`;
    };
    assert.equal(block(MAX_HEADER_BLOCK_BYTES).length, MAX_HEADER_BLOCK_BYTES);
    const [fits, over] = await Promise.all(
      [block(MAX_HEADER_BLOCK_BYTES), block(MAX_HEADER_BLOCK_BYTES + 1)].map((request) => rawExchange(s.base, [request.slice(0, 30), request.slice(30)])),
    );
    assert.equal(fits?.statusLine, 'HTTP/1.1 200 OK');
    assert.equal(over?.text, '');
    assertPromptClose(over as RawAnswer, 'header block over 4 KiB');
  });

  test('methods uWS does not route are closed at once, without an answer', async () => {
    const answers = await Promise.all(
      ['PROPFIND', 'BREW', 'MKCOL', 'get'].map(async (method) => [method, await rawExchange(s.base, [`${method} /healthz HTTP/1.1\r\nHost: t\r\n\r\n`])] as const),
    );
    for (const [method, answer] of answers) {
      assert.equal(answer.text, '', method);
      assertPromptClose(answer, method);
    }
  });

  test('HTTP/1.1 without Host is closed at once, without an answer', async () => {
    const answer = await rawExchange(s.base, ['GET /healthz HTTP/1.1\r\nUser-Agent: t\r\n\r\n']);
    assert.equal(answer.text, '');
    assertPromptClose(answer, 'no Host');
  });

  test('TRACE and CONNECT on a route: 405 with Allow', async () => {
    for (const method of ['TRACE', 'CONNECT']) {
      const answer = await rawExchange(s.base, [`${method} /api/v1/render HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n`]);
      assert.equal(answer.statusLine, 'HTTP/1.1 405 Method Not Allowed', method);
      assert.match(answer.text, /\r\nAllow: POST, OPTIONS\r\n/i);
      assert.match(problemOf(answer).type, /\/method-not-allowed$/);
    }
  });

  const post = (contentLength: string) =>
    `POST /api/v1/render HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${KEYS.core}\r\nContent-Type: application/json\r\nContent-Length: ${contentLength}\r\n\r\n`;

  test('a Content-Length uWS cannot frame still gets its answer before uWS closes', async () => {
    const cases = [
      ['999999999', 413, 'payload-too-large'],
      ['1000000000', 413, 'payload-too-large'],
      ['4294967296', 413, 'payload-too-large'],
      ['18446744073709551616', 413, 'payload-too-large'],
      ['0000000001', 400, 'bad-request'],
      ['-1', 400, 'bad-request'],
      ['abc', 400, 'bad-request'],
      ['1e3', 400, 'bad-request'],
    ] as const;
    const answers = await Promise.all(cases.map(([length]) => rawExchange(s.base, [post(length)])));
    for (const [index, [length, status, slug]] of cases.entries()) {
      const answer = answers[index] as RawAnswer;
      assert.match(answer.statusLine, new RegExp(`^HTTP/1\\.1 ${status} `), `Content-Length: ${length}`);
      const problem = problemOf(answer);
      assert.equal(problem.status, status);
      assert.match(problem.type, new RegExp(`/${slug}$`));
      assertPromptClose(answer, `Content-Length: ${length}`);
    }
  });

  const teGzip = `POST /api/v1/render HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${KEYS.core}\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip\r\n\r\n`;
  const json = '{"operations":[{"type":"add_text","text":"x"}]}';

  test('a Transfer-Encoding other than chunked: 400 and a close, not the idle timeout, wherever the body is', async () => {
    // uWS frames every Transfer-Encoding as chunked: a body in the headers' read is parsed as chunks after the
    // handler and closes the connection at its first byte; the answer must have left by then (it was lost:
    // "Empty reply from server"). 300 KiB: more than fits the 16 KiB cork buffer or one 64 KiB loopback segment.
    const cases = {
      'headers only': [teGzip],
      'the body in the same write': [teGzip + json],
      'a 300 KiB body in the same write': [teGzip + ' '.repeat(300 * 1024) + json],
      'the body in a later write': [teGzip, json],
    };
    const answers = await Promise.all(Object.entries(cases).map(async ([name, parts]) => [name, await rawExchange(s.base, parts)] as const));
    for (const [name, answer] of answers) {
      assert.equal(answer.statusLine, 'HTTP/1.1 400 Bad Request', name);
      const problem = problemOf(answer);
      assert.equal(problem.status, 400, name);
      assert.match(problem.type, /\/bad-request$/, name);
      assertPromptClose(answer, `Transfer-Encoding: gzip, ${name}`);
    }
  });

  test('every refusal that closes before the body is read still answers when the body comes in the same write', async () => {
    const withBody = (headers: string, body = json) =>
      `POST /api/v1/render HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${KEYS.core}\r\nContent-Type: application/json\r\n${headers}\r\n${body}`;
    const cases = [
      ['Content-Length: abc', withBody('Content-Length: abc\r\n'), 400, 'bad-request'],
      ['Content-Length of ten digits', withBody('Content-Length: 1000000000\r\n'), 413, 'payload-too-large'],
      ['Content-Length twice', withBody(`Content-Length: ${json.length}\r\nContent-Length: ${json.length}\r\n`), 400, 'bad-request'],
      ['Content-Length over the cap', withBody(`Content-Length: ${2 * 1024 * 1024}\r\n`, ' '.repeat(300 * 1024)), 413, 'payload-too-large'],
      ['Transfer-Encoding: gzip, chunked', withBody('Transfer-Encoding: gzip, chunked\r\n', `${json.length.toString(16)}\r\n${json}\r\n0\r\n\r\n`), 400, 'bad-request'],
    ] as const;
    const answers = await Promise.all(cases.map(([, request]) => rawExchange(s.base, [request])));
    for (const [index, [name, , status, slug]] of cases.entries()) {
      const answer = answers[index] as RawAnswer;
      assert.match(answer.statusLine, new RegExp(`^HTTP/1\\.1 ${status} `), name);
      const problem = problemOf(answer);
      assert.equal(problem.status, status, name);
      assert.match(problem.type, new RegExp(`/${slug}$`), name);
      assertPromptClose(answer, name);
    }
  });

  test('Transfer-Encoding with Content-Length (what curl -H "Transfer-Encoding: gzip" -d sends) is closed by uWS at once, without an answer', async () => {
    // uWS refuses the pair in its parser (RFC 9112 section 6.3 allows treating it as an error) before any handler runs.
    for (const coding of ['gzip', 'chunked']) {
      const answer = await rawExchange(s.base, [teGzip.replace('gzip', coding).replace('\r\n\r\n', `\r\nContent-Length: ${json.length}\r\n\r\n`) + json]);
      assert.equal(answer.text, '', coding);
      assertPromptClose(answer, `Transfer-Encoding: ${coding} with Content-Length`);
    }
  });

  test('requests the parser cannot finish are never answered and end at the idle timeout', async () => {
    const cases = {
      [`${MAX_HEADER_LINES + 1} header lines`]: `GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n${fillerHeaders(MAX_HEADER_LINES - 1)}\r\n`,
      'lines ending in LF alone': 'GET /healthz HTTP/1.1\nHost: t\n\n',
      'NUL in a header': 'GET /healthz HTTP/1.1\r\nHost: t\r\nX-A: a\0b\r\n\r\n',
      'control byte in a header': 'GET /healthz HTTP/1.1\r\nHost: t\r\nX-A: a\x01b\r\n\r\n',
      'HTTP/1.0': 'GET /healthz HTTP/1.0\r\nHost: t\r\n\r\n',
      'no header line at all': 'GET /healthz HTTP/1.1\r\n\r\n',
    };
    const answers = await Promise.all(Object.entries(cases).map(async ([name, request]) => [name, await rawExchange(s.base, [request], IDLE_CLOSE_MS)] as const));
    for (const [name, answer] of answers) {
      assert.equal(answer.text, '', name);
      assert.equal(answer.closedByServer, true, `${name}: the server must close it by its idle timeout`);
    }
  });
});
