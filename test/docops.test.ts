// POST /api/v1/merge and /api/v1/split against a real server, the results
// checked with qpdf (--check, its JSON view of outlines, form fields and page
// labels), pdfinfo (pages and their sizes) and pdftotext (which page is
// where), and the contract's documented responses.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFRef } from '@cantoo/pdf-lib';
import { unzipSync } from 'fflate';
import { sourcePdf } from './helpers/docops-fixtures.js';
import { readProblem } from './helpers/http.js';
import { KEYS, bearer } from './helpers/keys.js';
import { assertMatchesContract, loadContract } from './helpers/openapi.js';
import { pdfToText, qpdfCheck, withFile } from './helpers/pdf-tools.js';
import { startTestServer } from './helpers/server.js';

const run = promisify(execFile);

const ALPHA = await sourcePdf({
  label: 'Alpha',
  pages: 3,
  textFields: { name: 'Ada', city: 'Paris' },
  checkBox: 'agree',
  outline: [{ title: 'Intro', page: 0, children: [{ title: 'Detail', page: 1 }] }, { title: 'End', page: 2 }],
  pageLabels: [{ from: 0, style: 'r' }, { from: 2, style: 'D' }],
  linkTo: 2,
  title: 'Alpha doc',
  author: 'A. Author',
});
const BETA = await sourcePdf({ label: 'Beta', pages: 2, size: [595, 842], textFields: { name: 'Bob' }, outline: [{ title: 'Beta start', page: 1 }], title: 'Beta doc' });
const GAMMA = await sourcePdf({ label: 'Gamma', pages: 2, password: 'secret' });

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

interface QpdfOutline {
  title: string;
  destpageposfrom1: number | null;
  kids: QpdfOutline[];
}

async function qpdfJson(pdf: Uint8Array, key: string): Promise<Record<string, unknown>> {
  return withFile(pdf, async (path) => JSON.parse((await run('qpdf', ['--json', `--json-key=${key}`, path])).stdout) as Record<string, unknown>);
}

/** The outline as [title, page] pairs, children indented by '  '. */
async function outlineOf(pdf: Uint8Array): Promise<string[]> {
  const walk = (items: QpdfOutline[], depth: number): string[] =>
    items.flatMap((item) => [`${'  '.repeat(depth)}${item.title} → ${item.destpageposfrom1}`, ...walk(item.kids, depth + 1)]);
  return walk((await qpdfJson(pdf, 'outlines')).outlines as QpdfOutline[], 0);
}

async function fieldNames(pdf: Uint8Array): Promise<string[]> {
  const acroform = (await qpdfJson(pdf, 'acroform')).acroform as { fields: Array<{ fullname: string }> };
  return acroform.fields.map((field) => field.fullname).sort();
}

/** pdfinfo's per-page sizes, "612 x 792" each. */
async function pageSizes(pdf: Uint8Array): Promise<string[]> {
  const out = await withFile(pdf, async (path) => (await run('pdfinfo', ['-f', '1', '-l', '1000', path])).stdout);
  return [...out.matchAll(/^Page\s+\d+ size:\s+([\d.]+ x [\d.]+)/gm)].map((m) => m[1] as string);
}

/** Pages in order, each by the "<label> page N" line the fixture printed on it. */
async function pageOrder(pdf: Uint8Array): Promise<string[]> {
  return [...(await pdfToText(pdf)).matchAll(/^\f?(\w+ page \d+)$/gm)].map((m) => m[1] as string);
}

/** The 1-based page that an internal link on page `on` (1-based) goes to (pdf-lib, as a viewer would follow it). */
async function linkTarget(pdf: Uint8Array, on = 1): Promise<number | undefined> {
  const doc = await PDFDocument.load(pdf);
  const pages = doc.getPages();
  for (const ref of pages[on - 1]?.node.Annots()?.asArray() ?? []) {
    const annot = doc.context.lookup(ref);
    if (!(annot instanceof PDFDict)) continue;
    const dest = doc.context.lookup(annot.get(PDFName.of('Dest')));
    if (!(dest instanceof PDFArray)) continue;
    const target = dest.get(0);
    return target instanceof PDFRef ? pages.findIndex((page) => page.ref === target) + 1 : undefined;
  }
  return undefined;
}

test('merge and split', async (t) => {
  const server = await startTestServer();
  t.after(() => server.close());
  const contract = await loadContract('render');
  const call = async (path: '/api/v1/merge' | '/api/v1/split', body: unknown, key: string = KEYS.core): Promise<Response> => {
    const response = await fetch(`${server.base}${path}`, { method: 'POST', headers: { ...bearer(key), 'content-type': 'application/json' }, body: JSON.stringify(body) });
    await assertMatchesContract(contract, 'post', path, response.clone());
    return response;
  };
  const pdfOf = async (response: Response): Promise<Uint8Array> => {
    assert.equal(response.status, 200, await response.clone().text());
    assert.equal(response.headers.get('content-type'), 'application/pdf');
    const pdf = new Uint8Array(await response.arrayBuffer());
    await qpdfCheck(pdf);
    return pdf;
  };

  await t.test('merge keeps pages, sizes, form fields of both (clash renamed), outline, links, labels and the first metadata', async () => {
    const pdf = await pdfOf(await call('/api/v1/merge', { documents: [{ pdf: b64(ALPHA) }, { pdf: b64(BETA) }] }));
    assert.deepEqual(await pageOrder(pdf), ['Alpha page 1', 'Alpha page 2', 'Alpha page 3', 'Beta page 1', 'Beta page 2']);
    assert.deepEqual(await pageSizes(pdf), ['612 x 792', '612 x 792', '612 x 792', '595 x 842', '595 x 842']);
    assert.deepEqual(await fieldNames(pdf), ['agree', 'city', 'name', 'name+1']);
    assert.deepEqual(await outlineOf(pdf), ['Intro → 1', '  Detail → 2', 'End → 3', 'Beta start → 5']);
    assert.equal(await linkTarget(pdf), 3);
    const labels = (await qpdfJson(pdf, 'pagelabels')).pagelabels as Array<{ index: number; label: Record<string, unknown> }>;
    assert.deepEqual(labels.slice(0, 2), [{ index: 0, label: { '/S': '/r', '/St': 1 } }, { index: 2, label: { '/S': '/D', '/St': 1 } }]);
    const info = await withFile(pdf, async (path) => (await run('pdfinfo', [path])).stdout);
    assert.match(info, /^Title:\s+Alpha doc$/m);
    assert.match(info, /^Author:\s+A\. Author$/m);
  });

  await t.test('merge: page selections, by_document outline, given metadata, an encrypted source with its password', async () => {
    const pdf = await pdfOf(
      await call('/api/v1/merge', {
        documents: [{ pdf: b64(BETA), pages: '2' }, { pdf: b64(ALPHA), pages: '3,1' }, { pdf: b64(GAMMA), password: 'secret' }],
        outline: 'by_document',
        metadata: { title: 'Bundle', author: 'Platen tests' },
      }),
    );
    assert.deepEqual(await pageOrder(pdf), ['Beta page 2', 'Alpha page 3', 'Alpha page 1', 'Gamma page 1', 'Gamma page 2']);
    // Alpha's "Detail" pointed at its page 2, which is not selected: it goes; "Intro" and "End" follow their pages.
    assert.deepEqual(await outlineOf(pdf), ['Beta doc → 1', '  Beta start → 1', 'Alpha doc → 2', '  Intro → 3', '  End → 2', 'Document 3 → 4']);
    // The link on Alpha's page 1 pointed at its page 3, now output page 2.
    const doc = await PDFDocument.load(pdf);
    const annots = doc.getPages()[2]?.node.Annots()?.asArray() ?? [];
    const link = annots.map((ref) => doc.context.lookup(ref)).find((a) => a instanceof PDFDict && a.get(PDFName.of('Dest')) !== undefined) as PDFDict;
    assert.equal((doc.context.lookup(link.get(PDFName.of('Dest'))) as PDFArray).get(0), doc.getPages()[1]?.ref);
    assert.equal(doc.getTitle(), 'Bundle');
    assert.equal(doc.getAuthor(), 'Platen tests');
  });

  await t.test('an owner-password-only PDF (empty user password) opens without a password, as in every reader', async () => {
    const ownerOnly = await sourcePdf({ label: 'Delta', pages: 2, password: '' });
    const pdf = await pdfOf(await call('/api/v1/split', { pdf: b64(ownerOnly), pages: '2' }));
    assert.deepEqual(await pageOrder(pdf), ['Delta page 2']);
  });

  await t.test('merge: outline none drops every bookmark', async () => {
    const pdf = await pdfOf(await call('/api/v1/merge', { documents: [{ pdf: b64(ALPHA) }], outline: 'none' }));
    assert.deepEqual(await outlineOf(pdf), []);
  });

  await t.test('split: pages in the given order, with the outline items pointing into them', async () => {
    const pdf = await pdfOf(await call('/api/v1/split', { pdf: b64(ALPHA), pages: '3,1' }));
    assert.deepEqual(await pageOrder(pdf), ['Alpha page 3', 'Alpha page 1']);
    assert.deepEqual(await outlineOf(pdf), ['Intro → 2', 'End → 1']);
    // Alpha's page 1 (now 2) links to its page 3, now page 1.
    assert.equal(await linkTarget(pdf, 2), 1);
  });

  await t.test('split: ranges and every give a ZIP of parts', async () => {
    const response = await call('/api/v1/split', { pdf: b64(ALPHA), ranges: ['1-2', '3-'] });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/zip');
    assert.match(response.headers.get('content-disposition') ?? '', /^attachment; filename="split\.zip"$/);
    const parts = unzipSync(new Uint8Array(await response.arrayBuffer()));
    assert.deepEqual(Object.keys(parts), ['part-1.pdf', 'part-2.pdf']);
    const [first, second] = [parts['part-1.pdf'] as Uint8Array, parts['part-2.pdf'] as Uint8Array];
    for (const part of [first, second]) await qpdfCheck(part);
    assert.deepEqual(await pageOrder(first), ['Alpha page 1', 'Alpha page 2']);
    assert.deepEqual(await outlineOf(first), ['Intro → 1', '  Detail → 2']);
    assert.deepEqual(await pageOrder(second), ['Alpha page 3']);
    assert.deepEqual(await outlineOf(second), ['End → 1']);
    // The link's target (page 3) is not in the first part: the link is dropped rather than left pointing nowhere.
    assert.equal(await linkTarget(first), undefined);
    assert.deepEqual(await fieldNames(first), ['agree', 'city', 'name']);

    const every = await call('/api/v1/split', { pdf: b64(ALPHA), every: 2 });
    const byTwo = unzipSync(new Uint8Array(await every.arrayBuffer()));
    assert.deepEqual(
      await Promise.all(Object.values(byTwo).map((part) => pageOrder(part))),
      [['Alpha page 1', 'Alpha page 2'], ['Alpha page 3']],
    );
  });

  await t.test('422 naming the range: outside the document, malformed, reversed', async () => {
    let problem = await readProblem(await call('/api/v1/split', { pdf: b64(ALPHA), ranges: ['1-2', '3-9', 'x', '3-2'] }));
    assert.equal(problem.status, 422);
    assert.equal(problem.slug, 'validation-failed');
    assert.deepEqual(
      problem.errors?.map((e) => [e.field, e.code]),
      [['ranges[1]', 'OUT_OF_RANGE'], ['ranges[2]', 'INVALID_FORMAT'], ['ranges[3]', 'OUT_OF_RANGE']],
    );
    assert.match(problem.errors?.[0]?.message ?? '', /"3-9" is outside the document, which has 3 pages/);
    problem = await readProblem(await call('/api/v1/merge', { documents: [{ pdf: b64(ALPHA) }, { pdf: b64(BETA), pages: '1,4-' }] }));
    assert.deepEqual(problem.errors?.map((e) => [e.field, e.code]), [['documents[1].pages', 'OUT_OF_RANGE']]);
    problem = await readProblem(await call('/api/v1/split', { pdf: b64(ALPHA), pages: '1', every: 1 }));
    assert.equal(problem.status, 422);
    problem = await readProblem(await call('/api/v1/merge', { documents: [] }));
    assert.deepEqual(problem.errors?.map((e) => [e.field, e.code]), [['documents', 'TOO_SHORT']]);
  });

  await t.test('422 for the PDFs themselves: password missing or wrong, not a PDF, damaged', async () => {
    let problem = await readProblem(await call('/api/v1/merge', { documents: [{ pdf: b64(ALPHA) }, { pdf: b64(GAMMA) }] }));
    assert.equal(problem.slug, 'pdf-password-required');
    assert.deepEqual(problem.errors?.map((e) => [e.field, e.code]), [['documents[1].password', 'REQUIRED']]);
    assert.match(problem.detail, /send it in documents\[1\]\.password\./);
    problem = await readProblem(await call('/api/v1/split', { pdf: b64(GAMMA), password: 'guess', pages: '1' }));
    assert.equal(problem.slug, 'pdf-password-required');
    assert.deepEqual(problem.errors?.map((e) => [e.field, e.code]), [['password', 'INCORRECT']]);
    problem = await readProblem(await call('/api/v1/split', { pdf: b64(new TextEncoder().encode('hello')), pages: '1' }));
    assert.equal(problem.slug, 'invalid-pdf-data');
    assert.deepEqual(problem.errors?.map((e) => [e.field, e.code]), [['pdf', 'INVALID_PDF']]);
    const damaged = ALPHA.slice(0, Math.floor(ALPHA.length / 2));
    problem = await readProblem(await call('/api/v1/merge', { documents: [{ pdf: b64(ALPHA) }, { pdf: b64(damaged) }] }));
    assert.equal(problem.status, 422);
    assert.ok(['invalid-pdf-data'].includes(problem.slug), problem.slug);
    assert.equal(problem.errors?.[0]?.field, 'documents[1].pdf');
  });

  await t.test('listed for core keys, with render and jobs', async () => {
    const response = await fetch(`${server.base}/api/v1/capabilities`, { headers: bearer(KEYS.core) });
    const body = (await response.json()) as { data: { operations: string[] } };
    assert.ok(body.data.operations.includes('merge') && body.data.operations.includes('split'), body.data.operations.join());
  });
});
