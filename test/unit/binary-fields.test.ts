// The raw-bytes reader of large base64 fields (workers/task/binary-fields.ts):
// whenever it answers, the answer is JSON.parse's (in 'bytes' mode, with
// each cut-out string as a DecodedBase64 of the bytes decodeBase64 makes of
// it); when it cannot be exact it declines, and the task parses the whole
// body as before, so errors are unchanged (readJsonRequest is checked
// against the plain path too). An answer overwrites each cut-out value in
// the body with its decoded bytes (the body is the task's own), so
// expectations are read from the body first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import * as v from 'valibot';
import { decodeBase64, forgetDecoded } from '../../workers/task/base64.js';
import { parseWithBinaryFields, type BinaryAs } from '../../workers/task/binary-fields.js';
import { base64Member, DecodedBase64 } from '../../workers/task/decoded-member.js';
import { readJsonRequest, type JsonRequest } from '../../workers/task/json-request.js';

const KEYS = ['data', 'image_data', 'pdf'];
const BIG = randomBytes(3000).toString('base64'); // 4000 characters

function bytesOf(text: string | Buffer): Uint8Array {
  return typeof text === 'string' ? new TextEncoder().encode(text) : new Uint8Array(text);
}

/** The reader's answer in both modes, which must be JSON.parse's whenever there is one; returns whether it answered (both modes answer alike). */
function agrees(body: string | Buffer, minLength = 16): boolean {
  const text = agreesAs('text', body, minLength);
  assert.equal(agreesAs('bytes', body, minLength), text, 'both modes cut the same values');
  return text;
}

function agreesAs(as: BinaryAs, body: string | Buffer, minLength: number): boolean {
  const bytes = bytesOf(body);
  const before = Buffer.from(bytes);
  const fast = parseWithBinaryFields(bytes, KEYS, minLength, as);
  if (fast === undefined) {
    assert.deepEqual(Buffer.from(bytes), before, 'a declined body is left as it came, for the whole-body parse');
    return false;
  }
  const parsed: unknown = JSON.parse(before.toString('utf8'));
  if (as === 'text') assert.deepEqual(fast.value, parsed);
  else sameAsParsed(fast.value, parsed, '(body)');
  forgetDecoded();
  return true;
}

/**
 * A 'bytes' answer against JSON.parse's: the same, but that each cut-out
 * string is a DecodedBase64 of what decodeBase64 makes of that string, with
 * the length of its text (less a data: URI's prefix).
 */
function sameAsParsed(fast: unknown, parsed: unknown, path: string): void {
  if (fast instanceof DecodedBase64) {
    assert.equal(typeof parsed, 'string', path);
    const expected = decodeBase64(parsed as string, 1 << 30);
    assert.ok(expected instanceof Uint8Array, path);
    assert.deepEqual(Buffer.from(fast.bytes), Buffer.from(expected), path);
    assert.equal(fast.textLength, (parsed as string).replace(/^data:[\w.+/-]*;base64,/, '').length, path);
    return;
  }
  if (typeof fast !== 'object' || fast === null || typeof parsed !== 'object' || parsed === null) {
    assert.deepEqual(fast, parsed, path);
    return;
  }
  assert.equal(Array.isArray(fast), Array.isArray(parsed), path);
  assert.equal(Object.getPrototypeOf(fast), Object.getPrototypeOf(parsed), path);
  assert.deepEqual(Object.keys(fast), Object.keys(parsed), path);
  for (const key of Object.keys(fast)) sameAsParsed((fast as Record<string, unknown>)[key], (parsed as Record<string, unknown>)[key], `${path}.${key}`);
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

test("readJsonRequest in 'bytes' mode: the plain path's errors, and the member decoded where the plain path has its string", () => {
  // Longer than MIN_CUT_LENGTH, which readJsonRequest uses: these values are cut where they can be.
  const LONG = randomBytes(6000).toString('base64');
  const schema = v.strictObject({ image_data: base64Member(v.pipe(v.string(), v.minLength(1, 'must be base64 image data'))), n: v.optional(v.number()) });
  const bodies = [
    JSON.stringify({ image_data: LONG, n: 1 }),
    JSON.stringify({ image_data: `data:image/png;base64,${LONG}` }),
    JSON.stringify({ image_data: LONG, n: 'one' }),
    JSON.stringify({ image_data: LONG, extra: true }),
    JSON.stringify({ image_data: '' }),
    JSON.stringify({ image_data: 12345 }),
    JSON.stringify({ image_data: [LONG] }),
    JSON.stringify({ image_data: `${LONG.slice(0, 99)}*${LONG.slice(100)}` }),
    `{"image_data": "${LONG}"`,
    `{"image_data": "${LONG}", "image_data": 5}`,
    `[{"image_data": "${LONG}"}]`,
  ];
  for (const text of bodies) {
    const bytes = bytesOf(text);
    const body = () => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    const fast: JsonRequest<unknown> = readJsonRequest(body(), bytes.byteLength, schema, { binaryFields: ['image_data'], binaryAs: 'bytes' });
    const plain: JsonRequest<unknown> = readJsonRequest(body(), bytes.byteLength, schema);
    if (!plain.ok || !fast.ok) assert.deepEqual(fast, plain, text.slice(0, 40));
    else sameAsParsed(fast.value, plain.value, text.slice(0, 40));
  }
  const one = bytesOf(JSON.stringify({ image_data: LONG }));
  const decoded = readJsonRequest(one.buffer as ArrayBuffer, one.byteLength, schema, { binaryFields: ['image_data'], binaryAs: 'bytes' });
  assert.ok(decoded.ok && decoded.value.image_data instanceof DecodedBase64, 'a long canonical value arrives decoded');
});

test('base64Member: what is not already decoded gets its text schema\'s issues, unchanged', () => {
  const texts = [v.pipe(v.string(), v.minLength(1, 'must be non-empty base64 data')), v.string('must be the font as a base64 string')];
  for (const text of texts) {
    const member = base64Member(text);
    for (const input of [12345, '', null, undefined, [], {}, true, 'AAAA', BIG]) {
      assert.deepEqual(v.safeParse(member, input).issues?.map((issue) => [issue.type, issue.message]), v.safeParse(text, input).issues?.map((issue) => [issue.type, issue.message]), String(input).slice(0, 20));
    }
    const decoded = new DecodedBase64(new Uint8Array(3), 4);
    assert.equal(v.parse(member, decoded), decoded, 'a decoded member passes as it is');
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

test("'bytes' mode: no string of the value, its bytes written over its base64 in the body", () => {
  const files = [randomBytes(5000), randomBytes(7001)];
  const body = bytesOf(JSON.stringify({ documents: [{ pdf: files[0]?.toString('base64') }, { pdf: `data:application/pdf;base64,${files[1]?.toString('base64url')}` }] }));
  const parsed = parseWithBinaryFields(body, KEYS, 16, 'bytes')?.value as { documents: Array<{ pdf: unknown }> } | undefined;
  assert.ok(parsed !== undefined);
  for (const [i, file] of files.entries()) {
    const member: unknown = parsed.documents[i]?.pdf;
    assert.ok(member instanceof DecodedBase64);
    assert.deepEqual(Buffer.from(member.bytes), file);
    assert.equal(member.bytes.buffer, body.buffer, 'a view of the body, not a buffer of its own');
    assert.deepEqual(decodeBase64(member, 1 << 20), member.bytes);
  }
});
