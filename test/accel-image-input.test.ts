// POST /v1/image/compress with untrusted input: every bad image or request
// gets its problem (400 invalid-image-data, 413 image-too-large, 422
// validation-failed, ...) checked against the contract, with a detail a
// person can act on and nothing of the input echoed back; the workers
// survive all of it (no 500, breaker closed, every thread idle).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { KEYS, bearer } from './helpers/keys.js';
import { renderPdf } from './helpers/http.js';
import { assertMatchesContract, loadContract } from './helpers/openapi.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { animated, b64, bandsImage, compress, compressed, hugePngHeader, photoJpeg, problemOf } from './helpers/images.js';

const PATH = '/v1/image/compress';

describe('POST /v1/image/compress: untrusted input', () => {
  let server: TestServer;
  let base: string;
  let png: string;
  before(async () => {
    server = await startTestServer();
    base = server.base;
    png = b64(await bandsImage(20, [30, [200, 40, 40]]).png().toBuffer());
  });
  after(() => server.close());

  const refused = async (body: unknown) => problemOf(await compress(base, body));

  test('a PNG header declaring 100000 x 100000 pixels is 413 image-too-large, before any decoding', async () => {
    const bomb = hugePngHeader(100_000, 100_000);
    assert.ok(bomb.byteLength < 200);
    assert.equal((await sharp(bomb, { limitInputPixels: false }).metadata()).width, 100_000, 'sharp reads the header as declared');
    const problem = await refused({ image_data: b64(bomb) });
    assert.deepEqual([problem.status, problem.slug], [413, 'image-too-large']);
    assert.match(problem.detail, /100000 x 100000 pixels/);
    assert.match(problem.detail, /PLATEN_MAX_IMAGE_PIXELS/);
  });

  test('truncated and corrupt JPEGs are 400 invalid-image-data', async () => {
    const jpeg = await photoJpeg(400, 300);
    const truncated = jpeg.subarray(0, Math.floor(jpeg.byteLength / 2));
    const corrupt = Buffer.from(jpeg);
    // Damage the entropy-coded data after the headers with a run of restart markers that do not belong there.
    for (let i = Math.floor(corrupt.byteLength / 2); i < Math.floor(corrupt.byteLength / 2) + 64; i += 2) corrupt.set([0xff, 0xd3], i);
    for (const [name, bytes] of [['truncated', truncated], ['corrupt', corrupt]] as const) {
      const problem = await refused({ image_data: b64(bytes), options: { max_width: 100 } });
      assert.deepEqual([problem.status, problem.slug], [400, 'invalid-image-data'], name);
      assert.match(problem.detail, name === 'truncated' ? /is truncated: its JPEG data ends before the image is complete/ : /is (damaged and cannot be decoded as JPEG|truncated)/, name);
      assert.doesNotMatch(problem.detail, /vips|jpeg_|libjpeg|\(/i, `${name}: the library's words stay in the log`);
    }
  });

  test('SVG, PDF, text and HEIC are refused by their bytes as 400 invalid-image-data', async () => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>';
    assert.equal((await sharp(Buffer.from(svg)).metadata()).format, 'svg', 'libvips itself would open the SVG');
    const pdf = await renderPdf(base, { operations: [{ type: 'add_text', text: 'not an image' }] });
    const heic = Buffer.concat([Buffer.from('\0\0\0\x18ftypheic\0\0\0\0mif1heic', 'latin1'), Buffer.alloc(64, 1)]);
    for (const [name, bytes] of [
      ['SVG', Buffer.from(svg)],
      ['SVG with a prolog', Buffer.from(`<?xml version="1.0"?>\n${svg}`)],
      ['PDF', Buffer.from(pdf)],
      ['text', Buffer.from('plain text, not an image at all')],
      ['HEIC', heic],
    ] as const) {
      const problem = await refused({ image_data: b64(bytes) });
      assert.deepEqual([problem.status, problem.slug], [400, 'invalid-image-data'], name);
      assert.match(problem.detail, name === 'HEIC' ? /HEIC|decoded as AVIF/ : /not a JPEG, PNG, WebP, AVIF, GIF or TIFF image/, name);
    }
    // A data: URI saying image/svg+xml does not make PNG bytes an SVG, nor SVG bytes a PNG.
    assert.equal((await compressed(base, { image_data: `data:image/svg+xml;base64,${png}` })).data.format, 'png');
    const disguised = await refused({ image_data: `data:image/png;base64,${b64(Buffer.from(svg))}` });
    assert.equal(disguised.slug, 'invalid-image-data');
  });

  test('base64: line breaks and data: URIs are accepted; anything else is a 422 on image_data, not echoed', async () => {
    assert.equal((await compressed(base, { image_data: png.replace(/(.{60})/g, '$1\n') })).data.width, 30);
    const secret = 'svc_live_leak1_thisMustNotComeBack!!';
    const problem = await refused({ image_data: secret });
    assert.deepEqual([problem.status, problem.first], [422, ['image_data', 'INVALID_FORMAT']]);
    const response = await fetch(`${base}${PATH}`, { method: 'POST', headers: { ...bearer(KEYS.core), 'content-type': 'application/json' }, body: JSON.stringify({ image_data: secret }) });
    assert.equal((await response.text()).includes('thisMustNotComeBack'), false);
  });

  test('fields: each bad one is a 422 naming it', async () => {
    const cases: Array<[string, unknown, string, string]> = [
      ['missing image_data', { format: 'png' }, 'image_data', 'REQUIRED'],
      ['empty image_data', { image_data: '' }, 'image_data', 'TOO_SHORT'],
      ['image_data a number', { image_data: 5 }, 'image_data', 'INVALID_TYPE'],
      ['unknown field', { image_data: png, qualty: 80 }, 'qualty', 'UNKNOWN_FIELD'],
      ['unknown option', { image_data: png, options: { max_widht: 10 } }, 'options.max_widht', 'UNKNOWN_FIELD'],
      ['format gif', { image_data: png, format: 'gif' }, 'format', 'INVALID_ENUM'],
      ['format upper case', { image_data: png, format: 'JPEG' }, 'format', 'INVALID_ENUM'],
      ['quality 0', { image_data: png, options: { quality: 0 } }, 'options.quality', 'OUT_OF_RANGE'],
      ['quality 101', { image_data: png, options: { quality: 101 } }, 'options.quality', 'OUT_OF_RANGE'],
      ['quality 50.5', { image_data: png, options: { quality: 50.5 } }, 'options.quality', 'INVALID_TYPE'],
      ['quality a string', { image_data: png, options: { quality: '80' } }, 'options.quality', 'INVALID_TYPE'],
      ['max_width 0', { image_data: png, options: { max_width: 0 } }, 'options.max_width', 'OUT_OF_RANGE'],
      ['max_height negative', { image_data: png, options: { max_height: -5 } }, 'options.max_height', 'OUT_OF_RANGE'],
      ['resample bilinear', { image_data: png, options: { resample: 'bilinear' } }, 'options.resample', 'INVALID_ENUM'],
      ['color_space cmy', { image_data: png, options: { color_space: 'cmy' } }, 'options.color_space', 'INVALID_ENUM'],
      ['keep_metadata a string', { image_data: png, options: { keep_metadata: 'yes' } }, 'options.keep_metadata', 'INVALID_TYPE'],
      // A wrong JSON type is INVALID_TYPE, for an object as for a number or a string (validation.ts).
      ['options a string', { image_data: png, options: 'fast' }, 'options', 'INVALID_TYPE'],
      ['options an array', { image_data: png, options: [] }, 'options', 'INVALID_TYPE'],
      ['a body that is an array', [png], '(body)', 'INVALID_TYPE'],
    ];
    for (const [name, body, field, code] of cases) {
      const problem = await refused(body);
      assert.deepEqual([problem.status, problem.slug, problem.first], [422, 'validation-failed', [field, code]], name);
    }
  });

  test('the pipeline in front: 400 malformed JSON, 415 without JSON, 401 without a key', async () => {
    assert.deepEqual((await refused('{"image_data": ')).slug, 'bad-request');
    const accel = await loadContract('accel');
    const text = await fetch(`${base}${PATH}`, { method: 'POST', headers: { ...bearer(KEYS.core), 'content-type': 'text/plain' }, body: '{}' });
    assert.equal(text.status, 415);
    await assertMatchesContract(accel, 'post', PATH, text);
    const anonymous = await fetch(`${base}${PATH}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ image_data: png }) });
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.headers.get('www-authenticate'), 'Bearer');
    await assertMatchesContract(accel, 'post', PATH, anonymous);
  });

  test('after all of it: no 500, the breaker closed, every worker idle', async () => {
    const statuses = server.logs.filter((line) => line.msg === 'request' && line.route === PATH).map((line) => Number(line.status));
    assert.ok(statuses.length > 20);
    assert.deepEqual(statuses.filter((status) => status >= 500), []);
    const health = (await (await fetch(`${base}/health`)).json()) as { circuit_breaker: string; workers: { total: number; idle: number } };
    assert.equal(health.circuit_breaker, 'closed');
    assert.equal(health.workers.idle, health.workers.total);
  });
});

describe('POST /v1/image/compress: the configured caps', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ PLATEN_MAX_IMAGE_BYTES: '1024', PLATEN_MAX_IMAGE_PIXELS: '2000' });
  });
  after(() => server.close());

  test('PLATEN_MAX_IMAGE_BYTES: more decoded bytes is 413 image-too-large, checked before decoding', async () => {
    const big = await photoJpeg(60, 30);
    assert.ok(big.byteLength > 1024);
    const problem = problemOf(await compress(server.base, { image_data: b64(big) }));
    assert.deepEqual([problem.status, problem.slug], [413, 'image-too-large']);
    assert.match(problem.detail, /more than 1024 bytes.*PLATEN_MAX_IMAGE_BYTES/);
  });

  test('PLATEN_MAX_IMAGE_PIXELS: width x height, times the frames when every frame is kept', async () => {
    const gif = await animated(40, 30, [[255, 0, 0], [0, 255, 0], [0, 0, 255]]).gif().toBuffer();
    assert.ok(gif.byteLength <= 1024);
    // 1,200 pixels a frame: the first frame fits, all three (3,600) do not.
    assert.equal((await compressed(server.base, { image_data: b64(gif) })).data.height, 30);
    const frames = problemOf(await compress(server.base, { image_data: b64(gif), options: { animated: true } }));
    assert.deepEqual([frames.status, frames.slug], [413, 'image-too-large']);
    assert.match(frames.detail, /40 x 30 pixels x 3 frames \(3600\), more than the 2000/);
    const large = await sharp({ create: { width: 50, height: 50, channels: 3, background: '#fff' } }).png().toBuffer();
    const problem = problemOf(await compress(server.base, { image_data: b64(large) }));
    assert.deepEqual([problem.status, problem.slug], [413, 'image-too-large']);
    assert.match(problem.detail, /50 x 50 pixels \(2500\)/);
  });
});
