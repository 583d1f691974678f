// What a font's embedded program says about the codes the content shows,
// veraPDF's Glyph object for the glyph-level rules: whether the program has
// the glyph a code selects (isGlyphPresent), its width in the program and in
// the font dictionary (widthFromFontProgram, widthFromDictionary, both in
// 1/1000 text space units), and the glyph's name where the encoding gives
// one (.notdef, 6.2.11.8). Programs read: TrueType (FontFile2), bare CFF
// (FontFile3 /Type1C, /CIDFontType0C) and Type 3 glyph procedures; Type 1
// (FontFile) and OpenType programs are not read, so their glyphs are not
// judged (undefined). Each program is parsed once per document (the PDF/A
// and PDF/UA documents keep the answers by font dictionary). Type 0 fonts
// are read in composite-glyphs.ts; the CharSet and CIDSet checks built on
// these answers are in glyph-sets.ts.
import type { PdfObjects } from '../../seams/pdf-objects.js';
import { contentOperations } from '../../untrusted/content-stream.js';
import { PdfName, type PdfDict } from '../../untrusted/pdf-values.js';
import type { CffProgram } from './cff-program.js';
import { compositeGlyphs } from './composite-glyphs.js';
import { cffOf, descriptorOf, NOTHING, type FontGlyphs } from './glyph-facts.js';
import { MAC_ROMAN_ENCODING, STANDARD_ENCODING, WIN_ANSI_ENCODING } from './glyph-names.js';
import { trueTypeProgram } from './truetype-program.js';

export { PARTIAL_CODE, type FontGlyphs, type GlyphFacts } from './glyph-facts.js';

const ENCODINGS: Record<string, readonly string[]> = { StandardEncoding: STANDARD_ENCODING, WinAnsiEncoding: WIN_ANSI_ENCODING, MacRomanEncoding: MAC_ROMAN_ENCODING };
export function fontGlyphs(pdf: PdfObjects, font: PdfDict): FontGlyphs {
  try {
    const subtype = font.name('Subtype');
    if (subtype === 'Type0') return compositeGlyphs(pdf, font);
    if (subtype === 'Type3') return type3Glyphs(pdf, font);
    return simpleGlyphs(pdf, font);
  } catch {
    return { program: undefined, glyph: () => NOTHING, glyphNames: undefined, cids: undefined };
  }
}

function symbolicFlag(pdf: PdfObjects, font: PdfDict): boolean {
  return ((pdf.number(descriptorOf(pdf, font)?.get('Flags')) ?? 0) & 4) !== 0;
}

/** A simple font's width for a code from /Widths (MissingWidth outside FirstChar..LastChar). */
function simpleWidth(pdf: PdfObjects, font: PdfDict, code: number): number | undefined {
  const widths = pdf.array(font.get('Widths'));
  const first = pdf.number(font.get('FirstChar'));
  if (widths !== undefined && first !== undefined && code >= first && code < first + widths.length) return pdf.number(widths[code - first]);
  return pdf.number(descriptorOf(pdf, font)?.get('MissingWidth')) ?? 0;
}

/** Code → glyph name by the font dictionary's /Encoding (Differences over its base); undefined where it names none. */
function encodedName(pdf: PdfObjects, font: PdfDict, code: number, builtIn: readonly string[] | undefined, unnamedFrom?: readonly string[]): string | undefined {
  const encoding = pdf.resolve(font.get('Encoding'));
  const dict = pdf.dict(encoding);
  let current = -1;
  let name: string | undefined;
  for (const item of pdf.array(dict?.get('Differences')) ?? []) {
    const value = pdf.resolve(item);
    if (typeof value === 'number') current = value;
    else if (value instanceof PdfName) {
      if (current === code) name = value.name;
      current++;
    }
  }
  if (name !== undefined) return name;
  const base = encoding instanceof PdfName ? encoding.name : pdf.name(dict?.get('BaseEncoding'));
  const table = (base === undefined ? undefined : ENCODINGS[base]) ?? builtIn;
  const fromTable = table?.[code] || unnamedFrom?.[code];
  return fromTable === undefined ? undefined : fromTable === '' ? '.notdef' : fromTable;
}

function simpleGlyphs(pdf: PdfObjects, font: PdfDict): FontGlyphs {
  const descriptor = descriptorOf(pdf, font);
  const cff = cffOf(pdf, descriptor);
  if (cff !== undefined && !cff.cidKeyed) {
    // The program's own encoding stands where the dictionary gives no base (a symbolic font's usual case).
    const builtIn = cff.builtInEncoding === undefined ? STANDARD_ENCODING : codeNames(cff);
    return {
      program: 'Type1C',
      glyphNames: cff.names.slice(1),
      cids: undefined,
      glyph(code) {
        const name = encodedName(pdf, font, code, builtIn) ?? '.notdef';
        const gid = cff.byName.get(name);
        return { present: name === '.notdef' || gid !== undefined, programWidth: gid === undefined ? undefined : cff.widthOf(gid), dictionaryWidth: simpleWidth(pdf, font, code), name };
      },
    };
  }
  const file2 = pdf.stream(descriptor?.get('FontFile2'));
  const bytes = font.name('Subtype') === 'TrueType' ? file2?.decoded() : undefined;
  const program = bytes === undefined ? undefined : trueTypeProgram(bytes);
  if (program === undefined) return { program: undefined, glyph: () => NOTHING, glyphNames: undefined, cids: undefined };
  const symbolic = symbolicFlag(pdf, font);
  // veraPDF's TrueTypeFontProgram: a non-symbolic font with an Encoding selects glyphs by name (the
  // encoding's, Standard where it has none; .notdef is never present), any other font by code
  // through its (3,0) or (1,0) cmap, glyph 0 being .notdef.
  const byName = !symbolic && font.get('Encoding') !== undefined;
  return {
    program: 'TrueType',
    glyphNames: undefined,
    cids: undefined,
    glyph(code) {
      const dictionaryWidth = simpleWidth(pdf, font, code);
      if (byName) {
        const name = encodedName(pdf, font, code, STANDARD_ENCODING, STANDARD_ENCODING) ?? '.notdef';
        if (name === '.notdef') return { present: false, programWidth: undefined, dictionaryWidth, name };
        const unicode = unicodeOf(name);
        const gid = (unicode === undefined ? undefined : program.glyphOf(unicode, false)) ?? program.glyphOf(code, false);
        if (gid === undefined) return { ...NOTHING, name };
        const present = gid > 0 && gid < program.glyphCount;
        return { present, programWidth: present ? program.advance(gid) : undefined, dictionaryWidth, name };
      }
      const gid = program.glyphOf(code, true);
      if (gid === undefined || gid === 0) return NOTHING;
      return { present: gid < program.glyphCount, programWidth: program.advance(gid), dictionaryWidth, name: undefined };
    },
  };
}

/** The Unicode value of a glyph name where it is certain here: uniXXXX, and the Latin-1 names of WinAnsiEncoding. */
function unicodeOf(name: string): number | undefined {
  const uni = /^uni([0-9A-F]{4})$/.exec(name);
  if (uni !== null) return Number.parseInt(uni[1]!, 16);
  const code = WIN_ANSI_ENCODING.indexOf(name);
  return (code >= 0x20 && code < 0x7f) || code >= 0xa0 ? code : undefined;
}

/** The CFF's custom encoding as names by code. */
function codeNames(cff: CffProgram): string[] {
  const names: string[] = [];
  for (const [code, gid] of cff.builtInEncoding ?? []) if (code < 256) names[code] = cff.names[gid] ?? '';
  return Array.from({ length: 256 }, (_, code) => names[code] ?? '');
}

/** A Type 3 font's program widths: the wx of the glyph procedure's d0/d1, both scaled by the FontMatrix. */
function type3Glyphs(pdf: PdfObjects, font: PdfDict): FontGlyphs {
  const procs = pdf.dict(font.get('CharProcs'));
  const scale = (pdf.number(pdf.array(font.get('FontMatrix'))?.[0]) ?? 0.001) * 1000;
  const widths = new Map<string, number | undefined>();
  const procWidth = (name: string): number | undefined => {
    if (!widths.has(name)) {
      const bytes = pdf.stream(procs?.get(name))?.decoded();
      let width: number | undefined;
      if (bytes !== undefined) {
        for (const op of contentOperations(bytes)) {
          if (op.operator === 'd0' || op.operator === 'd1') width = typeof op.operands[0] === 'number' ? op.operands[0] : undefined;
          break;
        }
      }
      widths.set(name, width);
    }
    return widths.get(name);
  };
  return {
    program: 'Type3',
    glyphNames: undefined,
    cids: undefined,
    glyph(code) {
      const name = encodedName(pdf, font, code, undefined);
      if (name === undefined) return NOTHING;
      const wx = procWidth(name);
      const dictionary = simpleWidth(pdf, font, code);
      return { present: procs?.has(name) === true ? true : undefined, programWidth: wx === undefined ? undefined : wx * scale, dictionaryWidth: dictionary === undefined ? undefined : dictionary * scale, name };
    },
  };
}

/** fontGlyphs for one document, each embedded program parsed once however many rules read it. */
export function glyphReader(pdf: PdfObjects): (font: PdfDict) => FontGlyphs {
  const read = new Map<PdfDict, FontGlyphs>();
  return (font) => {
    let glyphs = read.get(font);
    if (glyphs === undefined) {
      glyphs = fontGlyphs(pdf, font);
      read.set(font, glyphs);
    }
    return glyphs;
  };
}
