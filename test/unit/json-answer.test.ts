// serializeAnswer (workers/task/json-answer.ts) writes a task's answer as
// the very bytes JSON.stringify and TextEncoder made of it with each file
// as its base64 string, whatever surrounds the files, and falls back to
// that plain path when a string of the answer holds the marker.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Base64Answer, serializeAnswer } from '../../workers/task/json-answer.js';

/** The answer with every Base64Answer replaced by its base64 string, serialised the plain way. */
function plain(data: unknown): Buffer {
  const withStrings = JSON.parse(JSON.stringify(data, (_key, value: unknown) => (value instanceof Base64Answer ? Buffer.from(value.bytes).toString('base64') : value))) as unknown;
  return Buffer.from(new TextEncoder().encode(JSON.stringify(withStrings)));
}

function same(data: unknown): void {
  assert.deepEqual(Buffer.from(serializeAnswer(data)), plain(data));
}

test('files anywhere in the answer, among text in and out of ASCII', () => {
  const image = new Base64Answer(randomBytes(80_000));
  same({ image_data: image, original_size_bytes: 1, width: 1200, format: 'jpeg' });
  same({ a: 'ünïcödé ✓ "quoted" \\ \n', files: [new Base64Answer(randomBytes(1)), new Base64Answer(randomBytes(2)), new Base64Answer(randomBytes(3))], z: null });
  same([new Base64Answer(new Uint8Array(0)), { nested: { deeper: [new Base64Answer(randomBytes(5000))] } }, '😀']);
  same(image);
  const twice = new Base64Answer(randomBytes(10));
  same({ first: twice, second: twice });
  // A view into a larger buffer: only its own bytes.
  const big = randomBytes(100);
  same({ part: new Base64Answer(new Uint8Array(big.buffer, big.byteOffset + 10, 20)) });
});

test('answers without files are JSON.stringify\'s bytes', () => {
  for (const data of [{}, [], 'text', 12, null, { text: 'ünïcödé', n: [1, 2, 3] }]) {
    assert.deepEqual(Buffer.from(serializeAnswer(data)), Buffer.from(JSON.stringify(data), 'utf8'));
  }
});

test('a string that looks like a placeholder is left as it is', () => {
  same({ text: '~#00000000000000000000000#0', file: new Base64Answer(randomBytes(30)) });
  same({ text: '"~#', file: new Base64Answer(randomBytes(30)), more: '#0"' });
});

test('the bytes are an ArrayBuffer of their own, exactly their length (transferred to the main thread without a copy)', () => {
  const out = serializeAnswer({ file: new Base64Answer(randomBytes(1000)) });
  assert.equal(out.byteOffset, 0);
  assert.equal(out.buffer.byteLength, out.byteLength);
});

test('outside serializeAnswer a file serialises as its base64 text', () => {
  const bytes = randomBytes(40);
  assert.equal(JSON.stringify({ f: new Base64Answer(bytes) }), JSON.stringify({ f: bytes.toString('base64') }));
});
