// Decompression bombs (reliability plan case 26) against the routes that
// hand a PDF to qpdf (linearize, merge, split, optimize), on a real server
// whose decoded-bytes cap (PLATEN_MAX_DECODED_BYTES) is 8 MiB. qpdf inflates
// in bounded memory, so before the count in front of it
// (seams/qpdf-decodes.ts) these bombs came back 200 after seconds of CPU, or
// 504 at the timeout when larger; now each is 422 pdf-limits-exceeded naming
// the member that holds it, and the same worker then serves a normal
// document. What qpdf copies without decoding is not counted, so is not
// refused: a single-Flate content stream under plain linearization, or
// under split when no resources are shared. optimize also charges the
// samples it inflates to re-encode an image. The bombs are tiny files
// (test/helpers/bomb-pdfs.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { contentBomb, imageBomb, manyStreamsBomb, sharedResourcesBomb, xmpBomb } from './helpers/bomb-pdfs.js';
import { readProblem } from './helpers/http.js';
import { KEYS, bearer } from './helpers/keys.js';
import { assertMatchesContract, loadContract } from './helpers/openapi.js';
import { rawPdf } from './helpers/raw-pdf.js';
import { startTestServer } from './helpers/server.js';

const MiB = 1024 * 1024;
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

interface QpdfRoute {
  readonly name: string;
  readonly path: string;
  readonly contract: 'render' | 'accel';
  readonly key: string;
  /** The member a refusal names. */
  readonly field: string;
  readonly body: (pdf: string, normal: string) => unknown;
}

const LINEARIZE: QpdfRoute = { name: 'linearize', path: '/v1/linearize', contract: 'accel', key: KEYS.core, field: 'pdf_data', body: (pdf) => ({ pdf_data: pdf }) };
const LINEARIZE_WEB: QpdfRoute = { ...LINEARIZE, name: 'linearize optimize_for_web', body: (pdf) => ({ pdf_data: pdf, options: { optimize_for_web: true } }) };
// The bomb second, after a normal document: the refusal names documents[1].pdf.
const MERGE: QpdfRoute = { name: 'merge', path: '/api/v1/merge', contract: 'render', key: KEYS.core, field: 'documents[1].pdf', body: (pdf, normal) => ({ documents: [{ pdf: normal }, { pdf }] }) };
const SPLIT: QpdfRoute = { name: 'split', path: '/api/v1/split', contract: 'render', key: KEYS.core, field: 'pdf', body: (pdf) => ({ pdf, every: 1 }) };
const OPTIMIZE: QpdfRoute = { name: 'optimize', path: '/api/v1/optimize', contract: 'render', key: KEYS.pro, field: 'pdf', body: (pdf) => ({ pdf }) };
const QPDF_ROUTES = [LINEARIZE, LINEARIZE_WEB, MERGE, SPLIT, OPTIMIZE];

test('decompression bombs on the qpdf routes: 422 pdf-limits-exceeded naming the member, then a normal request is served', async (t) => {
  const server = await startTestServer({ PLATEN_MAX_DECODED_BYTES: String(8 * MiB), PLATEN_WORKERS: '1' });
  t.after(() => server.close());
  const contracts = { render: await loadContract('render'), accel: await loadContract('accel') };
  const normal = b64(rawPdf([{ content: 'BT /F1 12 Tf 72 720 Td (Bomb) Tj ET' }]));
  const post = async (route: QpdfRoute, pdf: string): Promise<Response> => {
    const response = await fetch(`${server.base}${route.path}`, { method: 'POST', headers: { ...bearer(route.key), 'content-type': 'application/json' }, body: JSON.stringify(route.body(pdf, normal)) });
    await assertMatchesContract(contracts[route.contract], 'post', route.path, response.clone());
    return response;
  };
  const refused = async (route: QpdfRoute, bomb: Uint8Array): Promise<void> => {
    const response = await post(route, b64(bomb));
    assert.equal(response.status, 422, `${route.name}: ${await response.clone().text()}`);
    const problem = await readProblem(response);
    assert.equal(problem.slug, 'pdf-limits-exceeded', `${route.name}: ${JSON.stringify(problem)}`);
    assert.match(String(problem.detail), new RegExp(`^${route.field.replace(/[[\]]/g, '\\$&')} decodes to more than 8388608 bytes \\(8 MiB\\).*PLATEN_MAX_DECODED_BYTES`));
    assert.deepEqual((problem.errors as Array<{ field: string; code: string }>).map((e) => [e.field, e.code]), [[route.field, 'TOO_LARGE']]);
  };
  const served = async (route: QpdfRoute, pdf: string): Promise<void> => {
    const response = await post(route, pdf);
    assert.equal(response.status, 200, `${route.name}: ${(await response.clone().text()).slice(0, 500)}`);
  };

  // Filters qpdf undoes whenever it writes a stream: refused on every route.
  const bombs: ReadonlyArray<readonly [string, Uint8Array]> = [
    ['a content stream of 64 MiB, deflated twice', contentBomb(64 * MiB)],
    ['20 content streams of 1 MiB, deflated twice', manyStreamsBomb(20, MiB)],
    ['a content stream of 16 MiB in LZW', contentBomb(16 * MiB, 'lzw')],
    ['a content stream of 64 MiB in ASCII85 over Flate', contentBomb(64 * MiB, 'a85-flate')],
    ['a Flate image of 2048 x 2048 RGB, deflated twice', imageBomb(2048, 2048)],
  ];
  for (const [name, bomb] of bombs) {
    await t.test(name, async () => {
      for (const route of QPDF_ROUTES) {
        await refused(route, bomb);
        await served(route, normal);
      }
    });
  }

  await t.test('XMP metadata of 64 MiB, deflated once: qpdf writes the catalog\'s uncompressed', async () => {
    for (const route of [LINEARIZE, OPTIMIZE]) {
      await refused(route, xmpBomb(64 * MiB));
      await served(route, normal);
    }
  });

  await t.test('a content stream of 64 MiB deflated once: copied by linearize and split (200), inflated by optimize_for_web and optimize (422)', async () => {
    const bomb = b64(contentBomb(64 * MiB, 'flate'));
    await served(LINEARIZE, bomb);
    await served(SPLIT, bomb);
    await refused(LINEARIZE_WEB, contentBomb(64 * MiB, 'flate'));
    await refused(OPTIMIZE, contentBomb(64 * MiB, 'flate'));
  });

  await t.test('a Flate image of 2048 x 2048 RGB deflated once: copied by linearize (200), inflated by optimize_for_web and by optimize\'s image re-encoding (422)', async () => {
    await served(LINEARIZE, b64(imageBomb(2048, 2048, 'flate')));
    await refused(LINEARIZE_WEB, imageBomb(2048, 2048, 'flate'));
    await refused(OPTIMIZE, imageBomb(2048, 2048, 'flate'));
  });

  await t.test('the same stream on pages sharing their resources: split parses it (422), linearize copies it (200)', async () => {
    await refused(SPLIT, sharedResourcesBomb(64 * MiB));
    await refused(MERGE, sharedResourcesBomb(64 * MiB));
    await served(LINEARIZE, b64(sharedResourcesBomb(64 * MiB)));
  });
});
