// Problem details say what is wrong with the input in our own words; what
// libvips, pdf-lib, fontkit or qpdf said goes to the request's log line as
// `cause`, never into the response (issue 9: details quoted "vipspng:
// libpng read error" and "VipsJpeg: premature end of JPEG image").
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { postJson, readProblem } from './helpers/http.js';
import { KEYS, bearer } from './helpers/keys.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { damageInOurWords } from '../workers/seams/qpdf-messages.js';

/** Words of the libraries and their decoders that a detail must not carry. */
const LIBRARY_TEXT = /vips|libpng|libjpeg|libwebp|jpeg_|png_|webp2|VipsJpeg|sharp|pdf-lib|fontkit|harfbuzz|qpdf:|endstream|xref|Error\b|undefined/i;

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

async function brokenImages(): Promise<Array<[string, Buffer]>> {
  const make = () => sharp({ create: { width: 48, height: 32, channels: 3, background: '#2266aa' } });
  const png = await make().png().toBuffer();
  const jpeg = await make().jpeg().toBuffer();
  const webp = await make().webp().toBuffer();
  const scrambled = (bytes: Buffer) => {
    const copy = Buffer.from(bytes);
    for (let i = Math.floor(copy.length / 2); i < copy.length - 8; i++) copy[i] = (copy[i] as number) ^ 0xa5;
    return copy;
  };
  return [
    ['truncated PNG', png.subarray(0, png.length - 20)],
    ['scrambled PNG', scrambled(png)],
    ['truncated JPEG', jpeg.subarray(0, jpeg.length >> 1)],
    ['scrambled JPEG', scrambled(jpeg)],
    ['truncated WebP', webp.subarray(0, webp.length >> 1)],
  ];
}

/** The completion line of the last request to `route`. */
function lastLine(route: string): Record<string, unknown> | undefined {
  return server.logs.filter((line) => line.msg === 'request' && line.route === route).at(-1);
}

test('broken PNG, JPEG and WebP: image-compress details in our words, the decoder\'s in the log', async () => {
  for (const [name, bytes] of await brokenImages()) {
    const response = await fetch(`${server.base}/v1/image/compress`, {
      method: 'POST',
      headers: { ...bearer(KEYS.core), 'content-type': 'application/json' },
      body: JSON.stringify({ image_data: b64(bytes) }),
    });
    const problem = await readProblem(response);
    assert.equal(problem.slug, 'invalid-image-data', name);
    assert.doesNotMatch(problem.detail, LIBRARY_TEXT, `${name}: ${problem.detail}`);
    assert.match(problem.detail, /^image_data is (truncated|damaged)/, name);
    assert.doesNotMatch(problem.detail, /\(/, `${name}: no quoted decoder message`);
    const cause = lastLine('/v1/image/compress')?.cause;
    assert.ok(typeof cause === 'string' && cause.length > 0, `${name}: libvips's message is logged`);
  }
});

test('broken PNG, JPEG and WebP: render errors in our words, the decoder\'s in the log', async () => {
  for (const [name, bytes] of await brokenImages()) {
    const problem = await readProblem(await postJson(server.base, '/api/v1/render', { operations: [{ type: 'add_image', data: b64(bytes) }] }));
    assert.equal(problem.status, 422, name);
    for (const text of [problem.detail, problem.errors?.[0]?.message ?? '']) assert.doesNotMatch(text, new RegExp(`${LIBRARY_TEXT.source}|\\(`, 'i'), `${name}: ${text}`);
    const cause = lastLine('/api/v1/render')?.cause;
    assert.ok(typeof cause === 'string' && cause.length > 0, `${name}: libvips's message is logged`);
  }
});

test('a font HarfBuzz or the sfnt check refuses: our words', async () => {
  const response = await fetch(`${server.base}/v1/font/subset`, {
    method: 'POST',
    headers: { ...bearer(KEYS.core), 'content-type': 'application/json' },
    body: JSON.stringify({ font_data: b64(Buffer.concat([Buffer.from([0, 1, 0, 0, 0, 4]), Buffer.alloc(400, 0x41)])), codepoints: [65] }),
  });
  const problem = await readProblem(response);
  assert.equal(problem.slug, 'invalid-font-data');
  assert.doesNotMatch(problem.detail, LIBRARY_TEXT, problem.detail);
});

test('a damaged PDF: linearize says where, not what qpdf said', async () => {
  // Three objects, a stream whose /Length points past its data.
  const body = [
    '%PDF-1.4',
    '1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj',
    '2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj',
    '3 0 obj << /Length 500 >> stream',
    'BT ET',
    'endstream endobj',
    'trailer << /Root 1 0 R /Size 4 >>',
    '%%EOF',
    '',
  ].join('\n');
  const response = await fetch(`${server.base}/v1/linearize`, {
    method: 'POST',
    headers: { ...bearer(KEYS.core), 'content-type': 'application/json' },
    body: JSON.stringify({ pdf_data: b64(Buffer.from(body, 'latin1')) }),
  });
  const problem = await readProblem(response);
  assert.equal(problem.slug, 'invalid-pdf-data');
  assert.doesNotMatch(problem.detail, LIBRARY_TEXT, problem.detail);
  const cause = lastLine('/v1/linearize')?.cause;
  assert.ok(typeof cause === 'string' && cause.length > 0, "qpdf's messages are logged");
});

test('qpdf messages in our words: how many, and where', () => {
  assert.equal(damageInOurWords([]), 'its structure cannot be read');
  assert.equal(damageInOurWords(['file is damaged']), '1 structural problem');
  assert.equal(
    damageInOurWords(['expected endstream (object 6 0, offset 1059)', 'file is damaged', 'attempting to recover stream length (object 6 0, offset 960)']),
    '3 structural problems, at object 6 0, offset 1059; object 6 0, offset 960',
  );
});
