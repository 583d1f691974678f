// POST /api/v1/check-accessibility (pro) against a real server: a file of
// veraPDF's PDF/UA-1 corpus and a tagged document written here pass; the
// same document with one thing broken fails with exactly the rule veraPDF
// names for it (and its Matterhorn checkpoint); the render engine's
// untagged output fails the tagging rules; the tier gate; passwords; bad
// input as 422 problems.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { readProblem, renderPdf } from './helpers/http.js';
import { KEYS, bearer } from './helpers/keys.js';
import { assertMatchesContract, loadContract } from './helpers/openapi.js';
import { qpdfTransform } from './helpers/pdf-tools.js';
import { startTestServer } from './helpers/server.js';
import { taggedPdf } from './helpers/tagged-pdf.js';

interface Report {
  standard: string;
  compliant: boolean;
  summary: { rules_checked: number; passed: number; failed: number };
  failures: Array<{ rule: string; matterhorn?: string; description: string; count: number; pages: number[]; sample?: string }>;
}

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

test('check-accessibility', async (t) => {
  const server = await startTestServer();
  t.after(() => server.close());
  const contract = await loadContract('render');
  const call = async (body: unknown, key: string = KEYS.pro): Promise<Response> => {
    const response = await fetch(`${server.base}/api/v1/check-accessibility`, { method: 'POST', headers: { ...bearer(key), 'content-type': 'application/json' }, body: JSON.stringify(body) });
    await assertMatchesContract(contract, 'post', '/api/v1/check-accessibility', response.clone());
    return response;
  };
  const reportOf = async (pdf: Uint8Array, password?: string): Promise<Report> => {
    const response = await call({ pdf: base64(pdf), ...(password === undefined ? {} : { password }) });
    assert.equal(response.status, 200, await response.clone().text());
    return ((await response.json()) as { data: Report }).data;
  };
  const rules = (report: Report) => report.failures.map((f) => f.rule);

  await t.test('a PDF/UA-1 file of veraPDF\'s corpus (fonts, tables of lists, annotations) is compliant', async () => {
    const corpusFile = new Uint8Array(await readFile(new URL('../../test/fixtures/verapdf-ua-7-2-t17-pass-d.pdf', import.meta.url)));
    const report = await reportOf(corpusFile);
    assert.equal(report.standard, 'PDF/UA-1');
    assert.equal(report.compliant, true, JSON.stringify(report.failures));
    assert.equal(report.summary.failed, 0);
    assert.equal(report.summary.passed, report.summary.rules_checked);
    assert.ok(report.summary.rules_checked >= 80, String(report.summary.rules_checked));
  });

  await t.test('a tagged document written here is compliant; the check is not vacuous: every rule ran', async () => {
    const report = await reportOf(taggedPdf());
    assert.deepEqual(report.failures, []);
    assert.equal(report.compliant, true);
  });

  await t.test('a figure without alternative text fails 7.3-1 (Matterhorn 13-004), and only that', async () => {
    const report = await reportOf(taggedPdf({ figureAlt: null }));
    assert.equal(report.compliant, false);
    assert.deepEqual(rules(report), ['7.3-1']);
    assert.equal(report.failures[0]?.matterhorn, '13-004');
    assert.equal(report.failures[0]?.count, 1);
  });

  await t.test('a heading that skips a level (H1 then H3) fails 7.4.2-1; H mixed with H1 fails 7.4.4-2 and 7.4.4-3', async () => {
    assert.deepEqual(rules(await reportOf(taggedPdf({ headings: ['H1', 'H3'] }))), ['7.4.2-1']);
    assert.deepEqual(rules(await reportOf(taggedPdf({ headings: ['H1', 'H2', 'H3'] }))), []);
    assert.deepEqual(rules(await reportOf(taggedPdf({ headings: ['H', 'H1'] }))), ['7.4.4-2', '7.4.4-3']);
  });

  await t.test('text in a font that is not embedded fails 7.21.4.1-1; a code /Differences maps to .notdef also 7.21.8-1', async () => {
    assert.deepEqual(rules(await reportOf(taggedPdf({ helveticaText: '/WinAnsiEncoding' }))), ['7.21.4.1-1']);
    assert.deepEqual(rules(await reportOf(taggedPdf({ helveticaText: '<< /BaseEncoding /WinAnsiEncoding /Differences [72 /.notdef] >>' }))), ['7.21.4.1-1', '7.21.7-1', '7.21.8-1']);
  });

  await t.test('content outside any tagged or artifact sequence fails 7.1-3 (01-005) on its page', async () => {
    const report = await reportOf(taggedPdf({ untaggedContent: true }));
    assert.deepEqual(rules(report), ['7.1-3']);
    assert.equal(report.failures[0]?.matterhorn, '01-005');
    assert.deepEqual(report.failures[0]?.pages, [1]);
  });

  await t.test('no PDF/UA identifier in XMP fails 5-1; a remapped standard type fails 7.1-7; an unmapped one 7.1-5', async () => {
    assert.deepEqual(rules(await reportOf(taggedPdf({ withoutIdentifier: true }))), ['5-1']);
    assert.deepEqual(rules(await reportOf(taggedPdf({ roleMap: { H2: 'P' } }))), ['7.1-7']);
    assert.deepEqual(rules(await reportOf(taggedPdf({ headings: ['H1', 'Heading2'] }))), ['7.1-5']);
    assert.deepEqual(rules(await reportOf(taggedPdf({ headings: ['H1', 'Heading2'], roleMap: { Heading2: 'H2' } }))), []);
  });

  await t.test('the render engine\'s untagged output fails the tagging rules: 6.2-1, 7.1-3, 7.1-8, 7.1-10, 7.1-11 and 5-1', async () => {
    const pdf = await renderPdf(server.base, { operations: [{ type: 'add_text', text: 'Not tagged' }] });
    const report = await reportOf(pdf);
    assert.equal(report.compliant, false);
    for (const rule of ['5-1', '6.2-1', '7.1-3', '7.1-8', '7.1-10', '7.1-11']) assert.ok(rules(report).includes(rule), `${rule} in ${rules(report).join(' ')}`);
    assert.deepEqual(report.failures.find((f) => f.rule === '7.1-3')?.pages, [1]);
  });

  await t.test('an encrypted document opens with its password; one that forbids accessibility extraction fails 7.16-1', async () => {
    const open = await qpdfTransform(taggedPdf(), ['--encrypt', 'user', 'owner', '256', '--']);
    assert.deepEqual(rules(await reportOf(open, 'user')), []);
    const closed = await qpdfTransform(taggedPdf(), ['--allow-weak-crypto', '--encrypt', 'user', 'owner', '128', '--use-aes=n', '--accessibility=n', '--']);
    assert.deepEqual(rules(await reportOf(closed, 'user')), ['7.16-1']);
    const missing = await readProblem(await call({ pdf: base64(open) }));
    assert.equal(missing.status, 422);
    assert.equal(missing.slug, 'pdf-password-required');
    assert.deepEqual([missing.errors?.[0]?.field, missing.errors?.[0]?.code], ['password', 'REQUIRED']);
    const wrong = await readProblem(await call({ pdf: base64(open), password: 'nope' }));
    assert.deepEqual([wrong.status, wrong.errors?.[0]?.field, wrong.errors?.[0]?.code], [422, 'password', 'INCORRECT']);
  });

  await t.test('core keys: 403 capability-denied', async () => {
    const response = await call({ pdf: base64(taggedPdf()) }, KEYS.core);
    assert.equal(response.status, 403);
    assert.equal((await readProblem(response)).slug, 'capability-denied');
  });

  await t.test('a missing pdf, an unknown member and bytes that are no PDF: 422 naming the field', async () => {
    const missing = await readProblem(await call({}));
    assert.equal(missing.status, 422);
    assert.equal(missing.errors?.[0]?.field, 'pdf');
    const unknown = await readProblem(await call({ pdf: base64(taggedPdf()), standard: 'PDF/UA-2' }));
    assert.equal(unknown.status, 422);
    assert.equal(unknown.errors?.[0]?.field, 'standard');
    const garbage = await readProblem(await call({ pdf: Buffer.from('not a pdf at all').toString('base64') }));
    assert.equal(garbage.status, 422);
    assert.equal(garbage.slug, 'invalid-pdf-data');
    assert.equal(garbage.errors?.[0]?.field, 'pdf');
  });
});
