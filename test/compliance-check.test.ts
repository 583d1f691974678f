// POST /api/v1/compliance-check (enterprise) against a real server: a PDF/A
// file of veraPDF's corpus passes, a failing one fails with the exact rule
// veraPDF names, the standard defaults to the document's claim (else
// PDF/A-2b), the tier gate, and bad input as 422 problems.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { readProblem, renderPdf } from './helpers/http.js';
import { KEYS, bearer } from './helpers/keys.js';
import { assertMatchesContract, loadContract } from './helpers/openapi.js';
import { qpdfTransform } from './helpers/pdf-tools.js';
import { startTestServer } from './helpers/server.js';

interface Report {
  standard: string;
  claimed: string | null;
  compliant: boolean;
  summary: { rules_checked: number; passed: number; failed: number };
  failures: Array<{ rule: string; description: string; count: number; pages: number[]; sample?: string }>;
}

const fixture = async (name: string): Promise<string> => (await readFile(new URL(`../../test/fixtures/${name}`, import.meta.url))).toString('base64');

test('compliance-check', async (t) => {
  const server = await startTestServer();
  t.after(() => server.close());
  const contract = await loadContract('render');
  const call = async (body: unknown, key: string = KEYS.enterprise): Promise<Response> => {
    const response = await fetch(`${server.base}/api/v1/compliance-check`, { method: 'POST', headers: { ...bearer(key), 'content-type': 'application/json' }, body: JSON.stringify(body) });
    await assertMatchesContract(contract, 'post', '/api/v1/compliance-check', response.clone());
    return response;
  };
  const reportOf = async (response: Response): Promise<Report> => {
    assert.equal(response.status, 200, await response.clone().text());
    return ((await response.json()) as { data: Report }).data;
  };
  const passing = await fixture('verapdf-6-2-2-t01-pass-a.pdf');
  const failing = await fixture('verapdf-6-2-4-3-t01-fail-a.pdf');

  await t.test('a PDF/A-1b file of the corpus is compliant with the standard it claims', async () => {
    const report = await reportOf(await call({ pdf: passing }));
    assert.equal(report.standard, 'pdfa-1b');
    assert.equal(report.claimed, 'pdfa-1b');
    assert.equal(report.compliant, true, JSON.stringify(report.failures));
    assert.deepEqual(report.failures, []);
    assert.equal(report.summary.failed, 0);
    assert.equal(report.summary.passed, report.summary.rules_checked);
    assert.ok(report.summary.rules_checked > 100);
  });

  await t.test('DeviceRGB without an RGB output intent fails 6.2.4.3-2 on page 1, and only that', async () => {
    const report = await reportOf(await call({ pdf: failing }));
    assert.equal(report.standard, 'pdfa-2b');
    assert.equal(report.compliant, false);
    assert.deepEqual(report.failures.map((f) => f.rule), ['6.2.4.3-2']);
    assert.deepEqual(report.failures[0]?.pages, [1]);
    assert.equal(report.summary.failed, 1);
  });

  await t.test('an explicit standard overrides the claim: the PDF/A-1b file checked as PDF/A-2b fails pdfaid:part (6.6.4-2)', async () => {
    const report = await reportOf(await call({ pdf: passing, standard: 'pdfa-2b' }));
    assert.equal(report.standard, 'pdfa-2b');
    assert.equal(report.claimed, 'pdfa-1b');
    assert.ok(report.failures.some((f) => f.rule === '6.6.4-2'), JSON.stringify(report.failures));
  });

  await t.test('a document that claims nothing is checked as PDF/A-2b: no metadata (6.6.2.1-1), fonts not embedded (6.2.11.4.1-1)', async () => {
    const pdf = await renderPdf(server.base, { operations: [{ type: 'add_text', text: 'Not an archive' }] });
    const report = await reportOf(await call({ pdf: Buffer.from(pdf).toString('base64') }));
    assert.equal(report.standard, 'pdfa-2b');
    assert.equal(report.claimed, null);
    assert.equal(report.compliant, false);
    const rules = report.failures.map((f) => f.rule);
    assert.ok(rules.includes('6.6.2.1-1'), rules.join(' '));
    const fonts = report.failures.find((f) => f.rule === '6.2.11.4.1-1');
    assert.ok(fonts !== undefined, rules.join(' '));
    assert.deepEqual(fonts.pages, [1]);
  });

  await t.test('an encrypted file: 422 naming password without it; with it, checked, and 6.1.3-2 (no Encrypt) fails', async () => {
    const encrypted = await qpdfTransform(Buffer.from(passing, 'base64'), ['--encrypt', 'user-pw', 'owner-pw', '256', '--']);
    const pdf = Buffer.from(encrypted).toString('base64');
    const locked = await readProblem(await call({ pdf }));
    assert.equal(locked.status, 422);
    assert.equal(locked.slug, 'pdf-password-required');
    assert.equal(locked.errors?.[0]?.field, 'password');
    const report = await reportOf(await call({ pdf, password: 'user-pw' }));
    assert.equal(report.compliant, false);
    assert.ok(report.failures.some((f) => f.rule === '6.1.3-2'), JSON.stringify(report.failures));
  });

  await t.test('pdfa-2a: a tagged 2u render passes every level A rule (only its claim, 6.6.4-3, fails); untagged, 6.7.2.2-1 and 6.7.3.3-1 fail', async () => {
    const request = (tagged: boolean) => ({
      metadata: { title: 'Level A', language: 'en-GB' },
      output: { pdf_a: '2u', tagged },
      operations: [{ type: 'add_text', text: 'Archived and accessible', heading: 1 }, { type: 'add_text', text: 'A paragraph.' }],
    });
    const tagged = await reportOf(await call({ pdf: Buffer.from(await renderPdf(server.base, request(true))).toString('base64'), standard: 'pdfa-2a' }));
    assert.equal(tagged.standard, 'pdfa-2a');
    assert.equal(tagged.claimed, 'pdfa-2u');
    assert.deepEqual(tagged.failures.map((f) => f.rule), ['6.6.4-3']);
    const untagged = await reportOf(await call({ pdf: Buffer.from(await renderPdf(server.base, request(false))).toString('base64'), standard: 'pdfa-2a' }));
    assert.deepEqual(untagged.failures.map((f) => f.rule), ['6.6.4-3', '6.7.2.2-1', '6.7.3.3-1']);
  });

  await t.test('pro keys: 403 capability-denied', async () => {
    const response = await call({ pdf: passing }, KEYS.pro);
    assert.equal(response.status, 403);
    assert.equal((await readProblem(response)).slug, 'capability-denied');
  });

  await t.test('an unknown standard, a missing pdf and bytes that are no PDF: 422 naming the field', async () => {
    const unknown = await readProblem(await call({ pdf: passing, standard: 'pdfa-4f' }));
    assert.equal(unknown.status, 422);
    assert.equal(unknown.errors?.[0]?.field, 'standard');
    const missing = await readProblem(await call({ standard: 'pdfa-2b' }));
    assert.equal(missing.status, 422);
    assert.equal(missing.errors?.[0]?.field, 'pdf');
    const garbage = await readProblem(await call({ pdf: Buffer.from('not a pdf at all').toString('base64') }));
    assert.equal(garbage.status, 422);
    assert.equal(garbage.slug, 'invalid-pdf-data');
    assert.equal(garbage.errors?.[0]?.field, 'pdf');
  });
});
