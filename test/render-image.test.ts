// add_image end to end: images are generated here with sharp, rendered by the
// real server, and the PDF is read back with poppler: `pdfimages -list` for
// what was embedded (pixel size, encoding, object, and the placement's
// pixels per inch) and `pdftoppm` at 72 dpi (one pixel a point) for where it
// was drawn.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { crc32 } from 'node:zlib';
import sharp, { type Sharp } from 'sharp';
import { postJson, readProblem } from './helpers/http.js';
import { pdfToText, qpdfCheck } from './helpers/pdf-tools.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const run = promisify(execFile);

type Rgb = readonly [number, number, number];
const RED: Rgb = [255, 0, 0];
const GREEN: Rgb = [0, 255, 0];
const BLUE: Rgb = [0, 0, 255];
const BLACK: Rgb = [0, 0, 0];
const WHITE: Rgb = [255, 255, 255];

/** An opaque image of vertical bands, left to right, each `widths[i]` pixels wide. */
async function bands(height: number, ...parts: Array<[number, Rgb]>): Promise<Buffer> {
  const width = parts.reduce((sum, [w]) => sum + w, 0);
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    let x = 0;
    for (const [w, color] of parts) {
      for (let i = 0; i < w; i++, x++) raw.set(color, (y * width + x) * 3);
    }
  }
  return sharp(raw, { raw: { width, height, channels: 3 } }).png().toBuffer();
}

function solid(width: number, height: number, color: Rgb, alpha = 1): Sharp {
  return sharp({ create: { width, height, channels: alpha < 1 ? 4 : 3, background: { r: color[0], g: color[1], b: color[2], alpha } } });
}

/** Noise, so that a JPEG has entropy-coded data worth damaging. */
function noiseJpeg(width: number, height: number): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  let x = 2463534242;
  for (let i = 0; i < raw.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    raw[i] = x & 255;
  }
  return sharp(raw, { raw: { width, height, channels: 3 } }).jpeg({ quality: 90 }).toBuffer();
}

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

interface PdfImage {
  page: number;
  type: string;
  width: number;
  height: number;
  enc: string;
  object: number;
  xPpi: number;
  yPpi: number;
}

async function withPdf<T>(pdf: Uint8Array, use: (path: string, dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'platen-image-'));
  try {
    const path = join(dir, 'in.pdf');
    await writeFile(path, pdf);
    return await use(path, dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `pdfimages -list`: one row per image drawn (and per soft mask), in page order. */
function pdfImages(pdf: Uint8Array): Promise<PdfImage[]> {
  return withPdf(pdf, async (path) => {
    const { stdout } = await run('pdfimages', ['-list', path]);
    // page num type width height color comp bpc enc interp object ID x-ppi y-ppi size ratio
    return stdout
      .split('\n')
      .slice(2)
      .filter((line) => line.trim() !== '')
      .map((line) => {
        const c = line.trim().split(/\s+/);
        return {
          page: Number(c[0]),
          type: c[2] as string,
          width: Number(c[3]),
          height: Number(c[4]),
          enc: c[8] as string,
          object: Number(c[10]),
          xPpi: Number(c[12]),
          yPpi: Number(c[13]),
        };
      });
  });
}

/** A page rendered at 72 dpi, so pixel (x, y) is the point (x, y) from the top-left corner. */
async function renderPage(pdf: Uint8Array, page: number): Promise<(x: number, y: number) => Rgb> {
  const png = await withPdf(pdf, async (path, dir) => {
    await run('pdftoppm', ['-r', '72', '-f', String(page), '-l', String(page), '-singlefile', '-png', path, join(dir, 'page')]);
    return readFile(join(dir, 'page.png'));
  });
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return (x, y) => {
    const i = (Math.floor(y) * info.width + Math.floor(x)) * info.channels;
    return [data[i] as number, data[i + 1] as number, data[i + 2] as number];
  };
}

/** Colours compared with room for JPEG and anti-aliasing. */
function assertColor(actual: Rgb, expected: Rgb, where: string): void {
  const close = actual.every((value, i) => Math.abs(value - (expected[i] as number)) <= 40);
  assert.ok(close, `${where}: expected ~${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}

describe('add_image', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  async function render(operations: unknown[], extra: Record<string, unknown> = {}): Promise<Uint8Array> {
    const response = await postJson(s.base, '/api/v1/render', { ...extra, operations });
    assert.equal(response.status, 200, await response.clone().text());
    const pdf = new Uint8Array(await response.arrayBuffer());
    assert.match(await qpdfCheck(pdf), /No syntax or stream encoding errors/);
    return pdf;
  }

  async function problem(operations: unknown[]): Promise<{ field?: string; code?: string; message?: string }> {
    const response = await postJson(s.base, '/api/v1/render', { operations });
    assert.equal(response.status, 422, JSON.stringify(operations).slice(0, 200));
    return (await readProblem(response)).errors?.[0] ?? {};
  }

  test('PNG and JPEG are embedded at their pixel size, the JPEG byte for byte', async () => {
    const png = await solid(120, 80, BLUE, 0.5).png().toBuffer();
    const jpeg = await solid(90, 60, RED).jpeg().toBuffer();
    const pdf = await render([
      { type: 'add_image', data: b64(png) },
      { type: 'add_image', data: `data:image/jpeg;base64,${b64(jpeg)}` },
    ]);
    const images = await pdfImages(pdf);
    assert.deepEqual(
      images.map(({ type, width, height, enc, xPpi, yPpi }) => ({ type, width, height, enc, xPpi, yPpi })),
      [
        { type: 'image', width: 120, height: 80, enc: 'image', xPpi: 72, yPpi: 72 },
        { type: 'smask', width: 120, height: 80, enc: 'image', xPpi: 72, yPpi: 72 },
        { type: 'image', width: 90, height: 60, enc: 'jpeg', xPpi: 72, yPpi: 72 },
      ],
    );
    assert.ok(Buffer.from(pdf).includes(jpeg), 'the JPEG stream is the bytes sent');
  });

  test('WebP, GIF, TIFF and AVIF are converted: JPEG when opaque, PNG with alpha or a palette', async () => {
    const pdf = await render([
      { type: 'add_image', data: b64(await solid(50, 40, RED).webp().toBuffer()) },
      { type: 'add_image', data: b64(await solid(30, 20, GREEN).gif().toBuffer()) },
      { type: 'add_image', data: b64(await solid(40, 30, BLUE, 0.5).tiff({ compression: 'lzw' }).toBuffer()) },
      { type: 'add_image', data: b64(await solid(60, 30, GREEN).avif().toBuffer()) },
    ]);
    const images = await pdfImages(pdf);
    assert.deepEqual(
      images.map(({ type, width, height, enc }) => ({ type, width, height, enc })),
      [
        { type: 'image', width: 50, height: 40, enc: 'jpeg' },
        { type: 'image', width: 30, height: 20, enc: 'image' },
        { type: 'image', width: 40, height: 30, enc: 'image' },
        { type: 'smask', width: 40, height: 30, enc: 'image' },
        { type: 'image', width: 60, height: 30, enc: 'jpeg' },
      ],
    );
    const pixel = await renderPage(pdf, 1);
    // Flowing from the 50 pt margin at 72 dpi, 6 pt apart (half the 12 pt font size).
    assertColor(pixel(75, 70), RED, 'the WebP');
    assertColor(pixel(65, 50 + 40 + 6 + 10), GREEN, 'the GIF');
  });

  test('only the first frame of an animated GIF and the first page of a TIFF are used', async () => {
    // Frames stacked top to bottom: red, green, blue.
    const strip = (count: number) => {
      const raw = Buffer.alloc(10 * 10 * count * 3);
      for (let i = 0; i < raw.length; i += 3) raw.set(i < 300 ? RED : i < 600 ? GREEN : BLUE, i);
      return sharp(raw, { raw: { width: 10, height: 10 * count, channels: 3, pageHeight: 10 } });
    };
    const frames = await strip(3).gif({ loop: 0, delay: [100, 100, 100] }).toBuffer();
    const pages = await strip(2).tiff().toBuffer();
    assert.equal((await sharp(frames, { pages: -1 }).metadata()).pages, 3, 'the fixture is animated');
    assert.equal((await sharp(pages, { pages: -1 }).metadata()).pages, 2, 'the fixture has two pages');
    const pdf = await render([
      { type: 'add_image', data: b64(frames), width: 100, spacing_after: 0 },
      { type: 'add_image', data: b64(pages), width: 100 },
    ]);
    assert.deepEqual(
      (await pdfImages(pdf)).map(({ width, height }) => [width, height]),
      [
        [10, 10],
        [10, 10],
      ],
    );
    const pixel = await renderPage(pdf, 1);
    assertColor(pixel(100, 100), RED, 'first GIF frame');
    assertColor(pixel(100, 200), RED, 'first TIFF page');
  });

  test('EXIF orientation 6 is applied: the image turns a quarter clockwise', async () => {
    // Stored 40 x 20, left half red, right half blue; displayed 20 x 40, red on top.
    const stored = await sharp(await bands(20, [20, RED], [20, BLUE]))
      .jpeg({ quality: 95 })
      .withMetadata({ orientation: 6 })
      .toBuffer();
    assert.equal((await sharp(stored).metadata()).orientation, 6);
    const pdf = await render([{ type: 'add_image', data: b64(stored), width: 100 }]);
    const [image] = await pdfImages(pdf);
    assert.deepEqual([image?.width, image?.height, image?.enc], [20, 40, 'jpeg']);
    const pixel = await renderPage(pdf, 1);
    assertColor(pixel(100, 50 + 50), RED, 'top half');
    assertColor(pixel(100, 50 + 150), BLUE, 'bottom half');
  });

  test('contain, cover and fill place a 2:1 image in a square box', async () => {
    // 200 x 100: a green quarter, a red half, a blue quarter.
    const data = b64(await bands(100, [50, GREEN], [100, RED], [50, BLUE]));
    const box = { type: 'add_image', data, width: 100, height: 100 };
    const pdf = await render([
      { ...box, fit: 'contain' },
      { type: 'add_page' },
      { ...box, fit: 'cover' },
      { type: 'add_page' },
      { ...box, fit: 'fill' },
    ]);
    const images = await pdfImages(pdf);
    assert.deepEqual(
      images.map(({ page, xPpi, yPpi }) => [page, xPpi, yPpi]),
      [
        [1, 144, 144], // contain: 100 x 50 pt
        [2, 72, 72], // cover: 200 x 100 pt, clipped to the box
        [3, 144, 72], // fill: 100 x 100 pt
      ],
    );
    assert.equal(new Set(images.map((i) => i.object)).size, 1, 'one image object for the three uses');

    // The box is at the margin: x 50..150, y 50..150.
    const contain = await renderPage(pdf, 1);
    assertColor(contain(100, 60), WHITE, 'contain: empty band above');
    assertColor(contain(60, 100), GREEN, 'contain: left quarter');
    assertColor(contain(100, 100), RED, 'contain: middle');
    assertColor(contain(140, 100), BLUE, 'contain: right quarter');
    assertColor(contain(100, 140), WHITE, 'contain: empty band below');

    const cover = await renderPage(pdf, 2);
    for (const x of [53, 100, 147]) assertColor(cover(x, 100), RED, `cover: the middle half fills the box at x ${x}`);
    assertColor(cover(45, 100), WHITE, 'cover: clipped on the left');
    assertColor(cover(155, 100), WHITE, 'cover: clipped on the right');

    const fill = await renderPage(pdf, 3);
    assertColor(fill(60, 53), GREEN, 'fill: left quarter from the top');
    assertColor(fill(100, 147), RED, 'fill: middle to the bottom');
    assertColor(fill(140, 100), BLUE, 'fill: right quarter');
  });

  test('width alone keeps the aspect ratio and moves the cursor; align places flowing images', async () => {
    const wide = b64(await bands(100, [200, GREEN]));
    const dot = b64(await solid(10, 10, BLACK).png().toBuffer());
    const pdf = await render([
      { type: 'add_image', data: wide, width: 300, spacing_after: 0 },
      { type: 'add_image', data: dot, align: 'right', spacing_after: 0 },
      { type: 'add_image', data: wide, height: 50, align: 'center' },
    ]);
    const images = await pdfImages(pdf);
    assert.deepEqual(
      images.map(({ xPpi, yPpi }) => [xPpi, yPpi]),
      [
        [48, 48], // 200 px over 300 pt
        [72, 72],
        [144, 144], // 100 px over 50 pt
      ],
    );
    const pixel = await renderPage(pdf, 1);
    assertColor(pixel(345, 195), GREEN, '300 x 150 from (50, 50)');
    assertColor(pixel(355, 100), WHITE, 'right of the 300 pt image');
    // The dot follows at y 200, right-aligned to the 545 pt margin.
    assertColor(pixel(540, 205), BLACK, 'right-aligned dot below the image');
    assertColor(pixel(55, 205), WHITE, 'nothing at the left margin');
    // Then 100 x 50 centred: x 247.5..347.5 from y 210.
    assertColor(pixel(297, 235), GREEN, 'centred image');
    assertColor(pixel(240, 235), WHITE, 'left of the centred image');
    assertColor(pixel(355, 235), WHITE, 'right of the centred image');
  });

  test('x and y place an image exactly and leave the flow where it was', async () => {
    const dot = b64(await solid(10, 10, BLACK).png().toBuffer());
    const pdf = await render([
      { type: 'add_image', data: dot, x: 300, y: 400, width: 50, height: 50, fit: 'fill' },
      { type: 'add_image', data: dot },
      { type: 'add_image', data: b64(await bands(10, [1000, GREEN])), x: 0, y: 700 },
    ]);
    const images = await pdfImages(pdf);
    assert.deepEqual(
      images.map(({ xPpi }) => xPpi),
      [14, 72, 145], // 10 px over 50 pt; 72 dpi; 1000 px scaled down to the 495 pt content width
    );
    const pixel = await renderPage(pdf, 1);
    assertColor(pixel(302, 402), BLACK, 'absolute image top-left');
    assertColor(pixel(348, 448), BLACK, 'absolute image bottom-right');
    assertColor(pixel(296, 425), WHITE, 'left of the absolute image');
    assertColor(pixel(55, 55), BLACK, 'the flowing image is still at the top margin');
  });

  test('without a size: 72 dpi, scaled down to the content width; page breaks and page-tall images scale to fit', async () => {
    const wide = b64(await bands(100, [1000, GREEN]));
    const tall = b64(await bands(1000, [100, RED]));
    const pdf = await render([
      { type: 'add_text', text: 'before' },
      { type: 'add_image', data: wide },
      { type: 'add_image', data: tall },
      { type: 'add_text', text: 'after' },
    ]);
    const images = await pdfImages(pdf);
    assert.deepEqual(
      images.map(({ page, xPpi, yPpi }) => [page, xPpi, yPpi]),
      [
        [1, 145, 145], // 1000 px over A4's 495 pt content width
        [2, 97, 97], // 1000 px over the 742 pt between the margins
      ],
    );
    const second = await renderPage(pdf, 2);
    assertColor(second(55, 52), RED, 'the tall image starts at the top margin');
    assertColor(second(55, 790), RED, 'and reaches the bottom margin');
    assertColor(second(55, 795), WHITE, 'but not past it');
    const text = await pdfToText(pdf);
    assert.ok(text.indexOf('before') >= 0 && text.indexOf('before') < text.indexOf('after'), text);
  });

  test('a valid image with a side of millions of pixels is drawn, not refused as damaged', async () => {
    // Its damage check decodes it to a few pixels: 8 would need a shrink past libvips's 1,000,000 (9 MP, ~120 KB as PNG).
    for (const [width, height] of [[9_000_000, 1], [1, 9_000_000]] as const) {
      const png = await sharp({ create: { width, height, channels: 3, background: '#336699' } }).png().toBuffer();
      const images = await pdfImages(await render([{ type: 'add_image', data: b64(png) }]));
      assert.deepEqual(images.map((image) => [image.width, image.height]), [[width, height]]);
    }
  });

  test('the same bytes used twice are embedded once', async () => {
    const png = await solid(64, 48, RED).png().toBuffer();
    const pdf = await render([
      { type: 'add_image', data: b64(png) },
      { type: 'add_image', data: `data:image/png;base64,${b64(png)}`, width: 32 },
      { type: 'add_image', data: b64(await solid(64, 48, BLUE).png().toBuffer()) },
    ]);
    const images = await pdfImages(pdf);
    assert.equal(images.length, 3);
    assert.equal(images[0]?.object, images[1]?.object, 'one object drawn twice');
    assert.notEqual(images[0]?.object, images[2]?.object, 'different bytes, another object');
  });

  test('at most 1,000 distinct images a document; the same bytes again do not count', async () => {
    const pngs = await Promise.all(Array.from({ length: 1001 }, (_, i) => solid(1, 1, [i & 255, i >> 8, 0]).png().toBuffer()));
    const operations = pngs.map((png) => ({ type: 'add_image', data: b64(png), width: 1 }));
    // The first image again, before the 1,001st distinct one.
    operations.splice(1000, 0, { type: 'add_image', data: b64(pngs[0] as Buffer), width: 1 });
    const error = await problem(operations);
    assert.deepEqual([error.field, error.code], ['operations[1001].data', 'TOO_LARGE']);
    assert.match(error.message ?? '', /1000 distinct images/);
  });

  /** A real 1 x 1 PNG whose IHDR now declares another size and sample format, with its CRC fixed up. */
  async function declaredPng(width: number, height: number, bitDepth = 8, colorType = 2): Promise<Buffer> {
    const png = Buffer.from(await solid(1, 1, WHITE).png().toBuffer());
    png.writeUInt32BE(width, 16);
    png.writeUInt32BE(height, 20);
    png[24] = bitDepth;
    png[25] = colorType;
    png.writeUInt32BE(crc32(png.subarray(12, 29)), 29);
    return png;
  }

  test('a PNG declaring 20000 x 20000 pixels is refused from its header, quickly', async () => {
    const started = performance.now();
    const error = await problem([{ type: 'add_text', text: 'x' }, { type: 'add_image', data: b64(await declaredPng(20_000, 20_000)) }]);
    assert.ok(performance.now() - started < 1000, 'no decoding');
    assert.deepEqual([error.field, error.code], ['operations[1].data', 'IMAGE_TOO_LARGE']);
    assert.match(error.message ?? '', /more than 40000000 pixels/);
  });

  test('an image under the pixel limit but over the decoded-bytes cap is refused: 25 MP of 16-bit RGBA is 200 MB', async () => {
    const error = await problem([{ type: 'add_image', data: b64(await declaredPng(5000, 5000, 16, 6)) }]);
    assert.deepEqual([error.field, error.code], ['operations[0].data', 'IMAGE_TOO_LARGE']);
    assert.match(error.message ?? '', /decode to 200000000 bytes/);
  });

  test('damaged, non-raster and garbage data are 422 on the data field', async () => {
    const jpeg = await noiseJpeg(200, 200);
    const corrupted = Buffer.from(jpeg);
    for (let i = 2000; i < 2100; i++) corrupted[i] = (corrupted[i] as number) ^ 0x5a;
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>');
    const pdf = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');
    const pngHead = Buffer.concat([(await solid(4, 4, RED).png().toBuffer()).subarray(0, 8), Buffer.alloc(64, 7)]);
    const cases: Array<[string, string, RegExp?]> = [
      [`data:image/png;base64,${b64(svg)}`, 'UNSUPPORTED_IMAGE', /not a JPEG, PNG, WebP, AVIF, GIF or TIFF image/],
      [b64(pdf), 'UNSUPPORTED_IMAGE'],
      [b64(Buffer.from('just some text, long enough')), 'UNSUPPORTED_IMAGE'],
      [b64(jpeg.subarray(0, jpeg.length >> 1)), 'INVALID_IMAGE', /is truncated/],
      [b64(corrupted), 'INVALID_IMAGE'],
      [b64(pngHead), 'INVALID_IMAGE'],
      ['@@ not base64 @@', 'INVALID_FORMAT', /base64/],
      ['https://example.com/logo.png', 'INVALID_VALUE', /never fetched/],
    ];
    for (const [data, code, message] of cases) {
      const error = await problem([{ type: 'add_image', data }]);
      assert.deepEqual([error.field, error.code], ['operations[0].data', code], `${data.slice(0, 40)}: ${error.message}`);
      if (message !== undefined) assert.match(error.message ?? '', message);
    }
    assert.equal((await render([{ type: 'add_image', data: b64(jpeg) }])).length > 0, true, 'the undamaged JPEG renders');
  });

  test('option errors name their field', async () => {
    const data = b64(await solid(4, 4, RED).png().toBuffer());
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ x: 10 }, 'operations[0].y', 'INVALID_VALUE'],
      [{ x: 10, y: 10, align: 'center' }, 'operations[0].align', 'INVALID_VALUE'],
      [{ fit: 'stretch' }, 'operations[0].fit', 'INVALID_ENUM'],
      [{ align: 'justify' }, 'operations[0].align', 'INVALID_ENUM'],
      [{ width: 0 }, 'operations[0].width', 'OUT_OF_RANGE'],
      [{ url: 'https://example.com/a.png' }, 'operations[0].url', 'UNKNOWN_FIELD'],
    ];
    for (const [extra, field, code] of cases) {
      const error = await problem([{ type: 'add_image', data, ...extra }]);
      assert.deepEqual([error.field, error.code], [field, code], JSON.stringify(extra));
    }
  });
});
