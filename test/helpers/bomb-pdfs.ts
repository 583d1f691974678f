// Decompression bombs (reliability plan case 26), built here byte by byte so
// each says how it was made: small files whose streams inflate to far more
// than they hold. A zlib stream of `n` repeated bytes is one full-flushed
// deflate block of 1 MiB repeated (a full flush resets the window, so every
// copy is the same bytes) plus the Adler-32 of the whole, computed rather
// than inflated: a 2 GiB stream costs ~2 MB and a few milliseconds to write.
// Deflated once more ([/FlateDecode /FlateDecode]) it shrinks to a few KB.
// The other encodings (one Flate layer, LZW, ASCII85 over Flate) are for
// qpdf, which decodes some filters and copies others (seams/qpdf-decodes.ts).
import { constants, deflateRawSync, deflateSync } from 'node:zlib';
import { photoJpeg } from './images.js';

const CHUNK = 1024 * 1024;
const ADLER_MOD = 65521n;

/**
 * zlib (RFC 1950) bytes inflating to `head` followed by `size` bytes of
 * `fill`; `size` a multiple of 1 MiB.
 */
export function zlibOfRepeated(size: number, fill = 0x20, head: Buffer = Buffer.alloc(0)): Buffer {
  if (size % CHUNK !== 0) throw new Error('size must be a multiple of 1 MiB');
  const headBlock = head.length === 0 ? Buffer.alloc(0) : deflateRawSync(head, { finishFlush: constants.Z_FULL_FLUSH });
  const block = deflateRawSync(Buffer.alloc(CHUNK, fill), { finishFlush: constants.Z_FULL_FLUSH, level: 9 });
  // Adler-32 (RFC 1950 section 8.2): over the head byte by byte, then n more
  // bytes c in closed form: A grows by n c, B by n A + c n (n + 1) / 2.
  let a = 1n;
  let b = 0n;
  for (const byte of head) {
    a = (a + BigInt(byte)) % ADLER_MOD;
    b = (b + a) % ADLER_MOD;
  }
  const n = BigInt(size);
  const c = BigInt(fill);
  b = (b + n * a + (c * n * (n + 1n)) / 2n) % ADLER_MOD;
  a = (a + n * c) % ADLER_MOD;
  const trailer = Buffer.alloc(4);
  trailer.writeUInt32BE(Number((b << 16n) | a));
  // 0x78 0xda: zlib header, deflate, 32 KiB window, best compression; 0x03 0x00: a final empty fixed block.
  return Buffer.concat([Buffer.from([0x78, 0xda]), headBlock, ...Array<Buffer>(size / CHUNK).fill(block), Buffer.from([0x03, 0x00]), trailer]);
}

/** How a bomb's bytes are encoded: Flate twice (the default), Flate once, LZW, or ASCII85 over Flate. */
export type BombEncoding = 'flate2' | 'flate' | 'lzw' | 'a85-flate';

function encoded(size: number, fill: number, encoding: BombEncoding): { data: Buffer; filter: string } {
  switch (encoding) {
    case 'flate2':
      return { data: deflateSync(zlibOfRepeated(size, fill)), filter: '[/FlateDecode /FlateDecode]' };
    case 'flate':
      return { data: zlibOfRepeated(size, fill), filter: '/FlateDecode' };
    case 'lzw':
      return { data: lzwEncode(Buffer.alloc(size, fill)), filter: '/LZWDecode' };
    case 'a85-flate':
      return { data: ascii85Encode(zlibOfRepeated(size, fill)), filter: '[/ASCII85Decode /FlateDecode]' };
  }
}

/** A stream object of `size` decoded bytes of `fill`, deflated twice unless `encoding` says otherwise. */
function bombStream(size: number, extraDict = '', fill = 0x20, encoding: BombEncoding = 'flate2'): Buffer {
  const { data, filter } = encoded(size, fill, encoding);
  return Buffer.concat([Buffer.from(`<< /Length ${data.length} /Filter ${filter}${extraDict} >>\nstream\n`, 'latin1'), data, Buffer.from('\nendstream', 'latin1')]);
}

function plainStream(text: string): Buffer {
  return Buffer.from(`<< /Length ${Buffer.byteLength(text, 'latin1')} >>\nstream\n${text}\nendstream`, 'latin1');
}

const HEADER = '%PDF-1.7\n%\xe2\xe3\xcf\xd3\n';
const FONT = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>';
const TEXT = 'BT /F1 12 Tf 72 720 Td (Bomb) Tj ET';

/** Objects numbered from 1 (strings, or buffers for binary streams), a cross-reference table, /Root 1 0 R. */
export function pdfOf(objects: readonly (string | Buffer)[]): Uint8Array {
  const parts: Buffer[] = [Buffer.from(HEADER, 'latin1')];
  let length = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(length);
    const object = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`, 'latin1'), typeof body === 'string' ? Buffer.from(body, 'latin1') : body, Buffer.from('\nendobj\n', 'latin1')]);
    parts.push(object);
    length += object.length;
  });
  const xref = ['xref', `0 ${objects.length + 1}`, '0000000000 65535 f ', ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n `)].join('\n');
  parts.push(Buffer.from(`${xref}\ntrailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`, 'latin1'));
  return new Uint8Array(Buffer.concat(parts));
}

/** One page whose content stream is `size` bytes of spaces after a line of text. */
export function contentBomb(size: number, encoding: BombEncoding = 'flate2'): Uint8Array {
  return pdfOf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents [5 0 R 6 0 R] >>',
    FONT,
    plainStream(TEXT),
    bombStream(size, '', 0x20, encoding),
  ]);
}

/**
 * Two pages sharing one resource dictionary, the first drawing `size` bytes
 * of spaces deflated once: qpdf --pages parses both pages' contents to drop
 * the resources each does not use (its `auto` test for shared resources).
 */
export function sharedResourcesBomb(size: number): Uint8Array {
  return pdfOf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources 5 0 R /Contents [7 0 R 8 0 R] >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources 5 0 R /Contents 7 0 R >>',
    '<< /Font << /F1 6 0 R >> >>',
    FONT,
    plainStream(TEXT),
    bombStream(size, '', 0x20, 'flate'),
  ]);
}

/** One page, and XMP metadata of `size` bytes of spaces deflated once: qpdf writes the catalog's XMP uncompressed, so decodes it. */
export function xmpBomb(size: number): Uint8Array {
  return pdfOf([
    '<< /Type /Catalog /Pages 2 0 R /Metadata 6 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    FONT,
    plainStream(TEXT),
    bombStream(size, ' /Type /Metadata /Subtype /XML', 0x20, 'flate'),
  ]);
}

/** One page drawing `count` content streams of `each` bytes of spaces (case 26 b: 1000 streams of 10 MB). */
export function manyStreamsBomb(count: number, each: number): Uint8Array {
  const first = 6;
  const refs = Array.from({ length: count }, (_, i) => `${first + i} 0 R`).join(' ');
  const stream = bombStream(each);
  return pdfOf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents [5 0 R ${refs}] >>`,
    FONT,
    plainStream(TEXT),
    ...Array<Buffer>(count).fill(stream),
  ]);
}

/** One page drawing a Flate RGB image of `width` x `height` whose samples are all there (zeros, deflated twice unless `encoding` says otherwise). */
export function imageBomb(width: number, height: number, encoding: BombEncoding = 'flate2'): Uint8Array {
  const size = width * height * 3;
  return pdfOf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> /XObject << /Im1 6 0 R >> >> /Contents 5 0 R >>',
    FONT,
    plainStream(`${TEXT}\nq 200 0 0 200 72 300 cm /Im1 Do Q`),
    bombStream(size, ` /Type /XObject /Subtype /Image /Width ${width} /Height ${height} /ColorSpace /DeviceRGB /BitsPerComponent 8`, 0, encoding),
  ]);
}

/** A real 16 x 16 baseline JPEG whose frame header (SOF0) declares `width` x `height` instead. */
export async function jpegDeclaring(width: number, height: number): Promise<Buffer> {
  const jpeg = Buffer.from(await photoJpeg(16, 16));
  for (let at = 2; at + 9 < jpeg.length; ) {
    if (jpeg[at] !== 0xff) throw new Error('not a marker');
    const marker = jpeg[at + 1]!;
    if (marker === 0xc0) {
      jpeg.writeUInt16BE(height, at + 5);
      jpeg.writeUInt16BE(width, at + 7);
      return jpeg;
    }
    at += 2 + jpeg.readUInt16BE(at + 2);
  }
  throw new Error('no SOF0 marker');
}

/** One page drawing a DCT image whose JPEG declares `width` x `height` (case 26 c) and holds 16 x 16. */
export async function dctBomb(width: number, height: number): Promise<Uint8Array> {
  const jpeg = await jpegDeclaring(width, height);
  const image = Buffer.concat([
    Buffer.from(`<< /Type /XObject /Subtype /Image /Width ${width} /Height ${height} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode /Length ${jpeg.length} >>\nstream\n`, 'latin1'),
    jpeg,
    Buffer.from('\nendstream', 'latin1'),
  ]);
  return pdfOf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> /XObject << /Im1 6 0 R >> >> /Contents 5 0 R >>',
    FONT,
    plainStream(`${TEXT}\nq 200 0 0 200 72 300 cm /Im1 Do Q`),
    image,
  ]);
}

/**
 * How a bomb is encrypted: each stream's data encrypted as `data` does it,
 * the encryption dictionary (an object of its own) and the trailer's
 * /Encrypt and /ID filled in from `dictionary` and `id`.
 */
export interface Sealing {
  readonly data: (bytes: Buffer) => Buffer;
  readonly dictionary: string;
  readonly id: string;
}

/**
 * A PDF 1.5 file whose page object sits in an object stream padded with
 * `size` bytes of spaces after it: finding the page means inflating the
 * whole object stream. Cross-reference stream (ISO 32000-1 7.5.8), no
 * filter. With `sealing`, encrypted (a cross-reference stream never is).
 */
export function objectStreamBomb(size: number, sealing?: Sealing): Uint8Array {
  const seal = sealing?.data ?? ((bytes: Buffer) => bytes);
  const page = '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>';
  const header = '3 0 ';
  // The object stream's decoded bytes: its header, the page, then the padding (inside the page's extent).
  const objStm = seal(deflateSync(zlibOfRepeated(size, 0x20, Buffer.from(`${header}${page} `, 'latin1'))));
  const content = seal(Buffer.from(TEXT, 'latin1'));
  const objects: Buffer[] = [
    Buffer.from('<< /Type /Catalog /Pages 2 0 R >>', 'latin1'),
    Buffer.from('<< /Type /Pages /Kids [3 0 R] /Count 1 >>', 'latin1'),
    Buffer.alloc(0), // 3: in the object stream (object 6)
    Buffer.from(FONT, 'latin1'),
    Buffer.concat([Buffer.from(`<< /Length ${content.length} >>\nstream\n`, 'latin1'), content, Buffer.from('\nendstream', 'latin1')]),
    Buffer.concat([Buffer.from(`<< /Type /ObjStm /N 1 /First ${header.length} /Length ${objStm.length} /Filter [/FlateDecode /FlateDecode] >>\nstream\n`, 'latin1'), objStm, Buffer.from('\nendstream', 'latin1')]),
    ...(sealing === undefined ? [] : [Buffer.from(sealing.dictionary, 'latin1')]),
  ];
  const parts: Buffer[] = [Buffer.from(HEADER, 'latin1')];
  let length = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    if (i === 2) {
      offsets.push(0);
      return;
    }
    offsets.push(length);
    const object = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`, 'latin1'), body, Buffer.from('\nendobj\n', 'latin1')]);
    parts.push(object);
    length += object.length;
  });
  // Cross-reference stream: W [1 4 2]; the last object is the xref stream itself.
  const rows: Buffer[] = [row(0, 0, 65535)];
  offsets.forEach((offset, i) => rows.push(i === 2 ? row(2, 6, 0) : row(1, offset, 0)));
  rows.push(row(1, length, 0));
  const table = Buffer.concat(rows);
  const xref = objects.length + 1;
  const encryption = sealing === undefined ? '' : ` /Encrypt 7 0 R /ID ${sealing.id}`;
  parts.push(Buffer.from(`${xref} 0 obj\n<< /Type /XRef /Size ${xref + 1} /W [1 4 2] /Root 1 0 R${encryption} /Length ${table.length} >>\nstream\n`, 'latin1'), table, Buffer.from(`\nendstream\nendobj\nstartxref\n${length}\n%%EOF\n`, 'latin1'));
  return new Uint8Array(Buffer.concat(parts));
}

function row(type: number, field2: number, field3: number): Buffer {
  const out = Buffer.alloc(7);
  out.writeUInt8(type, 0);
  out.writeUInt32BE(field2, 1);
  out.writeUInt16BE(field3, 5);
  return out;
}

/**
 * LZW (ISO 32000-1 7.4.4.2) with EarlyChange 1: codes of 9 to 12 bits, a
 * clear code first and whenever the table is full, the end-of-data code
 * last. The width of each code is the decoder's, whose table is one entry
 * behind the encoder's (pdf.js LZWStream).
 */
export function lzwEncode(data: Uint8Array): Buffer {
  const table = new Int16Array(4096 * 256).fill(-1); // (prefix code, byte) -> code
  const bits = new BitWriter();
  let next = 258;
  let written = 0; // codes since the last clear
  const width = () => Math.min(12, Math.floor(Math.log2(258 + Math.max(0, written - 1) + 1)) + 1);
  bits.write(256, 9);
  let prefix = -1;
  for (const byte of data) {
    if (prefix < 0) {
      prefix = byte;
      continue;
    }
    const found = table[prefix * 256 + byte] as number;
    if (found >= 0) {
      prefix = found;
      continue;
    }
    bits.write(prefix, width());
    written++;
    if (next < 4094) table[prefix * 256 + byte] = next++;
    else {
      bits.write(256, width());
      table.fill(-1);
      next = 258;
      written = 0;
    }
    prefix = byte;
  }
  if (prefix >= 0) {
    bits.write(prefix, width());
    written++;
  }
  bits.write(257, width());
  return bits.finish();
}

class BitWriter {
  readonly #bytes: number[] = [];
  #value = 0;
  #count = 0;

  write(code: number, width: number): void {
    this.#value = (this.#value << width) | code;
    this.#count += width;
    while (this.#count >= 8) {
      this.#count -= 8;
      this.#bytes.push((this.#value >>> this.#count) & 0xff);
    }
    this.#value &= (1 << this.#count) - 1;
  }

  finish(): Buffer {
    if (this.#count > 0) this.#bytes.push((this.#value << (8 - this.#count)) & 0xff);
    return Buffer.from(this.#bytes);
  }
}

/** ASCII85 (ISO 32000-1 7.4.3): four bytes as five characters, `z` for four zeros, `~>` at the end. */
export function ascii85Encode(data: Uint8Array): Buffer {
  let out = '';
  for (let i = 0; i < data.length; i += 4) {
    const group = data.subarray(i, i + 4);
    const padded = Buffer.alloc(4);
    padded.set(group);
    let value = padded.readUInt32BE(0);
    if (value === 0 && group.length === 4) {
      out += 'z';
      continue;
    }
    const digits: string[] = [];
    for (let k = 0; k < 5; k++) {
      digits.unshift(String.fromCharCode(33 + (value % 85)));
      value = Math.floor(value / 85);
    }
    out += digits.join('').slice(0, group.length + 1);
  }
  return Buffer.from(`${out}~>`, 'latin1');
}

/** RunLength (ISO 32000-1 7.4.5): runs of a byte as a repeat, the rest as literals, 128 at the end. */
export function runLengthEncode(data: Uint8Array): Buffer {
  const out: number[] = [];
  for (let i = 0; i < data.length; ) {
    let run = 1;
    while (run < 128 && i + run < data.length && data[i + run] === data[i]) run++;
    if (run > 1) {
      out.push(257 - run, data[i] as number);
      i += run;
      continue;
    }
    let literal = 1;
    while (literal < 128 && i + literal < data.length && data[i + literal] !== data[i + literal - 1]) literal++;
    out.push(literal - 1, ...data.subarray(i, i + literal));
    i += literal;
  }
  out.push(128);
  return Buffer.from(out);
}
