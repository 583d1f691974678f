// The optimize task run directly (no server, no pool) on images it must
// leave exactly as they were beside one it must downsample: Indexed,
// 16-bit, a custom /Decode, CMYK JPEG, and a Flate stream that does not
// inflate. Each is 600 x 400 pixels placed 60 x 40 pt (720 ppi), far above
// the ebook target, so only the handled image may change; pdfimages -list
// reads the result, qpdf --check checks it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deflateSync } from 'node:zlib';
import { concatTransformationMatrix, drawObject, PDFDocument, PDFName, popGraphicsState, pushGraphicsState, type PDFRef } from '@cantoo/pdf-lib';
import sharp from 'sharp';
import { optimize } from '../../workers/docops/optimize.js';
import { photoPixels } from '../fixtures/photo.js';
import { pdfImages, qpdfCheck } from '../helpers/pdf-tools.js';

const W = 600;
const H = 400;

async function documentWithImages(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const context = doc.context;
  const image = (bytes: Uint8Array, dict: Record<string, unknown>): PDFRef =>
    context.register(context.stream(bytes, { Type: 'XObject', Subtype: 'Image', Width: W, Height: H, ...dict }));
  const rgb = photoPixels(W, H);
  const gray = Buffer.alloc(W * H);
  for (let i = 0; i < W * H; i++) gray[i] = rgb[i * 3] as number;
  const gray16 = Buffer.alloc(W * H * 2);
  for (let i = 0; i < W * H; i++) gray16.writeUInt16BE((gray[i] as number) * 257, i * 2);
  const palette = Buffer.alloc(256 * 3);
  for (let i = 0; i < 256; i++) palette.set([i, 255 - i, (i * 7) & 255], i * 3);
  const cmyk = await sharp(rgb, { raw: { width: W, height: H, channels: 3 } }).toColourspace('cmyk').jpeg({ quality: 90 }).toBuffer();
  const images: Array<[string, PDFRef]> = [
    ['handled', image(deflateSync(rgb), { ColorSpace: 'DeviceRGB', BitsPerComponent: 8, Filter: 'FlateDecode' })],
    ['indexed', image(deflateSync(gray), { ColorSpace: ['Indexed', 'DeviceRGB', 255, context.register(context.flateStream(palette))], BitsPerComponent: 8, Filter: 'FlateDecode' })],
    ['sixteen', image(deflateSync(gray16), { ColorSpace: 'DeviceGray', BitsPerComponent: 16, Filter: 'FlateDecode' })],
    ['decode', image(deflateSync(gray), { ColorSpace: 'DeviceGray', BitsPerComponent: 8, Filter: 'FlateDecode', Decode: [1, 0] })],
    ['cmyk', image(cmyk, { ColorSpace: 'DeviceCMYK', BitsPerComponent: 8, Filter: 'DCTDecode' })],
    ['broken', image(Buffer.alloc(50_000, 0x5a), { ColorSpace: 'DeviceRGB', BitsPerComponent: 8, Filter: 'FlateDecode' })],
  ];
  const page = doc.addPage([612, 792]);
  images.forEach(([name, ref], i) => {
    page.node.setXObject(PDFName.of(name), ref);
    page.pushOperators(pushGraphicsState(), concatTransformationMatrix(60, 0, 0, 40, 72, 700 - i * 60), drawObject(name), popGraphicsState());
  });
  return doc.save({ useObjectStreams: false });
}

test('optimize leaves alone every image it cannot resample safely, and downsamples the one it can', async () => {
  const source = await documentWithImages();
  const body = Buffer.from(JSON.stringify({ pdf: Buffer.from(source).toString('base64') }));
  const outcome = await optimize({ body: body.buffer.slice(body.byteOffset, body.byteOffset + body.length), length: body.length, options: { maxPages: 2000 } });
  assert.ok(outcome.ok, JSON.stringify(outcome));
  assert.deepEqual(outcome.value.headers?.[0], ['X-Optimization', 'optimized']);
  const result = new Uint8Array(outcome.value.body);
  await qpdfCheck(result);
  const before = await pdfImages(source);
  const after = await pdfImages(result);
  assert.equal(after.length, 6);
  // pdfimages lists them in painting order: handled, indexed, sixteen, decode, cmyk, broken.
  const [handled, ...kept] = after;
  assert.deepEqual([handled?.width, handled?.height, handled?.ppi], [125, 83, 150]);
  assert.deepEqual(
    kept.map((image) => [image.width, image.height, image.color, image.encoding]),
    before.slice(1).map((image) => [image.width, image.height, image.color, image.encoding]),
  );
  assert.deepEqual(kept.map((image) => image.width), [W, W, W, W, W]);
});
