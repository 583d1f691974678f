// The glyphs of a Type 0 font (font-glyphs.ts's fontGlyphs for /Subtype
// /Type0): codes become CIDs through Identity-H/V or an embedded CMap, CIDs
// become glyphs of the descendant's CFF (CIDFontType0) or TrueType
// (CIDFontType2, through CIDToGIDMap) program, and widths come from /W and
// /DW.
import type { PdfObjects } from '../../seams/pdf-objects.js';
import { PdfStream, type PdfDict } from '../../untrusted/pdf-values.js';
import { cidOf as cidOfCode, parseCMap } from '../cmap.js';
import { cffOf, descriptorOf, NOTHING, PARTIAL_CODE, type FontGlyphs } from './glyph-facts.js';
import { trueTypeProgram } from './truetype-program.js';

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

export function compositeGlyphs(pdf: PdfObjects, font: PdfDict): FontGlyphs {
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
