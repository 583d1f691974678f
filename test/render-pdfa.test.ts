// output.pdf_a on a RenderRequest (issue 12): the rendered document passes
// our own compliance-check at the level asked for, qpdf finds no error, and
// pdffonts shows every font embedded with a Unicode map (the standard
// families are drawn with DejaVu). The same request without pdf_a fails the
// check on its unembedded fonts: the check can fail.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { readProblem, renderPdf } from './helpers/http.js';
import { KEYS, bearer } from './helpers/keys.js';
import { pdfFonts, pdfInfo, qpdfCheck } from './helpers/pdf-tools.js';
import { startTestServer } from './helpers/server.js';

interface Report {
  standard: string;
  claimed: string | null;
  compliant: boolean;
  failures: Array<{ rule: string; sample?: string }>;
}

test('render with output.pdf_a', async (t) => {
  const server = await startTestServer();
  t.after(() => server.close());
  // A half-transparent red square: an image with a soft mask (transparency, allowed in PDF/A-2 with an output intent).
  const png = await sharp({ create: { width: 8, height: 8, channels: 4, background: { r: 200, g: 0, b: 0, alpha: 0.5 } } }).png().toBuffer();
  const request = (pdfA?: string) => ({
    metadata: { title: 'Quarterly archive', author: 'Ada Lovelace', subject: 'Test', keywords: ['archive', 'pdf'], language: 'en' },
    footer: { text: 'Page {page} of {pages}' },
    ...(pdfA === undefined ? {} : { output: { pdf_a: pdfA } }),
    operations: [
      { type: 'add_text', text: 'Helvetica, Ελληνικά, Кириллица', link: 'https://example.com/' },
      { type: 'set_font', family: 'Times', size: 14 },
      { type: 'add_text', text: 'Times in bold', bold: true },
      { type: 'set_font', family: 'Courier', size: 10 },
      { type: 'add_table', rows: [['item', 'price'], ['tea', '3.50']] },
      { type: 'add_image', data: png.toString('base64'), width: 40 },
    ],
  });
  const check = async (pdf: Uint8Array, standard?: string): Promise<Report> => {
    const response = await fetch(`${server.base}/api/v1/compliance-check`, {
      method: 'POST',
      headers: { ...bearer(KEYS.enterprise), 'content-type': 'application/json' },
      body: JSON.stringify({ pdf: Buffer.from(pdf).toString('base64'), ...(standard === undefined ? {} : { standard }) }),
    });
    assert.equal(response.status, 200, await response.clone().text());
    return ((await response.json()) as { data: Report }).data;
  };

  for (const level of ['2b', '2u'] as const) {
    await t.test(`pdf_a ${level}: compliant by our own check, qpdf clean, every font embedded with a Unicode map`, async () => {
      const pdf = await renderPdf(server.base, request(level));
      const report = await check(pdf);
      assert.equal(report.claimed, `pdfa-${level}`);
      assert.equal(report.standard, `pdfa-${level}`);
      assert.deepEqual(report.failures, []);
      assert.equal(report.compliant, true);
      await qpdfCheck(pdf);
      const fonts = await pdfFonts(pdf);
      assert.ok(fonts.length >= 3, JSON.stringify(fonts));
      for (const font of fonts) {
        assert.equal(font.embedded, true, font.name);
        assert.equal(font.unicode, true, font.name);
        assert.match(font.name, /DejaVu/);
      }
      const info = await pdfInfo(pdf);
      assert.equal(info.Title, 'Quarterly archive');
      assert.equal(info['Metadata Stream'], 'yes');
    });
  }

  await t.test('the same request without pdf_a fails PDF/A-2b: its standard fonts are not embedded (6.2.11.4.1-1)', async () => {
    const pdf = await renderPdf(server.base, request());
    const report = await check(pdf, 'pdfa-2b');
    assert.equal(report.compliant, false);
    assert.equal(report.claimed, null);
    const rules = report.failures.map((f) => f.rule);
    assert.ok(rules.includes('6.2.11.4.1-1'), rules.join(' '));
    assert.ok(rules.includes('6.6.2.1-1'), rules.join(' '));
  });

  await t.test('a level no part has (1u: part 1 has levels b and a only): 422 on output.pdf_a', async () => {
    const response = await fetch(`${server.base}/api/v1/render`, {
      method: 'POST',
      headers: { ...bearer(KEYS.core), 'content-type': 'application/json' },
      body: JSON.stringify({ output: { pdf_a: '1u' }, operations: [{ type: 'add_text', text: 'x' }] }),
    });
    const problem = await readProblem(response);
    assert.equal(problem.status, 422);
    assert.equal(problem.errors?.[0]?.field, 'output.pdf_a');
  });
});
