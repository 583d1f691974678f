// Base64 payloads (fonts, images, PDFs) in JSON bodies, decoded in workers.

/** Why base64 data was refused: too many bytes, or not base64 at all. */
export interface Base64Problem {
  readonly problem: 'too-large' | 'invalid';
  readonly message: string;
}

/**
 * Decoded base64 (optionally a data: URI), or what is wrong with it.
 * Buffer.from skips characters outside the alphabet, so the result is
 * re-encoded and compared: a native-speed check, where a validating regex
 * over a 1 MB font was measurable.
 */
export function decodeBase64(value: string, maxBytes: number): Uint8Array | Base64Problem {
  let text = value.startsWith('data:') ? value.replace(DATA_URI, '') : value;
  if (text.includes('\n') || text.includes(' ') || text.includes('\r') || text.includes('\t')) text = text.replace(/\s+/g, '');
  // Checked on the encoded length, before decoding: 4 characters carry 3 bytes.
  if (Math.floor((text.length * 3) / 4) > maxBytes) return { problem: 'too-large', message: `must decode to at most ${maxBytes} bytes` };
  const known = decodedAlready.get(value);
  if (known !== undefined) return known;
  const encoding = text.includes('-') || text.includes('_') ? 'base64url' : 'base64';
  const bytes = Buffer.from(text, encoding);
  if (bytes.byteLength === 0 || withoutPadding(bytes.toString(encoding)) !== withoutPadding(text)) {
    return { problem: 'invalid', message: 'must be non-empty base64 data' };
  }
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

const DATA_URI = /^data:[\w.+/-]*;base64,/;

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
  const text = value.startsWith('data:') ? value.replace(DATA_URI, '') : value;
  if (text.length === 0 || text.includes(' ')) return false;
  const encoding = text.includes('-') || text.includes('_') ? 'base64url' : 'base64';
  const bytes = Buffer.from(text, encoding);
  if (bytes.byteLength === 0 || withoutPadding(bytes.toString(encoding)) !== withoutPadding(text)) return false;
  decodedAlready.set(value, new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  return true;
}

/** Called when a task ends. */
export function forgetDecoded(): void {
  decodedAlready.clear();
}

/** Strips trailing '=' without a regex (/=+$/ rescans the whole string from every position). */
function withoutPadding(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 61) end--;
  return end === text.length ? text : text.slice(0, end);
}
