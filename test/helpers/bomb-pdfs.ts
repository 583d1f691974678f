// Decompression bombs (reliability plan case 26), built here byte by byte so
// each says how it was made: small files whose streams inflate to far more
// than they hold. A zlib stream of `n` repeated bytes is one full-flushed
// deflate block of 1 MiB repeated (a full flush resets the window, so every
// copy is the same bytes) plus the Adler-32 of the whole, computed rather
// than inflated: a 2 GiB stream costs ~2 MB and a few milliseconds to write.
// Deflated once more ([/FlateDecode /FlateDecode]) it shrinks to a few KB.
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

/** A stream object of `size` decoded bytes of `fill`, deflated twice. */
function bombStream(size: number, extraDict = '', fill = 0x20): Buffer {
  const data = deflateSync(zlibOfRepeated(size, fill));
  return Buffer.concat([Buffer.from(`<< /Length ${data.length} /Filter [/FlateDecode /FlateDecode]${extraDict} >>\nstream\n`, 'latin1'), data, Buffer.from('\nendstream', 'latin1')]);
}

function plainStream(text: string): Buffer {
  return Buffer.from(`<< /Length ${Buffer.byteLength(text, 'latin1')} >>\nstream\n${text}\nendstream`, 'latin1');
}

const HEADER = '%PDF-1.7\n%\xe2\xe3\xcf\xd3\n';
const FONT = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>';
const TEXT = 'BT /F1 12 Tf 72 720 Td (Bomb) Tj ET';

/** Objects numbered from 1, a cross-reference table, /Root 1 0 R. */
function pdfOf(objects: readonly (string | Buffer)[]): Uint8Array {
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
export function contentBomb(size: number): Uint8Array {
  return pdfOf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents [5 0 R 6 0 R] >>',
    FONT,
    plainStream(TEXT),
    bombStream(size),
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

/** One page drawing a Flate RGB image of `width` x `height` whose samples are all there (zeros, deflated twice). */
export function imageBomb(width: number, height: number): Uint8Array {
  const size = width * height * 3;
  return pdfOf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> /XObject << /Im1 6 0 R >> >> /Contents 5 0 R >>',
    FONT,
    plainStream(`${TEXT}\nq 200 0 0 200 72 300 cm /Im1 Do Q`),
    bombStream(size, ` /Type /XObject /Subtype /Image /Width ${width} /Height ${height} /ColorSpace /DeviceRGB /BitsPerComponent 8`, 0),
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
 * A PDF 1.5 file whose page object sits in an object stream padded with
 * `size` bytes of spaces after it: finding the page means inflating the
 * whole object stream. Cross-reference stream (ISO 32000-1 7.5.8), no filter.
 */
export function objectStreamBomb(size: number): Uint8Array {
  const page = '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>';
  const header = '3 0 ';
  // The object stream's decoded bytes: its header, the page, then the padding (inside the page's extent).
  const objStm = deflateSync(zlibOfRepeated(size, 0x20, Buffer.from(`${header}${page} `, 'latin1')));
  const objects: Buffer[] = [
    Buffer.from('<< /Type /Catalog /Pages 2 0 R >>', 'latin1'),
    Buffer.from('<< /Type /Pages /Kids [3 0 R] /Count 1 >>', 'latin1'),
    Buffer.alloc(0), // 3: in the object stream (object 6)
    Buffer.from(FONT, 'latin1'),
    plainStream(TEXT),
    Buffer.concat([Buffer.from(`<< /Type /ObjStm /N 1 /First ${header.length} /Length ${objStm.length} /Filter [/FlateDecode /FlateDecode] >>\nstream\n`, 'latin1'), objStm, Buffer.from('\nendstream', 'latin1')]),
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
  // Cross-reference stream: W [1 4 2]; object 7 is the xref stream itself.
  const rows: Buffer[] = [row(0, 0, 65535)];
  offsets.forEach((offset, i) => rows.push(i === 2 ? row(2, 6, 0) : row(1, offset, 0)));
  rows.push(row(1, length, 0));
  const table = Buffer.concat(rows);
  parts.push(Buffer.from(`7 0 obj\n<< /Type /XRef /Size 8 /W [1 4 2] /Root 1 0 R /Length ${table.length} >>\nstream\n`, 'latin1'), table, Buffer.from(`\nendstream\nendobj\nstartxref\n${length}\n%%EOF\n`, 'latin1'));
  return new Uint8Array(Buffer.concat(parts));
}

function row(type: number, field2: number, field3: number): Buffer {
  const out = Buffer.alloc(7);
  out.writeUInt8(type, 0);
  out.writeUInt32BE(field2, 1);
  out.writeUInt16BE(field3, 5);
  return out;
}
