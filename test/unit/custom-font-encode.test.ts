// A custom font encodes and measures a document's texts itself, from the
// face's memo of glyphs and advances (workers/seams/custom-font.ts, issue
// 14): its glyph codes and widths must be exactly what pdf-lib's own
// encodeText and widthOfTextAtSize give, in every document, and pdf-lib's
// encodeText must not run (if a pdf-lib update changed the embedder it
// relies on, the fallback would be silently slower: this test says so).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createDocument } from '../../workers/seams/pdf.js';
import type { CustomFont } from '../../workers/seams/custom-font.js';

const FONT = new Uint8Array(readFileSync(join(dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf', 'DejaVuSerif.ttf')));
const TEXTS = ['Quartz', 'glyph', 'Quartz glyph', 'fjord', 'Ünïcödé', 'nymph', 'affine', 'Quartz', ''];

async function fontOfNewDocument(): Promise<CustomFont> {
  const doc = await createDocument({ compress: true });
  return (await doc.customFont(FONT)) as CustomFont;
}

test('a custom font encodes and measures as pdf-lib does, without pdf-lib encoding each text', async () => {
  for (let document = 0; document < 2; document++) {
    const ours = await fontOfNewDocument();
    const reference = await fontOfNewDocument();
    let encodeTextCalls = 0;
    const encodeText = ours.native.encodeText.bind(ours.native);
    ours.native.encodeText = (text: string) => {
      encodeTextCalls++;
      return encodeText(text);
    };
    for (const text of TEXTS) {
      assert.equal(ours.encode(text), reference.native.encodeText(text).toString(), `codes of "${text}" in document ${document}`);
      assert.equal(ours.widthOf(text, 11), reference.native.widthOfTextAtSize(text, 1) * 11, `width of "${text}"`);
    }
    assert.equal(encodeTextCalls, 0, "pdf-lib's encodeText ran: the subset embedder is not the one custom-font.ts expects");
  }
});
