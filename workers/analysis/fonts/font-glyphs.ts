// What a font's embedded program says about the codes the content shows,
// veraPDF's Glyph object for the glyph-level rules: whether the program has
// the glyph a code selects (isGlyphPresent), its width in the program and in
// the font dictionary (widthFromFontProgram, widthFromDictionary, both in
// 1/1000 text space units), and the glyph's name where the encoding gives
// one (.notdef, 6.2.11.8). Programs read: TrueType (FontFile2), bare CFF
// (FontFile3 /Type1C, /CIDFontType0C) and Type 3 glyph procedures; Type 1
// (FontFile) and OpenType programs are not read, so their glyphs are not
// judged (undefined). Each program is parsed once per document (the PDF/A
// and PDF/UA documents keep the answers by font dictionary).
import type { PdfObjects } from '../../seams/pdf-objects.js';
import { contentOperations } from '../../untrusted/content-stream.js';
import { PdfDict, PdfName, PdfStream } from '../../untrusted/pdf-values.js';
import { cidOf as cidOfCode, parseCMap } from '../cmap.js';
import { readCff, type CffProgram } from './cff-program.js';
import { MAC_ROMAN_ENCODING, STANDARD_ENCODING, WIN_ANSI_ENCODING } from './glyph-names.js';
import { trueTypeProgram } from './truetype-program.js';

export interface GlyphFacts {
  /** undefined: the program was not read, or does not say. */
  readonly present: boolean | undefined;
  readonly programWidth: number | undefined;
  readonly dictionaryWidth: number | undefined;
  /** The glyph name the code selects, where the font names glyphs. */
  readonly name: string | undefined;
}

export interface FontGlyphs {
  /** "Type1C", "TrueType", "CIDFontType0C", "CIDFontType2", "Type3"; undefined when nothing is read. */
  readonly program: string | undefined;
  glyph(code: number): GlyphFacts;
  /** Names (name-keyed CFF) of every glyph in the program but .notdef: for CharSet. */
  readonly glyphNames: readonly string[] | undefined;
  /** CIDs of every glyph in the program: for CIDSet. */
  readonly cids: readonly number[] | undefined;
  /** A Type 0 font's CID for a code (Identity-H/V, or an embedded CMap's cidrange/cidchar). */
  readonly cidOf?: (code: number) => number | undefined;
}

/** A code of a Type 0 font cut short by the end of its string (a trailing byte of an Identity-H/V string): no CID, so no glyph. */
export const PARTIAL_CODE = -1;

const ENCODINGS: Record<string, readonly string[]> = { StandardEncoding: STANDARD_ENCODING, WinAnsiEncoding: WIN_ANSI_ENCODING, MacRomanEncoding: MAC_ROMAN_ENCODING };
const NOTHING: GlyphFacts = { present: undefined, programWidth: undefined, dictionaryWidth: undefined, name: undefined };

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

function descriptorOf(pdf: PdfObjects, font: PdfDict | undefined): PdfDict | undefined {
  return pdf.dict(font?.get('FontDescriptor'));
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

function cffOf(pdf: PdfObjects, descriptor: PdfDict | undefined): CffProgram | undefined {
  const file = pdf.stream(descriptor?.get('FontFile3'));
  const subtype = file?.dict.name('Subtype');
  if (file === undefined || (subtype !== 'Type1C' && subtype !== 'CIDFontType0C')) return undefined;
  const bytes = file.decoded();
  return bytes === undefined ? undefined : readCff(bytes);
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

/** A CIDFont's width for a CID from /W, else /DW (default 1000). */
function cidWidth(pdf: PdfObjects, cidFont: PdfDict, cid: number): number {
  const w = pdf.array(cidFont.get('W')) ?? [];
  for (let i = 0; i < w.length; ) {
    const first = pdf.number(w[i]);
    const next = pdf.resolve(w[i + 1]);
    if (first === undefined) break;
    if (Array.isArray(next)) {
      if (cid >= first && cid < first + next.length) return pdf.number(next[cid - first]) ?? 0;
      i += 2;
    } else {
      const last = pdf.number(next);
      const width = pdf.number(w[i + 2]);
      if (last !== undefined && cid >= first && cid <= last) return width ?? 0;
      i += 3;
    }
  }
  return pdf.number(cidFont.get('DW')) ?? 1000;
}

function compositeGlyphs(pdf: PdfObjects, font: PdfDict): FontGlyphs {
  const cidFont = pdf.dict(pdf.array(font.get('DescendantFonts'))?.[0]);
  const encoding = pdf.name(font.get('Encoding'));
  // Codes become CIDs through Identity-H/V or an embedded CMap; a predefined CMap's mapping is not read, so its glyphs are not judged.
  const embeddedCMap = pdf.stream(font.get('Encoding'))?.decoded();
  const cmap = embeddedCMap === undefined ? undefined : parseCMap(embeddedCMap);
  const toCid = (code: number): number | undefined => (code === PARTIAL_CODE ? undefined : encoding === 'Identity-H' || encoding === 'Identity-V' ? code : cmap === undefined ? undefined : cidOfCode(cmap, code));
  if (cidFont === undefined) return { program: undefined, glyph: () => NOTHING, glyphNames: undefined, cids: undefined };
  const descriptor = descriptorOf(pdf, cidFont);
  if (cidFont.name('Subtype') === 'CIDFontType0') {
    const cff = cffOf(pdf, descriptor);
    if (cff === undefined) return { program: undefined, glyph: () => NOTHING, glyphNames: undefined, cids: undefined };
    // A name-keyed CFF under a CIDFont is addressed by glyph id (ISO 32000-1 §9.7.4.2).
    const gidOf = (cid: number) => (cff.cidKeyed ? cff.byCid.get(cid) : cid < cff.glyphCount ? cid : undefined);
    return {
      program: 'CIDFontType0C',
      glyphNames: undefined,
      cids: cff.cidKeyed ? [...cff.byCid.keys()] : Array.from({ length: cff.glyphCount }, (_, i) => i),
      cidOf: toCid,
      glyph(code) {
        if (code === PARTIAL_CODE) return { ...NOTHING, present: false };
        const cid = toCid(code);
        if (cid === undefined) return NOTHING;
        const gid = gidOf(cid);
        return { present: gid !== undefined, programWidth: gid === undefined ? undefined : cff.widthOf(gid), dictionaryWidth: cidWidth(pdf, cidFont, cid), name: cid === 0 ? '.notdef' : undefined };
      },
    };
  }
  const bytes = pdf.stream(descriptor?.get('FontFile2'))?.decoded();
  const program = bytes === undefined ? undefined : trueTypeProgram(bytes);
  if (program === undefined) return { program: undefined, glyph: () => NOTHING, glyphNames: undefined, cids: undefined };
  const map = cidToGid(pdf, cidFont);
  return {
    program: 'CIDFontType2',
    glyphNames: undefined,
    // veraPDF's CIDFontType2Program.getCIDList: under the identity every CID with an hmtx entry, else the mapped CIDs whose glyph exists.
    cids: map === 'identity' ? Array.from({ length: program.glyphCount }, (_, i) => i) : [...map.entries()].filter(([cid, gid]) => cid !== 0 && gid < program.glyphCount).map(([cid]) => cid),
    cidOf: toCid,
    glyph(code) {
      if (code === PARTIAL_CODE) return { ...NOTHING, present: false };
      const cid = toCid(code);
      if (cid === undefined) return NOTHING;
      const gid = map === 'identity' ? cid : map.get(cid);
      const present = cid === 0 || (gid !== undefined && gid < program.glyphCount);
      return { present, programWidth: present && gid !== undefined ? program.advance(gid) : undefined, dictionaryWidth: cidWidth(pdf, cidFont, cid), name: cid === 0 ? '.notdef' : undefined };
    },
  };
}

function cidToGid(pdf: PdfObjects, cidFont: PdfDict): 'identity' | Map<number, number> {
  const value = pdf.resolve(cidFont.get('CIDToGIDMap'));
  if (!(value instanceof PdfStream)) return 'identity';
  const bytes = value.decoded() ?? new Uint8Array();
  const map = new Map<number, number>();
  for (let cid = 0; 2 * cid + 1 < bytes.length; cid++) map.set(cid, (bytes[2 * cid]! << 8) | bytes[2 * cid + 1]!);
  return map;
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

/** The CharSet string's names: "/a/b/c" → a, b, c (.notdef aside). */
function charSetNames(text: string): Set<string> {
  return new Set(text.split('/').map((name) => name.trim()).filter((name) => name !== '' && name !== '.notdef'));
}

/** veraPDF's charSetListsAllGlyphs: the CharSet names exactly the program's glyphs (.notdef aside); undefined when either is unread. */
export function charSetListsAll(glyphs: FontGlyphs, charSet: string | undefined): boolean | undefined {
  if (glyphs.glyphNames === undefined || charSet === undefined) return undefined;
  const listed = charSetNames(charSet);
  const present = new Set(glyphs.glyphNames.filter((name) => name !== '.notdef'));
  return present.size === listed.size && [...present].every((name) => listed.has(name));
}

/**
 * veraPDF's cidSetListsAllGlyphs: with `shownCodes` (PDF/A-1), every CID
 * the content shows that the program has is in the CIDSet; without (PDF/A-2
 * and 3, PDF/UA), every CID of the program (0 aside) is in it and every CID
 * it lists is in the program. Undefined when either is unread.
 */
export function cidSetListsAll(glyphs: FontGlyphs, bits: Uint8Array | undefined, shownCodes?: Iterable<number>): boolean | undefined {
  const cids = glyphs.cids;
  if (cids === undefined || bits === undefined) return undefined;
  const listed = (cid: number) => ((bits[cid >> 3] ?? 0) & (0x80 >> (cid & 7))) !== 0;
  const inProgram = new Set(cids);
  if (shownCodes !== undefined) return [...shownCodes].map((code) => glyphs.cidOf?.(code)).every((cid) => cid === undefined || cid === 0 || !inProgram.has(cid) || listed(cid));
  if (!cids.every((cid) => cid === 0 || listed(cid))) return false;
  for (let cid = 1; cid < bits.length * 8; cid++) if (listed(cid) && !inProgram.has(cid)) return false;
  return true;
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
