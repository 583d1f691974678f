// Idempotency-Key values the README refuses (issue 9): empty, over-long,
// outside printable ASCII, or sent twice. Raw sockets, because fetch joins
// repeated headers into one and will not send some of these bytes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { KEYS } from './helpers/keys.js';
import { startTestServer, type TestServer } from './helpers/server.js';

interface Answer {
  readonly status: number;
  readonly slug: string | undefined;
  readonly detail: string | undefined;
  readonly replayed: boolean;
}

const body = '{"operations":[{"type":"add_text","text":"idempotency"}]}';

/** POSTs a job with the given header lines (latin1 bytes, as a client would send them) and reads the one response. */
function submit(s: TestServer, headerLines: string): Promise<Answer> {
  const { port } = new URL(s.base);
  const request = Buffer.concat([
    Buffer.from(`POST /api/v1/jobs HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${KEYS.core}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n`),
    Buffer.from(headerLines, 'latin1'),
    Buffer.from(`\r\n${body}`),
  ]);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(request));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', payload = ''] = text.split('\r\n\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
      const problem = head.includes('application/problem+json') ? (JSON.parse(payload) as { type: string; detail: string }) : undefined;
      resolve({ status, slug: problem?.type.split('/').pop(), detail: problem?.detail, replayed: /\r\nIdempotent-Replayed: true/i.test(head) });
    });
  });
}

describe('Idempotency-Key values', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  test('a good key makes a job and replays it', async () => {
    const first = await submit(s, 'Idempotency-Key: order-2026-0001\r\n');
    assert.equal(first.status, 201);
    const again = await submit(s, 'Idempotency-Key: order-2026-0001\r\n');
    assert.equal(again.status, 201);
    assert.equal(again.replayed, true);
  });

  const refused: ReadonlyArray<readonly [string, string, RegExp]> = [
    ['an empty header', 'Idempotency-Key: \r\n', /is empty/],
    ['a header of only spaces', 'Idempotency-Key:    \r\n', /is empty/],
    // uWS trims bytes above 0x7f at the ends of a value: "é" alone arrives empty.
    ['only a non-ASCII character', 'Idempotency-Key: \xc3\xa9\r\n', /is empty/],
    ['UTF-8 inside the key', 'Idempotency-Key: caf\xc3\xa9-order\r\n', /outside printable ASCII \(0xc3\) at position 4/],
    ['Latin-1 inside the key', 'Idempotency-Key: caf\xe9-order\r\n', /outside printable ASCII \(0xe9\) at position 4/],
    ['a space inside the key', 'Idempotency-Key: order 1\r\n', /outside printable ASCII \(0x20\) at position 6/],
    ['a tab inside the key', 'Idempotency-Key: order\t1\r\n', /outside printable ASCII \(0x09\)/],
    ['256 characters', `Idempotency-Key: ${'k'.repeat(256)}\r\n`, /is 256 characters long/],
    ['two different keys', 'Idempotency-Key: order-a\r\nIdempotency-Key: order-b\r\n', /has 2 Idempotency-Key headers/],
    ['the same key twice', 'Idempotency-Key: order-c\r\nIdempotency-Key: order-c\r\n', /has 2 Idempotency-Key headers/],
    ['an empty header after a good one', 'Idempotency-Key: order-d\r\nidempotency-key: \r\n', /has 2 Idempotency-Key headers/],
  ];
  for (const [name, lines, detail] of refused) {
    test(`${name}: 400 bad-request that says what to send`, async () => {
      const answer = await submit(s, lines);
      assert.equal(answer.status, 400);
      assert.equal(answer.slug, 'bad-request');
      assert.match(answer.detail ?? '', detail);
      assert.match(answer.detail ?? '', /send one Idempotency-Key of 1-255 printable ASCII characters/);
    });
  }

  test('255 characters are accepted', async () => {
    assert.equal((await submit(s, `Idempotency-Key: ${'k'.repeat(255)}\r\n`)).status, 201);
  });

  test('a refused key stores nothing: the first job with a good key is new, not a replay', async () => {
    assert.equal((await submit(s, 'Idempotency-Key: order-e\r\nIdempotency-Key: order-e\r\n')).status, 400);
    const fresh = await submit(s, 'Idempotency-Key: order-e\r\n');
    assert.equal(fresh.status, 201);
    assert.equal(fresh.replayed, false);
  });
});
