// POST /v1/linearize end to end: PDFs rendered by the server itself, a
// really signed PDF (test/helpers/signed-pdf.ts), encrypted ones made with
// `qpdf --encrypt`, and damaged ones made by cutting and overwriting bytes.
// Every answer is checked against the accelerator contract; every PDF that
// comes back is checked with qpdf --check-linearization, pdfinfo, pdftotext
// and pdfsig.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { KEYS, bearer } from './helpers/keys.js';
import { assertMatchesContract, loadContract, requestSchema, resolve, schemaValidator, type Contract, type Node } from './helpers/openapi.js';
import { pdfInfo, pdfToText, withFile } from './helpers/pdf-tools.js';
import { renderPdf } from './helpers/http.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { pdfSignatures, signedPdf } from './helpers/signed-pdf.js';

const run = promisify(execFile);
const PATH = '/v1/linearize';

interface LinearizeData {
  pdf_data: string;
  original_size_bytes: number;
  linearized_size_bytes: number;
  page_count: number;
  linearized: boolean;
  signature_count: number;
  signatures_preserved: boolean;
  notice: string | null;
}

interface Answer {
  status: number;
  body: Node;
}

/** `qpdf --check-linearization`: its report, or a rejection when the file is not (correctly) linearized. */
async function checkLinearization(pdf: Uint8Array): Promise<string> {
  const { stdout } = await withFile(pdf, (path) => run('qpdf', ['--check-linearization', path]));
  assert.match(stdout, /no linearization errors/);
  return stdout;
}

/** `qpdf --encrypt`: AES-256, with the given user password (empty: opens without one) and an owner password. */
async function encrypted(pdf: Uint8Array, userPassword: string): Promise<Buffer> {
  return withFile(pdf, async (path) => {
    const out = `${path}.encrypted.pdf`;
    await run('qpdf', ['--encrypt', userPassword, 'owner-secret', '256', '--', path, out]);
    return readFile(out);
  });
}

/** A page of text per entry, through the server's own render route. */
function pagesOf(texts: string[], compress = true): Promise<Uint8Array> {
  const operations = texts.flatMap((text, i) => [...(i > 0 ? [{ type: 'add_page' }] : []), { type: 'add_text', text }]);
  return renderPdf(s.base, { operations, output: { compress } });
}

let s: TestServer;
let accel: Contract;

async function linearize(body: unknown, key: string = KEYS.core): Promise<Answer> {
  const response = await fetch(`${s.base}${PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(key) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const status = response.status;
  return { status, body: (await assertMatchesContract(accel, 'post', PATH, response)) as Node };
}

async function linearized(pdf: Uint8Array, options?: Record<string, unknown>): Promise<{ data: LinearizeData; pdf: Buffer }> {
  const answer = await linearize({ pdf_data: Buffer.from(pdf).toString('base64'), ...(options === undefined ? {} : { options }) });
  assert.equal(answer.status, 200, JSON.stringify(answer.body).slice(0, 500));
  const data = answer.body.data as LinearizeData;
  const out = Buffer.from(data.pdf_data, 'base64');
  assert.equal(out.byteLength, data.linearized_size_bytes);
  assert.equal(data.original_size_bytes, pdf.byteLength);
  return { data, pdf: out };
}

async function refused(pdf: Uint8Array | string): Promise<{ slug: string; detail: string }> {
  const answer = await linearize({ pdf_data: typeof pdf === 'string' ? pdf : Buffer.from(pdf).toString('base64') });
  assert.equal(answer.status, 422, JSON.stringify(answer.body).slice(0, 500));
  const type = String(answer.body.type);
  return { slug: type.slice(type.lastIndexOf('/') + 1), detail: String(answer.body.detail) };
}

describe('POST /v1/linearize', () => {
  before(async () => {
    s = await startTestServer();
    accel = await loadContract('accel');
  });
  after(() => s.close());

  test('a rendered PDF comes back linearized: qpdf finds no linearization error, pdfinfo says Optimized, pages and text unchanged', async () => {
    const input = await pagesOf(['First page', 'Second page', 'Third page', 'Fourth page', 'Fifth page']);
    const before = await pdfInfo(input);
    assert.equal(before.Optimized, 'no');
    const { data, pdf } = await linearized(input);
    assert.deepEqual(
      { linearized: data.linearized, page_count: data.page_count, signature_count: data.signature_count, signatures_preserved: data.signatures_preserved, notice: data.notice },
      { linearized: true, page_count: 5, signature_count: 0, signatures_preserved: true, notice: null },
    );
    await checkLinearization(pdf);
    const info = await pdfInfo(pdf);
    assert.equal(info.Optimized, 'yes');
    assert.equal(info.Pages, '5');
    assert.equal(await pdfToText(pdf), await pdfToText(input));
  });

  test('without optimize_for_web the output is what the qpdf CLI writes: the same size', async () => {
    const input = await pagesOf(['One', 'Two', 'Three']);
    const { pdf } = await linearized(input);
    const cli = await withFile(input, async (path) => {
      await run('qpdf', ['--linearize', path, `${path}.lin.pdf`]);
      return readFile(`${path}.lin.pdf`);
    });
    assert.equal(pdf.byteLength, cli.byteLength);
  });

  test('optimize_for_web adds object streams and recompression: smaller than plain linearization, same text, still linearized', async () => {
    const texts = Array.from({ length: 8 }, (_, i) => `Page ${i + 1}: ${'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(12)}`);
    const input = await pagesOf(texts, false);
    const plain = await linearized(input);
    const optimized = await linearized(input, { optimize_for_web: true });
    // Plain linearization already compresses the uncompressed input's streams
    // (qpdf's default); object streams and level 9 gain a little more.
    assert.doesNotMatch(Buffer.from(input).toString('latin1'), /\/FlateDecode/);
    assert.match(plain.pdf.toString('latin1'), /\/FlateDecode/);
    assert.ok(plain.pdf.byteLength < input.byteLength, `plain ${plain.pdf.byteLength} bytes, input ${input.byteLength}`);
    assert.ok(optimized.pdf.byteLength < plain.pdf.byteLength, `optimized ${optimized.pdf.byteLength} bytes, plain ${plain.pdf.byteLength}`);
    assert.doesNotMatch(plain.pdf.toString('latin1'), /\/Type\s*\/ObjStm/);
    assert.match(optimized.pdf.toString('latin1'), /\/Type\s*\/ObjStm/);
    await checkLinearization(optimized.pdf);
    assert.equal((await pdfInfo(optimized.pdf)).Optimized, 'yes');
    assert.equal(optimized.data.page_count, 8);
    assert.equal(await pdfToText(optimized.pdf), await pdfToText(input));
  });

  test('a signed PDF comes back byte for byte unchanged by default, and pdfsig still finds its signature valid', async () => {
    const input = await signedPdf();
    assert.deepEqual((await pdfSignatures(input)).validations, ['Signature is Valid.'], 'the helper makes a valid signature');
    for (const options of [undefined, { preserve_signatures: true }, { preserve_signatures: true, optimize_for_web: true }]) {
      const { data, pdf } = await linearized(input, options);
      assert.ok(pdf.equals(input), `unchanged with ${JSON.stringify(options)}`);
      assert.deepEqual(
        { linearized: data.linearized, signature_count: data.signature_count, signatures_preserved: data.signatures_preserved, page_count: data.page_count },
        { linearized: false, signature_count: 1, signatures_preserved: true, page_count: 3 },
      );
      assert.match(data.notice ?? '', /1 digital signature.*returned unchanged.*preserve_signatures: false/);
      assert.deepEqual((await pdfSignatures(pdf)).validations, ['Signature is Valid.']);
    }
  });

  test('a usage-rights signature (/Perms /UR3) counts as one signature, as optimize, parse and forensic-analyze count it', async () => {
    const input = await signedPdf(2, { usageRights: true });
    const { data, pdf } = await linearized(input);
    assert.ok(pdf.equals(input));
    assert.deepEqual({ linearized: data.linearized, signature_count: data.signature_count }, { linearized: false, signature_count: 1 });
  });

  test('with preserve_signatures: false a signed PDF is linearized, and says its signature no longer verifies (pdfsig agrees)', async () => {
    const input = await signedPdf();
    const { data, pdf } = await linearized(input, { preserve_signatures: false });
    assert.deepEqual(
      { linearized: data.linearized, signature_count: data.signature_count, signatures_preserved: data.signatures_preserved, page_count: data.page_count },
      { linearized: true, signature_count: 1, signatures_preserved: false, page_count: 3 },
    );
    assert.match(data.notice ?? '', /no longer verifies/);
    await checkLinearization(pdf);
    const [validation, ...others] = (await pdfSignatures(pdf)).validations;
    assert.equal(others.length, 0);
    assert.ok(validation !== undefined && validation !== 'Signature is Valid.', `pdfsig after linearizing: ${validation}`);
  });

  test('encrypted PDFs are 422 invalid-pdf-data, saying whether a password is needed', async () => {
    const input = await pagesOf(['Confidential']);
    const withPassword = await refused(await encrypted(input, 'user-secret'));
    assert.equal(withPassword.slug, 'invalid-pdf-data');
    assert.match(withPassword.detail, /encrypted and needs a password/);
    const ownerOnly = await refused(await encrypted(input, ''));
    assert.equal(ownerOnly.slug, 'invalid-pdf-data');
    assert.match(ownerOnly.detail, /encrypted: it opens without a password, but an owner password/);
    for (const { detail } of [withPassword, ownerOnly]) assert.doesNotMatch(detail, /secret/);
  });

  test('truncated, damaged and not-a-PDF inputs are 422 invalid-pdf-data, each with its own detail and nothing of the input', async () => {
    const input = Buffer.from(await pagesOf(['Alpha', 'Beta', 'Gamma'], false));
    const truncated = await refused(input.subarray(0, Math.floor(input.length / 2)));
    assert.equal(truncated.slug, 'invalid-pdf-data');
    assert.match(truncated.detail, /^The PDF is truncated/);

    // A stream whose /Length is wrong: qpdf finds no endstream where it should be.
    const text = input.toString('latin1');
    const length = /\/Length (\d+)/.exec(text);
    assert.ok(length !== null);
    const damaged = await refused(Buffer.from(text.replace(length[0], `/Length ${Number(length[1]) + 7}`), 'latin1'));
    assert.equal(damaged.slug, 'invalid-pdf-data');
    assert.match(damaged.detail, /^The PDF is damaged: \d+ structural problems?, at object \d+ 0, offset \d+.*not repaired/);
    assert.doesNotMatch(damaged.detail, /input\.pdf|\/work|worker|endstream|qpdf:/);

    const secret = 'sk_live_do_not_echo_9f8e7d';
    const notPdf = await refused(Buffer.from(`Hello, this is a text file holding ${secret}.`));
    assert.equal(notPdf.slug, 'invalid-pdf-data');
    assert.match(notPdf.detail, /not a PDF: there is no %PDF- header/);

    const garbage = await refused(Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.from(`${secret} `.repeat(50)), Buffer.from('\n%%EOF\n')]));
    assert.equal(garbage.slug, 'invalid-pdf-data');
    assert.match(garbage.detail, /^The PDF is damaged/);
    for (const { detail } of [truncated, damaged, notPdf, garbage]) assert.ok(!detail.includes(secret) && !detail.includes('Alpha'), detail);
  });

  test('a trailer whose /Size miscounts the objects is no damage: linearized, with the right count', async () => {
    const input = Buffer.from(await pagesOf(['Alpha', 'Beta'], false)).toString('latin1');
    const size = /\/Size (\d+)/.exec(input);
    assert.ok(size !== null);
    const miscounted = Buffer.from(input.replace(size[0], `/Size ${Number(size[1]) + 2}`), 'latin1');
    const { data, pdf } = await linearized(miscounted);
    assert.equal(data.page_count, 2);
    await checkLinearization(pdf);
    const { stdout } = await withFile(pdf, (path) => run('qpdf', ['--check', path]));
    assert.doesNotMatch(stdout, /WARNING|reported number of objects/);
    assert.match(await pdfToText(pdf), /Alpha[\s\S]*Beta/);
  });

  test('objects nested beyond the WebAssembly stack are 422, and the worker goes on serving', async () => {
    const depth = 400;
    const objects = [
      `<< /Type /Catalog /Pages 2 0 R /Deep ${'['.repeat(depth)}1${']'.repeat(depth)} >>`,
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>',
    ];
    let pdf = '%PDF-1.7\n';
    const offsets = objects.map((body, i) => {
      const at = pdf.length;
      pdf += `${i + 1} 0 obj\n${body}\nendobj\n`;
      return at;
    });
    const xref = pdf.length;
    pdf += `xref\n0 4\n0000000000 65535 f \n${offsets.map((at) => `${String(at).padStart(10, '0')} 00000 n \n`).join('')}`;
    pdf += `trailer\n<< /Size 4 /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
    // The native qpdf reads it (it allows 500 levels): the file is valid.
    await withFile(Buffer.from(pdf, 'latin1'), (path) => run('qpdf', ['--check', path]));

    for (let i = 0; i < 3; i++) {
      const deep = await refused(Buffer.from(pdf, 'latin1'));
      assert.equal(deep.slug, 'invalid-pdf-data');
      assert.match(deep.detail, /cannot be processed: it nests objects more than 100 levels deep/);
    }
    const { data } = await linearized(await pagesOf(['Still serving']));
    assert.equal(data.linearized, true);

    // The same catalog inside a compressed object stream, where the file's own bytes show no nesting.
    const packed = await withFile(Buffer.from(pdf, 'latin1'), async (path) => {
      await run('qpdf', ['--object-streams=generate', path, `${path}.packed.pdf`]);
      return readFile(`${path}.packed.pdf`);
    });
    assert.doesNotMatch(packed.toString('latin1'), /\[{101}/);
    const deepPacked = await refused(packed);
    assert.equal(deepPacked.slug, 'invalid-pdf-data');
    assert.match(deepPacked.detail, /cannot be processed: it nests objects more than 100 levels deep/);
  });

  test('the request examples of the contract linearize', async () => {
    const examples = (resolve(accel, (accel.document.paths as Node)[PATH]).post as Node).requestBody as Node;
    const media = (examples.content as Node)['application/json'] as Node;
    for (const [name, example] of Object.entries(media.examples as Node)) {
      const answer = await linearize((example as Node).value);
      assert.equal(answer.status, 200, name);
      const pdf = Buffer.from((answer.body.data as LinearizeData).pdf_data, 'base64');
      await checkLinearization(pdf);
      assert.match(await pdfToText(pdf), /Hello, Platen/);
    }
  });

  test('field problems are 422 validation-failed naming the field; the contract refuses the same bodies', async () => {
    const validate = schemaValidator(accel, requestSchema(accel, 'post', PATH));
    const pdf = Buffer.from(await pagesOf(['x'])).toString('base64');
    const cases: Array<[unknown, string, string]> = [
      [{}, 'pdf_data', 'REQUIRED'],
      [{ pdf_data: '' }, 'pdf_data', 'TOO_SHORT'],
      [{ pdf_data: 'not base64 at all!' }, 'pdf_data', 'INVALID_FORMAT'],
      [{ pdf_data: 42 }, 'pdf_data', 'INVALID_TYPE'],
      [{ pdf_data: pdf, options: { optimise_for_web: true } }, 'options.optimise_for_web', 'UNKNOWN_FIELD'],
      [{ pdf_data: pdf, options: { preserve_signatures: 'yes' } }, 'options.preserve_signatures', 'INVALID_TYPE'],
      [{ pdf_data: pdf, colour: 'red' }, 'colour', 'UNKNOWN_FIELD'],
    ];
    for (const [body, field, code] of cases) {
      if (code !== 'INVALID_FORMAT') assert.equal(validate(body), false, `the contract accepts ${JSON.stringify(body).slice(0, 80)}`);
      const answer = await linearize(body);
      assert.equal(answer.status, 422, JSON.stringify(body).slice(0, 80));
      assert.match(String(answer.body.type), /\/validation-failed$/);
      const [first] = answer.body.errors as Array<{ field: string; code: string }>;
      assert.deepEqual([first?.field, first?.code], [field, code]);
    }
  });

  test('bad bodies and keys: 400, 415, 401; any tier may call it', async () => {
    assert.equal((await linearize('{"pdf_data": ')).status, 400);
    const text = await fetch(`${s.base}${PATH}`, { method: 'POST', headers: { 'content-type': 'text/plain', ...bearer(KEYS.core) }, body: '{}' });
    assert.equal(text.status, 415);
    await assertMatchesContract(accel, 'post', PATH, text);
    const anonymous = await fetch(`${s.base}${PATH}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(anonymous.status, 401);
    await assertMatchesContract(accel, 'post', PATH, anonymous);
    const hello = (((resolve(accel, (accel.document.paths as Node)[PATH]).post as Node).requestBody as Node).content as Node)['application/json'] as Node;
    const body = ((hello.examples as Node).hello as Node).value;
    for (const key of [KEYS.core, KEYS.pro, KEYS.enterprise]) assert.equal((await linearize(body, key)).status, 200);
  });
});
