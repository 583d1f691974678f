// PDF/A-1 (ISO 19005-1 6.3.5, veraPDF's 6.3.5-3) asks every subset CIDFont
// for a CIDSet stream listing the CIDs its program holds; parts 2 and 3
// make it optional and pdf-lib writes none. Our subsets are Type 0 fonts
// over a CIDFont with CIDToGIDMap /Identity, so the CIDs are the glyph ids
// of the subset program, 0 to its glyph count - 1, and the CIDSet is that
// many bits set (a bit per CID, the high bit first: ISO 32000-1 9.8.3).
// Part of the PDF seam (pdf.ts calls it after the fonts are embedded).
import { inflateSync } from 'node:zlib';
import { PDFArray, PDFDict, PDFName, PDFRawStream, type PDFDocument, type PDFRef } from '@cantoo/pdf-lib';

/**
 * Gives the CIDFont of each Type 0 font `fonts` names a CIDSet. `fallbackCount`
 * says how many glyphs a font's subset holds when its program is not a
 * TrueType one whose maxp table says it (a bare CFF program has no
 * composite glyphs, so the subset's own list is complete).
 */
export function writeCidSets(doc: PDFDocument, fonts: ReadonlyArray<{ ref: PDFRef; fallbackCount: () => number | undefined }>): void {
  const context = doc.context;
  for (const font of fonts) {
    const type0 = context.lookup(font.ref, PDFDict);
    const descendants = type0.lookup(PDFName.of('DescendantFonts'), PDFArray);
    const cidFont = descendants.lookup(0, PDFDict);
    const descriptor = cidFont.lookup(PDFName.of('FontDescriptor'), PDFDict);
    const program = descriptor.lookup(PDFName.of('FontFile2'));
    const count = (program instanceof PDFRawStream ? trueTypeGlyphCount(programBytes(program)) : undefined) ?? font.fallbackCount();
    // A bug, not the client's: every font we embed is one of the two kinds above.
    if (count === undefined || count < 1) throw new Error('pdf: cannot count the glyphs of an embedded subset for its CIDSet');
    const bits = new Uint8Array(Math.ceil(count / 8));
    bits.fill(0xff, 0, count >> 3);
    if (count % 8 !== 0) bits[count >> 3] = (0xff << (8 - (count % 8))) & 0xff;
    descriptor.set(PDFName.of('CIDSet'), context.register(context.flateStream(bits)));
  }
}

function programBytes(stream: PDFRawStream): Uint8Array {
  const filter = stream.dict.get(PDFName.of('Filter'));
  const contents = stream.getContents();
  return filter === PDFName.of('FlateDecode') ? inflateSync(contents) : contents;
}

/** numGlyphs of a TrueType program's maxp table; undefined when the bytes are not one. */
function trueTypeGlyphCount(bytes: Uint8Array): number | undefined {
  if (bytes.length < 12) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tables = view.getUint16(4);
  for (let i = 0; i < tables; i++) {
    const entry = 12 + i * 16;
    if (entry + 16 > bytes.length) return undefined;
    const tag = String.fromCharCode(bytes[entry] ?? 0, bytes[entry + 1] ?? 0, bytes[entry + 2] ?? 0, bytes[entry + 3] ?? 0);
    if (tag !== 'maxp') continue;
    const offset = view.getUint32(entry + 8);
    return offset + 6 <= bytes.length ? view.getUint16(offset + 4) : undefined;
  }
  return undefined;
}
