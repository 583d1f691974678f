// Base64 payloads (fonts, images, PDFs) in JSON bodies, decoded in workers.
import { DecodedBase64, type Base64Value } from './decoded-member.js';

/** Why base64 data was refused: too many bytes, or not base64 at all. */
export interface Base64Problem {
  readonly problem: 'too-large' | 'invalid';
  readonly message: string;
}

/**
 * Decoded base64 (optionally a data: URI), or what is wrong with it.
 * Buffer.from skips characters outside the alphabet, so the result is
 * checked for being exactly what the text says (canonical): a validating
 * regex over a 1 MB font was measurable, and so was re-encoding and
 * comparing (canonical() says why it is not needed). A member the request
 * reader decoded already (DecodedBase64) gets the same size check on its
 * text's length, and is not decoded again.
 */
export function decodeBase64(value: Base64Value, maxBytes: number): Uint8Array | Base64Problem {
  if (value instanceof DecodedBase64) return Math.floor((value.textLength * 3) / 4) > maxBytes ? tooLarge(maxBytes) : value.bytes;
  let text = value.startsWith('data:') ? value.replace(DATA_URI, '') : value;
  if (text.includes('\n') || text.includes(' ') || text.includes('\r') || text.includes('\t')) text = text.replace(/\s+/g, '');
  // Checked on the encoded length, before decoding: 4 characters carry 3 bytes.
  if (Math.floor((text.length * 3) / 4) > maxBytes) return tooLarge(maxBytes);
  const known = decodedAlready.get(value);
  if (known !== undefined) return known;
  const url = text.includes('-') || text.includes('_');
  const bytes = Buffer.from(text, url ? 'base64url' : 'base64');
  if (bytes.byteLength === 0 || !canonical(text, bytes.byteLength, url)) {
    return { problem: 'invalid', message: 'must be non-empty base64 data' };
  }
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function tooLarge(maxBytes: number): Base64Problem {
  return { problem: 'too-large', message: `must decode to at most ${maxBytes} bytes` };
}

const DATA_URI = /^data:[\w.+/-]*;base64,/;
/** A data: URI's whole prefix, up to its first comma (DATA_URI's media type part holds no comma). */
const DATA_URI_PREFIX = /^data:[\w.+/-]*;base64,$/;

/**
 * Values the request reader decoded while cutting them out of the raw body
 * (binary-fields.ts), so the handler's decodeBase64 does not decode them
 * again. Keyed by the string itself: V8 hashes strings longer than 16383
 * characters by their length and compares the same string by identity, so
 * a lookup costs nothing like the megabytes it saves. Emptied when the task
 * ends (forgetDecoded), so no file outlives its request.
 */
const decodedAlready = new Map<string, Uint8Array>();

/**
 * Decodes `value` if it is base64 that decodeBase64 would accept as it is,
 * without white space (optionally a data: URI), and remembers the result;
 * false otherwise. Canonical base64 holds no quote, backslash or control
 * character, so the caller knows JSON.parse would have read the same string.
 */
export function predecode(value: string): boolean {
  const room = Buffer.allocUnsafeSlow(decodedRoom(value));
  const length = decodeCanonical(value, room, 0);
  if (length === undefined) return false;
  remember(value, new Uint8Array(room.buffer, room.byteOffset, length));
  return true;
}

/** Bytes that decodeCanonical may write for `value`: 3 for every 4 characters. */
export function decodedRoom(value: string): number {
  return Math.floor((value.length * 3) / 4);
}

/**
 * As predecode, but writing the bytes into `target` at `offset` (room for
 * decodedRoom(value) bytes) rather than into a new buffer: the number of
 * bytes, or undefined when `value` is not base64 as it stands (what was
 * written is then meaningless).
 */
export function decodeCanonical(value: string, target: Buffer, offset: number): number | undefined {
  const text = value.startsWith('data:') ? value.replace(DATA_URI, '') : value;
  if (text.length === 0 || text.includes(' ')) return undefined;
  const url = text.includes('-') || text.includes('_');
  const length = target.write(text, offset, url ? 'base64url' : 'base64');
  if (length === 0 || !canonical(text, length, url)) return undefined;
  return length;
}

/** `bytes` are what `value` decodes to (decodeCanonical's check passed): decodeBase64(value) answers them until forgetDecoded. */
export function remember(value: string, bytes: Uint8Array): void {
  decodedAlready.set(value, bytes);
}

/** Called when a task ends. */
export function forgetDecoded(): void {
  decodedAlready.clear();
}

/**
 * Whether `text`, less any trailing '=', is what re-encoding its `decoded`
 * bytes in the same alphabet would give (the rule this file applied by
 * re-encoding and comparing: 5 of the ~9 ms a 2.3 MB image field cost in
 * the worker, measured). Node's decoder skips every character outside the
 * alphabet and stops at an '=' inside the text, and m characters decode
 * to floor(3m/4) bytes, so any such character leaves fewer bytes than the
 * length promises; a length that leaves one character over (n % 4 = 1)
 * carries no whole byte. What the count cannot see: the two alphabets mixed
 * (Node reads both in either mode; re-encoding gave only the one), and bits
 * left over in the last character, which a canonical encoder writes as 0.
 */
function canonical(text: string, decoded: number, url: boolean): boolean {
  let n = text.length;
  while (n > 0 && text.charCodeAt(n - 1) === EQUALS) n--;
  return canonicalCount(n, decoded, n > 0 ? text.charCodeAt(n - 1) : 0, url && (text.includes('+') || text.includes('/')));
}

/** canonical()'s rule on what it reads from the text: n characters before the padding, the last of them, and whether a URL-alphabet text also holds '+' or '/'. */
function canonicalCount(n: number, decoded: number, last: number, mixed: boolean): boolean {
  if (n % 4 === 1 || decoded !== Math.floor((n * 3) / 4)) return false;
  if (mixed) return false;
  const over = n % 4;
  if (over === 0) return true;
  // 2 characters carry 1 byte and 4 spare bits, 3 carry 2 bytes and 2 spare bits.
  return (sextet(last) & (over === 2 ? 0x0f : 0x03)) === 0;
}

const EQUALS = 0x3d;

/**
 * Characters decoded at a time by decodeCanonicalAscii: a multiple of 4 (so
 * each piece decodes on its own to the bytes the whole text would give it),
 * and small enough to be an ordinary young V8 string (not a large object,
 * nor Node's external string above ~1 MB), freed by the next scavenge.
 */
const PIECE = 64 * 1024;

/**
 * As decodeCanonical, for a text that is `source[start, end)` (ASCII bytes,
 * e.g. a JSON string value in a request body) rather than a string: read
 * in PIECE-character pieces, so no string of the whole text is made. The
 * number of bytes written and the text's length without a data: URI's
 * prefix, or undefined when decodeCanonical would refuse the text (what
 * was written is then meaningless). Node's decoder skips characters
 * outside the alphabet and stops at an '=' in a piece as it does in the
 * whole text, so any such character still leaves fewer bytes than the
 * length promises, and canonical()'s count refuses it.
 */
export function decodeCanonicalAscii(source: Buffer, start: number, end: number, target: Buffer, offset: number): { bytes: number; textLength: number } | undefined {
  let from = start;
  if (end - start >= 5 && source.toString('latin1', start, start + 5) === 'data:') {
    const comma = source.subarray(start, end).indexOf(0x2c);
    // Without its whole prefix, decodeCanonical would decode the text with "data:" in it, and refuse it.
    if (comma < 0 || !DATA_URI_PREFIX.test(source.toString('latin1', start, start + comma + 1))) return undefined;
    from = start + comma + 1;
  }
  if (from === end) return undefined;
  const text = source.subarray(from, end);
  const url = text.indexOf(0x2d) >= 0 || text.indexOf(0x5f) >= 0;
  const encoding = url ? 'base64url' : 'base64';
  let written = 0;
  for (let at = from; at < end; at += PIECE) written += target.write(source.toString('latin1', at, Math.min(at + PIECE, end)), offset + written, encoding);
  let n = end - from;
  while (n > 0 && source[from + n - 1] === EQUALS) n--;
  const mixed = url && (text.indexOf(0x2b) >= 0 || text.indexOf(0x2f) >= 0);
  if (written === 0 || !canonicalCount(n, written, n > 0 ? (source[from + n - 1] as number) : 0, mixed)) return undefined;
  return { bytes: written, textLength: end - from };
}

/** The value of a character known to be in either base64 alphabet. */
function sextet(code: number): number {
  if (code >= 65 && code <= 90) return code - 65;
  if (code >= 97 && code <= 122) return code - 71;
  if (code >= 48 && code <= 57) return code + 4;
  return code === 43 || code === 45 ? 62 : 63;
}
