// The buffer readBody (src/http/body.ts) hands on: a body of declared
// length gets a buffer of its own, exactly that long and not zeroed first
// (every byte is the client's by the time it resolves), which a worker can
// take by transfer; a chunked body's buffer grows past its length, and the
// tail a worker is handed with it is zeros, never earlier memory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { MessageChannel } from 'node:worker_threads';
import { BodyError, readBody } from '../../src/http/body.js';
import type { HttpResponse } from '../../src/http/uws.js';

type DataHandler = (chunk: ArrayBuffer, isLast: boolean) => void;

/** Delivers `bytes` in chunks of `size` to readBody, each chunk neutered after its callback as uWS does. */
function deliver(bytes: Buffer, size: number, declared: number | undefined) {
  let handler: DataHandler | undefined;
  const res = { onData: (h: DataHandler) => (handler = h) } as unknown as HttpResponse;
  const body = readBody(res, declared, 1 << 24, new AbortController().signal);
  body.catch(() => undefined);
  for (let at = 0; at < bytes.byteLength; at += size) {
    const chunk = new Uint8Array(bytes.subarray(at, at + size)).buffer;
    handler?.(chunk, at + size >= bytes.byteLength);
    structuredClone(chunk, { transfer: [chunk] });
  }
  return body;
}

test('a declared body is a buffer of its own, exactly its length, every byte the client\'s, and transferable', async () => {
  // Garbage first, so that reused memory would show if the body were not written whole.
  for (let i = 0; i < 20; i++) randomBytes(3 << 20).fill(0xa5);
  const bytes = randomBytes(3 * 65536 + 123);
  const body = await deliver(bytes, 65536, bytes.byteLength);
  assert.equal(body.length, bytes.byteLength);
  assert.equal(body.buffer.byteLength, bytes.byteLength);
  assert.deepEqual(Buffer.from(body.buffer), bytes);
  const { port1, port2 } = new MessageChannel();
  port1.postMessage(body.buffer, [body.buffer]);
  assert.equal(body.buffer.byteLength, 0, 'moved, not copied');
  port1.close();
  port2.close();
});

test('a declared body that ends short or runs long fails, and its buffer goes nowhere', async () => {
  const bytes = randomBytes(1000);
  for (const declared of [1001, 999]) {
    const error = await deliver(bytes, 300, declared).then(
      () => assert.fail('the body was read'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof BodyError);
    assert.equal(error.failure, 'length-mismatch');
  }
});

test('a chunked body\'s buffer may be longer than the body, and the rest of it is zeros', async () => {
  for (let i = 0; i < 20; i++) randomBytes(3 << 20).fill(0xa5);
  const bytes = randomBytes(100_000); // past the 64 KiB first allocation: grown once, to 128 KiB
  const body = await deliver(bytes, 30_000, undefined);
  assert.equal(body.length, bytes.byteLength);
  assert.ok(body.buffer.byteLength > body.length);
  assert.deepEqual(Buffer.from(body.buffer, 0, body.length), bytes);
  assert.ok(Buffer.from(body.buffer, body.length).every((byte) => byte === 0));
});
