// The process-wide budget for request bodies in memory
// (PLATEN_BODY_BUDGET_BYTES): bodies past it get 503 upload-budget-exhausted
// with Retry-After at once; bodies under it are served; the bytes come back
// when their requests end. Bodies are held open over raw sockets, and the
// test waits on the server's own gauge of held bytes, never on a clock.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { KEYS } from './helpers/keys.js';
import { readProblem } from './helpers/http.js';
import { scrape, valueOf } from './helpers/prometheus.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';

const MIB = 1024 * 1024;
const BUDGET = 3 * MIB;

/** A render request padded with JSON whitespace to exactly `size` bytes. */
function paddedRender(size: number): string {
  const json = JSON.stringify({ operations: [{ type: 'add_text', text: 'budget' }] });
  return json + ' '.repeat(size - json.length);
}

const headers = { authorization: `Bearer ${KEYS.core}`, 'content-type': 'application/json' };

async function heldBytes(base: string): Promise<number> {
  return valueOf(await scrape(base), 'platen_body_budget_held_bytes');
}

/** Until the server's gauge reads `bytes`. */
async function waitForHeld(base: string, bytes: number): Promise<void> {
  await waitFor(async () => (await heldBytes(base)) === bytes, { what: `platen_body_budget_held_bytes reaching ${bytes}` });
}

/** Declares a 1 MiB body and sends only its first bytes: the body's budget stays held until the socket goes. */
function holdBody(base: string): Socket {
  const socket = connect(Number(new URL(base).port), '127.0.0.1');
  socket.on('error', () => undefined);
  socket.write(
    `POST /api/v1/render HTTP/1.1\r\nHost: t\r\nAuthorization: ${headers.authorization}\r\nContent-Type: application/json\r\nContent-Length: ${MIB}\r\n\r\n{"operations":`,
  );
  return socket;
}

describe('body budget', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ PLATEN_BODY_BUDGET_BYTES: String(BUDGET), PLATEN_MAX_BODY_BYTES: String(2 * MIB), PLATEN_METRICS_ENABLED: 'true' });
  });
  after(() => s.close());

  test('concurrent uploads within the budget are all served', async () => {
    const answers = await Promise.all([1, 2, 3].map(() => fetch(`${s.base}/api/v1/render`, { method: 'POST', headers, body: paddedRender(MIB) })));
    assert.deepEqual(
      answers.map((r) => r.status),
      [200, 200, 200],
    );
    await Promise.all(answers.map((r) => r.arrayBuffer()));
    await waitForHeld(s.base, 0);
  });

  test('past the budget: 503 upload-budget-exhausted with Retry-After at once; the bytes come back when the holders leave', async () => {
    const holders = [holdBody(s.base), holdBody(s.base), holdBody(s.base)];
    await waitForHeld(s.base, BUDGET);

    const declared = await fetch(`${s.base}/api/v1/render`, { method: 'POST', headers, body: paddedRender(MIB) });
    assert.equal(declared.status, 503);
    assert.equal(declared.headers.get('retry-after'), '1');
    assert.equal((await readProblem(declared)).slug, 'upload-budget-exhausted');

    const chunked = await fetch(`${s.base}/api/v1/render`, {
      method: 'POST',
      headers,
      body: new Blob([paddedRender(MIB)]).stream(),
      duplex: 'half',
    } as RequestInit);
    assert.equal(chunked.status, 503);
    assert.equal((await readProblem(chunked)).slug, 'upload-budget-exhausted');

    // Requests without a body do not need the budget.
    assert.equal((await fetch(`${s.base}/healthz`)).status, 200);

    for (const socket of holders) socket.destroy();
    await waitForHeld(s.base, 0);
    const again = await fetch(`${s.base}/api/v1/render`, { method: 'POST', headers, body: paddedRender(MIB) });
    assert.equal(again.status, 200);
    await again.arrayBuffer();
  });

  test('a chunked body is held as its buffer grows, and refused when growing would pass the budget', async () => {
    const holders = [holdBody(s.base), holdBody(s.base)];
    await waitForHeld(s.base, 2 * MIB);
    // 1 MiB left: a chunked body starts (64 KiB) and is refused when its buffer doubles past the rest.
    const chunked = await fetch(`${s.base}/api/v1/render`, {
      method: 'POST',
      headers,
      body: new Blob([paddedRender(2 * MIB - 1024)]).stream(),
      duplex: 'half',
    } as RequestInit);
    assert.equal(chunked.status, 503);
    assert.equal((await readProblem(chunked)).slug, 'upload-budget-exhausted');
    for (const socket of holders) socket.destroy();
    await waitForHeld(s.base, 0);
  });
});
