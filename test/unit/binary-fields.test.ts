// The raw-bytes reader of large base64 fields (workers/task/binary-fields.ts):
// whenever it answers, the answer is JSON.parse's; when it cannot be exact
// it declines, and the task parses the whole body as before, so errors are
// unchanged (readJsonRequest is checked against the plain path too). An
// answer overwrites each cut-out value in the body with its decoded bytes
// (the body is the task's own), so expectations are read from the body first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import * as v from 'valibot';
import { parseWithBinaryFields } from '../../workers/task/binary-fields.js';
import { readJsonRequest } from '../../workers/task/json-request.js';

const KEYS = ['data', 'image_data', 'pdf'];
const BIG = randomBytes(3000).toString('base64'); // 4000 characters

function bytesOf(text: string | Buffer): Uint8Array {
  return typeof text === 'string' ? new TextEncoder().encode(text) : new Uint8Array(text);
}

/** The reader's answer, which must be JSON.parse's whenever there is one; returns whether it answered. */
function agrees(body: string | Buffer, minLength = 16): boolean {
  const bytes = bytesOf(body);
  const before = Buffer.from(bytes);
  const fast = parseWithBinaryFields(bytes, KEYS, minLength);
  if (fast === undefined) {
    assert.deepEqual(Buffer.from(bytes), before, 'a declined body is left as it came, for the whole-body parse');
    return false;
  }
  assert.deepEqual(fast.value, JSON.parse(before.toString('utf8')));
  return true;
}

test('top-level and nested fields are read from the bytes, the rest parsed', () => {
  assert.equal(agrees(JSON.stringify({ image_data: BIG, options: { quality: 80 } })), true);
  assert.equal(agrees(JSON.stringify({ operations: [{ type: 'add_image', data: BIG }, { type: 'set_font', data: BIG, family: 'X' }] })), true);
  assert.equal(agrees(JSON.stringify({ documents: [{ pdf: BIG }, { pdf: `${BIG}AA==` }] })), true);
  assert.equal(agrees(`{ "image_data" :\n\t"${BIG}" , "x": "ünïcödé ✓" }`), true, 'white space around the colon; UTF-8 elsewhere');
  assert.equal(agrees(JSON.stringify({ image_data: `data:image/png;base64,${BIG}` })), true);
});

test('short values, other keys and non-strings stay with JSON.parse', () => {
  assert.equal(agrees(JSON.stringify({ image_data: 'AAAA' })), false);
  assert.equal(agrees(JSON.stringify({ other: BIG })), false);
  assert.equal(agrees(JSON.stringify({ image_data: [BIG] })), false);
  assert.equal(agrees(JSON.stringify({ image_data: 12345 })), false);
  assert.equal(agrees(JSON.stringify({ image_data: BIG }), BIG.length + 1), false, 'below the length threshold');
});

test('hostile bodies: the answer is JSON.parse\'s or there is none', () => {
  const cases: Array<string | Buffer> = [
    // The key name inside other strings, escaped and not.
    JSON.stringify({ text: `"image_data":"${BIG}"`, image_data: BIG }),
    JSON.stringify({ text: `\\"image_data\\":\\"${BIG}` }),
    `{"text": "\\\\", "image_data": "${BIG}"}`,
    `{"text": "a\\"image_data\\": \\"${BIG}\\"", "n": 1}`,
    // Escapes inside the value: \u escapes, escaped quotes, escaped slashes.
    `{"image_data": "${BIG.slice(0, 100)}\\u0041${BIG.slice(100)}"}`,
    `{"image_data": "${BIG.slice(0, 100)}\\"${BIG.slice(100)}"}`,
    `{"image_data": "${BIG.slice(0, 100)}\\/${BIG.slice(100)}"}`,
    // Duplicate keys: JSON.parse keeps the last.
    `{"image_data": "${BIG}", "image_data": "short"}`,
    `{"image_data": "short", "image_data": "${BIG}"}`,
    `{"image_data": "${BIG}", "image_data": "${BIG}B"}`,
    `{"documents": [{"pdf": "${BIG}"}], "documents": []}`,
    // The value as a key, the key as a value.
    `{"image_data": "${BIG}": 1}`,
    `{"x": "image_data", "y": "${BIG}"}`,
    // __proto__ must stay an own property, as JSON.parse makes it.
    `{"__proto__": {"data": "${BIG}"}}`,
    `{"__proto__": "x", "data": "${BIG}"}`,
    // Deep nesting.
    `${'['.repeat(500)}{"data": "${BIG}"}${']'.repeat(500)}`,
    // A placeholder look-alike in the body.
    `{"a": "~#00#0", "data": "${BIG}"}`,
  ];
  for (const body of cases) agrees(body);
  assert.equal(agrees(`{"image_data": "${BIG}", "image_data": "short"}`), false, 'the dropped big value is noticed');
  const proto = parseWithBinaryFields(bytesOf(`{"__proto__": {"data": "${BIG}"}}`), KEYS, 16)?.value as Record<string, unknown> | undefined;
  if (proto !== undefined) assert.equal(Object.getPrototypeOf(proto), Object.prototype, 'no prototype set from the body');
});

test('bodies JSON.parse refuses are declined, never accepted', () => {
  const invalid: Array<string | Buffer> = [
    `{"image_data": "${BIG}"`, // unterminated object
    `{"image_data": "${BIG}`, // unterminated string
    `{"image_data": "${BIG}",}`, // trailing comma
    `{"image_data": "${BIG.slice(0, 50)}\n${BIG.slice(50)}"}`, // a raw control character
    `{"image_data": "${BIG.slice(0, 50)}\u0001${BIG.slice(50)}"}`,
    `{"image_data": ${BIG}}`, // not quoted
    `{"image_data": "${BIG}" "x": 1}`,
    `{image_data: "${BIG}"}`,
    Buffer.concat([Buffer.from(`{"image_data": "${BIG}", "x": "`), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]), // invalid UTF-8 elsewhere
    Buffer.concat([Buffer.from(`{"image_data": "${BIG.slice(0, 40)}`), Buffer.from([0xff]), Buffer.from(`${BIG}"}`)]), // and inside the value
  ];
  for (const body of invalid) {
    const bytes = bytesOf(body);
    assert.throws(() => JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)));
    assert.equal(parseWithBinaryFields(bytes, KEYS, 16), undefined, Buffer.from(bytes).toString('latin1').slice(0, 60));
  }
});

test('a huge body: many fields, megabytes each', () => {
  const huge = randomBytes(3 * 1024 * 1024).toString('base64');
  const body = JSON.stringify({ operations: Array.from({ length: 4 }, (_, i) => ({ type: 'add_image', data: i % 2 === 0 ? huge : `data:image/png;base64,${huge}` })) });
  assert.equal(agrees(body, 4096), true);
});

test('readJsonRequest answers the same with and without binary fields', () => {
  const schema = v.strictObject({ image_data: v.pipe(v.string(), v.minLength(1)), n: v.optional(v.number()) });
  const bodies = [
    JSON.stringify({ image_data: BIG, n: 1 }),
    JSON.stringify({ image_data: BIG, n: 'one' }),
    JSON.stringify({ image_data: BIG, extra: true }),
    `{"image_data": "${BIG}"`,
    `{"image_data": "${BIG}", "image_data": 5}`,
    `[{"image_data": "${BIG}"}]`,
  ];
  for (const text of bodies) {
    const bytes = bytesOf(text);
    // Each call gets its own body, as a task does: the binary-fields reader writes decoded bytes into it.
    const body = () => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    assert.deepEqual(readJsonRequest(body(), bytes.byteLength, schema, { binaryFields: ['image_data'] }), readJsonRequest(body(), bytes.byteLength, schema), text.slice(0, 40));
  }
});

test('values that are not base64 as they stand are left to JSON.parse and decodeBase64', async () => {
  const { decodeBase64 } = await import('../../workers/task/base64.js');
  for (const value of [`${BIG.slice(0, 99)}*${BIG.slice(100)}`, `${BIG.slice(0, 99)} ${BIG.slice(100)}`, `data:;base64 ${BIG}`, `AB${BIG.slice(0, -2)}`]) {
    const body = bytesOf(JSON.stringify({ image_data: value }));
    const fast = parseWithBinaryFields(body, KEYS, 16);
    if (fast !== undefined) assert.deepEqual(fast.value, { image_data: value });
    assert.deepEqual(decodeBase64(value, 1 << 20), decodeBase64(`${value}`, 1 << 20));
  }
  const good = parseWithBinaryFields(bytesOf(JSON.stringify({ image_data: BIG })), KEYS, 16)?.value as { image_data: string };
  assert.deepEqual(Buffer.from(decodeBase64(good.image_data, 1 << 20) as Uint8Array), Buffer.from(BIG, 'base64'), 'the remembered bytes are the decoded ones');
});

test('decoded bytes are written over their base64 in the body, and remembered from there', async () => {
  const { decodeBase64, forgetDecoded } = await import('../../workers/task/base64.js');
  const files = [randomBytes(5000), randomBytes(7001)];
  const body = bytesOf(JSON.stringify({ documents: [{ pdf: files[0]?.toString('base64') }, { pdf: `data:application/pdf;base64,${files[1]?.toString('base64url')}` }] }));
  const parsed = parseWithBinaryFields(body, KEYS, 16)?.value as { documents: Array<{ pdf: string }> } | undefined;
  assert.ok(parsed !== undefined);
  for (const [i, file] of files.entries()) {
    const bytes = decodeBase64(parsed.documents[i]?.pdf as string, 1 << 20) as Uint8Array;
    assert.deepEqual(Buffer.from(bytes), file);
    assert.equal(bytes.buffer, body.buffer, 'a view of the body, not a buffer of its own');
  }
  forgetDecoded();
  // Once forgotten, the string is decoded again (the body no longer holds it).
  assert.deepEqual(Buffer.from(decodeBase64(parsed.documents[0]?.pdf as string, 1 << 20) as Uint8Array), files[0]);
});
