// A session refuses, when it is added, an operation whose own bytes the
// render would refuse (an image that is not one, an <img> data: URI that is
// not one, font data that is not a font): a session cannot take an operation
// back, so accepting it left a session that could never render. Untagged
// sessions, which had no check at add time; tagged ones check the same.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { KEYS, bearer } from './helpers/keys.js';
import { readProblem } from './helpers/http.js';
import { b64, bandsImage } from './helpers/images.js';
import { pdfToText } from './helpers/pdf-tools.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const call = (s: TestServer, method: string, path: string, body?: unknown) =>
  fetch(`${s.base}${path}`, {
    method,
    headers: { ...bearer(KEYS.enterprise), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

const session = async (s: TestServer, body: unknown = {}): Promise<string> =>
  ((await (await call(s, 'POST', '/api/v1/sessions', body)).json()) as { data: { session_id: string } }).data.session_id;

const operationCount = async (s: TestServer, id: string): Promise<number> =>
  ((await (await call(s, 'GET', `/api/v1/sessions/${id}`)).json()) as { data: { operation_count: number } }).data.operation_count;

/** Eight bytes that no image reader takes for an image. */
const NOT_AN_IMAGE = b64(Buffer.from('notimage'));

describe('sessions check the bytes an operation carries when it is added', () => {
  // One server for every case: each case has a session of its own.
  let s: TestServer;
  before(async () => (s = await startTestServer({ PLATEN_SESSIONS_ENABLED: 'true' })));
  after(() => s.close());

  const cases: ReadonlyArray<{ name: string; method: string; route: string; body: unknown; field: string; code: string }> = [
    { name: 'add_image data that is not an image', method: 'POST', route: 'images', body: { data: NOT_AN_IMAGE, alt: '' }, field: 'data', code: 'UNSUPPORTED_IMAGE' },
    { name: 'add_image data that is not base64', method: 'POST', route: 'images', body: { data: '*not base64*', alt: '' }, field: 'data', code: 'INVALID_FORMAT' },
    { name: 'an <img> data: URI that is not an image', method: 'POST', route: 'html', body: { html: `<p>x<IMG alt="" src="data:image/png;base64,${NOT_AN_IMAGE}"></p>` }, field: 'html', code: 'UNSUPPORTED_IMAGE' },
    { name: 'an <img> data: URI that is not base64', method: 'POST', route: 'html', body: { html: '<div><p><img alt="" src="data:image/png;base64,!!!"></p></div>' }, field: 'html', code: 'INVALID_IMAGE' },
    { name: 'set_font data that is not a font', method: 'PUT', route: 'font', body: { family: 'Brand', data: NOT_AN_IMAGE }, field: 'data', code: 'INVALID_FONT' },
    { name: 'set_font data for a standard family', method: 'PUT', route: 'font', body: { family: 'Helvetica', data: NOT_AN_IMAGE }, field: 'family', code: 'INVALID_VALUE' },
  ];

  for (const tagged of [false, true]) {
    for (const c of cases) {
      test(`${tagged ? 'tagged' : 'untagged'}: ${c.name} is 422 ${c.code} on ${c.field}, not counted, and the session still renders`, async (t) => {
        const id = await session(s, tagged ? { output: { tagged: true }, metadata: { title: 'Preflight', language: 'en' } } : {});
        // A case that fails leaves no active session behind to count against the client's maximum.
        t.after(() => call(s, 'DELETE', `/api/v1/sessions/${id}`));
        const refused = await call(s, c.method, `/api/v1/sessions/${id}/${c.route}`, c.body);
        assert.equal(refused.status, 422);
        const problem = await readProblem(refused);
        assert.equal(problem.slug, 'validation-failed');
        assert.deepEqual(problem.errors?.map((e) => [e.field, e.code]), [[c.field, c.code]]);
        assert.ok(problem.detail.startsWith(`${c.field}: `), problem.detail);
        assert.equal(await operationCount(s, id), 0);
        assert.equal((await call(s, 'POST', `/api/v1/sessions/${id}/text`, { text: 'Still renders' })).status, 200);
        const rendered = await call(s, 'POST', `/api/v1/sessions/${id}/render`);
        assert.equal(rendered.status, 200);
        assert.match(await pdfToText(new Uint8Array(await rendered.arrayBuffer())), /Still renders/);
      });
    }
  }

  test('images the render reads are taken, in add_image and add_html, and drawn', async () => {
    const png = b64(await bandsImage(8, [8, [200, 30, 30]]).png().toBuffer());
    const id = await session(s);
    assert.equal((await call(s, 'POST', `/api/v1/sessions/${id}/images`, { data: png })).status, 200);
    // An http src is never fetched and not drawn: nothing to refuse.
    const html = `<p>Pictured<img src="data:image/png;base64,${png}"><img src="http://127.0.0.1:9/x.png"></p>`;
    assert.equal((await call(s, 'POST', `/api/v1/sessions/${id}/html`, { html })).status, 200);
    assert.equal(await operationCount(s, id), 2);
    const rendered = await call(s, 'POST', `/api/v1/sessions/${id}/render`);
    assert.equal(rendered.status, 200);
    assert.match(await pdfToText(new Uint8Array(await rendered.arrayBuffer())), /Pictured/);
  });
});
