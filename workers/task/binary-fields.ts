// Large base64 fields (a font, an image, a PDF) read straight from the raw
// request bytes, so the megabytes of a file are neither UTF-8-decoded into
// the body's string nor scanned again by JSON.parse (issue 14). On a 2.3 MB
// image-compress body, UTF-8 decoding and parsing took ~5 ms of a ~50 ms
// task; see bench/README.md for the measured gain.
//
// How: every `"key"` of a known base64 field is found with Buffer.indexOf;
// a string value after it that is long and canonical base64 (so all ASCII
// and free of backslashes: JSON.parse would read its bytes as they are) is
// cut out and replaced by a placeholder that cannot occur in the body (see
// findCuts); the rest, small, is
// decoded and parsed; the placeholders are then swapped for what the task
// asked for (`as`):
// - 'bytes': a DecodedBase64 (decoded-member.ts), the value decoded from
//   the body in 64 KiB pieces, with no string of the whole value ever made
//   (a 2.3 MB string a request cost ~1.8 ms of CPU: decoded-member.ts says
//   why). The task's schema declares the member with base64Member().
// - 'text': the value as a string (latin1-decoded: one byte a character, a
//   plain copy), its decoded bytes remembered for decodeBase64 (the render
//   task, whose `data` members are read in more ways than decodeBase64).
//
// The decoded bytes are written over their own base64 in the body, which
// is the task's own (transferred to the worker, never read again once
// parsed): no new buffer a request. A new 1.7 MB buffer for the bench's
// photo was 40% of the external (ArrayBuffer) bytes a request allocated,
// and V8 runs a full mark-compact each time 64 MB of them have piled up
// ("Start (external memory pressure)" in --trace-incremental-marking):
// every ~15 image requests, 45-70 ms of CPU each in a worker whose heap
// holds the whole engine (36 MB). They are first decoded into a scratch
// buffer kept by the thread, and copied over the body only once the parse
// has succeeded, so a parse given up still sees the body as it came.
//
// Exactly as strict as JSON.parse: only values that are base64 as they
// stand are cut (decoded once, here: no quote, backslash or control
// character can be in them), and anything unusual gives up, the caller
// parsing the whole body as before, so every error (malformed JSON,
// invalid UTF-8, invalid base64, escapes) is the one it always was. A key
// found inside another string, a value that is not a string, a duplicate
// key whose earlier value JSON.parse drops: each shows as a placeholder
// missing, or not a whole string value, after parsing, and gives up too.
import { randomBytes } from 'node:crypto';
import { decodeCanonical, decodeCanonicalAscii, forgetDecoded, remember } from './base64.js';
import { DecodedBase64 } from './decoded-member.js';

/** Shorter strings stay in the JSON: cutting them out saves less than it costs. */
export const MIN_CUT_LENGTH = 4096;

const decoder = new TextDecoder('utf-8', { fatal: true });
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

interface Cut {
  readonly start: number;
  readonly end: number;
}

/** What a binary field read from the bytes becomes in the parsed value (see the top of this file). */
export type BinaryAs = 'bytes' | 'text';

/** A cut value decoded into the scratch buffer: its bytes there, and what the placeholder becomes. */
interface Decoded {
  readonly length: number;
  readonly textLength: number;
  /** 'text' only: the value's string. */
  readonly text?: string;
}

/**
 * Where values are decoded before the parse has succeeded. Kept by the
 * thread (a task runs its parse synchronously, so no two share it), up to
 * SCRATCH_KEPT bytes: a larger body gets a buffer of its own, once.
 */
let scratch = Buffer.alloc(0);
const SCRATCH_KEPT = 16 * 1024 * 1024;

function scratchOf(bytes: number): Buffer {
  if (bytes <= scratch.byteLength) return scratch;
  const fresh = Buffer.allocUnsafeSlow(bytes);
  if (bytes <= SCRATCH_KEPT) scratch = fresh;
  return fresh;
}

/**
 * The body parsed as JSON.parse would parse it, with the string values of
 * `keys` read from the bytes and swapped in `as` says; undefined when this
 * cannot be done exactly, and the caller must parse the body as a whole.
 */
export function parseWithBinaryFields(body: Uint8Array, keys: readonly string[], minLength = MIN_CUT_LENGTH, as: BinaryAs = 'text'): { value: unknown } | undefined {
  // One request's files at most are remembered, even if a task forgot to call forgetDecoded.
  forgetDecoded();
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const found = findCuts(bytes, keys, minLength);
  const staging = scratchOf(found.reduce((sum, cut) => sum + roomOf(cut), 0));
  const decoded: Decoded[] = [];
  let at = 0;
  // Only values that are base64 as they stand: no character JSON would read differently (decodeCanonical).
  const cuts = found.filter((cut) => {
    const value = decodeCut(bytes, cut, staging, at, as);
    if (value === undefined) return false;
    decoded.push(value);
    at += roomOf(cut);
    return true;
  });
  if (cuts.length === 0) return undefined;
  // '~' and '#' outside a string are not JSON, so a placeholder landing outside one fails the parse.
  const marker = `~#${randomBytes(12).toString('hex')}#`;
  const rest = outsideCuts(bytes, cuts);
  // Looked for outside the cut values only: base64 holds neither '~' nor '#', so none can hold a marker or part of one.
  if (rest.some((part) => part.indexOf(marker, 0, 'latin1') >= 0)) return undefined;

  let text = '';
  try {
    for (const [index, part] of rest.entries()) text += index === 0 ? decoder.decode(part) : marker + (index - 1) + decoder.decode(part);
  } catch {
    return undefined;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  // Decoded bytes are never longer than their base64, so each lands inside its own value.
  const views = cuts.map((cut, index) => new Uint8Array(body.buffer, body.byteOffset + cut.start, (decoded[index] as Decoded).length));
  const members = decoded.map(({ textLength, text: string }, index) => string ?? new DecodedBase64(views[index] as Uint8Array, textLength));
  const placed = new Set<number>();
  const swapped = swap(value, marker, members, placed);
  if (placed.size !== cuts.length) return undefined;
  at = 0;
  for (const [index, cut] of cuts.entries()) {
    const { length, text: string } = decoded[index] as Decoded;
    staging.copy(bytes, cut.start, at, at + length);
    if (string !== undefined) remember(string, views[index] as Uint8Array);
    at += roomOf(cut);
  }
  return { value: swapped };
}

/** The body's bytes before, between and after the cut values. */
function outsideCuts(bytes: Buffer, cuts: readonly Cut[]): Buffer[] {
  let from = 0;
  const parts = cuts.map((cut) => {
    const part = bytes.subarray(from, cut.start);
    from = cut.end;
    return part;
  });
  parts.push(bytes.subarray(from));
  return parts;
}

/** Bytes a cut value may decode to: 3 for every 4 characters. */
function roomOf(cut: Cut): number {
  return Math.floor(((cut.end - cut.start) * 3) / 4);
}

/** Decodes one cut value into `target` at `at`, from its bytes ('bytes') or its string ('text'); undefined when it is not base64 as it stands. */
function decodeCut(bytes: Buffer, cut: Cut, target: Buffer, at: number, as: BinaryAs): Decoded | undefined {
  if (as === 'bytes') {
    const read = decodeCanonicalAscii(bytes, cut.start, cut.end, target, at);
    return read === undefined ? undefined : { length: read.bytes, textLength: read.textLength };
  }
  const text = bytes.toString('latin1', cut.start, cut.end);
  const length = decodeCanonical(text, target, at);
  return length === undefined ? undefined : { length, textLength: text.length, text };
}

/**
 * Quote-delimited string values of `keys`, in body order, that may be cut
 * out as they are: from a key's value to the next quote. Whether that is
 * the whole value is left to the decoding: a value is cut only if it is
 * canonical base64 (decodeCut), whose alphabet has no backslash (so the
 * quote found is the closing one, not an escaped one), no byte outside
 * ASCII and no control character, i.e. nothing JSON.parse would read
 * differently. (Checking for backslashes and non-ASCII bytes here first
 * was two more passes over the value, memory-bound at this size: perf put
 * memchr at 17% of a worker's CPU on image-compress bodies.)
 */
function findCuts(bytes: Buffer, keys: readonly string[], minLength: number): Cut[] {
  const cuts: Cut[] = [];
  for (const key of keys) {
    const pattern = `"${key}"`;
    let at = bytes.indexOf(pattern, 0, 'latin1');
    while (at >= 0) {
      let next = at + pattern.length;
      const cut = valueAfter(bytes, at, pattern.length, minLength);
      if (cut !== undefined) {
        cuts.push(cut);
        // The value holds no quote, so no key starts inside it: the search goes on from its end, not through its megabytes.
        next = cut.end;
      }
      at = bytes.indexOf(pattern, next, 'latin1');
    }
  }
  return cuts.sort((a, b) => a.start - b.start);
}

/** The string value after the key found at `at`, if it is long enough to cut. */
function valueAfter(bytes: Buffer, at: number, keyLength: number, minLength: number): Cut | undefined {
  if (escaped(bytes, at)) return undefined;
  let open = skipSpace(bytes, at + keyLength);
  if (bytes[open] !== 0x3a) return undefined; // ':'
  open = skipSpace(bytes, open + 1);
  if (bytes[open] !== QUOTE) return undefined;
  const start = open + 1;
  const end = bytes.indexOf(QUOTE, start);
  if (end < 0 || end - start < minLength) return undefined;
  return { start, end };
}

/** Whether the quote at `at` is preceded by an odd run of backslashes. */
function escaped(bytes: Buffer, at: number): boolean {
  let run = 0;
  while (at - run - 1 >= 0 && bytes[at - run - 1] === BACKSLASH) run++;
  return run % 2 === 1;
}

/** JSON white space (RFC 8259 section 2). */
function skipSpace(bytes: Buffer, at: number): number {
  let i = at;
  while (bytes[i] === 0x20 || bytes[i] === 0x09 || bytes[i] === 0x0a || bytes[i] === 0x0d) i++;
  return i;
}

/**
 * The parsed value with every whole-string placeholder replaced, recording
 * which were placed. A placeholder placed twice cannot happen (each occurs
 * once in the text); one inside a longer string is left, so it counts as
 * missing and the whole parse is given up.
 */
function swap(value: unknown, marker: string, members: readonly unknown[], placed: Set<number>): unknown {
  if (typeof value === 'string') {
    if (!value.startsWith(marker)) return value;
    const index = Number(value.slice(marker.length));
    if (!Number.isInteger(index) || members[index] === undefined || `${marker}${index}` !== value) return value;
    placed.add(index);
    return members[index];
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = swap(value[i], marker, members, placed);
    return value;
  }
  if (typeof value === 'object' && value !== null) {
    const object = value as Record<string, unknown>;
    for (const key of Object.keys(object)) {
      const swapped = swap(object[key], marker, members, placed);
      // Defined, not assigned: JSON.parse makes "__proto__" an own property, and assigning it would set the prototype.
      if (swapped !== object[key]) Object.defineProperty(object, key, { value: swapped, writable: true, enumerable: true, configurable: true });
    }
    return object;
  }
  return value;
}
