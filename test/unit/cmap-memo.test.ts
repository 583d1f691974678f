// The deflated ToUnicode CMaps are kept by content (workers/seams/pdf.ts):
// documents in one registered font, rendered one after another in one
// thread, must each still carry the map of their own glyphs, so that a
// reader extracts each document's own text, whether the memo hit or not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { render } from '../../workers/render/task.js';
import { pdfToText } from '../helpers/pdf-tools.js';

const FONT = join(dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf', 'DejaVuSerif.ttf');

async function renderIn(text: string): Promise<string> {
  const json = JSON.stringify({ operations: [{ type: 'set_font', family: 'Brand', size: 12 }, { type: 'add_text', text }] });
  const bytes = new TextEncoder().encode(json);
  const outcome = await render({ body: bytes.buffer as ArrayBuffer, length: bytes.byteLength, options: { maxPages: 10, fonts: { Brand: FONT } } });
  assert.ok(outcome.ok, outcome.ok ? '' : outcome.detail);
  return (await pdfToText(new Uint8Array(outcome.value.body))).trim();
}

test('each document in a registered font carries the ToUnicode map of its own glyphs', async () => {
  const texts = ['Quartz glyph job', 'Quartz glyph job', 'Vexing fjord nymph', 'Quartz glyph job', 'Ünïcödé wäs hère'];
  for (const text of texts) assert.equal(await renderIn(text), text);
});
