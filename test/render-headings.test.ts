// add_text's `heading` and output.outline (issue 15): headings from add_text
// and HTML are H1-H6 in a tagged render, tagged by depth when the levels
// asked for skip (PDF/UA-1 7.4.2, our check-accessibility's rule 7.4.2-1),
// so tagged renders with skipping headings, with and without pdf_a, pass
// check-accessibility (and compliance-check); output.outline writes the
// headings as bookmarks that qpdf reads back nested, each pointing at the
// heading's page; a flowing heading keeps with what follows it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { postJson, readProblem, renderPdf } from './helpers/http.js';
import { KEYS, bearer } from './helpers/keys.js';
import { pdfOutline, pdfStructure, pdfToText, type OutlineLine } from './helpers/pdf-tools.js';
import { startTestServer } from './helpers/server.js';

const metadata = { title: 'Handbook', language: 'en' };
const paragraph = (text: string) => ({ type: 'add_text', text });
const heading = (level: number, text: string) => ({ type: 'add_text', text, heading: level, size: 24 - 2 * level, bold: true });
const html = '<h2>Appendix</h2><p>Notes.</p><h4>Sources</h4><p>Books.</p>';
/** Headings asked for at 1, 2, 3, 2, then HTML's h2 and h4 (a skip) and an add_text 3 after them. */
const handbook = {
  metadata,
  operations: [
    heading(1, 'Handbook'),
    paragraph('How we work.'),
    heading(2, 'Hiring'),
    paragraph('Interviews.'),
    heading(3, 'Offers'),
    paragraph('Letters.'),
    heading(2, 'Leave'),
    paragraph('Holidays. '.repeat(400)),
    { type: 'add_html', html },
    heading(3, 'Further reading'),
  ],
};

const roles = (tree: Awaited<ReturnType<typeof pdfStructure>>) => tree.flatMap((line) => (line.role === undefined ? [] : [line.role]));
const titles = (lines: readonly OutlineLine[]): unknown[] => lines.map((line) => (line.kids.length === 0 ? line.title : [line.title, titles(line.kids)]));

test('headings and the outline', async (t) => {
  const server = await startTestServer();
  t.after(() => server.close());
  const check = async (path: string, pdf: Uint8Array, key: string) => {
    const response = await fetch(`${server.base}${path}`, {
      method: 'POST',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      body: JSON.stringify({ pdf: Buffer.from(pdf).toString('base64') }),
    });
    assert.equal(response.status, 200, await response.clone().text());
    return ((await response.json()) as { data: { compliant: boolean; failures: Array<{ rule: string; sample?: string }> } }).data;
  };

  await t.test('tagged: add_text headings are H elements, skipped levels tagged by depth, and the check passes', async () => {
    const pdf = await renderPdf(server.base, { ...handbook, output: { tagged: true } });
    const tree = await pdfStructure(pdf);
    // HTML's h2 after an H2 is an H2; its h4 one below it is an H3; the add_text 3 after that stays an H3.
    assert.deepEqual(roles(tree), ['Document', 'H1', 'P', 'H2', 'P', 'H3', 'P', 'H2', 'P', 'H2', 'P', 'H3', 'P', 'H3']);
    assert.match(tree.map((line) => line.text).join('\n'), /H3 \(block\)\n"Sources"/);
    assert.deepEqual((await check('/api/v1/check-accessibility', pdf, KEYS.pro)).failures, []);
  });

  await t.test('tagged: a document whose first heading is a 2 and whose next skips to 4 is H1, H2, and passes 7.4.2', async () => {
    const pdf = await renderPdf(server.base, { metadata, output: { tagged: true }, operations: [heading(2, 'Intro'), paragraph('a'), heading(4, 'Detail'), { type: 'add_html', html: '<h3>Aside</h3>' }] });
    assert.deepEqual(roles(await pdfStructure(pdf)), ['Document', 'H1', 'P', 'H2', 'H2']);
    const report = await check('/api/v1/check-accessibility', pdf, KEYS.pro);
    assert.deepEqual(report.failures, []);
    assert.equal(report.compliant, true);
  });

  for (const level of ['2b', '2u'] as const) {
    await t.test(`tagged with pdf_a ${level} and an outline: compliance-check and check-accessibility pass`, async () => {
      const pdf = await renderPdf(server.base, { ...handbook, output: { tagged: true, pdf_a: level, outline: true } });
      assert.deepEqual((await check('/api/v1/compliance-check', pdf, KEYS.enterprise)).failures, []);
      assert.deepEqual((await check('/api/v1/check-accessibility', pdf, KEYS.pro)).failures, []);
      assert.equal((await pdfOutline(pdf)).outline.length, 1);
    });
  }

  await t.test('output.outline: the headings as nested bookmarks, each on its heading\'s page, the panel open', async () => {
    const pdf = await renderPdf(server.base, { ...handbook, output: { outline: true } });
    const { outline, pageMode } = await pdfOutline(pdf);
    assert.deepEqual(titles(outline), [['Handbook', [['Hiring', ['Offers']], 'Leave', ['Appendix', ['Sources', 'Further reading']]]]]);
    const pages = (lines: readonly OutlineLine[]): number[] => lines.flatMap((line) => [line.page, ...pages(line.kids)]);
    // "Leave" is followed by a long paragraph: the HTML's headings come two pages on.
    const text = (await pdfToText(pdf)).split('\f');
    const pageOf = (title: string) => text.findIndex((page) => page.includes(title)) + 1;
    assert.deepEqual(pages(outline), ['Handbook', 'Hiring', 'Offers', 'Leave', 'Appendix', 'Sources', 'Further reading'].map(pageOf));
    assert.ok(pageOf('Appendix') > 1);
    assert.equal(pageMode, '/UseOutlines');
    // Without the option, no outline.
    assert.deepEqual((await pdfOutline(await renderPdf(server.base, handbook))).outline, []);
  });

  await t.test('a heading with no text has no bookmark, and the levels after it nest as if it were not there', async () => {
    const operations = [heading(1, ''), heading(2, '\n\n'), { type: 'add_html', html: '<h1></h1>' }, heading(3, 'Real'), paragraph('Body')];
    assert.deepEqual(titles((await pdfOutline(await renderPdf(server.base, { operations, output: { outline: true } }))).outline), ['Real']);
    assert.deepEqual(roles(await pdfStructure(await renderPdf(server.base, { metadata, operations, output: { tagged: true } }))), ['Document', 'H1', 'P']);
  });

  await t.test('a flowing heading at the foot of a page moves to the next with room for what follows', async () => {
    // 51 lines of 12 pt (14.4 pt each) fit A4's 742 pt content box: after 50, the heading fits but the two lines after it do not.
    const filler = Array.from({ length: 50 }, (_, i) => ({ type: 'add_text', text: `line ${i}`, spacing_after: 0 }));
    const plain = await renderPdf(server.base, { operations: [...filler, { type: 'add_text', text: 'Title here', spacing_after: 0 }, paragraph('after')] });
    const pdf = await renderPdf(server.base, { operations: [...filler, { type: 'add_text', text: 'Title here', heading: 1, spacing_after: 0 }, paragraph('after')], output: { outline: true } });
    const pageWith = async (file: Uint8Array, words: string) => (await pdfToText(file)).split('\f').findIndex((page) => page.includes(words)) + 1;
    assert.equal(await pageWith(plain, 'Title here'), 1);
    assert.equal(await pageWith(plain, 'after'), 2);
    assert.equal(await pageWith(pdf, 'Title here'), 2);
    assert.equal((await pdfOutline(pdf)).outline[0]?.page, 2);
  });

  await t.test('heading must be a whole number from 1 to 6; outline a boolean', async () => {
    for (const bad of [0, 7, 1.5, '1']) {
      const read = await readProblem(await postJson(server.base, '/api/v1/render', { operations: [{ type: 'add_text', text: 'x', heading: bad }] }));
      assert.equal(read.status, 422);
      assert.deepEqual(read.errors?.map((e) => e.field), ['operations[0].heading']);
    }
    const read = await readProblem(await postJson(server.base, '/api/v1/render', { operations: [paragraph('x')], output: { outline: 'yes' } }));
    assert.deepEqual(read.errors?.map((e) => `${e.field} ${e.code}`), ['output.outline INVALID_TYPE']);
  });
});
