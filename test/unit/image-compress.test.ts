// The image-compress task without a pool or a server: the decisions of
// plan.ts for every input container, and the task called directly the way
// a worker runs it (bytes in, an Outcome out).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import * as v from 'valibot';
import { imageCompress } from '../../workers/image/compress.js';
import type { InputImage } from '../../workers/image/input.js';
import { plan } from '../../workers/image/plan.js';
import { CompressRequest } from '../../workers/image/request.js';
import { TaskFailure } from '../../workers/task/json-task.js';
import { sniffRaster } from '../../workers/untrusted/image-format.js';
import type { Outcome } from '../../workers/protocol.js';

const input = (extra: Partial<InputImage>): InputImage => ({
  bytes: new Uint8Array(1),
  format: 'jpeg',
  width: 10,
  height: 10,
  frames: 1,
  hasAlpha: false,
  greyscale: false,
  ...extra,
});
const request = (body: object) => v.parse(CompressRequest, { image_data: 'x', ...body });

test('without format: the input format, GIF as PNG (WebP when animated), TIFF as JPEG (PNG with alpha)', () => {
  const cases: Array<[Partial<InputImage>, object, string]> = [
    [{ format: 'jpeg' }, {}, 'jpeg'],
    [{ format: 'png' }, {}, 'png'],
    [{ format: 'webp' }, {}, 'webp'],
    [{ format: 'heif' }, {}, 'avif'],
    [{ format: 'gif', hasAlpha: true }, {}, 'png'],
    [{ format: 'gif', frames: 3 }, { options: { animated: true } }, 'webp'],
    [{ format: 'gif', frames: 1 }, { options: { animated: true } }, 'png'],
    [{ format: 'tiff' }, {}, 'jpeg'],
    [{ format: 'tiff', hasAlpha: true }, {}, 'png'],
    [{ format: 'png' }, { format: 'jpg' }, 'jpeg'],
  ];
  for (const [image, body, format] of cases) assert.equal(plan(request(body), input(image)).format, format, JSON.stringify([image, body]));
});

test('defaults: quality 80/80/50 and lossless PNG, lanczos3, sRGB unless grey, metadata stripped, one frame', () => {
  const chosen = (format: string, image: Partial<InputImage> = {}) => plan(request({ format }), input(image));
  assert.deepEqual(['jpeg', 'webp', 'avif', 'png'].map((f) => chosen(f).quality), [80, 80, 50, undefined]);
  assert.equal(plan(request({ format: 'png', options: { quality: 40 } }), input({})).quality, 40);
  const jpeg = chosen('jpeg');
  assert.deepEqual([jpeg.kernel, jpeg.colorSpace, jpeg.keepMetadata, jpeg.allFrames, jpeg.flatten], ['lanczos3', 'srgb', false, false, false]);
  assert.equal(chosen('jpeg', { greyscale: true }).colorSpace, 'b-w');
  assert.equal(plan(request({ options: { color_space: 'rgb' } }), input({ greyscale: true })).colorSpace, 'srgb');
  assert.equal(plan(request({ options: { resample: 'lanczos' } }), input({})).kernel, 'lanczos3');
  assert.equal(chosen('jpeg', { hasAlpha: true }).flatten, true);
  assert.equal(chosen('png', { hasAlpha: true }).flatten, false);
});

test('contradictions are field failures: cmyk without jpeg, kept frames without webp', () => {
  const failure = (body: object, image: Partial<InputImage>) => {
    try {
      plan(request(body), input(image));
    } catch (error) {
      assert.ok(error instanceof TaskFailure);
      return [error.code, error.errors[0]?.field, error.errors[0]?.code];
    }
    return undefined;
  };
  assert.deepEqual(failure({ format: 'webp', options: { color_space: 'cmyk' } }, {}), ['invalid', 'options.color_space', 'INVALID_VALUE']);
  assert.deepEqual(failure({ options: { color_space: 'cmyk' } }, { format: 'png' }), ['invalid', 'options.color_space', 'INVALID_VALUE']);
  assert.equal(failure({ options: { color_space: 'cmyk' } }, { format: 'jpeg' }), undefined);
  assert.deepEqual(failure({ format: 'png', options: { animated: true } }, { format: 'gif', frames: 2 }), ['invalid', 'options.animated', 'INVALID_VALUE']);
  assert.equal(failure({ format: 'png', options: { animated: true } }, { format: 'gif', frames: 1 }), undefined);
});

test('sniffing names raster containers only', async () => {
  const base = sharp({ create: { width: 4, height: 4, channels: 3, background: '#123' } });
  for (const format of ['png', 'jpeg', 'webp', 'gif', 'tiff'] as const) {
    assert.equal(sniffRaster(new Uint8Array(await base.clone().toFormat(format).toBuffer())), format);
  }
  assert.equal(sniffRaster(new Uint8Array(await base.clone().avif().toBuffer())), 'heif');
  for (const text of ['<svg xmlns="http://www.w3.org/2000/svg"/>', '%PDF-1.7\n%âãÏÓ\n', 'BM6\0\0\0\0\0\0\0\0\0', '\0\0\0\x0cjP  \r\n\x87\n']) {
    assert.equal(sniffRaster(new Uint8Array(Buffer.from(text, 'latin1'))), undefined, JSON.stringify(text.slice(0, 8)));
  }
});

test('the task called directly: bytes in, JSON bytes out, failures returned rather than thrown', async () => {
  const run = (body: object): Promise<Outcome> => {
    const bytes = new TextEncoder().encode(JSON.stringify(body));
    return imageCompress({ body: bytes.buffer as ArrayBuffer, length: bytes.byteLength, options: { maxImageBytes: 1 << 20, maxImagePixels: 1_000_000, timeoutMs: 60_000 } });
  };
  const jpeg = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#2a6' } }).jpeg().toBuffer();
  const ok = await run({ image_data: jpeg.toString('base64'), format: 'webp', options: { max_height: 24 } });
  assert.ok(ok.ok);
  assert.equal(ok.value.mediaType, 'application/json');
  const data = JSON.parse(new TextDecoder().decode(ok.value.body)) as Record<string, unknown>;
  assert.deepEqual({ ...data, image_data: undefined }, { image_data: undefined, original_size_bytes: jpeg.byteLength, compressed_size_bytes: Buffer.from(String(data.image_data), 'base64').byteLength, width: 32, height: 24, format: 'webp' });
  const bad = await run({ image_data: Buffer.from('GIF89a but not really a GIF').toString('base64') });
  assert.ok(!bad.ok);
  assert.equal(bad.code, 'invalid-image-data');
});
