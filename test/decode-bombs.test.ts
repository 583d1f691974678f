// Decompression bombs (reliability plan case 26) against a real server whose
// decoded-bytes cap (PLATEN_MAX_DECODED_BYTES) is 8 MiB: a content stream
// of 64 MiB, 20 streams of 1 MiB, an object stream of 64 MiB: every route
// that reads a PDF with pdf.js or pdf-lib answers 422 pdf-limits-exceeded
// (the contract's problem shape, errors[] naming the file member), and the
// same worker then serves a normal document. Image bombs (a JPEG declaring
// 65500 x 65500, a Flate image of 2048 x 2048 RGB): see below. The bombs are tiny files (test/helpers/bomb-pdfs.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { contentBomb, dctBomb, imageBomb, manyStreamsBomb, objectStreamBomb } from './helpers/bomb-pdfs.js';
import { readProblem } from './helpers/http.js';
import { KEYS, bearer } from './helpers/keys.js';
import { assertMatchesContract, loadContract } from './helpers/openapi.js';
import { rawPdf } from './helpers/raw-pdf.js';
import { startTestServer } from './helpers/server.js';

const MiB = 1024 * 1024;
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

interface ReadingRoute {
  readonly path: string;
  readonly contract: 'render' | 'accel';
  readonly key: string;
  readonly field: string;
  readonly body: (pdf: string) => unknown;
}

/** Every route that reads a PDF with pdf.js or pdf-lib, with the smallest body it accepts. */
const READING_ROUTES: readonly ReadingRoute[] = [
  { path: '/v1/parse', contract: 'accel', key: KEYS.pro, field: 'pdf_data', body: (pdf) => ({ pdf_data: pdf, options: { extract_images: true } }) },
  { path: '/v1/extract-text', contract: 'accel', key: KEYS.pro, field: 'pdf_data', body: (pdf) => ({ pdf_data: pdf }) },
  { path: '/v1/compare', contract: 'accel', key: KEYS.pro, field: 'pdf_a', body: (pdf) => ({ pdf_a: pdf, pdf_b: pdf }) },
  { path: '/v1/rag/chunk', contract: 'accel', key: KEYS.enterprise, field: 'pdf_data', body: (pdf) => ({ pdf_data: pdf }) },
  { path: '/api/v1/extract-text', contract: 'render', key: KEYS.core, field: 'pdf', body: (pdf) => ({ pdf }) },
  { path: '/api/v1/compare', contract: 'render', key: KEYS.pro, field: 'pdf_a', body: (pdf) => ({ pdf_a: pdf, pdf_b: pdf }) },
  { path: '/api/v1/redact', contract: 'render', key: KEYS.pro, field: 'pdf', body: (pdf) => ({ pdf, text: ['Bomb'] }) },
  { path: '/api/v1/check-accessibility', contract: 'render', key: KEYS.pro, field: 'pdf', body: (pdf) => ({ pdf }) },
  { path: '/api/v1/compliance-check', contract: 'render', key: KEYS.enterprise, field: 'pdf', body: (pdf) => ({ pdf }) },
  { path: '/api/v1/forensic-analyze', contract: 'render', key: KEYS.enterprise, field: 'pdf', body: (pdf) => ({ pdf }) },
  { path: '/api/v1/ai-certify', contract: 'render', key: KEYS.enterprise, field: 'pdf', body: (pdf) => ({ pdf }) },
];

test('decompression bombs: 422 pdf-limits-exceeded, then a normal request is served', async (t) => {
  const server = await startTestServer({ PLATEN_MAX_DECODED_BYTES: String(8 * MiB), PLATEN_WORKERS: '1' });
  t.after(() => server.close());
  const contracts = { render: await loadContract('render'), accel: await loadContract('accel') };
  const post = async (route: ReadingRoute, pdf: Uint8Array): Promise<Response> => {
    const response = await fetch(`${server.base}${route.path}`, { method: 'POST', headers: { ...bearer(route.key), 'content-type': 'application/json' }, body: JSON.stringify(route.body(b64(pdf))) });
    await assertMatchesContract(contracts[route.contract], 'post', route.path, response.clone());
    return response;
  };
  const normal = rawPdf([{ content: 'BT /F1 12 Tf 72 720 Td (Bomb) Tj ET' }]);
  const refused = async (route: ReadingRoute, response: Response): Promise<void> => {
    assert.equal(response.status, 422, `${route.path}: ${await response.clone().text()}`);
    const problem = await readProblem(response);
    assert.equal(problem.slug, 'pdf-limits-exceeded', `${route.path}: ${JSON.stringify(problem)}`);
    assert.match(String(problem.detail), /PLATEN_MAX_DECODED_BYTES/);
    assert.deepEqual((problem.errors as Array<{ field: string; code: string }>).map((e) => [e.field, e.code]), [[route.field, 'TOO_LARGE']]);
  };
  const servesNext = async (route: ReadingRoute): Promise<void> => {
    const next = await post(route, normal);
    assert.equal(next.status, 200, `${route.path} after the bomb: ${await next.clone().text()}`);
  };

  // Streams every reader decodes: refused on every route.
  const streamBombs: ReadonlyArray<readonly [string, Uint8Array]> = [
    ['a content stream of 64 MiB', contentBomb(64 * MiB)],
    ['20 content streams of 1 MiB', manyStreamsBomb(20, MiB)],
    ['an object stream of 64 MiB', objectStreamBomb(64 * MiB)],
  ];
  for (const [name, bomb] of streamBombs) {
    await t.test(name, async () => {
      for (const route of READING_ROUTES) {
        await refused(route, await post(route, bomb));
        await servesNext(route);
      }
    });
  }

  // Images: pdf.js decodes a page's images after it has handed back the
  // operators, so a route that never looks at the pixels may answer 200
  // (the decoding, charged to that request, stops at the cap); the routes
  // that wait for the pixels (image facts, image hashes) refuse the JPEG,
  // whose declared size is charged before it is decoded. Never a 5xx.
  const PIXEL_ROUTES = new Set(['/v1/parse', '/v1/compare', '/api/v1/compare', '/api/v1/forensic-analyze']);
  const imageBombs: ReadonlyArray<readonly [string, Uint8Array, boolean]> = [
    ['a JPEG declaring 65500 x 65500', await dctBomb(65500, 65500), true],
    ['a Flate image of 2048 x 2048 RGB', imageBomb(2048, 2048), false],
  ];
  for (const [name, bomb, mustRefuse] of imageBombs) {
    await t.test(name, async () => {
      for (const route of READING_ROUTES) {
        const response = await post(route, bomb);
        if (mustRefuse && PIXEL_ROUTES.has(route.path)) await refused(route, response);
        else if (response.status !== 200) await refused(route, response);
        await servesNext(route);
      }
    });
  }
});
