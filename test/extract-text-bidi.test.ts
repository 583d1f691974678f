// Issue 15: right-to-left and mixed lines read back in the order they were
// written. Each text is rendered by a real server and read by both of our
// readers: the render API's extract-text (a page's text, line by line) must
// give the text exactly as sent, and /v1/extract-text's spans, in
// reading_order, must hold its characters in the same order. Before the
// reverse bidi pass (workers/read/layout/logical-order.ts) the Arabic line
// read "جاهز 1042 ، الطلبJohn مرحبا".
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { renderPdf } from './helpers/http.js';
import { wordBoxes } from './helpers/pdf-tools.js';
import { KEYS, bearer } from './helpers/keys.js';
import { startTestServer, type TestServer } from './helpers/server.js';

/** spans: whether /v1/extract-text's spans hold the text in order too (see the README: not when one drawn run spans two directions). */
const LINES: ReadonlyArray<readonly [name: string, text: string, spans: boolean]> = [
  ['Hebrew with numbers', 'הזמנה 1042 נשלחה היום', true],
  // Display order alone cannot tell this one from the left-to-right "Platen-ו 123 עם": the side it is aligned to does.
  // The engine draws "Platen-" as one run (one font), the hyphen being the Hebrew side's: that span cannot be in order.
  ['Hebrew with a number and a Latin name', 'עם 123 ו-Platen', false],
  ['Arabic with Latin and a number', 'مرحبا John، الطلب 1042 جاهز', true],
  ['pure Hebrew', 'שלום עולם זהו טקסט בעברית', true],
  ['pure Arabic', 'مرحبا بكم في المدينة الجميلة', true],
  ['a left-to-right paragraph with one Hebrew word', 'The word שלום means peace in Hebrew.', true],
  ['a left-to-right paragraph ending in a Hebrew word', 'Peace in Hebrew is שלום', true],
];

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

describe('right-to-left and mixed lines come back in logical order', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  const post = async (path: string, key: string, body: unknown): Promise<any> => {
    const response = await fetch(`${s.base}${path}`, { method: 'POST', headers: { ...bearer(key), 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await response.text();
    assert.equal(response.status, 200, text.slice(0, 600));
    return (JSON.parse(text) as { data: unknown }).data;
  };

  for (const [name, text, spansInOrder] of LINES) {
    test(`${name}: "${text}"`, async () => {
      const pdf = await renderPdf(s.base, { operations: [{ type: 'add_text', text, size: 16 }] });
      const page = (await post('/api/v1/extract-text', KEYS.core, { pdf: b64(pdf) })).pages[0];
      assert.deepEqual(page.text.split('\n').filter((line: string) => line.trim() !== ''), [text]);

      for (const granularity of spansInOrder ? ['span', 'word', 'char'] : []) {
        const spans = (await post('/v1/extract-text', KEYS.pro, { pdf_data: b64(pdf), options: { granularity } })).pages[0].spans as { text: string; reading_order: number }[];
        const read = [...spans].sort((a, b) => a.reading_order - b.reading_order).map((span) => span.text).join('');
        assert.equal(read.replace(/\s/g, ''), text.replace(/\s/g, ''), `${granularity} spans in reading order`);
      }
    });
  }

  test('the words of a right-to-left run sit where poppler finds them: the first word rightmost', async () => {
    const text = 'שלום עולם זהו טקסט בעברית';
    const pdf = await renderPdf(s.base, { operations: [{ type: 'add_text', text, size: 16 }] });
    const spans = (await post('/v1/extract-text', KEYS.pro, { pdf_data: b64(pdf), options: { granularity: 'word' } })).pages[0].spans as { text: string; x: number; width: number }[];
    assert.deepEqual(spans.map((span) => span.text), text.split(' '));
    // pdftotext -bbox lists a right-to-left word's characters in display order.
    const boxes = await wordBoxes(pdf);
    for (const span of spans) {
      const box = boxes.find((b) => b.word === [...span.text].reverse().join(''));
      assert.ok(box !== undefined, JSON.stringify(boxes));
      // Widths inside a run are estimated when the glyph advances do not match its characters one to one: its centre is checked.
      const centre = span.x + span.width / 2;
      assert.ok(centre > box.xMin && centre < box.xMax, `${span.text} at ${span.x}+${span.width}, poppler ${box.xMin}-${box.xMax}`);
    }
  });
});
