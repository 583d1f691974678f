// The shared checks on untrusted bytes (workers/untrusted/): one decision
// each, and every task that takes such bytes reaching the same one. The
// image checks of the render engine and of image-compress had drifted
// (HEIF refused only when HEVC-coded in one, unless AV1-coded in the
// other), and the two sfnt readers disagreed on duplicated tables (issue 9).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { render } from '../../workers/render/task.js';
import { imageCompress } from '../../workers/image/compress.js';
import { undecodable } from '../../workers/untrusted/image-bytes.js';
import { checkSfnt } from '../../workers/untrusted/sfnt.js';
import { FontError } from '../../workers/untrusted/sfnt-directory.js';
import { checkFace, faceCount } from '../../workers/font/sfnt-faces.js';
import { checkPdfBytes } from '../../workers/untrusted/pdf-bytes.js';
import type { Outcome } from '../../workers/protocol.js';
import { DEJAVU_SANS } from '../helpers/font-tools.js';

const COMPRESS_OPTIONS = { maxImageBytes: 1 << 24, maxImagePixels: 1 << 24, timeoutMs: 30_000 };

function input<Options>(body: object, options: Options) {
  const bytes = new TextEncoder().encode(JSON.stringify(body));
  return { body: bytes.buffer as ArrayBuffer, length: bytes.byteLength, options };
}

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

/** What each task says about the bytes, the subject left out: the render engine's error message and image-compress's detail. */
async function verdicts(bytes: Uint8Array): Promise<{ render: string; compress: string }> {
  const rendered = (await render(input({ operations: [{ type: 'add_image', data: b64(bytes) }] }, {}))) as Outcome;
  const compressed = (await imageCompress(input({ image_data: b64(bytes) }, COMPRESS_OPTIONS))) as Outcome;
  assert.ok(!rendered.ok && !compressed.ok);
  return {
    render: (rendered.errors?.[0]?.message ?? '').replace(/^the image /, ''),
    compress: compressed.detail.replace(/^image_data /, '').replace(/\.$/, ''),
  };
}

test('HEIF: one decision, AV1 (AVIF) only; HEVC and any other coding refused', () => {
  assert.equal(undecodable('heif', { format: 'heif', compression: 'av1' }), undefined);
  // 'jpeg' is not in sharp's type (libvips 8.17 names av1 and hevc), which is why the check cannot enumerate refusals.
  for (const compression of ['hevc', 'jpeg', undefined]) {
    const refusal = undecodable('heif', { format: 'heif', compression: compression as 'hevc' | undefined });
    assert.ok(refusal !== undefined, `HEIF coded ${String(compression)} is refused`);
    assert.equal(refusal.kind, 'unsupported');
  }
  assert.equal(undecodable('png', { format: 'jpeg' })?.kind, 'unsupported', 'the decoder must agree with the magic bytes');
});

test('the render engine and image-compress refuse the same image bytes in the same words', async () => {
  const jpeg = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3366aa' } }).jpeg().toBuffer();
  const cases: Array<[string, Uint8Array]> = [
    ['SVG', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>')],
    ['PDF', Buffer.from('%PDF-1.4\n1 0 obj << >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n')],
    ['HEIC brand, no image', Buffer.concat([Buffer.from('\0\0\0\x18ftypheic\0\0\0\0mif1heic', 'latin1'), Buffer.alloc(64, 1)])],
    ['truncated JPEG', jpeg.subarray(0, jpeg.length >> 1)],
  ];
  for (const [name, bytes] of cases) {
    const { render: said, compress } = await verdicts(bytes);
    assert.equal(said, compress, name);
  }
});

test('no library text in what the image checks say', async () => {
  const png = await sharp({ create: { width: 40, height: 40, channels: 3, background: '#aa3366' } }).png().toBuffer();
  const jpeg = await sharp({ create: { width: 40, height: 40, channels: 3, background: '#aa3366' } }).jpeg().toBuffer();
  const webp = await sharp({ create: { width: 40, height: 40, channels: 3, background: '#aa3366' } }).webp().toBuffer();
  const damaged = (bytes: Buffer) => {
    const copy = Buffer.from(bytes);
    for (let i = Math.floor(copy.length / 2); i < copy.length - 4; i++) copy[i] = 0x5a ^ (copy[i] as number);
    return copy;
  };
  for (const [name, bytes] of [
    ['truncated PNG', png.subarray(0, png.length - 30)],
    ['damaged PNG', damaged(png)],
    ['truncated JPEG', jpeg.subarray(0, jpeg.length >> 1)],
    ['damaged JPEG', damaged(jpeg)],
    ['truncated WebP', webp.subarray(0, webp.length >> 1)],
  ] as const) {
    const { render: said, compress } = await verdicts(bytes);
    for (const text of [said, compress]) {
      assert.doesNotMatch(text, /vips|libpng|libjpeg|libwebp|jpeg_|png_|VipsJpeg|webp2vips|read error|\(|sharp/i, `${name}: ${text}`);
      assert.match(text, /truncated|damaged/, `${name}: ${text}`);
    }
  }
});

/** DejaVuSans with its first table record listed again in place of the last one. */
function duplicatedTable(): Uint8Array {
  const font = Buffer.from(readFileSync(DEJAVU_SANS));
  const count = font.readUInt16BE(4);
  font.copy(font, 12 + 16 * (count - 1), 12, 28);
  return font;
}

test('one sfnt reader: a table listed twice is refused by both font paths', () => {
  const font = duplicatedTable();
  assert.throws(() => checkSfnt(font), (error) => error instanceof FontError && /lists two/.test(error.message));
  assert.equal(faceCount(font), 1);
  assert.throws(() => checkFace(font, 0), (error) => error instanceof FontError && /lists two/.test(error.message));
  const truncated = readFileSync(DEJAVU_SANS).subarray(0, 1000);
  const messages = [() => checkSfnt(truncated), () => checkFace(truncated, 0)].map((check) => {
    try {
      check();
    } catch (error) {
      return (error as Error).message;
    }
    return 'accepted';
  });
  assert.equal(messages[0], messages[1], 'the same words for the same fault');
  assert.match(messages[0] as string, /runs past the end of the data/);
});

test('the PDF-bytes pre-check: empty, headerless, header past 1024 bytes, over the cap', () => {
  const pdf = Buffer.from('%PDF-1.7\n%%EOF\n');
  assert.equal(checkPdfBytes(pdf, 'pdf'), undefined);
  assert.equal(checkPdfBytes(Buffer.concat([Buffer.alloc(1000, 32), pdf]), 'pdf'), undefined, 'junk before the header within 1024 bytes is allowed');
  assert.equal(checkPdfBytes(Buffer.concat([Buffer.alloc(1100, 32), pdf]), 'pdf')?.kind, 'not-a-pdf');
  assert.match(checkPdfBytes(new Uint8Array(0), 'documents[2].pdf')?.message ?? '', /^documents\[2\]\.pdf is empty/);
  assert.match(checkPdfBytes(Buffer.from('hello'), 'pdf_a')?.message ?? '', /^pdf_a is not a PDF/);
  assert.equal(checkPdfBytes(pdf, 'pdf', 10)?.kind, 'too-large');
});
