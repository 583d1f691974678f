// Structural checks on client font bytes before fontkit sees them.
//
// fontkit trusts its input: it decodes tables lazily, turns a table it
// cannot decode into `undefined` (so a missing head or hmtx surfaced later
// as a TypeError inside layout or PDF saving), follows loca offsets past the
// end of glyf, spreads every cmap range into one array (a format-12 group
// over all of Unicode overflowed the stack), and inflates WOFF2 into a
// buffer of whatever size the file declares (a 1.5 KB file asked for
// gigabytes). So only plain sfnt data gets through, and the tables fontkit
// and pdf-lib read are checked here against the OpenType specification
// (https://learn.microsoft.com/typography/opentype/spec/otff).

import { FontError, sfntKind, tableDirectory, viewOf, type Table } from './sfnt-directory.js';

export { FontError };

export interface SfntInfo {
  readonly numGlyphs: number;
  /** Up to CANDIDATES code points the character maps list, to try the font on. */
  readonly candidates: readonly number[];
  /**
   * The data ends within a glyph header's 10 bytes after glyf. fontkit
   * reads the header even of an empty glyph, so an empty glyph at the end
   * of glyf read past the end of the data: such a font needs zero padding.
   */
  readonly needsPadding: boolean;
}

const CANDIDATES = 32;
/** numberOfContours and the bounding box. */
export const GLYPH_HEADER = 10;

/** Tables fontkit or pdf-lib read for every font, with the shortest length each can have. */
const REQUIRED = new Map([
  ['head', 54],
  ['hhea', 36],
  ['hmtx', 4],
  ['maxp', 6],
  ['cmap', 4],
  // pdf-lib reads post.italicAngle for the font descriptor.
  ['post', 32],
]);

/** Checks the bytes are one TrueType or OpenType (CFF) font whose tables hold together; throws FontError. */
export function checkSfnt(bytes: Uint8Array): SfntInfo {
  const view = viewOf(bytes);
  if (bytes.byteLength < 12) throw new FontError('the data is too short to be a font');
  checkKind(bytes);
  const tables = tableDirectory(bytes, 0, 'the font');
  for (const [tag, minimum] of REQUIRED) {
    const table = tables.get(tag);
    if (table === undefined) throw new FontError(`the font has no '${tag}' table, which every TrueType or OpenType font needs`);
    if (table.length < minimum) throw new FontError(`the font's '${tag}' table is too short`);
  }
  const head = tables.get('head') as Table;
  const unitsPerEm = view.getUint16(head.offset + 18);
  if (unitsPerEm < 16 || unitsPerEm > 16_384) throw new FontError(`the font's unitsPerEm (${unitsPerEm}) is outside 16-16384`);
  const numGlyphs = view.getUint16((tables.get('maxp') as Table).offset + 4);
  if (numGlyphs === 0) throw new FontError('the font has no glyphs');
  checkMetrics(view, tables, numGlyphs);

  let needsPadding = false;
  const glyf = tables.get('glyf');
  if (glyf !== undefined) {
    checkLoca(view, tables, numGlyphs, view.getInt16(head.offset + 50));
    needsPadding = glyf.offset + glyf.length + GLYPH_HEADER > bytes.byteLength;
  } else if (!tables.has('CFF ')) {
    // CFF2 (variable OpenType) is neither: fontkit cannot subset it.
    throw new FontError("the font has neither TrueType ('glyf') nor CFF outlines");
  }
  return { numGlyphs, candidates: cmapCandidates(view, tables.get('cmap') as Table, numGlyphs), needsPadding };
}

/** Only plain sfnt data: fontkit would inflate WOFF2 to any size it declares (see above). */
function checkKind(bytes: Uint8Array): void {
  const kind = sfntKind(bytes);
  if (kind === 'truetype' || kind === 'cff') return;
  if (kind === 'woff' || kind === 'woff2') {
    throw new FontError('WOFF and WOFF2 web fonts are not accepted; send the TrueType (.ttf) or OpenType (.otf) font they were made from');
  }
  if (kind === 'collection') throw new FontError('font collections (TTC) are not supported; send a single TrueType or OpenType font');
  throw new FontError('the data is not a TrueType or OpenType font');
}

/** hmtx holds numberOfHMetrics (advance, bearing) pairs, then a bearing for each remaining glyph. */
function checkMetrics(view: DataView, tables: Map<string, Table>, numGlyphs: number): void {
  const metrics = view.getUint16((tables.get('hhea') as Table).offset + 34);
  if (metrics === 0 || metrics > numGlyphs) throw new FontError(`the font's hhea.numberOfHMetrics (${metrics}) does not fit its ${numGlyphs} glyphs`);
  if ((tables.get('hmtx') as Table).length < 4 * metrics + 2 * (numGlyphs - metrics)) throw new FontError("the font's 'hmtx' table is too short for its glyphs");
}

/** Every glyph's loca range must lie inside glyf, in glyph order (loca's rule): fontkit reads whatever bytes an offset points at. */
function checkLoca(view: DataView, tables: Map<string, Table>, numGlyphs: number, format: number): void {
  const loca = tables.get('loca');
  if (loca === undefined) throw new FontError("the font has TrueType outlines ('glyf') but no 'loca' table");
  if (format !== 0 && format !== 1) throw new FontError(`the font's head.indexToLocFormat (${format}) is neither 0 nor 1`);
  const size = format === 0 ? 2 : 4;
  if (loca.length < (numGlyphs + 1) * size) throw new FontError("the font's 'loca' table is too short for its glyphs");
  const glyfLength = (tables.get('glyf') as Table).length;
  let previous = 0;
  for (let i = 0; i <= numGlyphs; i++) {
    const at = loca.offset + i * size;
    const offset = format === 0 ? view.getUint16(at) * 2 : view.getUint32(at);
    const glyph = Math.max(0, i - 1);
    if (offset < previous || offset > glyfLength) throw new FontError(`the font's glyph ${glyph} lies outside its 'glyf' table (a truncated or damaged font?)`);
    // A glyph is empty or starts with a header, which fontkit reads when measuring it.
    if (i > 0 && offset > previous && offset - previous < GLYPH_HEADER) throw new FontError(`the font's glyph ${glyph} is too short to be a glyph`);
    previous = offset;
  }
}

/**
 * Code points the cmap subtables list (formats 0, 4, 6, 12, 13), printable
 * ones first from each range. Format 12 and 13 groups are checked whole:
 * fontkit trusts their counts and glyph ids, and the 32-bit formats are
 * where a few bytes can claim all of Unicode. Subtables fontkit would not
 * read are left alone.
 */
function cmapCandidates(view: DataView, cmap: Table, numGlyphs: number): number[] {
  const end = cmap.offset + cmap.length;
  const count = view.getUint16(cmap.offset + 2);
  if (4 + 8 * count > cmap.length) throw new FontError("the font's 'cmap' table is truncated");
  const candidates: number[] = [];
  const add = (from: number, to: number) => {
    for (let cp = Math.max(from, 0x20); cp <= to && candidates.length < CANDIDATES; cp++) candidates.push(cp);
  };
  for (let i = 0; i < count; i++) {
    const start = cmap.offset + view.getUint32(cmap.offset + 4 + 8 * i + 4);
    if (start + 8 > end) throw new FontError("a subtable of the font's 'cmap' lies outside it");
    const format = view.getUint16(start);
    if (format === 0) {
      add(0, 0xff);
    } else if (format === 4) {
      const segments = view.getUint16(start + 6) / 2;
      if (!Number.isInteger(segments) || start + 16 + 8 * segments > end) throw new FontError("a format 4 subtable of the font's 'cmap' is truncated");
      for (let s = 0; s < segments; s++) {
        const first = view.getUint16(start + 16 + 2 * segments + 2 * s);
        const last = view.getUint16(start + 14 + 2 * s);
        if (first !== 0xffff) add(first, Math.min(last, first + 3));
      }
    } else if (format === 6) {
      const first = view.getUint16(start + 6);
      add(first, first + Math.min(view.getUint16(start + 8), 4) - 1);
    } else if (format === 12 || format === 13) {
      const groups = view.getUint32(start + 12);
      if (start + 16 + 12 * groups > end) throw new FontError(`a format ${format} subtable of the font's 'cmap' is truncated`);
      for (let g = 0; g < groups; g++) {
        const at = start + 16 + 12 * g;
        const first = view.getUint32(at);
        const last = view.getUint32(at + 4);
        const glyph = view.getUint32(at + 8);
        const lastGlyph = format === 12 ? glyph + (last - first) : glyph;
        if (first > last || last > 0x10ffff || lastGlyph >= numGlyphs) {
          throw new FontError(`the font's character map sends U+${first.toString(16).toUpperCase()}-U+${last.toString(16).toUpperCase()} to glyphs it does not have`);
        }
        add(first, Math.min(last, first + 3));
      }
    }
  }
  return candidates;
}
