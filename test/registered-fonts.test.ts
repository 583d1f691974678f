// Registered fonts: PUT /api/v1/fonts/{family}, GET /api/v1/fonts,
// DELETE /api/v1/fonts/{family}, and set_font naming a registered family
// with no data. The same tests run against the embedded store (files under
// PLATEN_DATA_DIR) and the Redis store (multi-node mode, a real redis-server).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { PlatenClient, PlatenProblemError } from '../src/client/index.js';
import { DEJAVU_SANS, fontToolsWebFont, NOTO_CJK_TTC } from './helpers/font-tools.js';
import { postJson, readProblem } from './helpers/http.js';
import { bearer, KEYS } from './helpers/keys.js';
import { assertMatchesContract, loadContract } from './helpers/openapi.js';
import { pdfFonts, pdfToText, qpdfCheck } from './helpers/pdf-tools.js';
import { redisAround, redisEnv, type TestRedis } from './helpers/redis.js';
import { spawnServers, startTestServer, temporaryDataDir, type TestServer } from './helpers/server.js';

const SANS = readFileSync(DEJAVU_SANS);
const SERIF = readFileSync(new URL('DejaVuSerif.ttf', DEJAVU_SANS));

interface FontView {
  family: string;
  size: number;
  sha256: string;
  created_at: string;
  glyphs: number;
  name: string;
}

function putFont(base: string, family: string, bytes: Uint8Array, key: string = KEYS.core, contentType = 'font/ttf'): Promise<Response> {
  return fetch(`${base}/api/v1/fonts/${encodeURIComponent(family)}`, { method: 'PUT', headers: { ...bearer(key), 'content-type': contentType }, body: bytes });
}

async function listFonts(base: string, key: string = KEYS.core): Promise<{ fonts: FontView[]; usage: { count: number; max_count: number; bytes: number; max_bytes: number } }> {
  const response = await fetch(`${base}/api/v1/fonts`, { headers: bearer(key) });
  assert.equal(response.status, 200);
  return ((await response.json()) as { data: { fonts: FontView[]; usage: { count: number; max_count: number; bytes: number; max_bytes: number } } }).data;
}

function renderIn(base: string, family: string, text: string, key: string = KEYS.core): Promise<Response> {
  return postJson(base, '/api/v1/render', { operations: [{ type: 'set_font', family, size: 14 }, { type: 'add_text', text }] }, bearer(key));
}

let redis: TestRedis | undefined;

describe('registered fonts, embedded store', () => storeTests(() => ({})));

test('the client library registers, lists and deletes fonts', async (t) => {
  const server = await startTestServer();
  t.after(() => server.close());
  const client = new PlatenClient({ baseUrl: server.base, apiKey: KEYS.pro, retry: { maxAttempts: 1 } });
  t.after(() => client.close());
  const registered = await client.registerFont('Client Face', SANS, 'font/ttf');
  assert.equal(registered.data.family, 'Client Face');
  assert.equal(registered.data.size, SANS.byteLength);
  assert.deepEqual((await client.listFonts()).data.fonts.map((font) => font.family), ['Client Face']);
  assert.equal((await renderIn(server.base, 'Client Face', 'via the client', KEYS.pro)).status, 200);
  await client.deleteFont('Client Face');
  assert.deepEqual((await client.listFonts()).data.fonts, []);
  await assert.rejects(client.deleteFont('Client Face'), (error: unknown) => error instanceof PlatenProblemError && error.slug === 'not-found');
});

describe('registered fonts, Redis store', () => {
  redisAround((started) => (redis = started));
  storeTests(() => redisEnv(redis));

  test('a font registered on one node renders on another (each node copies it from Redis once)', async (t) => {
    const shared = redisEnv(redis);
    const [a, b] = await spawnServers(shared, shared);
    t.after(async () => {
      await a?.kill();
      await b?.kill();
    });
    assert.equal((await putFont((a as { base: string }).base, 'Shared Sans', SANS, KEYS.pro)).status, 201);
    const response = await renderIn((b as { base: string }).base, 'Shared Sans', 'Across nodes', KEYS.pro);
    assert.equal(response.status, 200);
    const pdf = new Uint8Array(await response.arrayBuffer());
    assert.match(await pdfToText(pdf), /Across nodes/);
    assert.ok((await pdfFonts(pdf)).some((font) => /DejaVuSans/.test(font.name) && font.embedded));
  });
});

function storeTests(env: () => Record<string, string>): void {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ ...env(), PLATEN_FONTS_MAX_CORE: '2', PLATEN_DATA_DIR: temporaryDataDir() });
  });
  after(() => server.close());

  test('PUT registers a font (201), GET lists it, set_font uses it with no data, and the PDF embeds it', async () => {
    const put = await putFont(server.base, 'Brand Sans', SANS);
    assert.equal(put.status, 201);
    const created = ((await put.json()) as { data: FontView }).data;
    assert.equal(created.family, 'Brand Sans');
    assert.equal(created.size, SANS.byteLength);
    assert.equal(created.sha256, createHash('sha256').update(SANS).digest('hex'));
    assert.ok(created.glyphs > 5000, `DejaVu Sans has thousands of glyphs, got ${created.glyphs}`);
    assert.ok(!Number.isNaN(Date.parse(created.created_at)));

    const listed = await listFonts(server.base);
    assert.deepEqual(listed.fonts, [created]);
    assert.deepEqual(listed.usage, { count: 1, max_count: 2, bytes: SANS.byteLength, max_bytes: 256 * 1024 * 1024 });

    const response = await renderIn(server.base, 'Brand Sans', 'Grüße, Ζεύς, Привет');
    assert.equal(response.status, 200);
    const pdf = new Uint8Array(await response.arrayBuffer());
    await qpdfCheck(pdf);
    assert.match(await pdfToText(pdf), /Grüße, Ζεύς, Привет/);
    const fonts = await pdfFonts(pdf);
    assert.ok(fonts.some((font) => /^[A-Z]{6}\+DejaVuSans$/.test(font.name) && font.embedded && font.subset), JSON.stringify(fonts));
  });

  test('a job names a registered font too: it is looked up when the job runs', async () => {
    assert.equal((await putFont(server.base, 'Job Face', SERIF, KEYS.pro)).status, 201);
    const submitted = await postJson(server.base, '/api/v1/jobs', { operations: [{ type: 'set_font', family: 'Job Face' }, { type: 'add_text', text: 'Queued in serif' }] }, bearer(KEYS.pro));
    assert.equal(submitted.status, 201);
    const { job_id: id } = ((await submitted.json()) as { data: { job_id: string } }).data;
    let status = 'pending';
    while (status === 'pending' || status === 'running') {
      status = ((await (await fetch(`${server.base}/api/v1/jobs/${id}?wait=10`, { headers: bearer(KEYS.pro) })).json()) as { data: { status: string } }).data.status;
    }
    assert.equal(status, 'completed');
    const pdf = new Uint8Array(await (await fetch(`${server.base}/api/v1/jobs/${id}/result`, { headers: bearer(KEYS.pro) })).arrayBuffer());
    assert.match(await pdfToText(pdf), /Queued in serif/);
    assert.ok((await pdfFonts(pdf)).some((font) => /DejaVuSerif/.test(font.name) && font.embedded));
  });

  test('PUT again replaces the family (200), and renders use the new font', async () => {
    assert.equal((await putFont(server.base, 'Replaced', SANS)).status, 201);
    const again = await putFont(server.base, 'Replaced', SERIF);
    assert.equal(again.status, 200);
    assert.equal(((await again.json()) as { data: FontView }).data.size, SERIF.byteLength);
    const pdf = new Uint8Array(await (await renderIn(server.base, 'Replaced', 'Serif now')).arrayBuffer());
    assert.ok((await pdfFonts(pdf)).some((font) => /DejaVuSerif/.test(font.name)));
    assert.equal((await fetch(`${server.base}/api/v1/fonts/Replaced`, { method: 'DELETE', headers: bearer(KEYS.core) })).status, 204);
  });

  test('another client never sees or uses a family: its list is its own and set_font answers UNKNOWN_FONT', async () => {
    assert.equal((await putFont(server.base, 'Private Face', SANS)).status, 201);
    assert.deepEqual((await listFonts(server.base, KEYS.enterprise)).fonts.map((font) => font.family).includes('Private Face'), false);
    const response = await renderIn(server.base, 'Private Face', 'not mine', KEYS.enterprise);
    assert.equal(response.status, 422);
    const problem = await readProblem(response);
    assert.equal(problem.slug, 'validation-failed');
    assert.deepEqual(problem.errors?.map((e) => [e.field, e.code]), [['operations[0].family', 'UNKNOWN_FONT']]);
    assert.equal((await fetch(`${server.base}/api/v1/fonts/Private%20Face`, { method: 'DELETE', headers: bearer(KEYS.enterprise) })).status, 404);
    assert.equal((await fetch(`${server.base}/api/v1/fonts/Private%20Face`, { method: 'DELETE', headers: bearer(KEYS.core) })).status, 204);
    assert.equal((await renderIn(server.base, 'Private Face', 'gone')).status, 422);
  });

  test('a core client keeps at most PLATEN_FONTS_MAX_CORE fonts: the next is 422 TOO_LARGE on (fonts)', async () => {
    const before = (await listFonts(server.base)).usage.count;
    for (let i = before; i < 2; i++) assert.equal((await putFont(server.base, `Fill ${i}`, SANS)).status, 201);
    const refused = await putFont(server.base, 'One Too Many', SANS);
    assert.equal(refused.status, 422);
    const problem = await readProblem(refused);
    assert.deepEqual(problem.errors?.map((e) => [e.field, e.code]), [['(fonts)', 'TOO_LARGE']]);
    // Replacing a family it has is not one more.
    assert.equal((await putFont(server.base, 'Fill 1', SANS)).status, 200);
    for (const font of (await listFonts(server.base)).fonts) {
      assert.equal((await fetch(`${server.base}/api/v1/fonts/${encodeURIComponent(font.family)}`, { method: 'DELETE', headers: bearer(KEYS.core) })).status, 204);
    }
    assert.equal((await listFonts(server.base)).usage.count, 0);
  });

  test('WOFF2 is stored unpacked and renders', async () => {
    const woff2 = await fontToolsWebFont(SANS, 'woff2', 'Hello Web');
    const put = await putFont(server.base, 'Web Font', woff2, KEYS.pro, 'font/woff2');
    assert.equal(put.status, 201);
    const created = ((await put.json()) as { data: FontView }).data;
    assert.ok(created.size > woff2.byteLength, 'the stored font is the unpacked sfnt');
    const response = await renderIn(server.base, 'Web Font', 'Hello Web', KEYS.pro);
    assert.equal(response.status, 200);
    assert.match(await pdfToText(new Uint8Array(await response.arrayBuffer())), /Hello Web/);
  });

  test('one face of a collection is registered: face_index, the first by default; a face past the last or a bad index is 422', async () => {
    const collection = await readFile(NOTO_CJK_TTC);
    const put = (query: string) =>
      fetch(`${server.base}/api/v1/fonts/CJK${query}`, { method: 'PUT', headers: { ...bearer(KEYS.pro), 'content-type': 'application/octet-stream' }, body: collection });
    const created = await put('?face_index=2');
    assert.equal(created.status, 201, await created.clone().text());
    const stored = ((await created.json()) as { data: FontView }).data;
    assert.equal(stored.name, 'Noto Sans CJK SC');
    assert.ok(stored.size < collection.byteLength, 'one face is kept, not the collection');
    const response = await renderIn(server.base, 'CJK', '简体中文', KEYS.pro);
    assert.equal(response.status, 200);
    const pdf = new Uint8Array(await response.arrayBuffer());
    assert.match(await pdfToText(pdf), /简体中文/);
    assert.match((await pdfFonts(pdf))[0]?.name ?? '', /\+NotoSansCJKsc-Regular$/);
    assert.equal(((await (await put('')).json()) as { data: FontView }).data.name, 'Noto Sans CJK JP');
    for (const [query, code] of [['?face_index=10', 'OUT_OF_RANGE'], ['?face_index=100000', 'OUT_OF_RANGE'], ['?face_index=-1', 'INVALID_FORMAT'], ['?face_index=one', 'INVALID_FORMAT']] as const) {
      const refused = await put(query);
      assert.equal(refused.status, 422, query);
      assert.deepEqual((await readProblem(refused)).errors?.map((error) => [error.field, error.code]), [['face_index', code]], query);
    }
    assert.equal((await fetch(`${server.base}/api/v1/fonts/CJK`, { method: 'DELETE', headers: bearer(KEYS.pro) })).status, 204);
  });

  test('every answer matches the render contract', async () => {
    const contract = await loadContract('render');
    const path = '/api/v1/fonts/{family}';
    await assertMatchesContract(contract, 'put', path, await putFont(server.base, 'Contract Face', SANS));
    await assertMatchesContract(contract, 'put', path, await putFont(server.base, 'Contract Face', SANS));
    await assertMatchesContract(contract, 'put', path, await putFont(server.base, 'Helvetica', SANS));
    await assertMatchesContract(contract, 'put', path, await putFont(server.base, 'Contract Face', SANS, KEYS.core, 'text/plain'));
    await assertMatchesContract(contract, 'get', '/api/v1/fonts', await fetch(`${server.base}/api/v1/fonts`, { headers: bearer(KEYS.core) }));
    await assertMatchesContract(contract, 'delete', path, await fetch(`${server.base}/api/v1/fonts/Contract%20Face`, { method: 'DELETE', headers: bearer(KEYS.core) }));
    await assertMatchesContract(contract, 'delete', path, await fetch(`${server.base}/api/v1/fonts/Contract%20Face`, { method: 'DELETE', headers: bearer(KEYS.core) }));
  });

  test('bad fonts, bad names and bad media types are refused with the right problem', async () => {
    const garbage = await putFont(server.base, 'Garbage', new Uint8Array(4096).fill(7));
    assert.equal(garbage.status, 422);
    assert.deepEqual((await readProblem(garbage)).errors?.map((e) => [e.field, e.code]), [['(body)', 'INVALID_FONT']]);

    const truncated = await putFont(server.base, 'Truncated', SANS.subarray(0, 20_000));
    assert.equal(truncated.status, 422);
    assert.equal((await readProblem(truncated)).errors?.[0]?.code, 'INVALID_FONT');

    for (const [family, code] of [
      ['Helvetica', 'INVALID_VALUE'],
      ['times-bold', 'INVALID_VALUE'],
      ['../etc', 'INVALID_FORMAT'],
      [' Leading', 'INVALID_FORMAT'],
      ['x'.repeat(65), 'INVALID_FORMAT'],
    ] as const) {
      const response = await putFont(server.base, family, SANS);
      assert.equal(response.status, 422, family);
      assert.deepEqual((await readProblem(response)).errors?.map((e) => [e.field, e.code]), [['family', code]], family);
    }

    const json = await putFont(server.base, 'Json', SANS, KEYS.core, 'application/json');
    assert.equal(json.status, 415);
    assert.equal((await readProblem(json)).slug, 'unsupported-media-type');

    const empty = await fetch(`${server.base}/api/v1/fonts/Empty`, { method: 'PUT', headers: { ...bearer(KEYS.core), 'content-type': 'font/ttf' } });
    assert.equal(empty.status, 400);
    assert.equal((await readProblem(empty)).slug, 'bad-request');

    const unauthenticated = await fetch(`${server.base}/api/v1/fonts`);
    assert.equal(unauthenticated.status, 401);
    assert.equal((await listFonts(server.base)).usage.count, 0, 'nothing refused was stored');
  });
}
