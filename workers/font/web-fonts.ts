// WOFF and WOFF2 back to the sfnt font they wrap, so HarfBuzz (which reads
// sfnt only) can subset them. The result is always an uncompressed
// TrueType/OpenType font (or collection, from a WOFF2 collection).
//
// WOFF 1.0 (W3C, https://www.w3.org/TR/WOFF/) is each table zlib-compressed
// on its own: unpacked here with node:zlib. WOFF2 (https://www.w3.org/TR/WOFF2/)
// is one Brotli stream plus the glyf/loca and hmtx transforms: decoded by
// wawoff2, the WebAssembly build of Google's reference woff2 library, loaded
// only when a WOFF2 font arrives.
import { createRequire } from 'node:module';
import { inflateSync } from 'node:zlib';
import { FontError } from './sfnt-faces.js';
import { sfntSize, writeSfnt } from './sfnt-writer.js';

const WOFF = 0x774f4646; // 'wOFF'
const WOFF2 = 0x774f4632; // 'wOF2'

/** Google's woff2 decoder writes at most woff2::kDefaultMaxSize (30 MiB) of font, whatever the header says. */
export const WOFF2_MAX_DECODED = 30 * 1024 * 1024;

/** The unpacked font would pass the size cap: 413 font-too-large. */
export class FontTooLargeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FontTooLargeError';
  }
}

export type FontFormat = 'sfnt' | 'woff' | 'woff2';

export function formatOf(bytes: Uint8Array): FontFormat {
  if (bytes.byteLength < 4) return 'sfnt';
  const signature = new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0);
  return signature === WOFF ? 'woff' : signature === WOFF2 ? 'woff2' : 'sfnt';
}

/** The sfnt font inside `bytes` (the bytes themselves when they are one); at most `maxBytes` of it. */
export async function unwrap(bytes: Uint8Array, maxBytes: number): Promise<Uint8Array> {
  switch (formatOf(bytes)) {
    case 'woff':
      return unpackWoff(bytes, maxBytes);
    case 'woff2':
      return decodeWoff2(bytes, maxBytes);
    case 'sfnt':
      return bytes;
  }
}

/** WOFF 1.0: a 44-byte header, 20-byte table entries, each table zlib-compressed or stored. */
function unpackWoff(bytes: Uint8Array, maxBytes: number): Uint8Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < 44) throw new FontError('the WOFF header is truncated');
  const flavor = view.getUint32(4);
  const count = view.getUint16(12);
  if (count === 0 || 44 + 20 * count > bytes.byteLength) throw new FontError('the WOFF table directory is empty or truncated');
  const entries: Array<{ tag: number; offset: number; compressed: number; length: number; checksum: number }> = [];
  for (let i = 0; i < count; i++) {
    const at = 44 + 20 * i;
    const entry = { tag: view.getUint32(at), offset: view.getUint32(at + 4), compressed: view.getUint32(at + 8), length: view.getUint32(at + 12), checksum: view.getUint32(at + 16) };
    if (entry.offset + entry.compressed > bytes.byteLength) throw new FontError(`WOFF table ${i} runs past the end of the data (a truncated file?)`);
    if (entry.compressed > entry.length) throw new FontError(`WOFF table ${i} is stored larger than its own size`);
    entries.push(entry);
  }
  // Checked before inflating anything: a few KB of zlib can claim gigabytes.
  const total = sfntSize(entries.map((entry) => entry.length));
  if (total > maxBytes) throw new FontTooLargeError(`the WOFF font unpacks to ${total} bytes, over the ${maxBytes}-byte limit`);
  return writeSfnt(
    flavor,
    entries.map((entry, i) => {
      const data = bytes.subarray(entry.offset, entry.offset + entry.compressed);
      return { tag: entry.tag, checksum: entry.checksum, data: entry.compressed === entry.length ? data : inflateTable(data, entry.length, i) };
    }),
  );
}

function inflateTable(data: Uint8Array, length: number, index: number): Uint8Array {
  let table: Buffer;
  try {
    table = inflateSync(data, { maxOutputLength: Math.max(length, 1) });
  } catch {
    throw new FontError(`WOFF table ${index} does not decompress (damaged zlib data)`);
  }
  if (table.byteLength !== length) throw new FontError(`WOFF table ${index} decompresses to ${table.byteLength} bytes instead of ${length}`);
  return table;
}

type Woff2Decoder = (bytes: Uint8Array) => Promise<Uint8Array>;
let woff2Decoder: Woff2Decoder | undefined;

let woff2Queue: Promise<unknown> = Promise.resolve();

async function decodeWoff2(bytes: Uint8Array, maxBytes: number): Promise<Uint8Array> {
  if (bytes.byteLength < 48) throw new FontError('the WOFF2 header is truncated');
  const declared = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(16); // totalSfntSize
  if (declared > maxBytes) throw new FontTooLargeError(`the WOFF2 font declares ${declared} bytes unpacked, over the ${maxBytes}-byte limit`);
  if (declared > WOFF2_MAX_DECODED) {
    throw new FontError(`the WOFF2 font declares ${declared} bytes unpacked; WOFF2 fonts over ${WOFF2_MAX_DECODED} bytes unpacked are not supported: send the TrueType or OpenType font instead`);
  }
  woff2Decoder ??= createRequire(import.meta.url)('wawoff2/decompress.js') as Woff2Decoder;
  // The decoder answers with a view into its own heap, which its next call
  // reuses (or detaches, growing it): copied out, and one call at a time, or
  // a second decode started before the first's copy overwrote it (fill-form
  // loading the Devanagari and Chinese faces at once got a non-font back).
  const decoding = woff2Queue.then(async () => (await (woff2Decoder as Woff2Decoder)(bytes)).slice());
  woff2Queue = decoding.catch(() => undefined);
  let sfnt: Uint8Array;
  try {
    sfnt = await decoding;
  } catch {
    throw new FontError('the WOFF2 data does not decode (damaged or truncated)');
  }
  if (sfnt.byteLength > maxBytes) throw new FontTooLargeError(`the WOFF2 font unpacks to ${sfnt.byteLength} bytes, over the ${maxBytes}-byte limit`);
  return sfnt;
}
