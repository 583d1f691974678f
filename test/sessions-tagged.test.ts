// Sessions with a RenderRequest's `metadata` and `output` (issue 15): given
// at creation, they reach the final render, so a session can make a tagged
// (PDF/UA-1) file, with pdf_a and an outline too, that our own
// check-accessibility and compliance-check pass. What a tagged render needs
// is refused when it is given: a tagged session without a title or a
// language at creation, an image without alt as it is added (a session
// cannot take an operation back). Once with the embedded store and once
// with the Redis store (a real redis-server).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { readProblem } from './helpers/http.js';
import { KEYS, bearer } from './helpers/keys.js';
import { pdfInfo, pdfOutline, pdfStructure, qpdfCheck } from './helpers/pdf-tools.js';
import { redisAround, redisEnv, type TestRedis } from './helpers/redis.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { redSquare } from './helpers/tagged-documents.js';

interface Session {
  session_id: string;
  operation_count: number;
  metadata?: unknown;
  output?: unknown;
}

const call = (s: TestServer, method: string, path: string, body?: unknown, key: string = KEYS.enterprise) =>
  fetch(`${s.base}${path}`, {
    method,
    headers: { ...bearer(key), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
const read = async (response: Response): Promise<Session> => ((await response.json()) as { data: Session }).data;
const metadata = { title: 'Quote 77', language: 'en-GB' };

let redis: TestRedis | undefined;

describe('tagged sessions', () => taggedSessionTests());

describe('tagged sessions in the multi-node mode (Redis)', () => {
  redisAround((started) => (redis = started));
  taggedSessionTests();
});

function taggedSessionTests(): void {
  let s: TestServer;
  let image: string;
  before(async () => {
    s = await startTestServer({ PLATEN_SESSIONS_ENABLED: 'true', ...redisEnv(redis) });
    image = await redSquare();
  });
  after(() => s.close());

  const create = async (body: unknown): Promise<Session> => {
    const response = await call(s, 'POST', '/api/v1/sessions', body);
    assert.equal(response.status, 201, await response.clone().text());
    return read(response);
  };
  const add = async (id: string, segment: string, body: unknown) => {
    const response = await call(s, 'POST', `/api/v1/sessions/${id}/${segment}`, body);
    assert.equal(response.status, 200, await response.clone().text());
  };
  const render = async (id: string): Promise<Uint8Array> => {
    const response = await call(s, 'POST', `/api/v1/sessions/${id}/render`);
    assert.equal(response.status, 200, await response.clone().text());
    const pdf = new Uint8Array(await response.arrayBuffer());
    await qpdfCheck(pdf);
    return pdf;
  };
  const check = async (path: string, pdf: Uint8Array, key: string) => {
    const response = await call(s, 'POST', path, { pdf: Buffer.from(pdf).toString('base64') }, key);
    assert.equal(response.status, 200, await response.clone().text());
    return ((await response.json()) as { data: { compliant: boolean; failures: unknown[]; standard?: string } }).data;
  };
  /** A quote built one call at a time: heading, text with a link, an image, a table with a header, HTML. */
  const fill = async (id: string) => {
    await add(id, 'text', { text: 'Quote 77', heading: 1, size: 20, bold: true });
    await add(id, 'text', { text: 'Our terms are online.', link: 'https://example.com/terms' });
    await add(id, 'images', { data: image, alt: 'Company logo', width: 40 });
    await add(id, 'tables', { header: ['Item', 'Qty'], rows: [['Bearing', '2'], ['Shaft', '1']] });
    await add(id, 'html', { html: '<h2>Terms</h2><ul><li>Net 30</li></ul>' });
  };

  test('output.tagged at creation: the render is tagged and passes check-accessibility; the session shows what it was given', async () => {
    const session = await create({ metadata, output: { tagged: true, outline: true } });
    assert.deepEqual({ metadata: session.metadata, output: session.output }, { metadata, output: { tagged: true, outline: true } });
    const got = await read(await call(s, 'GET', `/api/v1/sessions/${session.session_id}`));
    assert.deepEqual(got.output, { tagged: true, outline: true });
    await fill(session.session_id);
    const pdf = await render(session.session_id);
    const report = await check('/api/v1/check-accessibility', pdf, KEYS.pro);
    assert.deepEqual(report.failures, []);
    assert.equal(report.compliant, true);
    const info = await pdfInfo(pdf);
    assert.deepEqual({ tagged: info.Tagged, title: info.Title }, { tagged: 'yes', title: 'Quote 77' });
    const roles = (await pdfStructure(pdf)).flatMap((line) => (line.role === undefined ? [] : [line.role]));
    assert.deepEqual(roles, ['Document', 'H1', 'P', 'Link', 'Figure', 'Table', 'TR', 'TH', 'TH', 'TR', 'TD', 'TD', 'TR', 'TD', 'TD', 'H2', 'L', 'LI', 'Lbl', 'LBody', 'P']);
    assert.deepEqual((await pdfOutline(pdf)).outline.map((entry) => [entry.title, entry.kids.map((kid) => kid.title)]), [['Quote 77', ['Terms']]]);
  });

  test('tagged with pdf_a 2b: compliance-check and check-accessibility pass', async () => {
    const session = await create({ page_size: 'Letter', metadata, output: { tagged: true, pdf_a: '2b' } });
    await fill(session.session_id);
    const pdf = await render(session.session_id);
    assert.deepEqual((await check('/api/v1/compliance-check', pdf, KEYS.enterprise)).failures, []);
    assert.deepEqual((await check('/api/v1/check-accessibility', pdf, KEYS.pro)).failures, []);
  });

  test('pdf_a 2a implies tagged: an image without alt is refused as it is added; the render passes compliance-check at 2a', async () => {
    const session = await create({ metadata, output: { pdf_a: '2a' } });
    const problem = await readProblem(await call(s, 'POST', `/api/v1/sessions/${session.session_id}/images`, { data: image }));
    assert.deepEqual(problem.errors?.map((e) => `${e.field} ${e.code}`), ['alt REQUIRED']);
    await fill(session.session_id);
    const pdf = await render(session.session_id);
    const report = await check('/api/v1/compliance-check', pdf, KEYS.enterprise);
    assert.equal(report.standard, 'pdfa-2a');
    assert.deepEqual(report.failures, []);
    assert.deepEqual((await check('/api/v1/check-accessibility', pdf, KEYS.pro)).failures, []);
  });

  test('a session without output renders untagged, as before; its images need no alt', async () => {
    const session = await create({});
    assert.equal(session.output, undefined);
    await add(session.session_id, 'images', { data: image });
    const pdf = await render(session.session_id);
    assert.equal((await pdfInfo(pdf)).Tagged, 'no');
  });

  test('a session with tagged "structure" renders tagged without claiming PDF/UA: its images need no alt, nor the session a title', async () => {
    const session = await create({ output: { tagged: 'structure' } });
    await add(session.session_id, 'images', { data: image });
    const pdf = await render(session.session_id);
    assert.equal((await pdfInfo(pdf)).Tagged, 'yes');
    assert.doesNotMatch(Buffer.from(pdf).toString('latin1'), /pdfuaid/);
  });

  test('refused at creation: a tagged session without title and language, a bad output or metadata (422 naming the field)', async () => {
    const fields = async (body: unknown) => {
      const problem = await readProblem(await call(s, 'POST', '/api/v1/sessions', body));
      assert.equal(problem.status, 422);
      return problem.errors?.map((e) => `${e.field} ${e.code}`);
    };
    assert.deepEqual(await fields({ output: { tagged: true } }), ['metadata.title REQUIRED', 'metadata.language REQUIRED']);
    assert.deepEqual(await fields({ output: { tagged: 'yes' } }), ['output.tagged INVALID_VALUE']);
    assert.deepEqual(await fields({ output: { pdf_a: '1u' } }), ['output.pdf_a INVALID_ENUM']);
    assert.deepEqual(await fields({ output: 'tagged' }), ['output INVALID_TYPE']);
    assert.deepEqual(await fields({ metadata: { title: 'x', colour: 'red' } }), ['metadata.colour UNKNOWN_FIELD']);
  });

  test('a tagged session refuses an image without alt as it is added, and does not count it', async () => {
    const session = await create({ metadata, output: { tagged: true } });
    const path = `/api/v1/sessions/${session.session_id}`;
    const refused = async (segment: string, body: unknown) => {
      const problem = await readProblem(await call(s, 'POST', `${path}/${segment}`, body));
      assert.equal(problem.status, 422);
      return problem.errors?.map((e) => `${e.field} ${e.code}`);
    };
    assert.deepEqual(await refused('images', { data: image }), ['alt REQUIRED']);
    assert.deepEqual(await refused('html', { html: `<p>Logo <img src="data:image/png;base64,${image}"></p>` }), ['html REQUIRED']);
    // alt="" is a decorative image; an <img> inside a dropped element is never drawn.
    await add(session.session_id, 'images', { data: image, alt: '' });
    await add(session.session_id, 'html', { html: `<p><img src="data:image/png;base64,${image}" alt=""></p><noscript><img src="x"></noscript>` });
    assert.equal((await read(await call(s, 'GET', path))).operation_count, 2);
    assert.deepEqual((await check('/api/v1/check-accessibility', await render(session.session_id), KEYS.pro)).failures, []);
  });
}
