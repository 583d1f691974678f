// decodeBase64 and predecode (workers/task/base64.ts) accept exactly the
// canonical base64 they accepted when they re-encoded the decoded bytes and
// compared: that rule is written out here and both are held to it, on
// hand-picked and generated texts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { decodeBase64, forgetDecoded, predecode } from '../../workers/task/base64.js';

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
