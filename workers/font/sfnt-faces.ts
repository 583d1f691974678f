// The OpenType container, read just far enough to choose a face and to
// refuse what is not a font before HarfBuzz sees it (OpenType spec, "The
// OpenType font file": https://learn.microsoft.com/typography/opentype/spec/otff).
// HarfBuzz sanitizes every table it reads, so this checks the structure
// only: a signature we know, a table directory inside the data, the tables
// a subset by code point needs.

/** The bytes are not a font we can subset: 400 invalid-font-data. */
export class FontDataError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FontDataError';
  }
}

const TRUETYPE = 0x00010000;
const APPLE_TRUE = 0x74727565; // 'true'
const CFF = 0x4f54544f; // 'OTTO'
const COLLECTION = 0x74746366; // 'ttcf'

/** Collections hold a handful of faces; the bound keeps a forged count from meaning anything. */
export const MAX_FACES = 1024;

/** Tables a subset by code point cannot do without. */
const REQUIRED = ['cmap', 'head', 'maxp'] as const;
/** At least one kind of glyph data: TrueType, CFF, CFF2 (variable), colour bitmaps. */
const GLYPH_TABLES = ['glyf', 'CFF ', 'CFF2', 'CBDT', 'sbix', 'EBDT'] as const;

export interface Table {
  readonly offset: number;
  readonly length: number;
}

/** Faces in the data: a collection's count, else 1. Throws FontDataError for what is not an sfnt font. */
export function faceCount(bytes: Uint8Array): number {
  const view = viewOf(bytes);
  if (bytes.byteLength < 12) throw new FontDataError('the data is too short to be a font');
  const signature = view.getUint32(0);
  if (signature !== COLLECTION) {
    checkSignature(signature);
    return 1;
  }
  const count = view.getUint32(8);
  if (count === 0 || count > MAX_FACES) throw new FontDataError(`the font collection claims ${count} faces`);
  if (12 + 4 * count > bytes.byteLength) throw new FontDataError('the font collection header is truncated');
  return count;
}

/** Checks face `index` (already within faceCount) holds together; returns its tables. */
export function checkFace(bytes: Uint8Array, index: number): Map<string, Table> {
  const view = viewOf(bytes);
  const offset = view.getUint32(0) === COLLECTION ? view.getUint32(12 + 4 * index) : 0;
  const where = view.getUint32(0) === COLLECTION ? `face ${index} of the collection` : 'the font';
  if (offset + 12 > bytes.byteLength) throw new FontDataError(`${where} lies outside the data (a truncated file?)`);
  checkSignature(view.getUint32(offset));
  const tables = directory(view, offset, where);
  for (const tag of REQUIRED) {
    if (!tables.has(tag)) throw new FontDataError(`${where} has no '${tag}' table, which every TrueType or OpenType font needs`);
  }
  if (!GLYPH_TABLES.some((tag) => tables.has(tag))) throw new FontDataError(`${where} has no glyph data (no 'glyf', 'CFF ' or 'CFF2' table)`);
  if (tables.has('glyf') && !tables.has('loca')) throw new FontDataError(`${where} has TrueType outlines ('glyf') but no 'loca' table`);
  return tables;
}

export interface SubsetInfo {
  readonly numGlyphs: number;
  readonly tables: ReadonlySet<string>;
}

/** What a subset HarfBuzz wrote holds: its glyph count (maxp) and table tags. */
export function subsetInfo(bytes: Uint8Array): SubsetInfo {
  const view = viewOf(bytes);
  if (bytes.byteLength < 12) throw new FontDataError('the subsetter produced no font');
  const tables = directory(view, 0, 'the subset');
  const maxp = tables.get('maxp');
  if (maxp === undefined || maxp.length < 6) throw new FontDataError("the subset has no 'maxp' table");
  return { numGlyphs: view.getUint16(maxp.offset + 4), tables: new Set(tables.keys()) };
}

function checkSignature(signature: number): void {
  if (signature === TRUETYPE || signature === APPLE_TRUE || signature === CFF) return;
  if (signature === 0x74797031) throw new FontDataError("PostScript Type 1 fonts in an sfnt wrapper ('typ1') are not supported; send a TrueType or OpenType font");
  throw new FontDataError('the data is not a TrueType, OpenType, WOFF or WOFF2 font, nor a font collection');
}

function directory(view: DataView, at: number, where: string): Map<string, Table> {
  const count = view.getUint16(at + 4);
  if (count === 0 || at + 12 + 16 * count > view.byteLength) throw new FontDataError(`the table directory of ${where} is empty or truncated`);
  const tables = new Map<string, Table>();
  for (let i = 0; i < count; i++) {
    const record = at + 12 + 16 * i;
    const tag = String.fromCharCode(view.getUint8(record), view.getUint8(record + 1), view.getUint8(record + 2), view.getUint8(record + 3));
    const offset = view.getUint32(record + 8);
    const length = view.getUint32(record + 12);
    if (offset + length > view.byteLength) throw new FontDataError(`the '${printable(tag)}' table of ${where} runs past the end of the data (a truncated file?)`);
    if (length > 0) tables.set(tag, { offset, length });
  }
  return tables;
}

function viewOf(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function printable(tag: string): string {
  return tag.replace(/[^\x20-\x7e]/g, '?');
}
