// The whole-body deadline of readBody (PLATEN_BODY_MIN_RATE) on an injected
// clock: after the grace, a body must have averaged the minimum rate at every
// chunk, so a trickle is cut while a body that keeps up is read whole
// however long it takes. The black-box side is in test/body-timeout.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BodyError, readBody, type Body } from '../../src/http/body.js';
import type { HttpResponse } from '../../src/http/uws.js';

type DataHandler = (chunk: ArrayBuffer, isLast: boolean) => void;

/** A uWS response that only takes the data handler, and a clock the test moves. */
function fakeRead(declared: number | undefined, bytesPerSecond: number, graceMs: number) {
  let handler: DataHandler | undefined;
  let clock = 1_000;
  const res = { onData: (h: DataHandler) => (handler = h) } as unknown as HttpResponse;
  const body = readBody(res, declared, 1 << 20, new AbortController().signal, {
    minRate: { bytesPerSecond, graceMs, now: () => clock },
  });
  body.catch(() => undefined);
  return {
    body,
    /** Moves the clock to `atMs` after the start, then delivers `size` bytes. */
    send(atMs: number, size: number, isLast = false) {
      clock = 1_000 + atMs;
      handler?.(new ArrayBuffer(size), isLast);
    },
  };
}

async function failure(body: Promise<Body>): Promise<BodyError> {
  const error = await body.then(
    () => assert.fail('the body was read'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof BodyError);
  return error;
}

test('within the grace, any rate is accepted', async () => {
  const read = fakeRead(3, 1000, 1000);
  read.send(999, 1);
  read.send(1000, 1);
  read.send(60_000, 1, true);
  assert.equal((await read.body).length, 3, 'the last chunk completes the body whenever it comes');
});

test('after the grace, a chunk that leaves the average below the rate fails the body with too-slow', async () => {
  // 1000 B/s after 1000 ms: at 1500 ms the body must hold 500 bytes.
  const read = fakeRead(10_000, 1000, 1000);
  read.send(500, 100);
  read.send(1_200, 100); // 200 bytes by 1200 ms: exactly on the line, allowed
  read.send(1_400, 1); // 201 bytes by 1400 ms: below
  const error = await failure(read.body);
  assert.equal(error.failure, 'too-slow');
  assert.equal(error.received, 200);
  assert.equal(error.elapsedMs, 1_400);
});

test('a body that keeps the rate is read whole, however long it takes', async () => {
  const read = fakeRead(undefined, 1000, 1000);
  let sent = 0;
  for (let at = 100; at <= 100_000; at += 100) {
    read.send(at, 100);
    sent += 100;
  }
  read.send(100_050, 10, true);
  assert.equal((await read.body).length, sent + 10);
});

test('a trickle of one byte every 4 s is cut at its first chunk after the grace', async () => {
  const read = fakeRead(1_000_000, 16_384, 5_000);
  read.send(4_000, 1);
  read.send(8_000, 1);
  const error = await failure(read.body);
  assert.equal(error.failure, 'too-slow');
  assert.equal(error.elapsedMs, 8_000);
});
