// A task's JSON answer as bytes (the envelope's `data`, json-task.ts), with
// the files in it (a compressed image, ...) written in as base64 straight
// from their bytes rather than through JSON.stringify and TextEncoder.
//
// Why: V8's JSON.stringify reads a long string a character at a time to
// escape it, though base64 never needs escaping, and the JSON text is then
// copied again into UTF-8. For the image bench's answer (an 80 KB JPEG,
// 107 KB of base64) that was 276 µs a request against 32 µs written
// directly (2,000 calls each, CPU time), and perf put JsonStringifier at
// ~5% of a worker thread's CPU on image-compress requests.
//
// How: serializeAnswer stringifies with each Base64Answer standing in as a
// placeholder string (a per-call random marker and its index, which no
// other string in the answer can hold but by a 96-bit chance, and which is
// checked for anyway), then writes the text around the placeholders and
// each file's base64 into one buffer of the exact size.
import { randomBytes } from 'node:crypto';

/** A member of an answer that is a file: serialised as the base64 text of its bytes. */
export class Base64Answer {
  constructor(readonly bytes: Uint8Array) {}

  /** Within serializeAnswer a placeholder; anywhere else (a test, a log) the base64 text itself. */
  toJSON(): string {
    if (writing === undefined) return base64Of(this.bytes);
    // Made on the first file, so that answers without one cost nothing more than JSON.stringify.
    // '~' and '#' are not base64, so a placeholder cannot be mistaken for a file's text.
    writing.marker ??= `~#${randomBytes(12).toString('hex')}#`;
    writing.files.push(this);
    return `${writing.marker}${writing.files.length - 1}`;
  }
}

/** The answer being serialised (JSON.stringify is synchronous: one at a time per thread). */
let writing: { marker: string | undefined; readonly files: Base64Answer[] } | undefined;

const encoder = new TextEncoder();
const QUOTE = 0x22;

/** `data` as UTF-8 JSON, exactly the bytes JSON.stringify and TextEncoder would make of it with each Base64Answer as its base64 string. */
export function serializeAnswer(data: unknown): Uint8Array {
  const files: Base64Answer[] = [];
  const context: NonNullable<typeof writing> = { marker: undefined, files };
  writing = context;
  let json: string;
  try {
    json = JSON.stringify(data);
  } finally {
    writing = undefined;
  }
  if (context.marker === undefined) return encoder.encode(json);
  const parts = splitAtPlaceholders(json, context.marker, files.length);
  // A string of the answer that happened to hold the marker: serialise the plain way (toJSON gives the base64 now).
  if (parts === undefined) return encoder.encode(JSON.stringify(data));
  const texts = files.map((file) => base64Of(file.bytes));
  const size = parts.reduce((sum, part) => sum + Buffer.byteLength(part, 'utf8'), 0) + texts.reduce((sum, text) => sum + text.length + 2, 0);
  // Not zeroed: every byte is written below.
  const out = Buffer.allocUnsafeSlow(size);
  let at = 0;
  for (const [index, part] of parts.entries()) {
    at += out.write(part, at, 'utf8');
    const text = texts[index];
    if (text === undefined) break;
    out[at++] = QUOTE;
    at += out.write(text, at, 'latin1');
    out[at++] = QUOTE;
  }
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

/** The JSON text around the `count` quoted placeholders, in order; undefined unless each occurs once, as a whole string, and the marker nowhere else. */
function splitAtPlaceholders(json: string, marker: string, count: number): string[] | undefined {
  const parts: string[] = [];
  let from = 0;
  for (let index = 0; index < count; index++) {
    const placeholder = `"${marker}${index}"`;
    const at = json.indexOf(placeholder, from);
    // The first marker after the last placeholder must be this one's.
    if (at < 0 || json.indexOf(marker, from) !== at + 1) return undefined;
    parts.push(json.slice(from, at));
    from = at + placeholder.length;
  }
  if (json.indexOf(marker, from) >= 0) return undefined;
  parts.push(json.slice(from));
  return parts;
}

function base64Of(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}
