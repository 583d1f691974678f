// POST /v1/font/subset refusing what it cannot or may not do: fonts that are
// not fonts, truncated or damaged fonts and web fonts, fonts over the size
// cap, invalid fields, code points the font does not have, and a subset that
// runs past the processing timeout. Each answer is a problem document that
// matches the contract, with the slug and status of the README's table and a
// detail that never repeats the font data.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { postJson, readProblem, type Problem } from './helpers/http.js';
import { KEYS, bearer } from './helpers/keys.js';
import { assertMatchesContract, loadContract, type Contract } from './helpers/openapi.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { DEJAVU_SANS, NOTO_CJK_TTC, fontToolsWebFont } from './helpers/font-tools.js';
import { waitFor } from './helpers/wait.js';

const PATH = '/v1/font/subset';
const b64 = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');

let contract: Contract;
let dejavu: Uint8Array;

before(async () => {
  contract = await loadContract('accel');
  dejavu = new Uint8Array(await readFile(DEJAVU_SANS));
});

/** Posts, checks status, contract and slug, and that the detail does not quote the font. */
async function refused(base: string, body: unknown, status: number, slug: string, init: { headers?: Record<string, string> } = {}): Promise<Problem & { slug: string }> {
  const response = await postJson(base, PATH, body, init.headers ?? bearer(KEYS.core));
  assert.equal(response.status, status, `expected ${status} ${slug}, got ${response.status}: ${await response.clone().text()}`);
  const problem = await readProblem(response.clone());
  assert.equal(problem.slug, slug);
  await assertMatchesContract(contract, 'post', PATH, response);
  const fontData = typeof body === 'object' && body !== null ? (body as { font_data?: unknown }).font_data : undefined;
  if (typeof fontData === 'string' && fontData.length > 16) assert.ok(!problem.detail.includes(fontData.slice(0, 16)), 'the detail quotes the font data');
  return problem;
}

describe('with the default limits', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  test('400 invalid-font-data: not a font, a truncated font, a font with a table past its end', async () => {
    const notFont = await refused(server.base, { font_data: b64(new TextEncoder().encode('%PDF-1.7 this is not a font at all')), codepoints: [65] }, 400, 'invalid-font-data');
    assert.match(notFont.detail, /not a TrueType, OpenType, WOFF or WOFF2 font/);
    const truncated = await refused(server.base, { font_data: b64(dejavu.subarray(0, 40_000)), codepoints: [65] }, 400, 'invalid-font-data');
    assert.match(truncated.detail, /runs past the end of the data/);
    await refused(server.base, { font_data: b64(dejavu.subarray(0, 8)), codepoints: [65] }, 400, 'invalid-font-data');
  });

  test('400 invalid-font-data: tables HarfBuzz cannot read (a damaged cmap, a damaged head)', async () => {
    for (const tag of ['cmap', 'head']) {
      const damaged = new Uint8Array(dejavu);
      const { offset, length } = tableOf(damaged, tag);
      damaged.fill(0xff, offset, offset + Math.min(length, 64));
      const problem = await refused(server.base, { font_data: b64(damaged), codepoints: [65, 66] }, 400, 'invalid-font-data');
      assert.match(problem.detail, /a table is damaged or in a form the subsetter does not support/);
    }
  });

  test('400 invalid-font-data: a damaged WOFF and a truncated WOFF2', async () => {
    const woff = await fontToolsWebFont(dejavu, 'woff', 'ABCDEFGHIJKLMNOP');
    const damaged = new Uint8Array(woff);
    // Past the header and the table directory: inside the compressed tables.
    damaged.fill(0x55, damaged.byteLength - 400, damaged.byteLength - 100);
    const woffProblem = await refused(server.base, { font_data: b64(damaged), codepoints: [65] }, 400, 'invalid-font-data');
    assert.match(woffProblem.detail, /WOFF table \d+ (?:does not decompress|decompresses to)/);
    const woff2 = await fontToolsWebFont(dejavu, 'woff2', 'ABCDEFGHIJKLMNOP');
    const woff2Problem = await refused(server.base, { font_data: b64(woff2.subarray(0, woff2.byteLength - 200)), codepoints: [65] }, 400, 'invalid-font-data');
    assert.match(woff2Problem.detail, /WOFF2 data does not decode/);
  });

  test('422 validation-failed: every field checked, each error named', async () => {
    const font = b64(dejavu);
    const cases: Array<[unknown, string, string]> = [
      [{ codepoints: [65] }, 'font_data', 'REQUIRED'],
      [{ font_data: 42, codepoints: [65] }, 'font_data', 'INVALID_TYPE'],
      [{ font_data: '!!!! not base64 !!!!', codepoints: [65] }, 'font_data', 'INVALID_FORMAT'],
      [{ font_data: font }, 'codepoints', 'REQUIRED'],
      [{ font_data: font, codepoints: [] }, 'codepoints', 'TOO_SHORT'],
      [{ font_data: font, codepoints: new Array(131_073).fill(65) }, 'codepoints', 'TOO_LONG'],
      [{ font_data: font, codepoints: [65, -1] }, 'codepoints[1]', 'OUT_OF_RANGE'],
      [{ font_data: font, codepoints: [0x110000] }, 'codepoints[0]', 'OUT_OF_RANGE'],
      [{ font_data: font, codepoints: [65.5] }, 'codepoints[0]', 'INVALID_TYPE'],
      [{ font_data: font, codepoints: ['A'] }, 'codepoints[0]', 'INVALID_TYPE'],
      [{ font_data: font, codepoints: [65], face_index: -1 }, 'face_index', 'OUT_OF_RANGE'],
      [{ font_data: font, codepoints: [65], face_index: 1 }, 'face_index', 'OUT_OF_RANGE'],
      [{ font_data: font, codepoints: [65], options: { preserve_hints: 'yes' } }, 'options.preserve_hints', 'INVALID_TYPE'],
      [{ font_data: font, codepoints: [65], options: { subset_gsub: false } }, 'options.subset_gsub', 'UNKNOWN_FIELD'],
      [{ font_data: font, codepoints: [65], output: 'woff2' }, 'output', 'UNKNOWN_FIELD'],
    ];
    for (const [body, field, code] of cases) {
      const problem = await refused(server.base, body, 422, 'validation-failed');
      assert.ok(
        problem.errors?.some((e) => e.field === field && e.code === code),
        `${JSON.stringify(body).slice(0, 80)}: expected ${field} ${code}, got ${JSON.stringify(problem.errors)}`,
      );
    }
  });

  test('422: a font with a glyph for none of the code points', async () => {
    const problem = await refused(server.base, { font_data: b64(dejavu), codepoints: [0xe000, 0x4e00] }, 422, 'validation-failed');
    assert.deepEqual(
      problem.errors?.map((e) => [e.field, e.code]),
      [['codepoints', 'INVALID_VALUE']],
    );
  });

  test('400 bad-request, 401, 415: the pipeline answers before any worker', async () => {
    await refused(server.base, '{"font_data": ', 400, 'bad-request');
    await refused(server.base, { font_data: b64(dejavu), codepoints: [65] }, 401, 'unauthorized', { headers: { authorization: 'Bearer svc_live_nobody_xxxxxxxxxxxxxxxxxxxx' } });
    const response = await fetch(`${server.base}${PATH}`, { method: 'POST', headers: { ...bearer(KEYS.core), 'content-type': 'text/plain' }, body: 'x' });
    assert.equal(response.status, 415);
    await assertMatchesContract(contract, 'post', PATH, response);
  });
});

describe('over PLATEN_MAX_FONT_BYTES', () => {
  let server: TestServer;
  let woff: Uint8Array;
  let cap: number;
  before(async () => {
    // A WOFF under the cap as sent and over it unpacked: the cap halfway between.
    const text = String.fromCodePoint(...Array.from({ length: 0x250 - 0x20 }, (_, i) => 0x20 + i), ...Array.from({ length: 0x100 }, (_, i) => 0x400 + i));
    woff = await fontToolsWebFont(dejavu, 'woff', text);
    const unpacked = new DataView(woff.buffer, woff.byteOffset).getUint32(16); // WOFF header: totalSfntSize
    cap = Math.floor((woff.byteLength + unpacked) / 2);
    assert.ok(woff.byteLength < cap && cap < unpacked, `WOFF ${woff.byteLength} bytes, ${unpacked} unpacked`);
    server = await startTestServer({ PLATEN_MAX_FONT_BYTES: String(cap) });
  });
  after(() => server.close());

  test('413 font-too-large: a font over the cap, and a WOFF that would unpack past it', async () => {
    const problem = await refused(server.base, { font_data: b64(dejavu), codepoints: [65] }, 413, 'font-too-large');
    assert.ok(problem.detail.includes(`${cap} bytes`), problem.detail);
    const unpacked = await refused(server.base, { font_data: b64(woff), codepoints: [65] }, 413, 'font-too-large');
    assert.match(unpacked.detail, /unpacks to \d+ bytes/);
  });
});

describe('past PLATEN_TIMEOUT_MS', () => {
  let server: TestServer;
  before(async () => {
    // 100 ms, the smallest timeout; the subset below takes over a second of worker time.
    server = await startTestServer({ PLATEN_TIMEOUT_MS: '100' });
  });
  after(() => server.close());

  test('504 request-timeout: a CJK collection subset to all of the BMP; the worker is replaced', async () => {
    const cjk = new Uint8Array(await readFile(NOTO_CJK_TTC));
    const everything = Array.from({ length: 0x10000 }, (_, cp) => cp);
    await refused(server.base, { font_data: b64(cjk), codepoints: everything }, 504, 'request-timeout');
    // The pool has its two threads again, both idle.
    type Workers = { total: number; busy: number; idle: number };
    const workers = await waitFor(
      async () => {
        const now = ((await (await fetch(`${server.base}/health`)).json()) as { workers: Workers }).workers;
        return now.total === 2 && now.idle === 2 ? now : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 100, what: 'two idle workers' },
    );
    assert.deepEqual(workers, { total: 2, busy: 0, idle: 2 });
  });
});

/** Offset and length of table `tag` in a single sfnt font. */
function tableOf(font: Uint8Array, tag: string): { offset: number; length: number } {
  const view = new DataView(font.buffer, font.byteOffset, font.byteLength);
  for (let i = 0; i < view.getUint16(4); i++) {
    const record = 12 + 16 * i;
    if (Buffer.from(font.subarray(record, record + 4)).toString('latin1') === tag) return { offset: view.getUint32(record + 8), length: view.getUint32(record + 12) };
  }
  throw new Error(`no '${tag}' table`);
}
