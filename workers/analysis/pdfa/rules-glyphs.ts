// Font-program rules (ISO 19005-1 6.3.5-6.3.7, 19005-2 6.2.11.4-6.2.11.8),
// checked against the embedded programs (font-glyphs.ts) for the codes the
// content shows (shown-text.ts): every glyph referenced for rendering is in
// the program, its width agrees with the font dictionary within 1/1000 em
// (veraPDF's tolerance: |program - dictionary| <= 1), no text shows .notdef
// (parts 2 and 3), a subset's CharSet/CIDSet lists the program's glyphs, and
// a TrueType program's cmap subtables suit its symbolic flag.
import type { PdfDict } from '../../untrusted/pdf-values.js';
import type { Violation } from '../rules.js';
import { charSetListsAll, cidSetListsAll } from '../fonts/glyph-sets.js';
import { cmapSubtables } from '../fonts/truetype-cmaps.js';
import type { PdfaDocument } from './document.js';
import { at, type PdfaRule } from './rule.js';

const SUBSET = /^[A-Z]{6}\+/;

function fontName(d: PdfaDocument, font: PdfDict): string {
  return d.pdf.name(font.get('BaseFont')) ?? '(no BaseFont)';
}

function descriptor(d: PdfaDocument, font: PdfDict | undefined): PdfDict | undefined {
  return d.pdf.dict(font?.get('FontDescriptor'));
}

/** One violation per font and failing code, the code in the sample. */
function* perCode(d: PdfaDocument, codes: 'rendered' | 'shown', fails: (font: PdfDict, code: number) => string | false): Generator<Violation> {
  for (const used of d.content.shownFonts.values()) {
    for (const code of used[codes]) {
      const why = fails(used.font, code);
      if (why !== false) yield at(`${used.label} (${fontName(d, used.font)}): code ${code}${why === '' ? '' : `, ${why}`}`, used.page);
    }
  }
}

function isSymbolic(d: PdfaDocument, font: PdfDict): boolean {
  return ((d.pdf.number(descriptor(d, font)?.get('Flags')) ?? 0) & 4) !== 0;
}

function charSetOk(d: PdfaDocument, font: PdfDict): boolean | undefined {
  return charSetListsAll(d.glyphsOf(font), d.pdf.text(descriptor(d, font)?.get('CharSet')));
}

function cidSetOk(d: PdfaDocument, type0: PdfDict, cidFont: PdfDict): boolean | undefined {
  const bits = d.pdf.stream(descriptor(d, cidFont)?.get('CIDSet'))?.decoded();
  return cidSetListsAll(d.glyphsOf(type0), bits, d.part === 1 ? (d.content.shownFonts.get(type0)?.shown ?? []) : undefined);
}

function* type0Fonts(d: PdfaDocument): Generator<{ type0: PdfDict; cidFont: PdfDict; page?: number; label: string }> {
  for (const f of d.walk.fonts) {
    if (f.value.name('Subtype') !== 'Type0') continue;
    const cidFont = d.pdf.dict(d.pdf.array(f.value.get('DescendantFonts'))?.[0]);
    if (cidFont !== undefined) yield { type0: f.value, cidFont, page: f.page, label: `${f.label} (${fontName(d, cidFont)})` };
  }
}

function embedded(d: PdfaDocument, font: PdfDict): boolean {
  // A font file that is no stream embeds nothing (veraPDF corpus 6-2-11-4-1-t01-fail-a: /FontFile names a dictionary).
  const fd = descriptor(d, font);
  return ['FontFile', 'FontFile2', 'FontFile3'].some((key) => d.pdf.stream(fd?.get(key)) !== undefined);
}

/** The cmap subtables of an embedded TrueType font's program; undefined when it has none we can read. */
function trueTypeCmaps(d: PdfaDocument, font: PdfDict): { platform: number; encoding: number }[] | undefined {
  if (font.name('Subtype') !== 'TrueType') return undefined;
  const bytes = d.pdf.stream(descriptor(d, font)?.get('FontFile2'))?.decoded();
  return bytes === undefined ? undefined : cmapSubtables(bytes);
}

export const GLYPH_RULES: readonly PdfaRule[] = [
  {
    ids: { 1: '6.3.5-1', 2: '6.2.11.4.1-2' },
    description: 'Embedded font programs shall define all glyphs referenced for rendering',
    check: (d) => perCode(d, 'rendered', (font, code) => d.glyphsOf(font).glyph(code).present === false && 'not in the embedded program'),
  },
  {
    ids: { 1: '6.3.6-1', 2: '6.2.11.5-1' },
    description: 'The glyph widths in the font dictionary and in the embedded font program shall be consistent (within 1/1000 em)',
    check: (d) =>
      perCode(d, 'rendered', (font, code) => {
        const glyph = d.glyphsOf(font).glyph(code);
        if (glyph.programWidth === undefined || glyph.dictionaryWidth === undefined || Math.abs(glyph.programWidth - glyph.dictionaryWidth) <= 1) return false;
        return `width ${glyph.dictionaryWidth} in the dictionary, ${Math.round(glyph.programWidth * 100) / 100} in the program`;
      }),
  },
  {
    ids: { 2: '6.2.11.8-1' },
    description: 'No text-showing operator shall reference the .notdef glyph, in any rendering mode',
    check: (d) => perCode(d, 'shown', (font, code) => d.glyphsOf(font).glyph(code).name === '.notdef' && ''),
  },
  {
    ids: { 1: '6.3.5-2', 2: '6.2.11.4.2-1' },
    description: 'A subset Type 1 font shall have a CharSet (PDF/A-2 and 3: if it has one) listing every glyph of its program',
    *check(d) {
      for (const f of d.walk.fonts) {
        const subtype = f.value.name('Subtype');
        if ((subtype !== 'Type1' && subtype !== 'MMType1') || !SUBSET.test(fontName(d, f.value)) || !embedded(d, f.value)) continue;
        const label = `${f.label} (${fontName(d, f.value)})`;
        if (!descriptor(d, f.value)?.has('CharSet')) {
          if (d.part === 1) yield at(`${label}: no CharSet`, f.page);
        } else if (charSetOk(d, f.value) === false) yield at(`${label}: the CharSet does not list the program's glyphs`, f.page);
      }
    },
  },
  {
    ids: { 1: '6.3.5-3', 2: '6.2.11.4.2-2' },
    description: 'A subset CIDFont shall have a CIDSet (PDF/A-2 and 3: if it has one) identifying every CID of its program',
    *check(d) {
      for (const f of type0Fonts(d)) {
        if (!SUBSET.test(fontName(d, f.cidFont)) || (d.part !== 1 && !embedded(d, f.cidFont))) continue;
        if (!descriptor(d, f.cidFont)?.has('CIDSet')) {
          if (d.part === 1) yield at(`${f.label}: no CIDSet`, f.page);
        } else if (cidSetOk(d, f.type0, f.cidFont) === false) yield at(`${f.label}: the CIDSet misses CIDs of the program`, f.page);
      }
    },
  },
  {
    ids: { 1: '6.3.7-3', 2: '6.2.11.6-4' },
    description: 'A symbolic TrueType program\'s cmap shall have exactly one subtable (PDF/A-2 and 3: or a (3,0) one)',
    *check(d) {
      for (const f of d.walk.fonts) {
        if (!isSymbolic(d, f.value)) continue;
        const cmaps = trueTypeCmaps(d, f.value);
        if (cmaps === undefined || cmaps.length === 1 || (d.part !== 1 && cmaps.some((c) => c.platform === 3 && c.encoding === 0))) continue;
        yield at(`${f.label} (${fontName(d, f.value)}): ${cmaps.length} cmap subtables`, f.page);
      }
    },
  },
  {
    ids: { 2: '6.2.11.6-1' },
    description: 'A non-symbolic TrueType program shall have a non-symbolic cmap subtable',
    *check(d) {
      for (const f of d.walk.fonts) {
        if (isSymbolic(d, f.value)) continue;
        const cmaps = trueTypeCmaps(d, f.value);
        if (cmaps === undefined) continue;
        const symbolicOnly = cmaps.some((c) => c.platform === 3 && c.encoding === 0) ? cmaps.length <= 1 : cmaps.length === 0;
        if (symbolicOnly) yield at(`${f.label} (${fontName(d, f.value)}): no non-symbolic cmap subtable`, f.page);
      }
    },
  },
];
