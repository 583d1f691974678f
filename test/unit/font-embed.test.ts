// A custom font's subset and its objects in a document are built faster than
// fontkit and pdf-lib build them (issue 15): fontkit's TrueType subsetter
// takes each glyph from a memo of glyph records (workers/seams/
// font-subset-glyphs.ts), and pdf-lib's subset embedder is replaced by
// pdf-font-embed.ts. Both must write exactly what the libraries write: the
// same font program byte for byte, the same font, descriptor, widths and
// ToUnicode objects.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as fontkit from 'fontkit';
import { PDFArray, PDFDict, PDFDocument, PDFRawStream, PDFRef, decodePDFRawStream, type PDFContext, type PDFObject } from '@cantoo/pdf-lib';
import { createDocument } from '../../workers/seams/pdf.js';
import { parseFont } from '../../workers/seams/fonts-parse.js';
import type { CustomFont } from '../../workers/seams/custom-font.js';

const DEJAVU = join(dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf');
const SANS = new Uint8Array(readFileSync(join(DEJAVU, 'DejaVuSans.ttf')));
const SERIF_BOLD = new Uint8Array(readFileSync(join(DEJAVU, 'DejaVuSerif-Bold.ttf')));
/** Accented letters are composite glyphs in DejaVu (a base and a mark): the components are renumbered in the subset. */
const TEXTS = ['Quartz glyph', 'Jörg Müller, Hélène Dubois', 'Åkesson Øvergaard Łukasz ﬁne', 'fjord 0123456789 €', 'Ünïcödé Ŵŷ'];

test('a TrueType subset from glyph records is the one fontkit writes, byte for byte, composite glyphs included', () => {
  for (const bytes of [SANS, SERIF_BOLD]) {
    const ours = parseFont(bytes).font;
    const theirs = fontkit.create(Buffer.from(bytes)) as fontkit.Font;
    let composites = 0;
    // Twice over: the second pass takes every glyph from the records the first left.
    for (let pass = 0; pass < 2; pass++) {
      for (let start = 0; start < TEXTS.length; start++) {
        // Texts in a different order each time: the subsets differ in glyph order, so the subset memo misses.
        const texts = [...TEXTS.slice(start), ...TEXTS.slice(0, start)].map((text) => (pass === 0 ? text : [...text].reverse().join('')));
        const a = ours.createSubset();
        const b = theirs.createSubset();
        for (const text of texts) {
          for (const glyph of theirs.layout(text).glyphs) {
            b.includeGlyph(glyph);
            a.includeGlyph(glyph);
            if (((glyph as unknown as { _decode(): { numberOfContours: number } | null })._decode()?.numberOfContours ?? 0) < 0) composites++;
          }
        }
        assert.deepEqual(Buffer.from(a.encode()), Buffer.from(b.encode()), `subset of ${texts.join(' / ')}`);
      }
    }
    assert.ok(composites > 0, 'the texts draw composite glyphs');
  }
});

/** An object with every reference replaced by what it points to, streams by their decoded bytes: comparable across documents. */
function resolved(context: PDFContext, object: PDFObject | undefined, depth = 0): unknown {
  assert.ok(depth < 40, 'no cycles in a font');
  if (object instanceof PDFRef) return resolved(context, context.lookup(object), depth + 1);
  if (object instanceof PDFRawStream) {
    const dict = resolved(context, object.dict, depth + 1) as Record<string, unknown>;
    delete dict['/Length'];
    return { dict, contents: Buffer.from(decodePDFRawStream(object).decode()).toString('latin1') };
  }
  if (object instanceof PDFDict) return Object.fromEntries(object.entries().map(([key, value]) => [key.toString(), resolved(context, value, depth + 1)]));
  if (object instanceof PDFArray && object.asArray().some((value) => value instanceof PDFRef)) return object.asArray().map((value) => resolved(context, value, depth + 1));
  return object === undefined ? undefined : written(object);
}

/** An object as it is written into the file, white space collapsed: a widths array is compared as text, however it is held. */
function written(object: PDFObject): string {
  const bytes = new Uint8Array(object.sizeInBytes());
  object.copyBytesInto(bytes, 0);
  return Buffer.from(bytes).toString('latin1').replace(/\s+/g, ' ');
}

test("a document's subset font objects are the ones pdf-lib's embedder writes", async () => {
  for (const bytes of [SANS, SERIF_BOLD]) {
    const doc = await createDocument({ compress: true });
    const font = (await doc.customFont(bytes)) as CustomFont;
    for (const text of TEXTS) font.encode(text);
    const embedder = (font.native as unknown as { embedder: { embedIntoContext(context: PDFContext): Promise<PDFRef> } }).embedder;
    // The same embedder (same subset, same glyphs) into two fresh contexts: ours, then pdf-lib's own method.
    const oursDoc = await PDFDocument.create();
    const oursRef = await embedder.embedIntoContext(oursDoc.context);
    const theirsDoc = await PDFDocument.create();
    const own = Object.getPrototypeOf(embedder) as { embedIntoContext(this: unknown, context: PDFContext): Promise<PDFRef> };
    assert.notEqual(embedder.embedIntoContext, own.embedIntoContext, 'the document font embeds through pdf-font-embed.ts');
    const theirsRef = await own.embedIntoContext.call(embedder, theirsDoc.context);
    const ours = resolved(oursDoc.context, oursRef) as Record<string, unknown>;
    assert.deepEqual(ours, resolved(theirsDoc.context, theirsRef));
    assert.match(JSON.stringify(ours), /beginbfchar/, 'the ToUnicode CMap was compared');
  }
});
