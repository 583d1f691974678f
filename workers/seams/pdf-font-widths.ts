// What the redaction needs of a PDF font (ISO 32000-1 sections 9.6-9.7):
// how a shown string splits into character codes and how far each code
// advances, in text space per unit of font size. Read with pdf-lib behind
// this seam (part of pdf-redaction.ts's seam).
// - Simple fonts: one byte per code; /Widths from /FirstChar (Type 3 widths
//   through /FontMatrix), /MissingWidth otherwise; the standard 14 fonts
//   without /Widths use their AFM metrics (pdf-lib's tables).
// - Composite fonts (Type0): codes by the CMap's codespace ranges (Identity-H
//   and Identity-V are two bytes, CID = code; an embedded CMap's cidrange and
//   cidchar are read), widths from the descendant's /W and /DW. A predefined
//   CMap other than Identity is taken as two bytes with CID = code: the
//   widths, and so where the glyphs after a removed one are, may be off.
import { PDFArray, PDFDict, PDFName, PDFNumber, PDFRawStream, StandardFonts, decodePDFRawStream, type PDFDocument, type PDFFont, type PDFObject } from '@cantoo/pdf-lib';

export interface FontCode {
  readonly code: number;
  /** Bytes of the code in the string. */
  readonly length: number;
  /** Advance in text space units per unit of font size (a glyph width of 500 is 0.5). */
  readonly width: number;
}

export interface RedactionFont {
  codes(bytes: Uint8Array): FontCode[];
}

const STANDARD_NAMES: Readonly<Record<string, StandardFonts>> = {
  ...Object.fromEntries(Object.values(StandardFonts).map((name) => [name, name])),
  Arial: StandardFonts.Helvetica,
  'Arial,Bold': StandardFonts.HelveticaBold,
  'Arial,Italic': StandardFonts.HelveticaOblique,
  'Arial,BoldItalic': StandardFonts.HelveticaBoldOblique,
  TimesNewRoman: StandardFonts.TimesRoman,
  'TimesNewRoman,Bold': StandardFonts.TimesRomanBold,
  CourierNew: StandardFonts.Courier,
};

/** A standard font's width per code, built once per worker from pdf-lib's AFM tables. */
const standardWidths = new Map<StandardFonts, Map<number, number>>();

function widthsOfStandard(name: StandardFonts, scratch: PDFDocument): Map<number, number> {
  let widths = standardWidths.get(name);
  if (widths === undefined) {
    const font: PDFFont = scratch.embedStandardFont(name);
    widths = new Map();
    for (const codePoint of font.getCharacterSet()) {
      const char = String.fromCodePoint(codePoint);
      const code = Number.parseInt(font.encodeText(char).asString(), 16);
      if (code >= 0 && code < 256 && !widths.has(code)) widths.set(code, font.widthOfTextAtSize(char, 1));
    }
    standardWidths.set(name, widths);
  }
  return widths;
}

export function readFontWidths(doc: PDFDocument, dict: PDFDict, scratch: PDFDocument): RedactionFont {
  const lookup = (value: PDFObject | undefined) => doc.context.lookup(value);
  const subtype = lookup(dict.get(PDFName.of('Subtype')));
  if (subtype instanceof PDFName && subtype.decodeText() === 'Type0') return compositeFont(doc, dict);
  const first = numberOf(lookup(dict.get(PDFName.of('FirstChar')))) ?? 0;
  const widthsArray = lookup(dict.get(PDFName.of('Widths')));
  const descriptor = lookup(dict.get(PDFName.of('FontDescriptor')));
  const missing = (descriptor instanceof PDFDict ? numberOf(lookup(descriptor.get(PDFName.of('MissingWidth')))) : undefined) ?? 0;
  let unit = 1 / 1000;
  if (subtype instanceof PDFName && subtype.decodeText() === 'Type3') {
    const matrix = lookup(dict.get(PDFName.of('FontMatrix')));
    unit = matrix instanceof PDFArray ? (numberOf(lookup(matrix.get(0))) ?? 0.001) : 0.001;
  }
  const table = new Map<number, number>();
  if (widthsArray instanceof PDFArray) {
    for (let i = 0; i < widthsArray.size(); i++) table.set(first + i, (numberOf(lookup(widthsArray.get(i))) ?? missing) * unit);
  } else {
    const base = lookup(dict.get(PDFName.of('BaseFont')));
    const standard = base instanceof PDFName ? STANDARD_NAMES[base.decodeText().replace(/^[A-Z]{6}\+/, '')] : undefined;
    if (standard !== undefined) for (const [code, width] of widthsOfStandard(standard, scratch)) table.set(code, width);
  }
  const fallback = table.size === 0 ? 0.5 : missing * unit;
  return { codes: (bytes) => Array.from(bytes, (code) => ({ code, length: 1, width: table.get(code) ?? fallback })) };
}

interface CodeSpace {
  readonly length: number;
  readonly low: Uint8Array;
  readonly high: Uint8Array;
}

function compositeFont(doc: PDFDocument, dict: PDFDict): RedactionFont {
  const lookup = (value: PDFObject | undefined) => doc.context.lookup(value);
  const descendants = lookup(dict.get(PDFName.of('DescendantFonts')));
  const descendant = descendants instanceof PDFArray ? lookup(descendants.get(0)) : undefined;
  const widths = new Map<number, number>();
  let defaultWidth = 1;
  if (descendant instanceof PDFDict) {
    defaultWidth = (numberOf(lookup(descendant.get(PDFName.of('DW')))) ?? 1000) / 1000;
    const w = lookup(descendant.get(PDFName.of('W')));
    if (w instanceof PDFArray) readW(doc, w, widths);
  }
  const encoding = lookup(dict.get(PDFName.of('Encoding')));
  let spaces: CodeSpace[] = [{ length: 2, low: Uint8Array.of(0, 0), high: Uint8Array.of(255, 255) }];
  let cids: ((code: number) => number) = (code) => code;
  if (encoding instanceof PDFRawStream) {
    const parsed = parseCMap(Buffer.from(decodePDFRawStream(encoding).decode()).toString('latin1'));
    if (parsed.spaces.length > 0) spaces = parsed.spaces;
    cids = parsed.cid;
  }
  return {
    codes(bytes) {
      const out: FontCode[] = [];
      for (let at = 0; at < bytes.length; ) {
        const length = codeLength(bytes, at, spaces);
        let code = 0;
        for (let k = 0; k < length; k++) code = code * 256 + (bytes[at + k] ?? 0);
        out.push({ code, length, width: widths.get(cids(code)) ?? defaultWidth });
        at += length;
      }
      return out;
    },
  };
}

/** /W: `c [w1 w2 ...]` or `c_first c_last w` (section 9.7.4.3). */
function readW(doc: PDFDocument, w: PDFArray, widths: Map<number, number>): void {
  const items = w.asArray().map((item) => doc.context.lookup(item));
  for (let i = 0; i < items.length; ) {
    const first = numberOf(items[i]);
    const next = items[i + 1];
    if (first === undefined) return;
    if (next instanceof PDFArray) {
      next.asArray().forEach((value, k) => widths.set(first + k, (numberOf(doc.context.lookup(value)) ?? 0) / 1000));
      i += 2;
    } else {
      const last = numberOf(next);
      const width = numberOf(items[i + 2]);
      if (last === undefined || width === undefined) return;
      // A range is bounded by the CIDs a font can have (65,536).
      for (let cid = first; cid <= Math.min(last, first + 65_535); cid++) widths.set(cid, width / 1000);
      i += 3;
    }
  }
}

function codeLength(bytes: Uint8Array, at: number, spaces: readonly CodeSpace[]): number {
  for (const space of spaces) {
    if (at + space.length > bytes.length) continue;
    let inside = true;
    for (let k = 0; k < space.length && inside; k++) {
      const byte = bytes[at + k] as number;
      inside = byte >= (space.low[k] as number) && byte <= (space.high[k] as number);
    }
    if (inside) return space.length;
  }
  return Math.min(spaces[0]?.length ?? 1, bytes.length - at);
}

/** An embedded CMap's codespace ranges and CID mappings (Adobe technical note 5014), read with patterns: enough for what producers embed. */
function parseCMap(text: string): { spaces: CodeSpace[]; cid: (code: number) => number } {
  const hex = (value: string) => Uint8Array.from(Buffer.from(value.length % 2 === 0 ? value : `${value}0`, 'hex'));
  const spaces: CodeSpace[] = [];
  for (const block of text.matchAll(/begincodespacerange([\s\S]*?)endcodespacerange/g)) {
    for (const [, low = '', high = ''] of (block[1] ?? '').matchAll(/<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>/g)) {
      const lowBytes = hex(low);
      spaces.push({ length: lowBytes.length, low: lowBytes, high: hex(high) });
    }
  }
  spaces.sort((a, b) => a.length - b.length);
  const ranges: [number, number, number][] = [];
  const singles = new Map<number, number>();
  for (const block of text.matchAll(/begincidrange([\s\S]*?)endcidrange/g)) {
    for (const [, low = '', high = '', cid = ''] of (block[1] ?? '').matchAll(/<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>\s*(\d+)/g)) {
      ranges.push([Number.parseInt(low, 16), Number.parseInt(high, 16), Number(cid)]);
    }
  }
  for (const block of text.matchAll(/begincidchar([\s\S]*?)endcidchar/g)) {
    for (const [, code = '', cid = ''] of (block[1] ?? '').matchAll(/<([0-9a-fA-F]+)>\s*(\d+)/g)) singles.set(Number.parseInt(code, 16), Number(cid));
  }
  const mapped = ranges.length > 0 || singles.size > 0;
  return {
    spaces,
    cid: (code) => {
      const single = singles.get(code);
      if (single !== undefined) return single;
      for (const [low, high, cid] of ranges) if (code >= low && code <= high) return cid + code - low;
      return mapped ? 0 : code;
    },
  };
}

function numberOf(value: PDFObject | undefined): number | undefined {
  return value instanceof PDFNumber ? value.asNumber() : undefined;
}
