// output.tagged "structure" (issue 15): a tagged PDF without the PDF/UA
// claim, in the fonts the request names. The golden documents carry the
// same structure tree as their PDF/UA render (the same roles in the same
// order, read back by poppler), the untagged render's fonts (the standard 14
// stay unembedded) and text, no PDF/UA identification, and nothing more is
// asked of the request (no title, language or alt). Our own
// check-accessibility finds no fault in their structure: what it reports is
// only what the PDF/UA claim adds (the identification and its XMP packet)
// and the unembedded fonts. Renders are untagged by default. The text of a
// tagged file reads as sent: words and lines separated by spaces.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { postJson, renderPdf } from './helpers/http.js';
import { KEYS, bearer } from './helpers/keys.js';
import { pdfFonts, pdfInfo, pdfStructure, pdfToText, wordBoxes, type StructLine } from './helpers/pdf-tools.js';
import { startTestServer } from './helpers/server.js';
import { article, invoice, letter, redSquare, unicode } from './helpers/tagged-documents.js';

interface Report {
  compliant: boolean;
  failures: Array<{ rule: string }>;
}

const roles = (lines: readonly StructLine[]) => lines.flatMap((line) => (line.role === undefined ? [] : [line.role]));
const claimsPdfUa = (pdf: Uint8Array) => /pdfuaid/.test(Buffer.from(pdf).toString('latin1'));

/**
 * The rules of check-accessibility that a file claiming nothing fails by
 * design: the PDF/UA identification (5-1) and the XMP packet it lives in
 * (7.1-8), and embedded fonts (7.21.4.1-1: the standard 14 are drawn by the
 * reader). The structure's own rules (marked content, roles, tables,
 * figures, links, artifacts, the title shown, the language) are not among
 * them.
 */
const CLAIM_ONLY = new Set(['5-1', '7.1-8', '7.21.4.1-1']);

test('output.tagged "structure": tagged, without claiming PDF/UA', async (t) => {
  const server = await startTestServer();
  t.after(() => server.close());
  const accessibility = async (pdf: Uint8Array): Promise<Report> => {
    const response = await postJson(server.base, '/api/v1/check-accessibility', { pdf: Buffer.from(pdf).toString('base64') }, bearer(KEYS.pro));
    assert.equal(response.status, 200, await response.clone().text());
    return ((await response.json()) as { data: Report }).data;
  };
  const image = await redSquare();
  const documents = { letter: letter(), invoice: invoice(), article: article(image), unicode: unicode() };

  for (const [name, document] of Object.entries(documents)) {
    await t.test(`${name}: the PDF/UA render's structure, the untagged render's fonts and text, no claim`, async () => {
      const pdf = await renderPdf(server.base, { ...document, output: { tagged: 'structure' } });
      assert.equal((await pdfInfo(pdf)).Tagged, 'yes');
      assert.equal(claimsPdfUa(pdf), false);
      const pdfUa = await renderPdf(server.base, { ...document, output: { tagged: true } });
      assert.deepEqual(roles(await pdfStructure(pdf)), roles(await pdfStructure(pdfUa)));
      // The default is untagged.
      const untagged = await renderPdf(server.base, document);
      assert.equal((await pdfInfo(untagged)).Tagged, 'no');
      assert.equal(await pdfToText(pdf), await pdfToText(untagged));
      assert.deepEqual(await pdfFonts(pdf), await pdfFonts(untagged));
      const failures = (await accessibility(pdf)).failures.map((failure) => failure.rule);
      assert.deepEqual(failures.filter((rule) => !CLAIM_ONLY.has(rule)), [], failures.join(' '));
    });
  }

  await t.test('the letter keeps the standard 14 fonts, unembedded, and its text in paragraphs with spaces between words', async () => {
    const pdf = await renderPdf(server.base, document({ type: 'add_text', text: 'Hello tagged world' }));
    const fonts = await pdfFonts(pdf);
    assert.deepEqual(fonts.map((font) => [font.name, font.embedded]), [['Helvetica', false]]);
    const tree = await pdfStructure(pdf);
    assert.deepEqual(roles(tree), ['Document', 'P']);
    assert.ok(tree.some((line) => line.text === '"Hello tagged world"'), tree.map((line) => line.text).join('\n'));
  });

  await t.test('a wrapped paragraph reads in its structure as sent: lines joined by spaces, newlines as spaces', async () => {
    const words = 'The replacement bearings for the three conveyor lines at your Rotterdam plant have been manufactured and packed.';
    const pdf = await renderPdf(server.base, document({ type: 'add_text', text: `${words} ${words}`, width: 200 }, { type: 'add_text', text: 'Ms. de Vries\nHead of Procurement' }));
    const paragraphs = (await pdfStructure(pdf)).filter((line) => line.text.startsWith('"')).map((line) => line.text);
    assert.deepEqual(paragraphs, [`"${words} ${words}"`, '"Ms. de Vries Head of Procurement"']);
  });

  await t.test('a justified paragraph: each line but the last ends at the right margin, as the words were laid out', async () => {
    const text = 'Payment terms remain thirty days net from the date of delivery, unless a direct-debit arrangement has been agreed with our accounts team. '.repeat(3);
    const pdf = await renderPdf(server.base, { ...document({ type: 'add_text', text, align: 'justify' }), margin: 50 });
    const boxes = await wordBoxes(pdf);
    const lines = new Map<number, number>();
    for (const box of boxes) lines.set(Math.round(box.yMin), Math.max(lines.get(Math.round(box.yMin)) ?? 0, box.xMax));
    const ends = [...lines.values()];
    assert.ok(ends.length >= 3, String(ends.length));
    // A4 is 595.28 pt wide: the right margin is at 545.28.
    for (const end of ends.slice(0, -1)) assert.ok(Math.abs(end - 545.28) < 0.05, `a justified line ends at ${end}`);
    assert.ok((ends[ends.length - 1] as number) < 540);
    assert.equal(boxes.map((box) => box.word).join(' '), text.trim());
  });

  await t.test('an image without alt is a Figure without alternate text (no 422); alt "" is decoration outside the tree', async () => {
    const pdf = await renderPdf(server.base, document({ type: 'add_image', data: image }, { type: 'add_image', data: image, alt: '' }, { type: 'add_image', data: image, alt: 'A red square' }));
    assert.deepEqual(roles(await pdfStructure(pdf)), ['Document', 'Figure', 'Figure']);
    // Our check finds the one figure without alt (7.3-1): the Figure is there for a reader, its text is not.
    const failures = (await accessibility(pdf)).failures.map((failure) => failure.rule);
    assert.ok(failures.includes('7.3-1'), failures.join(' '));
  });

  await t.test('jobs honour tagged "structure", and are untagged by default', async () => {
    for (const [output, tagged] of [[{ tagged: 'structure' }, 'yes'], [{}, 'no']] as const) {
      const created = await postJson(server.base, '/api/v1/jobs', { output, operations: [{ type: 'add_text', text: 'A job' }] });
      assert.equal(created.status, 201);
      const { job_id: id } = ((await created.json()) as { data: { job_id: string } }).data;
      const polled = await fetch(`${server.base}/api/v1/jobs/${id}?wait=20`, { headers: bearer(KEYS.enterprise) });
      assert.equal(((await polled.json()) as { data: { status: string } }).data.status, 'completed');
      const result = await fetch(`${server.base}/api/v1/jobs/${id}/result`, { headers: bearer(KEYS.enterprise) });
      assert.equal(result.status, 200);
      assert.equal((await pdfInfo(new Uint8Array(await result.arrayBuffer()))).Tagged, tagged);
    }
  });
});

/** A RenderRequest of these operations, tagged "structure". */
function document(...operations: Array<Record<string, unknown>>): Record<string, unknown> {
  return { output: { tagged: 'structure' }, operations };
}
