// POST /v1/image/compress end to end, what comes out: images are built here
// with sharp, compressed by the real server, every answer is checked against
// the accelerator contract, and the returned bytes are decoded again with
// sharp (and, where installed, the vips CLI): format, size, channels, colour
// space, orientation, metadata, frames, and pixels where they prove a point.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { loadContract, requestSchema, assertValid, isNode, type Node } from './helpers/openapi.js';
import { KEYS } from './helpers/keys.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import {
  animated,
  b64,
  bandsImage,
  compress,
  compressed,
  hasVips,
  near,
  photoJpeg,
  pixelAt,
  pixels,
  problemOf,
  vipsHeader,
  vipsPoint,
  type Rgb,
} from './helpers/images.js';

const RED: Rgb = [255, 0, 0];
const GREEN: Rgb = [0, 255, 0];
const BLUE: Rgb = [0, 0, 255];

describe('POST /v1/image/compress: the output', () => {
  let server: TestServer;
  let base: string;
  let photo: Buffer;
  before(async () => {
    server = await startTestServer();
    base = server.base;
    photo = await photoJpeg(3000, 2000);
  });
  after(() => server.close());

  test("the spec's request: a 3000 x 2000 JPEG to 1200 wide, quality 80, lanczos, rgb", async () => {
    const out = await compressed(base, { image_data: b64(photo), format: 'jpeg', options: { quality: 80, max_width: 1200, resample: 'lanczos', color_space: 'rgb' } });
    assert.deepEqual({ w: out.data.width, h: out.data.height, f: out.data.format }, { w: 1200, h: 800, f: 'jpeg' });
    assert.equal(out.data.original_size_bytes, photo.byteLength);
    assert.equal(out.data.compressed_size_bytes, out.bytes.byteLength);
    assert.ok(out.bytes.byteLength < photo.byteLength / 4, `${out.bytes.byteLength} bytes from ${photo.byteLength}`);
    assert.deepEqual([out.info.format, out.info.width, out.info.height, out.info.channels, out.info.space], ['jpeg', 1200, 800, 3, 'srgb']);
    assert.match(out.meta.worker_id, /^worker-\d+$/);
    assert.equal(out.meta.cached, false);
    if (await hasVips()) assert.deepEqual(await vipsHeader(out.bytes, 'jpg'), { width: 1200, height: 800, bands: 3, interpretation: 'srgb', loader: 'jpegload' });
  });

  test('max_width and max_height keep the aspect ratio and never enlarge', async () => {
    const small = await bandsImage(200, [300, RED]).png().toBuffer();
    const size = async (options: object) => {
      const out = await compressed(base, { image_data: b64(small), options });
      assert.deepEqual([out.info.width, out.info.height], [out.data.width, out.data.height]);
      return [out.data.width, out.data.height];
    };
    assert.deepEqual(await size({ max_width: 100 }), [100, 67]);
    assert.deepEqual(await size({ max_height: 50 }), [75, 50]);
    assert.deepEqual(await size({ max_width: 150, max_height: 50 }), [75, 50]);
    assert.deepEqual(await size({ max_width: 3000 }), [300, 200]);
    assert.deepEqual(await size({ max_width: 3000, max_height: 3000 }), [300, 200]);
    assert.deepEqual(await size({}), [300, 200]);
  });

  test('resample picks the kernel: every name works, and nearest differs from lanczos', async () => {
    // Thin alternating stripes: averaging kernels blur them to grey, nearest keeps pure colours.
    const stripes = await bandsImage(16, ...Array.from({ length: 32 }, (_, i): [number, Rgb] => [3, i % 2 === 0 ? RED : BLUE])).png().toBuffer();
    const results = new Map<string, Buffer>();
    for (const resample of ['nearest', 'linear', 'cubic', 'mitchell', 'lanczos', 'lanczos2', 'lanczos3']) {
      const out = await compressed(base, { image_data: b64(stripes), format: 'png', options: { max_width: 37, resample } });
      assert.equal(out.data.width, 37, resample);
      results.set(resample, (await pixels(out.bytes)).data);
    }
    assert.deepEqual(results.get('lanczos'), results.get('lanczos3'), 'lanczos is Lanczos 3');
    assert.notDeepEqual(results.get('nearest'), results.get('lanczos3'));
    const nearest = results.get('nearest') as Buffer;
    for (let i = 0; i < nearest.length; i += 3) assert.equal(nearest[i + 1], 0, 'nearest invents no colour');
  });

  test('EXIF orientation is applied, and the metadata stripped by default', async () => {
    // Stored 300 x 200, red left and blue right; orientation 6 shows it turned 90° clockwise: red on top.
    const stored = await bandsImage(200, [150, RED], [150, BLUE])
      .jpeg({ quality: 95 })
      .withExif({ IFD0: { Copyright: 'ACME Photo Ltd' } })
      .withMetadata({ orientation: 6 })
      .toBuffer();
    const input = await sharp(stored).metadata();
    assert.deepEqual([input.orientation, input.width, input.height], [6, 300, 200]);

    const out = await compressed(base, { image_data: b64(stored), format: 'png' });
    assert.deepEqual([out.data.width, out.data.height], [200, 300]);
    assert.equal(out.info.orientation, undefined);
    assert.equal(out.info.exif, undefined);
    assert.equal(out.info.icc, undefined);
    assert.equal(out.info.xmp, undefined);
    const image = await pixels(out.bytes);
    assert.ok(near(pixelAt(image, 100, 10), RED), `top: ${pixelAt(image, 100, 10)}`);
    assert.ok(near(pixelAt(image, 100, 290), BLUE), `bottom: ${pixelAt(image, 100, 290)}`);
    assert.equal(out.bytes.includes('ACME Photo Ltd'), false);
  });

  test('keep_metadata keeps EXIF (Orientation now 1) and XMP; an sRGB output is tagged sRGB', async () => {
    const xmp = '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator>Jane Doe</dc:creator></rdf:Description></rdf:RDF></x:xmpmeta>';
    const stored = await bandsImage(200, [150, RED], [150, BLUE])
      .jpeg()
      .withExif({ IFD0: { Copyright: 'ACME Photo Ltd' } })
      .withMetadata({ orientation: 6 })
      .withXmp(xmp)
      .withIccProfile('p3')
      .toBuffer();
    const input = await sharp(stored).metadata();
    assert.equal(input.orientation, 6);
    assert.ok(String(input.icc?.toString('latin1')).replace(/\0/g, '').includes('P3'));
    for (const format of ['jpeg', 'webp', 'png']) {
      const out = await compressed(base, { image_data: b64(stored), format, options: { keep_metadata: true } });
      assert.deepEqual([out.data.width, out.data.height], [200, 300], format);
      assert.equal(out.info.orientation, 1, format);
      assert.ok(out.info.exif?.includes('ACME Photo Ltd'), `${format}: EXIF kept`);
      assert.ok(out.info.xmp?.includes('Jane Doe'), `${format}: XMP kept`);
      // The profile's description tag is UTF-16: "sRGB" here, "sP3C" in libvips's P3 profile the input carried.
      const description = String(out.info.icc?.toString('latin1')).replace(/\0/g, '');
      assert.ok(description.includes('sRGB') && !description.includes('P3'), `${format}: tagged sRGB, not the input's P3`);
    }
  });

  test('formats: jpeg, png, webp, avif and the jpg alias; absent, the input format (GIF to PNG, TIFF to JPEG)', async () => {
    const source = bandsImage(20, [15, RED], [15, GREEN]);
    const png = await source.clone().png().toBuffer();
    const expected: Array<[string | undefined, Buffer, string, string]> = [
      ['jpeg', png, 'jpeg', 'jpeg'],
      ['jpg', png, 'jpeg', 'jpeg'],
      ['png', png, 'png', 'png'],
      ['webp', png, 'webp', 'webp'],
      ['avif', png, 'avif', 'heif'],
      [undefined, png, 'png', 'png'],
      [undefined, await source.clone().webp().toBuffer(), 'webp', 'webp'],
      [undefined, await source.clone().avif().toBuffer(), 'avif', 'heif'],
      [undefined, await source.clone().jpeg().toBuffer(), 'jpeg', 'jpeg'],
      [undefined, await source.clone().gif().toBuffer(), 'png', 'png'],
      [undefined, await source.clone().tiff({ compression: 'lzw' }).toBuffer(), 'jpeg', 'jpeg'],
      [undefined, await source.clone().ensureAlpha(0.5).tiff({ compression: 'lzw' }).toBuffer(), 'png', 'png'],
    ];
    for (const [format, input, answered, decoded] of expected) {
      const out = await compressed(base, { image_data: b64(input), ...(format === undefined ? {} : { format }) });
      const what = `${format ?? 'absent'} from ${(await sharp(input).metadata()).format}`;
      assert.equal(out.data.format, answered, what);
      assert.equal(out.info.format, decoded, what);
      if (decoded === 'heif') assert.equal(out.info.compression, 'av1', what);
      assert.deepEqual([out.info.width, out.info.height], [30, 20], what);
      const image = await pixels(out.bytes);
      assert.ok(near(pixelAt(image, 3, 10).slice(0, 3), RED, 40) && near(pixelAt(image, 26, 10).slice(0, 3), GREEN, 40), `${what}: colours kept`);
    }
  });

  test('quality: the default is 80 for JPEG; lower is smaller; PNG is lossless unless a quality quantises it', async () => {
    const jpeg = async (options: object) => (await compressed(base, { image_data: b64(photo), format: 'jpeg', options: { max_width: 600, ...options } })).bytes;
    const byDefault = await jpeg({});
    assert.deepEqual(byDefault, await jpeg({ quality: 80 }));
    assert.notDeepEqual(byDefault, await jpeg({ quality: 81 }));
    assert.ok((await jpeg({ quality: 30 })).byteLength < (await jpeg({ quality: 90 })).byteLength);
    const webp = async (options: object) => (await compressed(base, { image_data: b64(photo), format: 'webp', options: { max_width: 300, ...options } })).bytes;
    assert.deepEqual(await webp({}), await webp({ quality: 80 }));

    const png = await sharp((await pixels(await photoJpeg(120, 80))).data, { raw: { width: 120, height: 80, channels: 3 } }).png().toBuffer();
    const lossless = await compressed(base, { image_data: b64(png) });
    assert.deepEqual((await pixels(lossless.bytes)).data, (await pixels(png)).data, 'every pixel as sent');
    assert.equal(lossless.info.isPalette, false);
    const png16 = await sharp(png).toColourspace('rgb16').png().toBuffer();
    assert.equal((await sharp(png16).metadata()).depth, 'ushort');
    assert.equal((await compressed(base, { image_data: b64(png16) })).info.depth, 'uchar', 'written with 8 bits a channel');
    const quantised = await compressed(base, { image_data: b64(png), options: { quality: 50 } });
    assert.equal(quantised.info.isPalette, true);
    assert.ok(quantised.bytes.byteLength < lossless.bytes.byteLength);
  });

  test('color_space: cmyk is a real CMYK JPEG; b-w one channel; absent keeps grey grey and makes CMYK sRGB', async () => {
    const rgb = await bandsImage(20, [15, RED], [15, BLUE]).jpeg().toBuffer();
    const cmyk = await compressed(base, { image_data: b64(rgb), format: 'jpeg', options: { color_space: 'cmyk' } });
    assert.deepEqual([cmyk.info.format, cmyk.info.channels, cmyk.info.space, cmyk.info.icc], ['jpeg', 4, 'cmyk', undefined]);
    // Read back through libvips's CMYK profile, red is still red.
    assert.ok(near(pixelAt(await pixels(cmyk.bytes), 3, 10), RED, 40), `red: ${pixelAt(await pixels(cmyk.bytes), 3, 10)}`);

    const grey = await compressed(base, { image_data: b64(rgb), format: 'png', options: { color_space: 'b-w' } });
    assert.deepEqual([grey.info.channels, grey.info.space], [1, 'b-w']);

    const greyIn = await sharp(rgb).toColourspace('b-w').jpeg().toBuffer();
    const stays = await compressed(base, { image_data: b64(greyIn) });
    assert.deepEqual([stays.info.channels, stays.info.space], [1, 'b-w']);
    const asked = await compressed(base, { image_data: b64(greyIn), options: { color_space: 'srgb' } });
    assert.deepEqual([asked.info.channels, asked.info.space], [3, 'srgb']);
    const fromCmyk = await compressed(base, { image_data: b64(cmyk.bytes) });
    assert.deepEqual([fromCmyk.info.channels, fromCmyk.info.space], [3, 'srgb']);

    if (await hasVips()) {
      assert.deepEqual(await vipsHeader(cmyk.bytes, 'jpg'), { width: 30, height: 20, bands: 4, interpretation: 'cmyk', loader: 'jpegload' });
      // The stored ink values: pure red is magenta plus yellow, no cyan, no black.
      const [c, m, y, k] = await vipsPoint(cmyk.bytes, 'jpg', 3, 10);
      assert.ok((c as number) < 30 && (m as number) > 200 && (y as number) > 200 && (k as number) < 30, `red in CMYK: ${[c, m, y, k]}`);
      assert.equal((await vipsHeader(grey.bytes, 'png')).bands, 1);
    }
  });

  test('cmyk with a format that holds no CMYK is a 422 naming options.color_space', async () => {
    const png = await bandsImage(10, [10, RED]).png().toBuffer();
    for (const body of [
      { image_data: b64(png), format: 'png', options: { color_space: 'cmyk' } },
      { image_data: b64(png), format: 'webp', options: { color_space: 'cmyk' } },
      { image_data: b64(png), format: 'avif', options: { color_space: 'cmyk' } },
      { image_data: b64(png), options: { color_space: 'cmyk' } },
    ]) {
      const problem = problemOf(await compress(base, body));
      assert.deepEqual([problem.status, problem.slug, problem.first], [422, 'validation-failed', ['options.color_space', 'INVALID_VALUE']], JSON.stringify(body.format));
      assert.match(problem.detail, /needs format jpeg/);
    }
  });

  test('transparency written as JPEG becomes white; PNG and WebP keep it', async () => {
    const clear = await sharp({ create: { width: 8, height: 8, channels: 4, background: { r: 255, g: 0, b: 0, alpha: 0 } } }).png().toBuffer();
    const jpeg = await compressed(base, { image_data: b64(clear), format: 'jpeg' });
    assert.deepEqual([jpeg.info.channels, jpeg.info.hasAlpha], [3, false]);
    assert.ok(near(pixelAt(await pixels(jpeg.bytes), 4, 4), [255, 255, 255], 3));
    for (const format of ['png', 'webp']) {
      const kept = await compressed(base, { image_data: b64(clear), format });
      assert.equal(kept.info.hasAlpha, true, format);
      assert.equal(pixelAt(await pixels(kept.bytes), 4, 4)[3], 0, `${format}: still transparent`);
    }
  });

  test('animated input: the first frame only, unless animated keeps every frame as WebP', async () => {
    const colours = [RED, GREEN, BLUE];
    for (const [name, input] of [
      ['GIF', await animated(40, 30, colours).gif({ delay: [100, 100, 100] }).toBuffer()],
      ['WebP', await animated(40, 30, colours).webp({ delay: [100, 100, 100], lossless: true }).toBuffer()],
    ] as const) {
      assert.equal((await sharp(input).metadata()).pages, 3, name);
      const first = await compressed(base, { image_data: b64(input) });
      assert.equal(first.data.format, name === 'GIF' ? 'png' : 'webp', name);
      assert.deepEqual([first.info.width, first.info.height, first.info.pages ?? 1], [40, 30, 1], name);
      assert.ok(near(pixelAt(await pixels(first.bytes), 20, 15).slice(0, 3), RED), `${name}: the first frame`);

      const all = await compressed(base, { image_data: b64(input), options: { animated: true, max_width: 20 } });
      assert.equal(all.data.format, 'webp', name);
      assert.deepEqual([all.data.width, all.data.height], [20, 15], `${name}: one frame's size`);
      assert.deepEqual([all.info.format, all.info.pages, all.info.width, all.info.pageHeight ?? all.info.height], ['webp', 3, 20, 15], name);
      const strip = await sharp(all.bytes, { pages: -1 }).raw().toBuffer({ resolveWithObject: true });
      const frames = { data: strip.data, width: strip.info.width, channels: strip.info.channels };
      colours.forEach((colour, frame) => assert.ok(near(pixelAt(frames, 10, frame * 15 + 7).slice(0, 3), colour), `${name}: frame ${frame}`));

      const refused = problemOf(await compress(base, { image_data: b64(input), format: 'jpeg', options: { animated: true } }));
      assert.deepEqual([refused.status, refused.first], [422, ['options.animated', 'INVALID_VALUE']], name);
    }
    // A still image: animated changes nothing.
    const still = await bandsImage(10, [10, RED]).jpeg().toBuffer();
    assert.equal((await compressed(base, { image_data: b64(still), options: { animated: true } })).data.format, 'jpeg');
  });

  test('an output larger than its format holds is a 422 on format', async () => {
    const wide = await sharp({ create: { width: 20_000, height: 4, channels: 3, background: '#888' } }).png().toBuffer();
    const problem = problemOf(await compress(base, { image_data: b64(wide), format: 'webp' }));
    assert.deepEqual([problem.status, problem.first], [422, ['format', 'INVALID_VALUE']]);
    assert.equal((await compressed(base, { image_data: b64(wide), format: 'webp', options: { max_width: 16_000 } })).data.width, 16_000);
  });

  test('a core key may compress (tier core), and every documented request example compresses', async () => {
    const accel = await loadContract('accel');
    const media = ((((accel.document.paths as Node)['/v1/image/compress'] as Node).post as Node).requestBody as Node).content as Node;
    const examples = Object.entries((media['application/json'] as Node).examples as Node);
    assert.ok(examples.length >= 2);
    for (const [name, example] of examples) {
      assert.ok(isNode(example));
      assertValid(accel, requestSchema(accel, 'post', '/v1/image/compress'), example.value, name);
      const out = await compressed(base, example.value, KEYS.core);
      assert.ok(out.bytes.byteLength > 0, name);
    }
  });
});
