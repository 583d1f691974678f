// Fonts (ISO 19005-1 §6.3, 19005-2 §6.2.11): font dictionaries as PDF
// defines them, every font program embedded (Type 3 aside), CMaps and
// CIDToGIDMap, TrueType encodings by the symbolic flag, and (level U) a
// Unicode mapping for every font. What the embedded programs hold (glyphs,
// widths, CharSet/CIDSet, cmaps) is rules-glyphs.ts.
import { PdfName, PdfStream, type PdfDict } from '../../untrusted/pdf-values.js';
import { parseCMap } from '../cmap.js';
import { ADOBE_GLYPH_NAMES } from '../fonts/adobe-glyph-names.js';
import { cmapSubtables } from '../fonts/truetype-cmaps.js';
import type { PdfaDocument } from './document.js';
import { at, type PdfaRule } from './rule.js';

const SUBTYPES = new Set(['Type1', 'MMType1', 'TrueType', 'Type3', 'Type0', 'CIDFontType0', 'CIDFontType2']);
const STANDARD_14 = new Set(['Times-Roman', 'Times-Bold', 'Times-Italic', 'Times-BoldItalic', 'Helvetica', 'Helvetica-Bold', 'Helvetica-Oblique', 'Helvetica-BoldOblique', 'Courier', 'Courier-Bold', 'Courier-Oblique', 'Courier-BoldOblique', 'Symbol', 'ZapfDingbats']);
const SIMPLE = new Set(['Type1', 'MMType1', 'TrueType', 'Type3']);
const PART2_CMAPS = /^(Identity-[HV]|GB-EUC-[HV]|GBpc-EUC-[HV]|GBK-EUC-[HV]|GBKp-EUC-[HV]|GBK2K-[HV]|UniGB-UCS2-[HV]|UniGB-UTF16-[HV]|B5pc-[HV]|HKscs-B5-[HV]|ETen-B5-[HV]|ETenms-B5-[HV]|CNS-EUC-[HV]|UniCNS-UCS2-[HV]|UniCNS-UTF16-[HV]|83pv-RKSJ-H|90ms-RKSJ-[HV]|90msp-RKSJ-[HV]|90pv-RKSJ-H|Add-RKSJ-[HV]|EUC-[HV]|Ext-RKSJ-[HV]|[HV]|UniJIS-UCS2-[HV]|UniJIS-UCS2-HW-[HV]|UniJIS-UTF16-[HV]|KSC-EUC-[HV]|KSCms-UHC-[HV]|KSCms-UHC-HW-[HV]|KSCpc-EUC-H|UniKS-UCS2-[HV]|UniKS-UTF16-[HV])$/;

function descriptor(d: PdfaDocument, font: PdfDict): PdfDict | undefined {
  return d.pdf.dict(font.get('FontDescriptor'));
}

function embedded(d: PdfaDocument, font: PdfDict): boolean {
  // A font file that is no stream embeds nothing (veraPDF corpus 6-2-11-4-1-t01-fail-a: /FontFile names a dictionary).
  const fd = descriptor(d, font);
  return ['FontFile', 'FontFile2', 'FontFile3'].some((key) => d.pdf.stream(fd?.get(key)) !== undefined);
}

function fontName(d: PdfaDocument, font: PdfDict): string {
  return d.pdf.name(font.get('BaseFont')) ?? '(no BaseFont)';
}

/** A simple font that is one of the standard 14 and not embedded: veraPDF's isStandard, exempt from FirstChar/LastChar/Widths. */
function isStandard(d: PdfaDocument, font: PdfDict): boolean {
  return font.name('Subtype') === 'Type1' && STANDARD_14.has(fontName(d, font)) && !embedded(d, font);
}

function* simpleFonts(d: PdfaDocument): Generator<{ font: PdfDict; page?: number; label: string }> {
  for (const f of d.walk.fonts) if (SIMPLE.has(f.value.name('Subtype') ?? '')) yield { font: f.value, page: f.page, label: `${f.label} (${fontName(d, f.value)})` };
}

/**
 * veraPDF's differencesAreUnicodeCompliant (parts 2 and 3): every name in
 * /Differences is in the Adobe Glyph List and the program has a (3,1) cmap
 * subtable to look those names up in.
 */
function differencesAreUnicode(d: PdfaDocument, font: PdfDict, encoding: PdfDict): boolean {
  const bytes = d.pdf.stream(descriptor(d, font)?.get('FontFile2'))?.decoded();
  const cmaps = bytes === undefined ? undefined : cmapSubtables(bytes);
  if (cmaps === undefined || !cmaps.some((c) => c.platform === 3 && c.encoding === 1)) return false;
  return (d.pdf.array(encoding.get('Differences')) ?? []).every((item) => {
    const value = d.pdf.resolve(item);
    return !(value instanceof PdfName) || ADOBE_GLYPH_NAMES.has(value.name);
  });
}

function symbolic(d: PdfaDocument, font: PdfDict): boolean {
  return ((d.pdf.number(descriptor(d, font)?.get('Flags')) ?? 0) & 4) !== 0;
}

export const FONT_RULES: readonly PdfaRule[] = [
  {
    ids: { 1: '6.3.2-1', 2: '6.2.11.2-1' },
    description: 'A font dictionary\'s Type shall be Font',
    *check(d) {
      for (const f of d.walk.fonts) if (f.value.name('Type') !== 'Font') yield at(f.label, f.page);
    },
  },
  {
    ids: { 1: '6.3.2-2', 2: '6.2.11.2-2' },
    description: 'A font dictionary\'s Subtype shall be one PDF defines',
    *check(d) {
      for (const f of d.walk.fonts) if (!SUBTYPES.has(f.value.name('Subtype') ?? '')) yield at(f.label, f.page);
    },
  },
  {
    ids: { 1: '6.3.2-3', 2: '6.2.11.2-3' },
    description: 'A font other than Type 3 shall have BaseFont',
    *check(d) {
      for (const f of d.walk.fonts) if (f.value.name('Subtype') !== 'Type3' && !f.value.has('BaseFont')) yield at(f.label, f.page);
    },
  },
  {
    ids: { 1: '6.3.2-4', 2: '6.2.11.2-4' },
    description: 'A simple font other than the standard 14 shall have FirstChar',
    *check(d) {
      for (const f of simpleFonts(d)) if (!isStandard(d, f.font) && !f.font.has('FirstChar')) yield at(f.label, f.page);
    },
  },
  {
    ids: { 1: '6.3.2-5', 2: '6.2.11.2-5' },
    description: 'A simple font other than the standard 14 shall have LastChar',
    *check(d) {
      for (const f of simpleFonts(d)) if (!isStandard(d, f.font) && !f.font.has('LastChar')) yield at(f.label, f.page);
    },
  },
  {
    ids: { 1: '6.3.2-6', 2: '6.2.11.2-6' },
    description: 'A simple font other than the standard 14 shall have Widths of LastChar - FirstChar + 1 entries',
    *check(d) {
      for (const f of simpleFonts(d)) {
        if (isStandard(d, f.font)) continue;
        const widths = d.pdf.array(f.font.get('Widths'));
        const first = d.pdf.number(f.font.get('FirstChar'));
        const last = d.pdf.number(f.font.get('LastChar'));
        if (widths === undefined || first === undefined || last === undefined || widths.length !== last - first + 1) yield at(f.label, f.page);
      }
    },
  },
  {
    ids: { 1: '6.3.2-7', 2: '6.2.11.2-7' },
    description: 'A FontFile3\'s Subtype shall be Type1C or CIDFontType0C (PDF/A-2 and 3: or OpenType)',
    *check(d) {
      for (const f of d.walk.fonts) {
        const file = d.pdf.stream(descriptor(d, f.value)?.get('FontFile3'));
        const subtype = file?.dict.name('Subtype');
        const allowed = d.part === 1 ? ['Type1C', 'CIDFontType0C'] : ['Type1C', 'CIDFontType0C', 'OpenType'];
        if (file !== undefined && (subtype === undefined || !allowed.includes(subtype))) yield at(`${f.label}: ${subtype ?? 'no Subtype'}`, f.page);
      }
    },
  },
  {
    ids: { 1: '6.3.4-1', 2: '6.2.11.4.1-1' },
    description: 'Every font program shall be embedded (Type 3 and Type 0 fonts aside: their glyphs or descendants are checked)',
    *check(d) {
      for (const f of d.walk.fonts) {
        const subtype = f.value.name('Subtype');
        if (subtype === 'Type3' || subtype === 'Type0') continue;
        if (!embedded(d, f.value)) yield at(`${f.label} (${fontName(d, f.value)})`, f.page);
      }
    },
  },
  {
    ids: { 1: '6.3.3.1-1', 2: '6.2.11.3.1-1' },
    description: 'A Type 0 font\'s CMap shall be Identity-H/V or agree with its CIDFont\'s Registry and Ordering',
    *check(d) {
      for (const f of d.walk.fonts) {
        if (f.value.name('Subtype') !== 'Type0') continue;
        const encoding = d.pdf.resolve(f.value.get('Encoding'));
        const name = d.pdf.name(encoding);
        if (name === 'Identity-H' || name === 'Identity-V') continue;
        const cmap = d.pdf.stream(encoding);
        const descendant = d.pdf.dict(d.pdf.array(f.value.get('DescendantFonts'))?.[0]);
        const fontInfo = d.pdf.dict(descendant?.get('CIDSystemInfo'));
        const cmapInfo = d.pdf.dict(cmap?.dict.get('CIDSystemInfo'));
        if (cmap === undefined) continue;
        const same = (key: string): boolean => fontInfo !== undefined && cmapInfo !== undefined && d.pdf.text(fontInfo.get(key)) === d.pdf.text(cmapInfo.get(key));
        if (!same('Registry') || !same('Ordering')) yield at(f.label, f.page);
        else if (d.part !== 1) {
          // Parts 2 and 3 also ask the CIDFont's Supplement to be at most the CMap's.
          const fontSupplement = d.pdf.number(fontInfo?.get('Supplement'));
          const cmapSupplement = d.pdf.number(cmapInfo?.get('Supplement'));
          if (fontSupplement === undefined || cmapSupplement === undefined || fontSupplement > cmapSupplement) yield at(`${f.label}: Supplement ${fontSupplement ?? 'missing'} in the CIDFont, ${cmapSupplement ?? 'missing'} in the CMap`, f.page);
        }
      }
    },
  },
  {
    ids: { 1: '6.3.3.2-1', 2: '6.2.11.3.2-1' },
    description: 'An embedded CIDFontType2 font shall have CIDToGIDMap',
    *check(d) {
      for (const f of d.walk.fonts) if (f.value.name('Subtype') === 'CIDFontType2' && !f.value.has('CIDToGIDMap') && (d.part === 1 || embedded(d, f.value))) yield at(f.label, f.page);
    },
  },
  {
    ids: { 1: '6.3.3.3-1', 2: '6.2.11.3.3-1' },
    description: 'A CMap shall be Identity-H/V (PDF/A-2 and 3: or a predefined CMap) or be embedded',
    *check(d) {
      for (const f of d.walk.fonts) {
        if (f.value.name('Subtype') !== 'Type0') continue;
        const name = d.pdf.name(f.value.get('Encoding'));
        if (name === undefined) continue;
        const ok = d.part === 1 ? name === 'Identity-H' || name === 'Identity-V' : PART2_CMAPS.test(name);
        if (!ok) yield at(`${f.label}: ${name}`, f.page);
      }
    },
  },
  {
    ids: { 2: '6.2.11.3.3-3' },
    description: 'An embedded CMap shall not use (usecmap, UseCMap) a CMap other than the predefined ones of ISO 32000-1 Table 118',
    *check(d) {
      for (const f of d.walk.fonts) {
        if (f.value.name('Subtype') !== 'Type0') continue;
        const cmap = d.pdf.stream(f.value.get('Encoding'));
        if (cmap === undefined) continue;
        const use = d.pdf.resolve(cmap.dict.get('UseCMap'));
        const bytes = use === undefined ? cmap.decoded() : undefined;
        const name = use instanceof PdfName ? use.name : bytes === undefined ? undefined : parseCMap(bytes).usecmap;
        if (use instanceof PdfStream) yield at(`${f.label}: UseCMap is an embedded CMap`, f.page);
        else if (name !== undefined && !PART2_CMAPS.test(name)) yield at(`${f.label}: uses CMap ${name}`, f.page);
      }
    },
  },
  {
    ids: { 1: '6.3.7-1', 2: '6.2.11.6-2' },
    description: 'A non-symbolic TrueType font shall use MacRomanEncoding or WinAnsiEncoding',
    *check(d) {
      for (const f of d.walk.fonts) {
        if (f.value.name('Subtype') !== 'TrueType' || symbolic(d, f.value)) continue;
        const encoding = d.pdf.resolve(f.value.get('Encoding'));
        const dict = d.pdf.dict(encoding);
        const base = dict === undefined ? d.pdf.name(encoding) : d.pdf.name(dict.get('BaseEncoding'));
        const differences = dict?.has('Differences') === true;
        if (base !== 'MacRomanEncoding' && base !== 'WinAnsiEncoding') yield at(`${f.label}: ${base ?? 'no encoding'}`, f.page);
        else if (differences && (d.part === 1 || !differencesAreUnicode(d, f.value, dict!))) yield at(`${f.label}: Differences ${d.part === 1 ? 'present' : 'outside the Adobe Glyph List, or no (3,1) cmap'}`, f.page);
      }
    },
  },
  {
    ids: { 1: '6.3.7-2', 2: '6.2.11.6-3' },
    description: 'A symbolic TrueType font shall not have an Encoding',
    *check(d) {
      for (const f of d.walk.fonts) if (f.value.name('Subtype') === 'TrueType' && symbolic(d, f.value) && f.value.has('Encoding')) yield at(f.label, f.page);
    },
  },
  {
    // Level U of parts 2 and 3; in part 1 level A asks the same (ISO 19005-1 6.3.8, veraPDF's PDF/A-1A 6.3.8-1, `toUnicode != null` as 2U's).
    ids: { 1: '6.3.8-1', 2: '6.2.11.7.2-1' },
    levelU: true,
    description: 'Every font shall map its characters to Unicode (ToUnicode, or a standard encoding of named glyphs)',
    *check(d) {
      for (const f of d.walk.fonts) {
        const subtype = f.value.name('Subtype');
        if (subtype === 'CIDFontType0' || subtype === 'CIDFontType2' || f.value.has('ToUnicode')) continue;
        if (subtype === 'Type0') {
          const descendant = d.pdf.dict(d.pdf.array(f.value.get('DescendantFonts'))?.[0]);
          const ordering = d.pdf.text(d.pdf.dict(descendant?.get('CIDSystemInfo'))?.get('Ordering'));
          if (ordering !== undefined && ['Japan1', 'GB1', 'CNS1', 'Korea1'].includes(ordering)) continue;
          yield at(`${f.label} (${fontName(d, f.value)})`, f.page);
          continue;
        }
        const encoding = d.pdf.resolve(f.value.get('Encoding'));
        const dict = d.pdf.dict(encoding);
        const base = dict === undefined ? d.pdf.name(encoding) : d.pdf.name(dict.get('BaseEncoding')) ?? 'StandardEncoding';
        if (base === undefined && (symbolic(d, f.value) || subtype === 'Type3')) yield at(`${f.label} (${fontName(d, f.value)})`, f.page);
      }
    },
  },
];
