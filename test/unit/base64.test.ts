// decodeBase64, predecode and decodeCanonicalAscii (workers/task/base64.ts)
// accept exactly the canonical base64 they accepted when they re-encoded
// the decoded bytes and compared: that rule is written out here and all
// three are held to it, on hand-picked and generated texts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { decodeBase64, decodeCanonical, decodeCanonicalAscii, forgetDecoded, predecode } from '../../workers/task/base64.js';
import { DecodedBase64 } from '../../workers/task/decoded-member.js';

function stripPadding(text: string): string {
  return text.replace(/=+$/, '');
}

/** The former rule: non-empty, and re-encoding the bytes in the text's alphabet gives the text, padding aside. */
function acceptedByReencoding(text: string): boolean {
  const encoding = text.includes('-') || text.includes('_') ? 'base64url' : 'base64';
  const bytes = Buffer.from(text, encoding);
  return bytes.byteLength > 0 && stripPadding(bytes.toString(encoding)) === stripPadding(text);
}

function check(text: string): void {
  // decodeBase64 drops white space first; predecode declines any space.
  const compact = text.replace(/\s+/g, '');
  const expected = acceptedByReencoding(compact);
  const decoded = decodeBase64(text, 1 << 20);
  assert.equal(decoded instanceof Uint8Array, expected, `decodeBase64(${JSON.stringify(text.slice(0, 40))})`);
  if (decoded instanceof Uint8Array) assert.deepEqual(Buffer.from(decoded), Buffer.from(compact, compact.includes('-') || compact.includes('_') ? 'base64url' : 'base64'));
  if (!text.includes(' ')) assert.equal(predecode(text), acceptedByReencoding(text), `predecode(${JSON.stringify(text.slice(0, 40))})`);
  forgetDecoded();
  if (/^[\x00-\x7f]*$/.test(text)) fromBytesAgrees(text);
}

/**
 * decodeCanonicalAscii on the text as bytes (as binary-fields.ts calls it:
 * on ASCII values only, here placed between other bytes) answers what
 * decodeCanonical answers on the string: the same refusals, the same bytes.
 */
function fromBytesAgrees(text: string): void {
  const source = Buffer.concat([Buffer.from('{"x":"'), Buffer.from(text, 'latin1'), Buffer.from('"}')]);
  const room = Math.floor((text.length * 3) / 4) + 4;
  const viaString = Buffer.alloc(room);
  const viaBytes = Buffer.alloc(room);
  const expected = decodeCanonical(text, viaString, 0);
  const got = decodeCanonicalAscii(source, 6, 6 + text.length, viaBytes, 0);
  const label = `decodeCanonicalAscii(${JSON.stringify(text.slice(0, 40))}...${JSON.stringify(text.slice(-10))})`;
  assert.equal(got?.bytes, expected, label);
  if (got === undefined || expected === undefined) return;
  assert.deepEqual(viaBytes.subarray(0, got.bytes), viaString.subarray(0, expected), label);
  assert.equal(got.textLength, text.replace(/^data:[\w.+/-]*;base64,/, '').length, label);
}

test('hand-picked texts: padding, lengths, stray characters, mixed alphabets, spare bits', () => {
  const cases = [
    'YWJj', 'YWJj=', 'YWJj==', 'YQ', 'YQ==', 'YQ=====', 'YWI', 'YWI=', 'YR', 'YWJ', 'Y', 'Y===', '=', '==', '',
    'YW*Jj', 'YW=Jj', 'YW==Jj', 'YWJjZA==ZA', '=YWJj', 'YWJj\u00e9', 'YWJj\u20ac', 'YW\u0000Jj', 'YWJjZ', 'YWJjZ=',
    'YW-j', 'YW+j', 'YW_/', 'YW-/', 'YW+_', '-_-_', '+/+/', '__8', '__9', '_w', '_x', '-A', '-B', '+A', '+B', '/w', '/x',
  ];
  for (const text of cases) check(text);
});

test('generated texts: valid encodings of random bytes, then each with one character changed, dropped or added', () => {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_=*. é';
  let seed = 12345;
  const next = (n: number) => ((seed = (seed * 1103515245 + 12345) >>> 0) % n);
  for (let length = 1; length <= 40; length++) {
    const bytes = randomBytes(length);
    for (const valid of [bytes.toString('base64'), bytes.toString('base64url'), stripPadding(bytes.toString('base64'))]) {
      check(valid);
      for (let i = 0; i < 12; i++) {
        const at = next(valid.length + 1);
        const c = alphabet[next(alphabet.length)] as string;
        check(valid.slice(0, at) + c + valid.slice(at + 1));
        check(valid.slice(0, at) + valid.slice(at + 1));
        check(valid.slice(0, at) + c + valid.slice(at));
      }
    }
  }
});

test('a large field decodes to its bytes', () => {
  const bytes = randomBytes(300_001);
  const decoded = decodeBase64(bytes.toString('base64'), 1 << 20);
  assert.ok(decoded instanceof Uint8Array);
  assert.deepEqual(Buffer.from(decoded), bytes);
  assert.equal(predecode(bytes.toString('base64url')), true);
  forgetDecoded();
});

test('texts longer than the 64 KiB pieces decodeCanonicalAscii reads: a stray character, an inner "=", a cut at each piece boundary', () => {
  const bytes = randomBytes(3 * 65536 + 1000);
  const valid = bytes.toString('base64'); // ~4 pieces
  fromBytesAgrees(valid);
  fromBytesAgrees(bytes.toString('base64url'));
  fromBytesAgrees(valid.replace(/=+$/, ''));
  for (const at of [0, 1, 65535, 65536, 65537, 131071, 131072, 196608, valid.length - 5, valid.length - 1]) {
    for (const c of ['*', '=', ' ', '-', '_', '"']) {
      fromBytesAgrees(valid.slice(0, at) + c + valid.slice(at + 1)); // replaced
      fromBytesAgrees(valid.slice(0, at) + c + valid.slice(at)); // added
    }
    fromBytesAgrees(valid.slice(0, at) + valid.slice(at + 1)); // dropped
  }
  // 49151 bytes are 65536 characters whose last is '=': the padding ends the first piece, and two more '=' are a piece of padding alone.
  const edge = randomBytes(49151).toString('base64');
  assert.equal(edge.length, 65536);
  fromBytesAgrees(edge);
  fromBytesAgrees(`${edge}==`);
});

test('decodeCanonicalAscii: data: URIs are read as decodeCanonical reads them', () => {
  const text = randomBytes(3000).toString('base64');
  for (const prefix of ['data:image/png;base64,', 'data:;base64,', 'data:application/pdf;base64,', 'data:image/png,', 'data:image/png;charset=x;base64,', 'data:', 'data:;base64', 'DATA:;base64,', 'data:a b;base64,']) {
    fromBytesAgrees(prefix + text);
  }
  fromBytesAgrees('data:;base64,');
  fromBytesAgrees('data:image/png;base64,data:image/png;base64,AAAA');
});

test('a decoded member gets the size check its text would get, and its bytes as they are', () => {
  const bytes = randomBytes(3000);
  for (const text of [bytes.toString('base64'), `data:image/png;base64,${bytes.toString('base64')}`]) {
    const textLength = text.replace(/^data:[\w.+/-]*;base64,/, '').length;
    const member = new DecodedBase64(new Uint8Array(bytes), textLength);
    for (const max of [2999, 3000, 3001, 2998, 1]) {
      const fromText = decodeBase64(text, max);
      const fromMember = decodeBase64(member, max);
      assert.equal(fromMember instanceof Uint8Array, fromText instanceof Uint8Array, `max ${max}`);
      if (fromText instanceof Uint8Array) assert.deepEqual(Buffer.from(fromMember as Uint8Array), Buffer.from(fromText));
      else assert.deepEqual(fromMember, fromText);
    }
    forgetDecoded();
  }
});
