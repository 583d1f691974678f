// Decompression bombs in encrypted PDFs against the routes that take them
// and hand them to qpdf (merge, split, optimize; linearize refuses
// encrypted files), on a real server whose decoded-bytes cap is 8 MiB. The
// count in front of qpdf (seams/qpdf-decodes.ts) reads streams from the
// file's bytes, so before it counted an encrypted file in the clear
// (seams/qpdf-decrypt.ts) these came back 200 after seconds of qpdf's CPU
// (optimize refused some, after its own decryption had inflated them). Now
// each is 422 pdf-limits-exceeded naming the member, whatever the
// encryption, with the password or with an empty user password; a wrong
// password is the same pdf-password-required as before; and the same
// worker then serves an ordinary encrypted document. The bombs are those
// of test/decode-bombs-qpdf.test.ts (test/helpers/bomb-pdfs.ts), encrypted
// by Debian's qpdf (test/helpers/encrypted-pdfs.ts); the object-stream bomb
// is sealed here with a key qpdf made, since qpdf drops the padding of an
// object stream it writes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deflateSync } from 'node:zlib';
import { contentBomb, imageBomb, objectStreamBomb, pdfOf, sharedResourcesBomb, xmpBomb, zlibOfRepeated } from './helpers/bomb-pdfs.js';
import { aes256Sealing, encrypted, USER_PASSWORD, type Encryption } from './helpers/encrypted-pdfs.js';
import { readProblem } from './helpers/http.js';
import { KEYS, bearer } from './helpers/keys.js';
import { assertMatchesContract, loadContract } from './helpers/openapi.js';
import { rawPdf } from './helpers/raw-pdf.js';
import { startTestServer } from './helpers/server.js';

const MiB = 1024 * 1024;
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

interface Route {
  readonly name: string;
  readonly path: string;
  readonly key: string;
  /** The members a refusal names: the PDF, and its password. */
  readonly field: string;
  readonly passwordField: string;
  readonly body: (pdf: string, password: string | undefined, normal: string) => unknown;
}

// The bomb second, after a normal document: the refusal names documents[1].pdf.
const MERGE: Route = {
  name: 'merge',
  path: '/api/v1/merge',
  key: KEYS.core,
  field: 'documents[1].pdf',
  passwordField: 'documents[1].password',
  body: (pdf, password, normal) => ({ documents: [{ pdf: normal }, { pdf, password }] }),
};
const SPLIT: Route = { name: 'split', path: '/api/v1/split', key: KEYS.core, field: 'pdf', passwordField: 'password', body: (pdf, password) => ({ pdf, password, every: 1 }) };
const OPTIMIZE: Route = { name: 'optimize', path: '/api/v1/optimize', key: KEYS.pro, field: 'pdf', passwordField: 'password', body: (pdf, password) => ({ pdf, password }) };
const ROUTES = [MERGE, SPLIT, OPTIMIZE];

test('decompression bombs in encrypted PDFs on merge, split and optimize: 422 pdf-limits-exceeded naming the member, then an ordinary encrypted document is served', async (t) => {
  const server = await startTestServer({ PLATEN_MAX_DECODED_BYTES: String(8 * MiB), PLATEN_WORKERS: '1' });
  t.after(() => server.close());
  const contract = await loadContract('render');
  const normal = b64(rawPdf([{ content: 'BT /F1 12 Tf 72 720 Td (Bomb) Tj ET' }]));
  const ordinary = b64(await encrypted(rawPdf([{ content: 'BT /F1 12 Tf 72 720 Td (Ordinary) Tj ET' }, { content: 'BT /F1 12 Tf 72 720 Td (Two) Tj ET' }])));
  const post = async (route: Route, pdf: string, password: string | undefined): Promise<Response> => {
    const response = await fetch(`${server.base}${route.path}`, {
      method: 'POST',
      headers: { ...bearer(route.key), 'content-type': 'application/json' },
      body: JSON.stringify(route.body(pdf, password, normal)),
    });
    await assertMatchesContract(contract, 'post', route.path, response.clone());
    return response;
  };
  /** `password` null: none sent. */
  const refused = async (route: Route, bomb: Uint8Array, password: string | null = USER_PASSWORD): Promise<void> => {
    const response = await post(route, b64(bomb), password ?? undefined);
    assert.equal(response.status, 422, `${route.name}: ${(await response.clone().text()).slice(0, 500)}`);
    const problem = await readProblem(response);
    assert.equal(problem.slug, 'pdf-limits-exceeded', `${route.name}: ${JSON.stringify(problem)}`);
    assert.match(String(problem.detail), new RegExp(`^${route.field.replace(/[[\]]/g, '\\$&')} decodes to more than 8388608 bytes \\(8 MiB\\).*PLATEN_MAX_DECODED_BYTES`));
    assert.deepEqual((problem.errors as Array<{ field: string; code: string }>).map((e) => [e.field, e.code]), [[route.field, 'TOO_LARGE']]);
  };
  const served = async (route: Route): Promise<void> => {
    const response = await post(route, ordinary, USER_PASSWORD);
    assert.equal(response.status, 200, `${route.name}: ${(await response.clone().text()).slice(0, 500)}`);
  };

  // What qpdf decodes when it writes (Flate twice), when it parses pages
  // sharing resources, and when it decrypts: object streams and the
  // catalog's XMP.
  const bombs: ReadonlyArray<readonly [string, Uint8Array]> = [
    ['a content stream of 64 MiB, deflated twice', contentBomb(64 * MiB)],
    ['a Flate image of 2048 x 2048 RGB, deflated twice', imageBomb(2048, 2048)],
    ['a content stream of 64 MiB deflated once, on pages sharing their resources', sharedResourcesBomb(64 * MiB)],
    ['XMP metadata of 64 MiB, deflated once', xmpBomb(64 * MiB)],
  ];
  for (const [name, bomb] of bombs) {
    await t.test(`${name}, AES-256`, async () => {
      const sealed = await encrypted(bomb);
      for (const route of ROUTES) {
        await refused(route, sealed);
        await served(route);
      }
    });
  }

  await t.test('an object stream padded to 64 MiB, AES-256: what qpdf inflates to decrypt the file, counted before it does', async () => {
    const bomb = objectStreamBomb(64 * MiB, await aes256Sealing());
    for (const route of ROUTES) {
      await refused(route, bomb);
      await served(route);
    }
  });

  await t.test('a content stream of 64 MiB deflated twice, under AES-128, RC4-128 and RC4-40', async () => {
    for (const encryption of ['aes-128', 'rc4-128', 'rc4-40'] satisfies Encryption[]) {
      const sealed = await encrypted(contentBomb(64 * MiB), encryption);
      for (const route of ROUTES) await refused(route, sealed);
    }
  });

  await t.test('with an empty user password, sent without a password', async () => {
    const sealed = await encrypted(contentBomb(64 * MiB), 'aes-256', '');
    for (const route of ROUTES) await refused(route, sealed, null);
  });

  await t.test('a catalog nested deeper than qpdf\'s WebAssembly stack takes: 422 invalid-pdf-data on every route before qpdf reads it, with a bomb on its page or not', async () => {
    // Under `qpdf --decrypt` such a catalog overflowed the stack, and on an
    // instance that had served a run the overflow sometimes looped until the
    // timeout (504 after 60 s): nesting past 100 never reaches qpdf (untrusted/pdf-nesting.ts).
    const nest = `${'['.repeat(300)}${']'.repeat(300)}`;
    const nested = (content: Buffer) =>
      encrypted(pdfOf([`<< /Type /Catalog /Pages 2 0 R /Nest ${nest} >>`, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>', content]));
    const stream = (dict: string, data: Buffer) => Buffer.concat([Buffer.from(`<< ${dict} /Length ${data.length} >>\nstream\n`, 'latin1'), data, Buffer.from('\nendstream', 'latin1')]);
    const plain = await nested(stream('', Buffer.from('BT ET', 'latin1')));
    const bombed = await nested(stream('/Filter [/FlateDecode /FlateDecode]', deflateSync(zlibOfRepeated(64 * MiB))));
    for (const pdf of [plain, bombed]) {
      for (const route of [...ROUTES, ...ROUTES]) {
        const response = await post(route, b64(pdf), USER_PASSWORD);
        assert.equal(response.status, 422, `${route.name}: ${(await response.clone().text()).slice(0, 500)}`);
        const problem = await readProblem(response);
        assert.equal(problem.slug, 'invalid-pdf-data', route.name);
        assert.match(String(problem.detail), /nests objects more than 100 levels deep/, route.name);
      }
    }
  });

  await t.test('a wrong password, or none: pdf-password-required as before, the bomb never read', async () => {
    const sealed = b64(await encrypted(contentBomb(64 * MiB)));
    for (const route of ROUTES) {
      for (const [password, code] of [['wrong', 'INCORRECT'], [undefined, 'REQUIRED']] as const) {
        const response = await post(route, sealed, password);
        assert.equal(response.status, 422, route.name);
        const problem = await readProblem(response);
        assert.equal(problem.slug, 'pdf-password-required', `${route.name}: ${JSON.stringify(problem)}`);
        assert.deepEqual(problem.errors?.map((e) => [e.field, e.code]), [[route.passwordField, code]]);
      }
    }
  });
});
