// output.tagged on a RenderRequest (issue 15): golden documents rendered
// tagged pass our own check-accessibility (PDF/UA-1) with no failure, poppler
// reads their structure tree in reading order with the right roles, qpdf
// finds no error, and pdftotext reads the same text as the untagged render
// in the same fonts (PDF/A's embedded DejaVu, which tagging also uses).
// Tagged with pdf_a passes compliance-check too, and pdf_a 2a (tagged
// implied) claims and passes PDF/A-2a for every golden document. The untagged
// letter fails the accessibility check, so the check can fail; the new
// validation errors are 422s naming their fields. Tagged "structure" (the
// structure without the PDF/UA claim) is test/render-tagged-structure.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { postJson, readProblem, renderPdf } from './helpers/http.js';
import { KEYS, bearer } from './helpers/keys.js';
import { pdfInfo, pdfStructure, pdfToText, type StructLine } from './helpers/pdf-tools.js';
import { startTestServer } from './helpers/server.js';
import { article, invoice, letter, redSquare, unicode } from './helpers/tagged-documents.js';

interface Report {
  standard?: string;
  claimed?: string | null;
  compliant: boolean;
  failures: Array<{ rule: string; sample?: string }>;
}

const roles = (lines: readonly StructLine[]) => lines.flatMap((line) => (line.role === undefined ? [] : [line.role]));
/** The lines under the element at `index` (deeper than it, up to the next line as shallow). */
const kidsOf = (tree: readonly StructLine[], index: number) => {
  const depth = (tree[index] as StructLine).depth;
  const end = tree.findIndex((line, i) => i > index && line.depth <= depth);
  return tree.slice(index + 1, end < 0 ? undefined : end);
};
const count = (list: readonly string[], role: string) => list.filter((r) => r === role).length;

test('render with output.tagged', async (t) => {
  const server = await startTestServer();
  t.after(() => server.close());
  const check = async (path: string, pdf: Uint8Array, key: string): Promise<Report> => {
    const response = await fetch(`${server.base}${path}`, {
      method: 'POST',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      body: JSON.stringify({ pdf: Buffer.from(pdf).toString('base64') }),
    });
    assert.equal(response.status, 200, await response.clone().text());
    return ((await response.json()) as { data: Report }).data;
  };
  const accessibility = (pdf: Uint8Array) => check('/api/v1/check-accessibility', pdf, KEYS.pro);
  const compliance = (pdf: Uint8Array) => check('/api/v1/compliance-check', pdf, KEYS.enterprise);
  const image = await redSquare();
  const documents = { letter: letter(), invoice: invoice(), article: article(image), unicode: unicode() };

  for (const [name, document] of Object.entries(documents)) {
    await t.test(`${name}: PDF/UA-1 compliant by our own check, and the same text as untagged`, async () => {
      const pdf = await renderPdf(server.base, { ...document, output: { tagged: true } });
      assert.deepEqual((await accessibility(pdf)).failures, []);
      // The untagged render in the same (embedded) fonts lays out identically: tagging adds marks, never moves text.
      const untagged = await renderPdf(server.base, { ...document, output: { pdf_a: '2b' } });
      assert.equal(await pdfToText(pdf), await pdfToText(untagged));
      const info = await pdfInfo(pdf);
      assert.equal(info.Tagged, 'yes');
      assert.equal(info.Title, (document.metadata as { title: string }).title);
    });
  }

  await t.test('letter: paragraphs in order, the link in a Link element, header and footer left out as artifacts', async () => {
    const pdf = await renderPdf(server.base, { ...documents.letter, output: { tagged: true } });
    const tree = await pdfStructure(pdf);
    assert.deepEqual(roles(tree), ['Document', 'P', 'P', 'P', 'P', 'Link', 'P', 'P']);
    const text = tree.map((line) => line.text).join('\n');
    // Word breaks are space characters (ISO 32000-1 §14.8.2.5), which poppler's structure text shows.
    assert.match(text, /"24 November 2026"[\s\S]*"Dear Mr Smith,"[\s\S]*"Ada Lovelace"/);
    // The link's words (one sequence each: the underline between them is an artifact) and its annotation (an object reference).
    const link = kidsOf(tree, tree.findIndex((line) => line.role === 'Link'));
    assert.equal(link.filter((line) => line.text.startsWith('"')).map((line) => line.text.slice(1, -1)).join(' '), 'Our terms are online.');
    assert.equal(link.filter((line) => /^Object \d+ \d+$/.test(line.text)).length, 1);
    assert.doesNotMatch(text, /ACME|Page/);
  });

  await t.test('invoice: a Table of header and data cells, its header in the tree once though repeated on every page', async () => {
    const pdf = await renderPdf(server.base, { ...documents.invoice, output: { tagged: true } });
    assert.ok(Number((await pdfInfo(pdf)).Pages) >= 3);
    const tree = await pdfStructure(pdf);
    const list = roles(tree);
    assert.equal(count(list, 'Table'), 1);
    assert.equal(count(list, 'TR'), 91);
    assert.equal(count(list, 'TH'), 3);
    assert.equal(count(list, 'TD'), 270);
    assert.equal(tree.filter((line) => line.text === '/Scope /Column').length, 3);
    // The header-less total is a layout table: a Div of paragraphs, not a Table with cells no header describes;
    // its empty middle cell draws nothing, so it has no paragraph (an empty one would be read out as such).
    assert.deepEqual(list.slice(-3), ['Div', 'P', 'P']);
  });

  await t.test('article: headings, lists, quote, table with column and row headers, figures with alt, decorative images left out', async () => {
    const pdf = await renderPdf(server.base, { ...documents.article, output: { tagged: true } });
    const tree = await pdfStructure(pdf);
    assert.deepEqual(roles(tree), [
      'Document', 'H1', 'P', 'Link', 'H2',
      'L', 'LI', 'Lbl', 'LBody', 'P', 'LI', 'Lbl', 'LBody', 'P', 'L', 'LI', 'Lbl', 'LBody', 'P', 'LI', 'Lbl', 'LBody', 'P',
      'BlockQuote', 'P', 'H2',
      'Table', 'TR', 'TH', 'TH', 'TR', 'TD', 'TD', 'TR', 'TH', 'TD', 'TR', 'TD',
      'H3', 'Figure', 'P', 'Figure',
    ]);
    const text = tree.map((line) => line.text).join('\n');
    assert.match(text, /TH:\n\/Scope \/Row\n"South"/);
    assert.match(text, /TD:\n\/ColSpan 2\n"Total 200"/);
    assert.match(text, /Lbl \(block\)\n"•"/);
    assert.match(text, /Lbl \(block\)\n"1\."/);
    // poppler does not print /Alt; the accessibility check above found it on both figures (7.3-1).
  });

  await t.test('a paragraph over three pages is one P; an HTML table headed by a row of <th> in its body is a data table', async () => {
    const metadata = { title: 'Long', language: 'en' };
    const table = '<table><tr><th>Name</th><th>Score</th></tr><tr><td>Ada</td><td>10</td></tr></table>';
    const pdf = await renderPdf(server.base, { metadata, output: { tagged: true }, operations: [{ type: 'add_text', text: 'word '.repeat(1500) }, { type: 'add_html', html: table }] });
    assert.equal((await pdfInfo(pdf)).Pages, '3');
    const tree = await pdfStructure(pdf);
    assert.deepEqual(roles(tree), ['Document', 'P', 'Table', 'TR', 'TH', 'TH', 'TR', 'TD', 'TD']);
    assert.equal(tree.filter((line) => line.text === '/Scope /Column').length, 2);
    assert.deepEqual((await accessibility(pdf)).failures, []);
  });

  await t.test('figures carry a Layout BBox: the image\'s box on its page, within its clip for a cover fit', async () => {
    const metadata = { title: 'Figures', language: 'en' };
    const pdf = await renderPdf(server.base, { metadata, output: { tagged: true }, margin: 50, operations: [{ type: 'add_image', data: image, alt: 'Logo', width: 40, height: 20, fit: 'cover' }, { type: 'add_html', html: `<p><img src="data:image/png;base64,${image}" alt="Red" width="30"></p>` }] });
    const tree = await pdfStructure(pdf);
    const boxes = tree.filter((line) => line.text.startsWith('/BBox')).map((line) => line.text);
    // A4 is 841.89 pt tall: the first image's box is 40 × 20 at the top-left margin, the cover fit clipped to it.
    assert.equal(boxes[0], '/BBox [50 771.89 90 791.89]');
    assert.equal(boxes.length, 2);
    assert.deepEqual(roles(tree).filter((role) => role === 'Figure').length, 2);
    assert.deepEqual((await accessibility(pdf)).failures, []);
  });

  await t.test('a link in a table header repeated on later pages: its annotation on every page belongs to the one Link, its repeated text stays an artifact', async () => {
    const rows = Array.from({ length: 80 }, (_, i) => `<tr><td>Row ${i}</td><td>${i}</td></tr>`).join('');
    const html = `<table><thead><tr><th><a href="https://example.com/items">Item</a></th><th>Price</th></tr></thead><tbody>${rows}</tbody></table>`;
    const pdf = await renderPdf(server.base, { metadata: { title: 'Items', language: 'en' }, output: { tagged: true }, operations: [{ type: 'add_html', html }] });
    assert.equal((await pdfInfo(pdf)).Pages, '3');
    const tree = await pdfStructure(pdf);
    const links = tree.flatMap((line, index) => (line.role === 'Link' ? [index] : []));
    assert.equal(links.length, 1);
    const kids = kidsOf(tree, links[0] as number);
    // One annotation per page (an object reference each), and the text once: the repeats are artifacts.
    assert.equal(kids.filter((line) => /^Object \d+ \d+$/.test(line.text)).length, 3);
    assert.equal(count(roles(tree), 'TH'), 2);
    // Before, the repeats' annotations were outside the tree (7.18.1-2, 7.18.5-1, 7.18.5-2 on pages 2 and 3).
    assert.deepEqual((await accessibility(pdf)).failures, []);
  });

  for (const level of ['2b', '2u'] as const) {
    await t.test(`tagged with pdf_a ${level}: compliant by compliance-check and by check-accessibility`, async () => {
      for (const document of [documents.letter, documents.article]) {
        const pdf = await renderPdf(server.base, { ...document, output: { tagged: true, pdf_a: level } });
        const pdfa = await compliance(pdf);
        assert.deepEqual(pdfa.failures, []);
        assert.equal(pdfa.compliant, true);
        assert.deepEqual((await accessibility(pdf)).failures, []);
      }
    });
  }

  await t.test('pdf_a 2a (tagged implied): every golden document claims PDF/A-2a and passes compliance-check at 2a and check-accessibility', async () => {
    for (const [name, document] of Object.entries(documents)) {
      const pdf = await renderPdf(server.base, { ...document, output: { pdf_a: '2a' } });
      const pdfa = await compliance(pdf);
      assert.equal(pdfa.claimed, 'pdfa-2a', name);
      assert.equal(pdfa.standard, 'pdfa-2a', name);
      assert.deepEqual(pdfa.failures, [], name);
      assert.deepEqual((await accessibility(pdf)).failures, [], name);
      assert.equal((await pdfInfo(pdf)).Tagged, 'yes', name);
      // The same text as the 2u render: level A adds the claim, not a different layout.
      const levelU = await renderPdf(server.base, { ...document, output: { pdf_a: '2u', tagged: true } });
      assert.equal(await pdfToText(pdf), await pdfToText(levelU), name);
    }
  });

  await t.test('the untagged letter fails the accessibility check: no structure tree, no marked content', async () => {
    const pdf = await renderPdf(server.base, documents.letter);
    const report = await accessibility(pdf);
    assert.equal(report.compliant, false);
    const rules = report.failures.map((f) => f.rule);
    for (const rule of ['7.1-11', '6.2-1', '5-1']) assert.ok(rules.includes(rule), rules.join(' '));
  });

  const problem = async (body: unknown) => {
    const response = await postJson(server.base, '/api/v1/render', body);
    const read = await readProblem(response);
    assert.equal(read.status, 422);
    return read.errors?.map((e) => `${e.field} ${e.code}`);
  };

  await t.test('pdf_a 2a with tagged false: 422 INVALID_VALUE on output.tagged; without a title or a language, 422 as tagged', async () => {
    const metadata = { title: 'T', language: 'en' };
    assert.deepEqual(await problem({ output: { pdf_a: '2a', tagged: false }, metadata, operations: [{ type: 'add_text', text: 'x' }] }), ['output.tagged INVALID_VALUE']);
    assert.deepEqual(await problem({ output: { pdf_a: '2a' }, operations: [{ type: 'add_text', text: 'x' }] }), ['metadata.title REQUIRED', 'metadata.language REQUIRED']);
    const job = await readProblem(await postJson(server.base, '/api/v1/jobs', { output: { pdf_a: '2a' }, metadata: { language: 'en' }, operations: [{ type: 'add_text', text: 'x' }] }));
    assert.equal(job.status, 422);
    assert.deepEqual(job.errors?.map((e) => `${e.field} ${e.code}`), ['metadata.title REQUIRED']);
    // ... as is tagged "structure" with it: level A is written as PDF/UA here.
    assert.deepEqual(await problem({ output: { pdf_a: '2a', tagged: 'structure' }, metadata, operations: [{ type: 'add_text', text: 'x' }] }), ['output.tagged INVALID_VALUE']);
    // pdf_a 2u and 2b stay untagged unless asked.
    const untagged = await renderPdf(server.base, { output: { pdf_a: '2u' }, operations: [{ type: 'add_text', text: 'x' }] });
    assert.notEqual((await pdfInfo(untagged)).Tagged, 'yes');
  });

  await t.test('tagged without a title or a language: 422 naming both', async () => {
    assert.deepEqual(await problem({ output: { tagged: true }, operations: [{ type: 'add_text', text: 'x' }] }), ['metadata.title REQUIRED', 'metadata.language REQUIRED']);
    assert.deepEqual(await problem({ output: { tagged: true }, metadata: { title: ' ', language: 'en' }, operations: [{ type: 'add_text', text: 'x' }] }), ['metadata.title REQUIRED']);
    // A job is refused at submission, not failed later.
    const job = await readProblem(await postJson(server.base, '/api/v1/jobs', { output: { tagged: true }, metadata: { language: 'en' }, operations: [{ type: 'add_text', text: 'x' }] }));
    assert.equal(job.status, 422);
    assert.deepEqual(job.errors?.map((e) => `${e.field} ${e.code}`), ['metadata.title REQUIRED']);
  });

  await t.test('tagged with an image without alt: 422 on add_image alt, or on the html of an <img>', async () => {
    const metadata = { title: 'T', language: 'en' };
    assert.deepEqual(await problem({ output: { tagged: true }, metadata, operations: [{ type: 'add_text', text: 'x' }, { type: 'add_image', data: image }] }), ['operations[1].alt REQUIRED']);
    assert.deepEqual(await problem({ output: { tagged: true }, metadata, operations: [{ type: 'add_html', html: `<p><img src="data:image/png;base64,${image}"></p>` }] }), ['operations[0].html REQUIRED']);
    // Untagged or tagged "structure", alt stays optional.
    await renderPdf(server.base, { operations: [{ type: 'add_image', data: image }] });
  });

  await t.test('output.tagged is true, false or "structure"', async () => {
    assert.deepEqual(await problem({ output: { tagged: 'yes' }, operations: [{ type: 'add_text', text: 'x' }] }), ['output.tagged INVALID_VALUE']);
    assert.deepEqual(await problem({ output: { tagged: 1 }, operations: [{ type: 'add_text', text: 'x' }] }), ['output.tagged INVALID_VALUE']);
  });
});
