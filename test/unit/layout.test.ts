// Pure pieces of the render engine, tested without a pool.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { pageSize, PAGE_SIZE_NAMES } from '../../workers/render/page-sizes.js';
import { parseColor } from '../../workers/render/colour.js';
import { DEFAULT_STYLE } from '../../workers/render/engine.js';
import { FontBook } from '../../workers/render/fonts.js';
import { layoutLines, prepareSpans, type Span } from '../../workers/render/inline.js';
import { createDocument } from '../../workers/seams/pdf.js';
import { render } from '../../workers/render/task.js';

const mm = (points: number) => Math.round((points * 25.4) / 72);

describe('page sizes', () => {
  test('match the published ISO 216 and ISO 269 tables', () => {
    const expected: Record<string, [number, number]> = {
      A0: [841, 1189], A4: [210, 297], A5: [148, 210], A10: [26, 37],
      B0: [1000, 1414], B5: [176, 250], B10: [31, 44],
      C0: [917, 1297], C4: [229, 324], C6: [114, 162], C10: [28, 40],
    };
    for (const [name, size] of Object.entries(expected)) {
      const [w, h] = pageSize(name, 'portrait') ?? [0, 0];
      assert.deepEqual([mm(w), mm(h)], size, name);
    }
    assert.deepEqual(pageSize('letter', 'portrait'), [612, 792]);
    assert.deepEqual(pageSize('LEGAL', 'landscape'), [1008, 612]);
    assert.equal(pageSize('A11', 'portrait'), undefined);
    assert.equal(PAGE_SIZE_NAMES.length, 35);
  });
});

describe('inline layout', () => {
  // Courier: every glyph is 600/1000 em wide, so at size 10 a character is 6 pt.
  const style = { ...DEFAULT_STYLE, family: 'Courier', size: 10 };
  async function lines(spans: Span[], width: number): Promise<string[]> {
    const fonts = new FontBook(await createDocument({ compress: true }));
    await prepareSpans(spans, fonts);
    return layoutLines(spans, width, fonts).map((line) =>
      line.units.map((unit, i) => (i > 0 && unit.spaceBefore > 0 ? ' ' : '') + unit.pieces.map((p) => p.runs.map((r) => r.text).join('')).join('')).join(''),
    );
  }

  test('fills lines greedily and never exceeds the width', async () => {
    assert.deepEqual(await lines([{ text: 'aaa bbb ccc ddd', style }], 42), ['aaa bbb', 'ccc ddd']);
  });

  test('keeps paragraphs and blank lines', async () => {
    assert.deepEqual(await lines([{ text: 'one\n\ntwo', style }], 60), ['one', '', 'two']);
  });

  test('breaks a word wider than the line between characters', async () => {
    assert.deepEqual(await lines([{ text: 'abcdefghij', style }], 24), ['abcd', 'efgh', 'ij']);
  });

  test('keeps differently styled pieces without a space between them together', async () => {
    const bold = { ...style, bold: true };
    assert.deepEqual(await lines([{ text: 'aa bb', style }, { text: 'cc dd', style: bold }], 36), ['aa', 'bbcc', 'dd']);
  });

  test('glued pieces wider than the line break where their styles change, never past the edge', async () => {
    const bold = { ...style, bold: true };
    assert.deepEqual(await lines([{ text: 'aaaa', style }, { text: 'bbbb', style: bold }, { text: 'cc', style }], 36), ['aaaa', 'bbbbcc']);
  });

  test('falls back to the Unicode font for characters the standard font lacks', async () => {
    const fonts = new FontBook(await createDocument({ compress: true }));
    const helvetica = { ...DEFAULT_STYLE };
    await fonts.prepare('Zoë pays €5 — Привет', helvetica);
    const runs = fonts.runs('Zoë pays €5 — Привет', helvetica);
    assert.deepEqual(runs.map((r) => [r.font.name, r.text]), [['Helvetica', 'Zoë pays €5 — '], ['DejaVu Sans', 'Привет']]);
  });
});

test('parseColor reads #rgb and #rrggbb', () => {
  assert.deepEqual(parseColor('#fff'), { r: 1, g: 1, b: 1 });
  assert.deepEqual(parseColor('#000000'), { r: 0, g: 0, b: 0 });
  assert.equal(parseColor('#ff8000').g.toFixed(3), (128 / 255).toFixed(3));
});

describe('render task without a pool', () => {
  const input = (body: unknown) => {
    const bytes = new TextEncoder().encode(typeof body === 'string' ? body : JSON.stringify(body));
    return { body: bytes.buffer as ArrayBuffer, length: bytes.byteLength, options: {} };
  };

  test('returns PDF bytes with timings', async () => {
    const outcome = await render(input({ operations: [{ type: 'add_text', text: 'direct' }] }));
    assert.ok(outcome.ok);
    assert.equal(outcome.value.mediaType, 'application/pdf');
    assert.equal(new TextDecoder().decode(outcome.value.body.slice(0, 5)), '%PDF-');
    assert.ok(outcome.timings.taskMs >= 0);
  });

  test('returns failures as data, never throws, for malformed and invalid input', async () => {
    const malformed = await render(input('{'));
    assert.equal(malformed.ok, false);
    assert.equal(!malformed.ok && malformed.code, 'malformed');
    const invalid = await render(input({ operations: 'nope' }));
    assert.equal(!invalid.ok && invalid.code, 'invalid');
    const notUtf8 = await render({ body: new Uint8Array([0xff, 0xfe]).buffer, length: 2, options: {} });
    assert.equal(!notUtf8.ok && notUtf8.code, 'malformed');
  });

  test('reads only the first `length` bytes of a larger buffer', async () => {
    const json = JSON.stringify({ operations: [{ type: 'add_text', text: 'prefix' }] });
    const bytes = new Uint8Array(json.length + 100).fill(0x7b);
    bytes.set(new TextEncoder().encode(json));
    const outcome = await render({ body: bytes.buffer, length: json.length, options: {} });
    assert.ok(outcome.ok);
  });
});
