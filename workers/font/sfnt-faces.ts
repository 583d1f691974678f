// The OpenType container, read just far enough to choose a face and to
// refuse what is not a font before HarfBuzz sees it (OpenType spec, "The
// OpenType font file": https://learn.microsoft.com/typography/opentype/spec/otff).
// HarfBuzz sanitizes every table it reads, so this checks the structure
// only: a signature we know, a table directory inside the data (the shared
// reader, untrusted/sfnt-directory.ts), the tables a subset by code point
// needs.
import { FontError, sfntKind, tableDirectory, viewOf, type Table } from '../untrusted/sfnt-directory.js';

export { FontError, type Table };

/** Collections hold a handful of faces; the bound keeps a forged count from meaning anything. */
export const MAX_FACES = 1024;

/** Tables a subset by code point cannot do without. */
const REQUIRED = ['cmap', 'head', 'maxp'] as const;
/** At least one kind of glyph data: TrueType, CFF, CFF2 (variable), colour bitmaps. */
const GLYPH_TABLES = ['glyf', 'CFF ', 'CFF2', 'CBDT', 'sbix', 'EBDT'] as const;

/** Faces in the data: a collection's count, else 1. Throws FontError (400 invalid-font-data) for what is not an sfnt font. */
export function faceCount(bytes: Uint8Array): number {
  const view = viewOf(bytes);
  if (bytes.byteLength < 12) throw new FontError('the data is too short to be a font');
  if (sfntKind(bytes) !== 'collection') {
    checkKind(bytes, 0);
    return 1;
  }
  const count = view.getUint32(8);
  if (count === 0 || count > MAX_FACES) throw new FontError(`the font collection claims ${count} faces`);
  if (12 + 4 * count > bytes.byteLength) throw new FontError('the font collection header is truncated');
  return count;
}

/** Checks face `index` (already within faceCount) holds together; returns its tables. */
export function checkFace(bytes: Uint8Array, index: number): Map<string, Table> {
  const view = viewOf(bytes);
  const collection = sfntKind(bytes) === 'collection';
  const offset = collection ? view.getUint32(12 + 4 * index) : 0;
  const where = collection ? `face ${index} of the collection` : 'the font';
  if (offset + 12 > bytes.byteLength) throw new FontError(`${where} lies outside the data (a truncated file?)`);
  checkKind(bytes, offset);
  const tables = tableDirectory(bytes, offset, where);
  for (const tag of REQUIRED) {
    if (!tables.has(tag)) throw new FontError(`${where} has no '${tag}' table, which every TrueType or OpenType font needs`);
  }
  if (!GLYPH_TABLES.some((tag) => tables.has(tag))) throw new FontError(`${where} has no glyph data (no 'glyf', 'CFF ' or 'CFF2' table)`);
  if (tables.has('glyf') && !tables.has('loca')) throw new FontError(`${where} has TrueType outlines ('glyf') but no 'loca' table`);
  return tables;
}

export interface SubsetInfo {
  readonly numGlyphs: number;
  readonly tables: ReadonlySet<string>;
}

/** What a subset HarfBuzz wrote holds: its glyph count (maxp) and table tags. */
export function subsetInfo(bytes: Uint8Array): SubsetInfo {
  const view = viewOf(bytes);
  if (bytes.byteLength < 12) throw new FontError('the subsetter produced no font');
  const tables = tableDirectory(bytes, 0, 'the subset');
  const maxp = tables.get('maxp');
  if (maxp === undefined || maxp.length < 6) throw new FontError("the subset has no 'maxp' table");
  return { numGlyphs: view.getUint16(maxp.offset + 4), tables: new Set(tables.keys()) };
}

/** WOFF and WOFF2 are unpacked before this (web-fonts.ts), and collections read face by face. */
function checkKind(bytes: Uint8Array, at: number): void {
  const kind = sfntKind(bytes, at);
  if (kind === 'truetype' || kind === 'cff') return;
  if (kind === 'type1') throw new FontError("PostScript Type 1 fonts in an sfnt wrapper ('typ1') are not supported; send a TrueType or OpenType font");
  throw new FontError('the data is not a TrueType, OpenType, WOFF or WOFF2 font, nor a font collection');
}
